import { CommanderError, type Command } from '@commander-js/extra-typings';
import { usageMessage } from './commands/args.js';
import type { ExplainedError } from './client/errors.js';
import type { ContextFactory } from './commands/registry.js';
import { EXIT } from './errors.js';
import type { IOStreams } from './io/iostreams.js';
import { buildProgram, unknownCommandInHelp, type CommandIndex } from './program.js';

/**
 * main's commander path (cli.ts): the command tree built (from the build's index, only what the command line needs),
 * the command line parsed and the action run. Imported only when the fast path (fast-path.ts) does not take the
 * command line, so that commander and the commands' definitions load only then. Returns the exit code; an error of
 * the command's work is thrown for main to report.
 */
export async function runProgram(
  argv: string[],
  o: { io: IOStreams; context: ContextFactory; named: Set<string>; index: CommandIndex | undefined; printError: (e: ExplainedError) => void },
): Promise<number> {
  const { io } = o;
  const { program, exitCode } = buildProgram({ context: o.context, wants: (group) => o.named.has(group), index: o.index, argv });
  const override = (cmd: Command<any, any, any>) => {
    cmd.exitOverride();
    cmd.configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      // Usage errors are printed below, like every other error (and as the JSON object with -o json).
      outputError: () => undefined,
    });
    cmd.commands.forEach(override);
  };
  override(program);

  try {
    const unknown = unknownCommandInHelp(program, argv);
    if (unknown) throw unknown;
    await program.parseAsync(argv, { from: 'user' });
    return exitCode();
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.OK;
      // A value refused by an argument parser (commands/args.ts) carries its hint on the lines after the first.
      const { message, hint } = usageMessage(err.message);
      o.printError({ exitCode: EXIT.USAGE, message, hint: hint ?? 'Run the command with --help for usage.' });
      return EXIT.USAGE;
    }
    throw err;
  }
}
