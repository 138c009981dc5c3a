import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Files that appear only complete: written to a temporary file beside the target (same directory, so the rename is
 * atomic), which takes the target's name on commit and is removed on discard. Readers never see half a file, and an
 * interrupted or failed write leaves the target as it was.
 */
export interface AtomicFile {
  /** The temporary file's descriptor: write with writeSync, or hand to a stream opened with `autoClose: false`. */
  readonly fd: number;
  readonly tmpPath: string;
  /** Close (after an fsync when asked), then rename over the target. */
  commit(opts?: { sync?: boolean }): void;
  /** Close and remove the temporary file; the target is untouched. Safe to call twice, or after a commit. */
  discard(): void;
}

/** Opens the temporary file at once, so that a bad path fails before any work; the fs error is thrown as is. */
export function openAtomicFile(path: string, mode = 0o644): AtomicFile {
  const target = resolve(path);
  // Hidden, unique, and marked twice as temporary (`.tmp-…` and `….tmp`) for anyone cleaning up by hand.
  const tmpPath = join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined = openSync(tmpPath, 'wx', mode);
  let done = false;
  const close = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  return {
    fd,
    tmpPath,
    commit(opts = {}) {
      if (opts.sync && fd !== undefined) fsyncSync(fd);
      close();
      renameSync(tmpPath, target);
      done = true;
    },
    discard() {
      if (done) return;
      done = true;
      try {
        close();
      } finally {
        rmSync(tmpPath, { force: true });
      }
    },
  };
}

/** Write `content` as the whole of `path`, atomically (see openAtomicFile). */
export function writeFileAtomic(path: string, content: string | Uint8Array, opts: { mode?: number; sync?: boolean } = {}): void {
  const file = openAtomicFile(path, opts.mode);
  try {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    for (let at = 0; at < bytes.length; ) at += writeSync(file.fd, bytes, at);
    file.commit({ sync: opts.sync });
  } catch (e) {
    file.discard();
    throw e;
  }
}
