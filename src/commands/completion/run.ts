import type { Context } from '../types.js';

export async function completion(ctx: Context, shell: 'bash' | 'zsh' | 'fish'): Promise<void> {
  const { buildProgram } = await import('../../cli.js');
  const { generateCompletion } = await import('../../completion/generate.js');
  ctx.io.out(generateCompletion(buildProgram(), shell));
}
