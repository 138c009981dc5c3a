import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import { bashCompletion } from './bash.js';
import { fishCompletion } from './fish.js';
import { buildModel, type CompletionModel } from './model.js';
import { zshCompletion } from './zsh.js';


export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const GENERATORS: Record<Shell, (model: CompletionModel) => string> = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion };

/** The file each shell's script is checked in as (under completions/). */
export const COMPLETION_FILES: Record<Shell, string> = { bash: 'notevox.bash', zsh: '_notevox', fish: 'notevox.fish' };

/**
 * A completion script for `shell` covering every visible command of `program` at any depth, their
 * options (with fixed choices), positional choices and the root's global options. Deterministic.
 */
export function generateCompletion(program: Command, shell: Shell): string {
  const generate = GENERATORS[shell];
  if (!generate) throw new Error(`unsupported shell "${shell}" (expected ${SHELLS.join(', ')})`);
  return generate(buildModel(program));
}
