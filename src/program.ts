import { Command, CommanderError, Option } from '@commander-js/extra-typings';
import { registerCommands, REGISTRATIONS } from './commands/index.js';
import { acceptsOutput } from './completion/values.js';
import { createRegistry, type ContextFactory } from './commands/registry.js';
import { examples, examplesOf, insteadOfWord } from './commands/shared.js';
import { EXIT, EXIT_CODE_DOCS, UsageError } from './errors.js';
import { didYouMean } from './suggest.js';
import { OUTPUT_FORMATS, ROOT_OUTPUT_CHOICES } from './io/formats.js';
import { VERSION } from './version.js';

/**
 * The command tree, built in one place for main (cli.ts), the completion scripts and the docs. Registration only:
 * no command's work is imported here.
 */

/** The root command with the options every command accepts (their types are the context's GlobalOptions). */
export const root = () =>
  new Command('notevox')
    .description('Command-line tool for the Note and Voice File Service, with a local sandbox of the whole API')
    .version(`notevox ${VERSION}`, '-V, --version', 'print the version')
    .addOption(new Option('--profile <name>', 'use this stored profile (env NOTEVOX_PROFILE)'))
    .addOption(new Option('--base-url <url>', 'API base URL (env NOTEVOX_BASE_URL)'))
    .addOption(new Option('-o, --output <format>', 'output format (voice upload, wait and transcript also take text and srt)').choices(ROOT_OUTPUT_CHOICES))
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

/** `<name>`, `[name]`, `<name...>`: how commander shows an argument. */
function argumentTerm(arg: { name(): string; required: boolean; variadic: boolean }): string {
  const name = arg.name() + (arg.variadic ? '...' : '');
  return arg.required ? `<${name}>` : `[${name}]`;
}

export interface ProgramOptions {
  /** The context of each command; without one (docs, completions) no action can run. */
  context?: ContextFactory;
  /** Register the sub-commands of these groups only (main: the groups named on the command line); the top-level help is the same. */
  wants?: (group: string) => boolean;
  /**
   * The command index the build wrote (commandIndex): with it, when the command line names a top-level command,
   * only the registration that adds it runs (main: `notes get` builds the root, `notes` and its verbs, not every
   * group's definitions); otherwise, and without an index, every registration runs.
   */
  index?: CommandIndex;
  /** The command line the program will parse (with `index`). */
  argv?: readonly string[];
  /** Told of every command the registry adds (commandIndex). */
  added?: (parent: Command<any, any, any>, cmd: Command<any, any, any>) => void;
}

/** The build's index of the command tree (commandIndex), keyed by command path below the root (`notes documents`). */
export interface CommandIndex {
  /** Which registration (src/commands/index.ts) adds each top-level command, by name and alias. */
  commands: Record<string, number>;
  /** The names (name and aliases) of every sub-command, by the path of its group. */
  children: Record<string, string[]>;
  /** The names (name and aliases) of the commands each group's registration adds through the registry, in order. */
  adds: Record<string, string[][]>;
}

/** `notes documents` for `notevox notes documents`; '' for the root. */
const pathBelowRoot = (cmd: Command<any, any, any>): string => (cmd.parent ? [pathBelowRoot(cmd.parent), cmd.name()].filter(Boolean).join(' ') : '');
const namesOf = (cmd: Command<any, any, any>) => [cmd.name(), ...cmd.aliases()];

