import { Argument, Command } from '@commander-js/extra-typings';
import type { Registry } from '../registry.js';
import { examples } from '../shared.js';

export function registerCompletion(program: Command, r: Registry): void {
  const completion = new Command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish'] as const));
  program.addCommand(completion);
  examples(completion, ['source <(notevox completion bash)', 'notevox completion zsh > "${fpath[1]}/_notevox"', 'notevox completion fish > ~/.config/fish/completions/notevox.fish']);
  // The script describes the whole tree, not the part main registered for this command line.
  completion.action(
    r.run(async (ctx, shell: 'bash' | 'zsh' | 'fish') => {
      const { generateCompletion } = await import('../../completion/generate.js');
      ctx.io.out(generateCompletion(r.wholeProgram(), shell));
    }),
  );
}
