import { Command, CommanderError, Option } from 'commander';
import { registerCommands } from './commands/index.js';
import { examples, registerOnlyGroups, setContextFactory, takeExitCode } from './commands/shared.js';
import { openConfig } from './config/store.js';
import { createContext } from './context.js';
import { EXIT, EXIT_CODE_DOCS } from './errors.js';
import { applyColorToEnvironment, createIOStreams, stdoutErrorMessage, type IOStreams } from './io/iostreams.js';
import { paint } from './io/text.js';
import { VERSION } from './version.js';
import type { ExplainedError } from './client/errors.js';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;

/**
 * The whole command tree (registration only: no command work is imported here), or with `wanted` only the sub-commands of the groups it accepts (main(): the groups
 * named on the command line; a command line names its group, so nothing it can reach is missing).
 */
/** `<name>`, `[name]`, `<name...>`: how commander shows an argument. */
function argumentTerm(arg: { name(): string; required: boolean; variadic: boolean }): string {
  const name = arg.name() + (arg.variadic ? '...' : '');
  return arg.required ? `<${name}>` : `[${name}]`;
}

export function buildProgram(wanted?: (group: string) => boolean): Command {
  const program = new Command('notevox')
    .description('Command-line tool for the Note and Voice File Service, with a local sandbox of the whole API')
    .version(`notevox ${VERSION}`, '-V, --version', 'print the version')
    .addOption(new Option('--profile <name>', 'use this stored profile (env NOTEVOX_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'API base URL (env NOTEVOX_BASE_URL)'))
    .addOption(new Option('-o, --output <format>', 'output format (voice upload, wait and transcript also take text and srt)').choices([...OUTPUT_FORMATS, 'text', 'srt']))
    .option('--json', 'same as -o json')
    .option('--fields <list>', 'comma-separated fields (dotted paths) to show')
    .option('--query <jmespath>', 'filter the JSON output with a JMESPath expression')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default 30)')
    .option('--max-retries <n>', 'retries for failed requests that are safe to repeat (default 3)')
    .option('--debug', 'trace HTTP requests to stderr (env NOTEVOX_DEBUG=api); the key is never shown')
    .option('--no-color', 'disable colour (also NO_COLOR=1 or TERM=dumb)')
    .option('--no-input', 'never prompt; fail with exit code 10 when input is needed')
    .helpCommand(false)
    // Sub-commands listed by name and arguments, without "[options]" (as gh and cargo do; their own usage line
    // says it): the longest term then leaves commander room to wrap the descriptions at 80 columns.
    .configureHelp({ subcommandTerm: (cmd) => [cmd.name(), ...cmd.registeredArguments.map(argumentTerm)].join(' ') });
  program.addHelpText(
    'after',
    `
Examples:
  $ notevox sandbox start         # a local emulator of the whole service
  $ notevox auth login --base-url http://127.0.0.1:4010
  $ notevox notes list --limit 10
  $ notevox notes get <guid> --json
  $ notevox help exit-codes

Docs: docs/ in the repository and in the installed package (where that is:
notevox --version --verbose). Exit codes: notevox help exit-codes.`,
  );
  if (wanted) registerOnlyGroups(program, wanted);
  registerCommands(program);
  const help = program
    .command('help [command...]')
    .description('show help for a command, or a topic: exit-codes')
    .action((words: string[]) => {
      if (words.join(' ') === 'exit-codes') {
        process.stdout.write(exitCodesText());
        return;
      }
      let cmd: Command = program;
      for (const w of words) {
        const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
        if (!sub) throw new CommanderError(EXIT.USAGE, 'notevox.unknownHelp', `error: unknown command or topic "${words.join(' ')}"`);
        cmd = sub;
      }
      cmd.outputHelp();
    });
  examples(help, ['notevox help notes list', 'notevox help exit-codes']);
  return program;
}

export function exitCodesText(): string {
  return 'Exit codes:\n' + EXIT_CODE_DOCS.map(([code, text]) => `  ${String(code).padStart(3)}  ${text}`).join('\n') + '\n';
}

/** The user's settings (output, color, …); a broken config file is reported by the commands that need it. */
function readSettingsQuietly(env: NodeJS.ProcessEnv): Record<string, string> {
  try {
    return openConfig(env).listSettings();
  } catch {
    return {};
  }
}

function flagValue(argv: string[], names: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    for (const n of names) {
      if (a === n) return argv[i + 1];
      if (a.startsWith(n + '=')) return a.slice(n.length + 1);
    }
  }
  return undefined;
}

