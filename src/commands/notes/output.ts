import { dirname, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { writeDataFile } from '../../io/data-file.js';
import { cannotWrite } from '../../io/fs-errors.js';
import type { Context } from '../types.js';

/** Text that notes commands print or write with --out: documents, summaries, exports. */

/** --out: the directory must exist, checked before any request. */
export async function checkOut(file: string | undefined): Promise<void> {
  if (file === undefined) return;
  const dir = dirname(resolve(file));
  const { stat } = await import('node:fs/promises'); // only with --out: fs/promises brings a dozen modules
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new UsageError(`--out "${file}": directory ${dir} does not exist`, 'Create the directory first or pick another path.');
}

/** Send text to --out (atomically, saying so on stderr) or to stdout. */
export async function emitText(ctx: Context, text: string, out: string | undefined, what: string): Promise<void> {
  const body = text.endsWith('\n') ? text : text + '\n';
  if (out === undefined) return ctx.io.out(body);
  try {
    writeDataFile(ctx.io, out, body);
  } catch (e) {
    throw cannotWrite(out, e);
  }
  ctx.io.success(`Wrote ${what} to ${out} (${Buffer.byteLength(body)} bytes).`);
}
