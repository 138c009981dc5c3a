import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { describeFsError, makeDirectory } from '../../io/fs-errors.js';

/**
 * The resume journal of `wm import`: which batches of a file the service has confirmed. One file per import
 * (file content, scope, target, base URL, key id, batch size and column layout), in JSON lines: a header, then one
 * line per confirmed batch, appended with a single write as soon as the batch is confirmed (a killed process
 * loses nothing that was confirmed). A rerun skips the confirmed batches; a complete run removes the file.
 *
 * Whether the journal can be written is checked before the first request (`check`): a read-only or full cache
 * directory stops the import with exit 2 before anything is sent. Should a write fail later (the disk fills up
 * during the run), the confirmed batches are still counted as imported: the journal stops recording (`broken`)
 * and the import goes on without the ability to resume.
 */

export interface JournalKey {
  sha256: string;
  scope: string;
  target: string;
  baseUrl: string;
  keyId: string;
  batchSize: number;
  columns: string;
}

export interface BatchRecord {
  batch: number;
  created: number;
  present: number;
}

const VERSION = 1;

/** NOTEVOX_CACHE_DIR, else $XDG_CACHE_HOME/notevox, else ~/.cache/notevox (%LOCALAPPDATA%\notevox on Windows). */
export function cacheDir(env: NodeJS.ProcessEnv): string {
  if (env.NOTEVOX_CACHE_DIR) return resolve(env.NOTEVOX_CACHE_DIR);
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && xdg.startsWith('/') ? xdg : process.platform === 'win32' && env.LOCALAPPDATA ? env.LOCALAPPDATA : join(env.HOME || homedir(), '.cache');
  return join(base, 'notevox');
}

export function journalPath(env: NodeJS.ProcessEnv, key: JournalKey): string {
  const id = createHash('sha256').update(JSON.stringify([VERSION, key.sha256, key.scope, key.target, key.baseUrl, key.keyId, key.batchSize, key.columns])).digest('hex');
  return join(cacheDir(env), 'wm-journal', `${id.slice(0, 40)}.jsonl`);
}

export class Journal {
  /** Batches confirmed by earlier runs (and this one). */
  readonly confirmed = new Map<number, BatchRecord>();
  private fd: number | undefined;
  /** The file ends in a torn line: start the next record on a new line. */
  private torn = false;
  /** Why recording stopped (a failed write); the batches are still held in `confirmed`. */
  broken: Error | undefined;

  private constructor(
    readonly path: string,
    private readonly key: JournalKey,
  ) {}

  /** The journal of `key`, with what earlier runs confirmed (a torn last line is ignored). */
  static load(env: NodeJS.ProcessEnv, key: JournalKey): Journal {
    const j = new Journal(journalPath(env, key), key);
    let text = '';
    try {
      text = readFileSync(j.path, 'utf8');
    } catch {
      return j;
    }
    j.torn = text !== '' && !text.endsWith('\n');
    const [head, ...rest] = text.split('\n');
    try {
      const h = JSON.parse(head) as { version?: number; key?: JournalKey };
      if (h.version !== VERSION || JSON.stringify(h.key) !== JSON.stringify(key)) return j;
    } catch {
      return j;
    }
    for (const line of rest) {
      try {
        const r = JSON.parse(line) as BatchRecord;
        if (Number.isInteger(r.batch)) j.confirmed.set(r.batch, r);
      } catch {
        // an incomplete last line: that batch is sent again (creating is idempotent)
      }
    }
    return j;
  }

  private header(): string {
    return JSON.stringify({ version: VERSION, key: this.key, startedAt: new Date().toISOString() }) + '\n';
  }

  /**
   * Before the first request: can the journal's directory be written (created, a file made and a header's worth of
   * bytes written)? A UsageError (exit 2) naming the directory and NOTEVOX_CACHE_DIR otherwise. Leaves no file.
   */
  check(): void {
    const dir = dirname(this.path);
    const probe = join(dir, `.probe-${process.pid}-${randomBytes(4).toString('hex')}`);
    let fd: number | undefined;
    try {
      makeDirectory(dir);
      fd = openSync(probe, 'wx', 0o600);
      writeSync(fd, this.header());
    } catch (e) {
      throw new UsageError(
        `cannot write the resume journal in ${dir}: ${describeFsError(e)}; nothing was sent`,
        'wm import records each confirmed batch there, so that a stopped import can resume: free some space or make the directory writable, or set NOTEVOX_CACHE_DIR to a writable directory.',
      );
    } finally {
      if (fd !== undefined) closeQuietly(fd);
      if (fd !== undefined) rmSync(probe, { force: true });
    }
  }

  /**
   * Record a confirmed batch; the header is written before the first one. A write that fails does not throw: the
   * batch stays confirmed, recording stops, and the error is kept in `broken` (returned the first time).
   */
  record(r: BatchRecord): Error | undefined {
    this.confirmed.set(r.batch, r);
    if (this.broken) return undefined;
    try {
      if (this.fd === undefined) {
        makeDirectory(dirname(this.path));
        const fresh = this.confirmed.size === 1;
        this.fd = openSync(this.path, fresh ? 'w' : 'a', 0o600);
        if (fresh) writeSync(this.fd, this.header());
        else if (this.torn) writeSync(this.fd, '\n');
      }
      writeSync(this.fd, JSON.stringify(r) + '\n');
      return undefined;
    } catch (e) {
      this.broken = e as Error;
      this.close();
      return this.broken;
    }
  }

  /** Forget every confirmed batch (--restart). */
  reset(): void {
    this.close();
    this.confirmed.clear();
    rmSync(this.path, { force: true });
  }

  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeQuietly(fd);
  }

  /** The import is complete: the journal is no longer needed. A file that cannot be removed is returned, not thrown. */
  remove(): Error | undefined {
    try {
      this.reset();
      return undefined;
    } catch (e) {
      return e as Error;
    }
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // the data was written (or its failure reported) already; a close error adds nothing
  }
}
