import type { ClientOptions } from './client/client.js';
import type { ExplainedError } from './client/errors.js';
import { openConfig } from './config/store.js';
import { createContext } from './context.js';
import { EXIT } from './errors.js';
import { applyColorToEnvironment, createIOStreams, stdoutErrorMessage, type IOStreams } from './io/iostreams.js';
import { isJsonFormat } from './io/output.js';
import type { Prompter } from './io/prompter.js';
import type { Clock } from './timing.js';
import { paint } from './io/text.js';
import type { CommandIndex } from './program.js';
import { parseFast, runFast } from './fast-path.js';
import { readFileSync } from 'node:fs';

/** For the build, which writes the help files and the command index from the bundle's own command tree (scripts/build.mjs). */
export const buildTime = () => import('./program.js');
// The launcher's choice for one-shot commands (bin/notevox.js).
export { preferBaselineWasm } from './wasm-tier.js';

/** What main runs on: the process's own by default; tests pass memory streams, an environment, prompts and a transport. */
export interface MainDeps {
  env?: NodeJS.ProcessEnv;
  /** The terminal (default: the process's streams, decided by createIOStreams from `env` and the flags). */
  io?: (o: {
    noColor: boolean;
    noInput: boolean;
    env: NodeJS.ProcessEnv;
    colorSetting?: 'always' | 'never';
    onStdoutError: (e: NodeJS.ErrnoException) => void;
    onStdoutClosed: () => void;
  }) => IOStreams;
  /** Answers prompts instead of the terminal. */
  prompter?: Prompter;
  /** Settings of every API client (tests: a dispatcher that reaches a sandbox in the same process). */
  client?: Partial<ClientOptions>;
  /** The commands' clock (default: the wall clock). */
  clock?: Clock;
  /** Which registration adds each top-level command (default: the build's dist/command-index.json; null: none, every group is registered). */
  commandIndex?: CommandIndex | null;
}

/** dist/command-index.json for the module at `moduleUrl` in dist/: dist/cli.js or a chunk in dist/chunks/, wherever the build puts this code. */
export const commandIndexFile = (moduleUrl: string): URL => new URL(moduleUrl.includes('/chunks/') ? '../command-index.json' : './command-index.json', moduleUrl);

/**
 * The build's command index (scripts/build.mjs writes dist/command-index.json beside the chunks, from commandIndex),
 * so that a command registers only its own group; none in src/ (tests), where every group is registered.
 */
function builtCommandIndex(): CommandIndex | undefined {
  try {
    return JSON.parse(readFileSync(commandIndexFile(import.meta.url), 'utf8')) as CommandIndex;
  } catch {
    return undefined;
  }
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
      // a short flag with its value attached (`-ojson`), as the parser reads it
      if (n.length === 2 && n[1] !== '-' && a.startsWith(n)) return a.slice(2);
    }
  }
  return undefined;
}

/** Errors as JSON when JSON output is asked for (read from argv: a usage error comes before the parse). */
function wantsJsonErrors(argv: string[], settings: Record<string, string>): boolean {
  return argv.includes('--json') || isJsonFormat(flagValue(argv, ['-o', '--output']) ?? settings.output);
}

/** An error on stderr: `error:` and `hint:` lines, or with -o json one object. */
function printError(io: IOStreams, e: ExplainedError, json: boolean): void {
  if (json) {
    io.err(JSON.stringify({ error: { exitCode: e.exitCode, errorType: e.errorType ?? null, code: e.code ?? null, message: e.message, hint: e.hint ?? null } }) + '\n');
    return;
  }
  io.err(`${paint(io.color, 'red', 'error:')} ${e.message}\n`);
  if (e.hint) io.err(`${paint(io.color, 'dim', 'hint:')} ${e.hint}\n`);
}

async function reportError(io: IOStreams, err: unknown, json: boolean, debug: boolean): Promise<number> {
  const { explainError } = await import('./client/errors.js');
  const e = explainError(err);
  printError(io, e, json);
  if (debug && e.exitCode === EXIT.UNEXPECTED && err instanceof Error && err.stack) io.err(err.stack + '\n');
  return e.exitCode;
}

/** Run the CLI; returns the exit code (calls process.exit only on a second Ctrl-C). */
export async function main(argv: string[], deps: MainDeps = {}): Promise<number> {
  const env = deps.env ?? process.env;
  const settings = readSettingsQuietly(env);
  const colorSetting: 'always' | 'never' | undefined = settings.color === 'always' || settings.color === 'never' ? settings.color : undefined;
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
  // Standard output failed (`> /dev/full`): the output is incomplete, so the command stops with exit 11.
  const onStdoutError = (e: NodeJS.ErrnoException) =>
    void stop(EXIT.OUTPUT_FAILED, () => printError(io, { exitCode: EXIT.OUTPUT_FAILED, message: stdoutErrorMessage(e) }, jsonErrors));
  // The reader went away (`| head -1`): it has what it wanted, so the command stops quietly (cleanups run) with 0.
  const onStdoutClosed = () => void stop(EXIT.OK, () => {});
  const streams = { noColor: argv.includes('--no-color'), noInput: argv.includes('--no-input'), env, colorSetting, onStdoutError, onStdoutClosed };
  const io = deps.io ? deps.io(streams) : createIOStreams(streams);
  applyColorToEnvironment(io.color, { terminals: io.isStdoutTTY && io.isStderrTTY, env });
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);

  const context = (globals: Parameters<typeof createContext>[0]['globals']) =>
    createContext({
      io,
      env,
      globals,
      settings,
      prompter: deps.prompter,
      client: deps.client,
      clock: deps.clock,
      signal: controller.signal,
      onInterrupt: (fn) => {
        cleanups.add(fn);
        return () => cleanups.delete(fn);
      },
      onDispose: (fn) => disposers.add(fn),
      takeOverInterrupt: () => {
        selfManaged = true;
      },
    });

  try {
    // A plain command line of a data command runs without commander (fast-path.ts); anything else is commander's.
    const fast = parseFast(argv);
    if (fast) return await runFast(fast, context);
    const { runProgram } = await import('./cli-program.js');
    const index = deps.commandIndex === undefined ? builtCommandIndex() : (deps.commandIndex ?? undefined);
    return await runProgram(argv, { io, context, named: new Set(argv), index, printError: (e) => printError(io, e, jsonErrors) });
  } catch (err) {
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
