import { Command } from '@commander-js/extra-typings';
import type { Registry } from '../registry.js';
import { examples } from '../shared.js';

/** `notevox commands`: the command tree as data (run.ts), from the registry that --help reads. */
export function registerTree(program: Command, r: Registry): void {
  const cmd = new Command('commands').description('list every command; with --json the whole tree (arguments, flags with types, choices and defaults, examples, exit codes, read-only or not) for agents and scripts');
  program.addCommand(cmd);
  examples(cmd, ['notevox commands', 'notevox commands --json', "notevox commands --json --query 'commands[?readOnly==`false`].path'"]);
  // The tree is the whole program's, not the part main registered for this command line.
  cmd.action(
    r.run(async (ctx) => {
      const { printTree } = await import('./run.js');
      await printTree(ctx, r.wholeProgram());
    }),
  );
}
