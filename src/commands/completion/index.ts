import { Argument, type Command } from 'commander';
import { action, examples } from '../shared.js';

export function registerCompletion(program: Command): void {
  examples(
    program
      .command('completion')
      .description('print a shell completion script (bash, zsh or fish)')
      .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
      .action(action(() => import('./run.js'), 'completion')),
    [
      'source <(notevox completion bash)',
      'notevox completion zsh > "${fpath[1]}/_notevox"',
      'notevox completion fish > ~/.config/fish/completions/notevox.fish',
    ],
  );
}