/** For the build (dist/command-index.json): the index of the command tree (CommandIndex). */
export function commandIndex(): CommandIndex {
  const commands: Record<string, number> = {};
  for (let i = 0; i < REGISTRATIONS; i++) {
    const program = root();
    registerCommands(program as unknown as Command, createRegistry({ context: noContext, wholeProgram: () => program }), (j) => j === i);
    for (const cmd of program.commands) {
      for (const name of namesOf(cmd)) {
        if (Object.hasOwn(commands, name)) throw new Error(`command index: ${name} is added by registrations ${commands[name]} and ${i}`);
        commands[name] = i;
      }
    }
  }
  const adds: Record<string, string[][]> = {};
  const { program } = buildProgram({ added: (parent, cmd) => (adds[pathBelowRoot(parent)] ??= []).push(namesOf(cmd)) });
  const children: Record<string, string[]> = {};
  const walk = (cmd: Command<any, any, any>) => {
    if (cmd.commands.length) children[pathBelowRoot(cmd)] = cmd.commands.flatMap(namesOf);
    cmd.commands.forEach(walk);
  };
  walk(program);
  return { commands, children, adds };
}

/**
 * The leading operands of `argv` (`notes`, `get`, `<guid>` …) past the root's options and their values, as far as
 * that is certain: the list stops at `--`, an option the root does not have, short flags run together, or an
 * option whose value is optional.
 */
export function leadingOperands(program: Command<any, any, any>, argv: readonly string[]): string[] {
  const operands: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-') || a === '-') {
      operands.push(a);
      continue;
    }
    if (a === '--') break;
    const long = a.startsWith('--');
    const eq = long ? a.indexOf('=') : -1;
    const flag = long ? (eq > 0 ? a.slice(0, eq) : a) : a.slice(0, 2);
    const opt = program.options.find((o) => o.long === flag || o.short === flag);
    if (!opt) break;
    const attached = long ? eq > 0 : a.length > 2;
    if (!opt.required && !opt.optional) {
      if (attached) break;
      continue;
    }
    if (attached) continue;
    if (!opt.required || i + 1 >= argv.length) break;
    i++;
  }
  return operands;
}

/** The first of leadingOperands, if any. */
export function firstOperand(program: Command<any, any, any>, argv: readonly string[]): string | undefined {
  return leadingOperands(program, argv)[0];
}

const noContext: ContextFactory = () => {
  throw new Error('this program was built without a context (docs, completions): its commands cannot run');
};

export function exitCodesText(): string {
  return 'Exit codes:\n' + EXIT_CODE_DOCS.map(([code, text]) => `  ${String(code).padStart(3)}  ${text}`).join('\n') + '\n';
}

/** Every command that has sub-commands and no work of its own, the deepest first (so a group sees its groups' examples). */
function forEachGroup(cmd: Command<any, any, any>, fn: (group: Command<any, any, any>) => void): void {
  for (const sub of cmd.commands) forEachGroup(sub, fn);
  if (cmd.commands.length && !(cmd as unknown as { _actionHandler?: unknown })._actionHandler) fn(cmd);
}

const commandPath = (cmd: Command<any, any, any>): string => (cmd.parent ? `${commandPath(cmd.parent)} ${cmd.name()}` : cmd.name());

/** The usage error for `word` named as a sub-command of `group`, which has none by that name (exit 2). */
export function unknownCommand(group: Command<any, any, any>, word: string): UsageError {
  const instead = insteadOfWord(group, word);
  const names = group.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).flatMap((c) => [c.name(), ...c.aliases()]);
  const hint = instead ? `Use \`${instead}\`.` : didYouMean(word, names);
  return new UsageError(`unknown command '${word}'${group.parent ? ` for '${commandPath(group)}'` : ''}`, hint ?? `Run \`${commandPath(group)} --help\` for its commands.`);
}

/**
 * `notevox nosuch --help`: commander prints the help of the last command it knows (the root's) and succeeds; a help
 * request naming a command that does not exist is a usage error instead. The leading words of `argv` are followed
 * down the tree; the first that names no sub-command of a group is reported.
 */
export function unknownCommandInHelp(program: Command<any, any, any>, argv: string[]): UsageError | undefined {
  if (!argv.includes('--help') && !argv.includes('-h')) return undefined;
  let cmd = program;
  for (const word of argv) {
    // An option, or commander's own `help` sub-command of a group: commander decides.
    if (word.startsWith('-') || word === 'help') return undefined;
    if (!cmd.commands.length || (cmd as unknown as { _actionHandler?: unknown })._actionHandler) return undefined;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return unknownCommand(cmd, word);
    cmd = sub;
  }
  return undefined;
}

