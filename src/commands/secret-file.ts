import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';

/**
 * A secret read from a file (one line; surrounding whitespace dropped) or, without a file, from an environment
 * variable: never from the command line. Undefined when neither is set. Errors name the file or variable, never
 * the value.
 */
export async function readSecret(o: { file?: string; flag: string; env: NodeJS.ProcessEnv; envName: string; what: string }): Promise<string | undefined> {
  let value: string | undefined;
  let source: string;
  if (o.file !== undefined) {
    source = `${o.flag} ${o.file}`;
    try {
      value = (await readFile(o.file, 'utf8')).trim();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot read the ${o.what} from ${o.file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (e as Error).message)}`, `Write the ${o.what} on one line to ${o.file}, or set ${o.envName}.`);
    }
  } else {
    source = o.envName;
    value = o.env[o.envName]?.trim();
    if (value === undefined || value === '') return undefined;
  }
  if (value === '') throw new UsageError(`the ${o.what} file ${o.file} is empty`, `Write the ${o.what} on one line to it, or set ${o.envName}.`);
  if (/\s/.test(value)) throw new UsageError(`the ${o.what} from ${source} has spaces or line breaks inside`, `Put the ${o.what} alone on one line.`);
  return value;
}