function wantsJsonErrors(argv: string[], settings: Record<string, string>): boolean {
  if (argv.includes('--json')) return true;
  const o = flagValue(argv, ['-o', '--output']) ?? settings.output;
  return o === 'json' || o === 'ndjson';
}

/** An error on stderr: `error:` and `hint:` lines (`error:` left out when commander printed it), or with -o json one object. */
function printError(io: IOStreams, e: ExplainedError, json: boolean, messageShown = false): void {
  if (json) {
    io.err(JSON.stringify({ error: { exitCode: e.exitCode, errorType: e.errorType ?? null, code: e.code ?? null, message: e.message, hint: e.hint ?? null } }) + '\n');
    return;
  }
  if (!messageShown) io.err(`${paint(io.color, 'red', 'error:')} ${e.message}\n`);
  if (e.hint) io.err(`${paint(io.color, 'dim', 'hint:')} ${e.hint}\n`);
}

async function reportError(io: IOStreams, err: unknown, json: boolean, debug: boolean): Promise<number> {
  const { explainError } = await import('./client/errors.js');
  const e = explainError(err);
  printError(io, e, json);
  if (debug && e.exitCode === EXIT.UNEXPECTED && err instanceof Error && err.stack) io.err(err.stack + '\n');
  return e.exitCode;
}

/** Run the CLI; returns the exit code (never calls process.exit itself). */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const settings = readSettingsQuietly(env);
  const colorSetting = settings.color === 'always' || settings.color === 'never' ? settings.color : undefined;
  const jsonErrors = wantsJsonErrors(argv, settings);
  const debug = argv.includes('--debug');

  const controller = new AbortController();
  const cleanups = new Set<() => Promise<void> | void>();
  const disposers = new Set<() => Promise<void> | void>();
  let interrupted = false;
  let selfManaged = false;
  /** Stop the command: run its cleanups (partial files go) and connection closers, then exit with `code`. */
  const stop = async (code: number, last: () => void) => {
    controller.abort();
    for (const fn of [...cleanups, ...disposers].reverse()) {
      try {
        await Promise.race([fn(), new Promise((r) => setTimeout(r, 5000))]);
      } catch {}
    }
    last();
    process.exit(code);
  };
  const onSigint = async () => {
    if (interrupted) process.exit(EXIT.INTERRUPTED);
    interrupted = true;
    if (selfManaged) return controller.abort();
    await stop(EXIT.INTERRUPTED, () => io.err('interrupted\n'));
  };
  // Standard output failed (`| head` went away, `> /dev/full`): the output is incomplete, so the command stops.
  const onStdoutError = (e: NodeJS.ErrnoException) =>
    void stop(EXIT.OUTPUT_FAILED, () => printError(io, { exitCode: EXIT.OUTPUT_FAILED, message: stdoutErrorMessage(e) }, jsonErrors));
  const io = createIOStreams({ noColor: argv.includes('--no-color'), noInput: argv.includes('--no-input'), env, colorSetting, onStdoutError });
  applyColorToEnvironment(io.color, { terminals: io.isStdoutTTY && io.isStderrTTY });
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);

  setContextFactory((globals) =>
    createContext({
      io,
      env,
      globals,
      settings,
      signal: controller.signal,
      onInterrupt: (fn) => {
        cleanups.add(fn);
        return () => cleanups.delete(fn);
      },
      onDispose: (fn) => disposers.add(fn),
      takeOverInterrupt: () => {
        selfManaged = true;
      },
    }),
  );

  const named = new Set(argv);
  const program = buildProgram((group) => named.has(group));
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      // With -o json a usage error is the same JSON object on stderr as every other error.
      outputError: (s, write) => (jsonErrors ? undefined : write(s)),
    });
    cmd.commands.forEach(override);
  };
  override(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return takeExitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.OK;
      const message = err.message.replace(/^error:\s*/, '').trim();
      // commander has printed its own usage errors (not with -o json); our unknown help topic it has not.
      printError(io, { exitCode: EXIT.USAGE, message, hint: 'Run the command with --help for usage.' }, jsonErrors, err.code !== 'notevox.unknownHelp');
      return EXIT.USAGE;
    }
    return reportError(io, err, jsonErrors, debug);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    for (const fn of disposers) {
      try {
        await fn();
      } catch {}
    }
  }
}