/** The whole command tree, for what describes it (completions, docs, the help files of the build); its commands cannot run. */
export const commandTree = (): Command => buildProgram().program;

/** The whole command tree, or with `wants` only the sub-commands of the groups it accepts; `exitCode()` after a parse is what the action asked for. */
export function buildProgram(o: ProgramOptions = {}): { program: Command; exitCode(): number } {
  const program = root();
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
  acceptsOutput(program, OUTPUT_FORMATS);
  const index = o.index;
  const operands = index && o.argv ? leadingOperands(program, o.argv) : [];
  /**
   * With the index, a command of a group is not made when the command line names another sub-command of that group
   * (`notes get`: not `notes list`, `notes rename` …): the group's path must be the leading operands, and the
   * operand after it one of the group's sub-commands (otherwise, as for a typo or the group's own help, all are made).
   */
  const skip = (parent: Command<any, any, any>, position: number): boolean => {
    // Not the root's own commands (api, mcp): they are counted per registration, of which main runs one anyway.
    if (!index || !parent.parent) return false;
    const path = pathBelowRoot(parent);
    const words = path.split(' ');
    const apart = words.findIndex((w, i) => operands[i] !== w);
    if (apart >= 0) {
      // The command line leaves this group's path (`notes get` and the group `notes documents`): its commands are
      // not made when the word there names another sub-command of the group above.
      const above = words.slice(0, apart).join(' ');
      return apart > 0 && operands[apart] !== undefined && Object.hasOwn(index.children, above) && index.children[above].includes(operands[apart]);
    }
    if (operands.length <= words.length) return false;
    const wanted = operands[words.length];
    if (!Object.hasOwn(index.children, path) || !index.children[path].includes(wanted)) return false;
    const names = Object.hasOwn(index.adds, path) ? index.adds[path][position] : undefined;
    return names !== undefined && !names.includes(wanted);
  };
  const registry = createRegistry({ context: o.context ?? noContext, wants: o.wants, wholeProgram: () => buildProgram({ context: o.context }).program, skip, added: o.added });
  const named = operands[0];
  const only = index && named !== undefined && Object.hasOwn(index.commands, named) ? index.commands[named] : undefined;
  registerCommands(program, registry, only === undefined ? undefined : (i) => i === only);
  forEachGroup(program, (group) => {
    // A mistyped sub-command: "Did you mean …?", or the command that does what the word asks (insteadOf).
    group.on('command:*', (operands: string[]) => {
      throw unknownCommand(group, operands[0]);
    });
    // A group does nothing itself; its examples are the first of each of its commands.
    if (group !== program && examplesOf(group).length === 0) {
      const lines = group.commands.map((c) => examplesOf(c)[0]).filter((l): l is string => l !== undefined);
      if (lines.length) examples(group, lines.slice(0, 6));
    }
  });
  const help = program
    .command('help')
    .argument('[command...]')
    .description('show help for a command, or a topic: exit-codes')
    .action(
      registry.run(async (ctx, words: string[]) => {
        if (words.join(' ') === 'exit-codes') return ctx.io.out(exitCodesText());
        let cmd: Command<any, any, any> = program;
        for (const w of words) {
          const sub = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w));
          if (!sub) {
            const near = didYouMean(w, [...cmd.commands.filter((c) => c.name() !== 'help').map((c) => c.name()), ...(cmd === program ? ['exit-codes'] : [])]);
            throw new CommanderError(EXIT.USAGE, 'notevox.unknownHelp', `error: unknown command or topic "${words.join(' ')}"${near ? `\n(${near})` : ''}`);
          }
          cmd = sub;
        }
        cmd.outputHelp();
      }),
    );
  examples(help, ['notevox help notes list', 'notevox help exit-codes']);
  return { program: program as unknown as Command, exitCode: registry.exitCode };
}
