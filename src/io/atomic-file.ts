import { closeSync, fsyncSync, openSync, renameSync, rmSync, write, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Files that appear only complete: written to a temporary file beside the target (same directory, so the rename is
 * atomic), which takes the target's name on commit and is removed on discard. Readers never see half a file, and an
 * interrupted or failed write leaves the target as it was, and no temporary file behind.
 *
 * The AtomicFile is the one owner of its descriptor: it alone closes it, exactly once (hand it to no stream that
 * could close it too: Node's WriteStream closes its fd on destroy() even with `autoClose: false`, and a second
 * close fails with EBADF, or closes an unrelated file that reused the number). Write with `write` or `writeSync`.
 */
export interface AtomicFile {
  readonly tmpPath: string;
  /** Append `data` (asynchronously, all of it); a failure rejects with the file system's error (ENOSPC, EIO…). */
  write(data: string | Uint8Array): Promise<void>;
  /** Append `data` synchronously. */
  writeSync(data: string | Uint8Array): void;
  /** Close (after an fsync when asked), then rename over the target. On failure the temporary file is removed. */
  commit(opts?: { sync?: boolean }): void;
  /** Close and remove the temporary file; the target is untouched. Safe to call twice, or after a commit. */
  discard(): void;
}

const toBytes = (data: string | Uint8Array) => (typeof data === 'string' ? Buffer.from(data) : data);

/** Opens the temporary file at once, so that a bad path fails before any work; the fs error is thrown as is. */
export function openAtomicFile(path: string, mode = 0o644): AtomicFile {
  const target = resolve(path);
  // Hidden, unique, and marked twice as temporary (`.tmp-…` and `….tmp`) for anyone cleaning up by hand.
  // (Math.random, not node:crypto: the config store writes through here, and crypto would load at every start.
  // Uniqueness needs no more: the name carries the pid, and `wx` refuses an existing file.)
  const tmpPath = join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`);
  let fd: number | undefined = openSync(tmpPath, 'wx', mode);
  let settled = false;
  /** The descriptor while the file is open; EBADF (from here, not from the OS) after it was closed. */
  const open = (): number => {
    if (fd === undefined) throw Object.assign(new Error(`${tmpPath} is closed`), { code: 'EBADF' });
    return fd;
  };
  /** Forget the descriptor before closing it: a close that fails is never tried again on the same number. */
  const closeOnce = () => {
    const f = fd;
    fd = undefined;
    if (f !== undefined) closeSync(f);
  };
  const file: AtomicFile = {
    tmpPath,
    write(data) {
      const bytes = toBytes(data);
      return new Promise<void>((resolveWrite, reject) => {
        const from = (at: number) => {
          if (at >= bytes.length) return resolveWrite();
          let f: number;
          try {
            f = open();
          } catch (e) {
            return reject(e);
          }
          write(f, bytes, at, bytes.length - at, null, (err, n) => (err ? reject(err) : from(at + n)));
        };
        from(0);
      });
    },
    writeSync(data) {
      const bytes = toBytes(data);
      for (let at = 0; at < bytes.length; ) at += writeSync(open(), bytes, at);
    },
    commit(opts = {}) {
      if (settled) throw new Error(`${tmpPath} was already committed or discarded`);
      try {
        if (opts.sync) fsyncSync(open());
        closeOnce();
        renameSync(tmpPath, target);
        settled = true;
      } catch (e) {
        file.discard();
        throw e;
      }
    },
    discard() {
      if (settled) return;
      settled = true;
      try {
        closeOnce();
      } catch {
        // the file is being thrown away: a failing close (the data would not have fitted anyway) changes nothing
      } finally {
        rmSync(tmpPath, { force: true });
      }
    },
  };
  return file;
}

/** Write `content` as the whole of `path`, atomically (see openAtomicFile). */
export function writeFileAtomic(path: string, content: string | Uint8Array, opts: { mode?: number; sync?: boolean } = {}): void {
  const file = openAtomicFile(path, opts.mode);
  try {
    file.writeSync(content);
    file.commit({ sync: opts.sync });
  } catch (e) {
    file.discard();
    throw e;
  }
}
