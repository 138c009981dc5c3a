/** File-system errors in words: what the user sees when a file, a directory or an output cannot be written. */

import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CliError, EXIT } from '../errors.js';

const CODE_WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'a file is in the way',
  EPIPE: 'the reader went away',
  EBADF: 'bad file descriptor',
};

/** `ENOSPC (no space left on the device)`, or the error's message when it has no code. */
export function describeFsError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const code = typeof err?.code === 'string' ? err.code : undefined;
  if (!code) return err instanceof Error ? err.message : String(e);
  const words = CODE_WORDS[code];
  return words ? `${code} (${words})` : code;
}

/** Errors of a device that ran out of room or failed while writing: the output was cut short (exit 11). */
const OUTPUT_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'EPIPE']);

/**
 * The error for a file that could not be written: `cannot write WHAT: ENOSPC (no space left on the device)`. A full
 * disk or a failing device ends with exit 11 (output failed); anything else (a missing directory, no permission, a
 * read-only file system) is a bad path, exit 2.
 */
export function cannotWrite(what: string, e: unknown, hint?: string): CliError {
  const code = (e as NodeJS.ErrnoException)?.code;
  const output = typeof code === 'string' && OUTPUT_CODES.has(code);
  return new CliError(`cannot write ${what}: ${describeFsError(e)}`, {
    exitCode: output ? EXIT.OUTPUT_FAILED : EXIT.USAGE,
    hint: hint ?? (output ? 'Free some space on that disk, or write somewhere else.' : 'Check the path and its permissions.'),
    cause: e,
  });
}

/**
 * `mkdir -p` that fails with the real reason: Node reports a recursive mkdir that fails on a missing level as
 * ENOENT whatever the cause (a read-only file system, no permission), which reads like a bug. The levels are then
 * made one by one, and the first failure is thrown.
 */
export function makeDirectory(dir: string, mode = 0o700): void {
  try {
    mkdirSync(dir, { recursive: true, mode });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    const missing: string[] = [];
    for (let d = dir; !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.unshift(d);
    for (const d of missing) mkdirSync(d, { mode });
    throw e;
  }
}
