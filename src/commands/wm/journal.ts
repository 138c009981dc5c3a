import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The resume journal of `wm import`: which batches of a file the service has confirmed. One file per import
 * (file content, scope, target, base URL, key id, batch size and column layout), in JSON lines: a header, then one
 * line per confirmed batch, appended with a single write as soon as the batch is confirmed (a killed process
 * loses nothing that was confirmed). A rerun skips the confirmed batches; a complete run removes the file.
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

  /** Record a confirmed batch; the header is written before the first one. */
  record(r: BatchRecord): void {
    this.confirmed.set(r.batch, r);
    if (this.fd === undefined) {
      mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
      const fresh = this.confirmed.size === 1;
      this.fd = openSync(this.path, fresh ? 'w' : 'a', 0o600);
      if (fresh) writeSync(this.fd, JSON.stringify({ version: VERSION, key: this.key, startedAt: new Date().toISOString() }) + '\n');
      else if (this.torn) writeSync(this.fd, '\n');
    }
    writeSync(this.fd, JSON.stringify(r) + '\n');
  }

  /** Forget every confirmed batch (--restart). */
  reset(): void {
    this.close();
    this.confirmed.clear();
    rmSync(this.path, { force: true });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The import is complete: the journal is no longer needed. */
  remove(): void {
    this.reset();
  }
}
