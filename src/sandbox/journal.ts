import { closeSync, existsSync, fdatasync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writev } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import type { Database, SqlValue } from 'sql.js';
import { UsageError } from '../errors.js';
import { openAtomicFile } from '../io/atomic-file.js';

/**
 * The write-ahead journal of a sandbox state file (`--state FILE`): every committed change, as the statements
 * that made it, appended to `FILE.journal` and synced before the request that made it is answered. The state
 * file itself is a snapshot: it holds every journal generation below its `journal_generation` (state_meta).
 * When the journal grows, it is renamed `FILE.journal.old`, a new one is started, and a worker thread folds
 * the old one into a new snapshot (load, replay, export, atomic rename) while the sandbox keeps answering;
 * at start-up and on a clean shutdown the journal is folded in at once.
 *
 * File layout: a 16-byte header (`NVXJRNL1`, generation u32 LE, 4 zero bytes), then records of
 * [payload length u32 LE][CRC-32 of the payload u32 LE][payload]. A payload is the JSON
 * `[definitions, statements]`: definitions `[[n, sql], …]` name the statement texts first used in this file,
 * statements `[[n, params], …]` run in order in one transaction. Parameters are what was bound: an array, or
 * an object keyed `$name`; a blob is `{"b": base64}`, a non-finite number `{"f": "Infinity"}`. Replay stops
 * at the first record that is incomplete or fails its checksum (a write cut short by a crash: never answered).
 */

export const JOURNAL_MAGIC = 'NVXJRNL1';
export const JOURNAL_HEADER_BYTES = 16;
/** The journal is compacted into the snapshot when it exceeds this many bytes, or a quarter of the snapshot if that is more. */
export const COMPACT_MIN_BYTES = 8 * 1024 * 1024;
/** After a failed compaction, the next attempt waits this long. */
const COMPACT_RETRY_MS = 30_000;

export type BoundParams = SqlValue[] | Record<string, SqlValue>;
/** One statement as it ran: its text and the values bound to it. */
export type JournalStatement = [sql: string, params: BoundParams | undefined];

export const journalFiles = (stateFile: string) => ({ current: `${stateFile}.journal`, old: `${stateFile}.journal.old` });

export function journalHeader(generation: number): Buffer {
  const header = Buffer.alloc(JOURNAL_HEADER_BYTES);
  header.write(JOURNAL_MAGIC, 0, 'latin1');
  header.writeUInt32LE(generation, 8);
  return header;
}

/** The generation of a journal file's bytes, or an error naming what is wrong. */
export function readJournalHeader(bytes: Uint8Array, file: string): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < JOURNAL_HEADER_BYTES || buf.toString('latin1', 0, 8) !== JOURNAL_MAGIC)
    throw new UsageError(`${file} is not a notevox sandbox journal`, 'remove it, or pass another --state file');
  return buf.readUInt32LE(8);
}

/**
 * Apply a journal's records (the bytes after its header) to a database, each in its own transaction. Returns
 * how many records applied and where the valid part ends. Self-contained (it uses only its arguments and Node's
 * built-ins), because the compaction worker runs its source text too.
 */
export function replayJournal(db: Database, records: Uint8Array, file: string): { records: number; end: number } {
  const zlib = process.getBuiltinModule('node:zlib') as typeof import('node:zlib');
  const buf = Buffer.from(records.buffer, records.byteOffset, records.byteLength);
  const texts = new Map<number, string>();
  const prepared = new Map<number, import('sql.js').Statement>();
  const decode = (v: unknown): SqlValue => {
    if (v === null || typeof v !== 'object') return v as SqlValue;
    const o = v as { b?: string; f?: string };
    return o.b !== undefined ? new Uint8Array(Buffer.from(o.b, 'base64')) : Number(o.f);
  };
  let at = 0;
  let count = 0;
  try {
    while (at + 8 <= buf.length) {
      const length = buf.readUInt32LE(at);
      const sum = buf.readUInt32LE(at + 4);
      if (at + 8 + length > buf.length) break;
      const payload = buf.subarray(at + 8, at + 8 + length);
      if (zlib.crc32(payload) !== sum) break;
      const [defs, statements] = JSON.parse(payload.toString('utf8')) as [Array<[number, string]>, Array<[number, unknown]>];
      for (const [n, text] of defs) texts.set(n, text);
      db.exec('BEGIN');
      try {
        for (const [n, params] of statements) {
          let stmt = prepared.get(n);
          if (!stmt) {
            const text = texts.get(n);
            if (text === undefined) throw new Error(`statement ${n} is not defined`);
            stmt = db.prepare(text);
            prepared.set(n, stmt);
          }
          if (Array.isArray(params)) stmt.bind(params.map(decode));
          else if (params !== null && params !== undefined)
            stmt.bind(Object.fromEntries(Object.entries(params as Record<string, unknown>).map(([k, v]) => [k, decode(v)])));
          try {
            while (stmt.step()) {
              // drain
            }
          } finally {
            stmt.reset();
          }
        }
        db.exec('COMMIT');
      } catch (e) {
        db.exec('ROLLBACK');
        throw new Error(`the journal ${file} does not apply to its state file (record ${count + 1}): ${(e as Error).message}`, { cause: e });
      }
      count++;
      at += 8 + length;
    }
  } finally {
    for (const stmt of prepared.values()) stmt.free();
  }
  return { records: count, end: at };
}

export interface CompactJob {
  /** Resolved paths of sql.js and its wasm file. */
  sqlJs: string;
  wasm: string;
  stateFile: string;
  /** The journal to fold in; its generation is `generation - 1`. */
  journalFile: string;
  /** The generation the new snapshot starts at. */
  generation: number;
}

/**
 * The compaction worker's body: state file + old journal → new state file. Self-contained like replayJournal,
 * whose source it is given as `replaySource`.
 */
export async function compactInWorker(job: CompactJob & { replaySource: string }): Promise<{ bytes: number; skipped: boolean }> {
  const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs');
  const path = process.getBuiltinModule('node:path') as typeof import('node:path');
  const { createRequire } = process.getBuiltinModule('node:module') as typeof import('node:module');
  const initSqlJs = createRequire(job.sqlJs)(job.sqlJs) as typeof import('sql.js');
  const replay = new Function('__name', `return (${job.replaySource})`)((fn: unknown) => fn) as typeof replayJournal;
  const SQL = await initSqlJs({ locateFile: () => job.wasm });
  const db = new SQL.Database(fs.readFileSync(job.stateFile));
  try {
    db.exec('PRAGMA foreign_keys = ON; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY');
    const row = db.exec("SELECT value FROM state_meta WHERE key = 'journal_generation'")[0];
    const base = Number(row?.values[0]?.[0] ?? 0);
    // Already folded in (a snapshot written since): nothing to do.
    if (base >= job.generation) return { bytes: 0, skipped: true };
    const bytes = fs.readFileSync(job.journalFile);
    const generation = bytes.readUInt32LE(8);
    if (bytes.toString('latin1', 0, 8) !== 'NVXJRNL1' || generation !== job.generation - 1 || base !== generation)
      throw new Error(`${job.journalFile} (generation ${generation}) does not continue ${job.stateFile} (generation ${base})`);
    replay(db, bytes.subarray(16), job.journalFile);
    db.exec(`INSERT OR REPLACE INTO state_meta (key, value) VALUES ('journal_generation', ${job.generation})`);
    const out = db.export();
    const tmp = path.join(path.dirname(job.stateFile), `.${path.basename(job.stateFile)}.tmp-${process.pid}-compact.tmp`);
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      // Synced as it goes, so that the disk never holds much of it unwritten: an fsync of the journal by the
      // main thread meanwhile would wait for all of it.
      const CHUNK = 8 * 1024 * 1024;
      for (let at = 0; at < out.length; ) {
        const end = Math.min(out.length, at + CHUNK);
        while (at < end) at += fs.writeSync(fd, out, at, end - at);
        fs.fdatasyncSync(fd);
      }
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, job.stateFile);
    const dir = fs.openSync(path.dirname(job.stateFile), 'r');
    try {
      fs.fsyncSync(dir);
    } finally {
      fs.closeSync(dir);
    }
    return { bytes: out.length, skipped: false };
  } finally {
    db.close();
  }
}

/** Run a compaction on a worker thread. */
export function runCompaction(job: CompactJob): Promise<{ bytes: number; skipped: boolean }> {
  // The functions' source as compiled; esbuild's keepNames (tsx) wraps functions in __name(), given here.
  // Neither require nor import: the code runs as CommonJS or as a module, as the process was started.
  const source = `const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
var __name = (fn, name) => { try { Object.defineProperty(fn, 'name', { value: name, configurable: true }); } catch {} return fn; };
(${compactInWorker.toString()})(workerData).then((r) => parentPort.postMessage({ ok: r }), (e) => parentPort.postMessage({ error: String(e && e.stack || e) }));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, execArgv: [], workerData: { ...job, replaySource: replayJournal.toString() } });
    worker.unref();
    let settled = false;
    worker.once('message', (m: { ok?: { bytes: number; skipped: boolean }; error?: string }) => {
      settled = true;
      if (m.ok) resolve(m.ok);
      else reject(new Error(`compaction failed: ${m.error}`));
    });
    worker.once('error', (e) => {
      settled = true;
      reject(e);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`compaction worker exited with code ${code}`));
    });
  });
}

/** fsync a directory, so that a rename or a new file in it survives a crash of the machine. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function syncDirAsync(dir: string): Promise<void> {
  const fd = await open(dir, 'r');
  try {
    await fd.sync();
  } finally {
    await fd.close();
  }
}

/** Create (or replace) an empty journal of `generation`, atomically. */
export function createJournal(file: string, generation: number): void {
  const tmp = openAtomicFile(file, 0o600);
  try {
    const header = journalHeader(generation);
    tmp.writeSync(header);
    tmp.commit({ sync: true });
  } catch (e) {
    tmp.discard();
    throw e;
  }
  syncDir(dirname(file));
}


const writevAsync = (fd: number, buffers: Buffer[], position: number) =>
  new Promise<number>((resolve, reject) => writev(fd, buffers, position, (e, n) => (e ? reject(e) : resolve(n))));
const fdatasyncAsync = (fd: number) => new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));

function encodeValue(v: SqlValue): unknown {
  if (v instanceof Uint8Array) return { b: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
  if (typeof v === 'number' && !Number.isFinite(v)) return { f: String(v) };
  return v;
}
const needsEncoding = (v: SqlValue) => v instanceof Uint8Array || (typeof v === 'number' && !Number.isFinite(v));

function encodeParams(params: BoundParams | undefined): unknown {
  if (params === undefined) return null;
  if (Array.isArray(params)) return params.some(needsEncoding) ? params.map(encodeValue) : params;
  const values = Object.values(params);
  return values.some(needsEncoding) ? Object.fromEntries(Object.entries(params).map(([k, v]) => [k, encodeValue(v)])) : params;
}

export interface JournalWriterOptions {
  stateFile: string;
  /** The generation of the current journal file (already created). */
  generation: number;
  /** Size of the snapshot, for the compaction threshold. */
  snapshotBytes: number;
  /** A fixed compaction threshold instead of the default. */
  compactBytes?: number;
  sqlJs: string;
  wasm: string;
  /** Failures of background work (compaction); requests see write failures themselves. */
  onError?: (e: Error) => void;
}

/**
 * Appends committed transactions to the journal with group commit: records queue in memory as they commit,
 * one writer appends and syncs whatever has queued, and `flush()` resolves once everything committed before
 * it is on disk. Writing never blocks the event loop (fs callbacks run on libuv's pool).
 */
export class JournalWriter {
  generation: number;
  private readonly files: { current: string; old: string };
  private fd: number;
  private size: number;
  private snapshotBytes: number;
  private defs = new Map<string, number>();
  private queue: JournalStatement[][] = [];
  private committed = 0;
  private durable = 0;
  private waiters: Array<{ upTo: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private draining: Promise<void> | null = null;
  private compaction: Promise<void> | null = null;
  private retryCompactionAt = 0;
  private closed = false;

  constructor(private readonly opts: JournalWriterOptions) {
    this.files = journalFiles(opts.stateFile);
    this.generation = opts.generation;
    this.snapshotBytes = opts.snapshotBytes;
    this.fd = openSync(this.files.current, 'r+');
    this.size = statSync(this.files.current).size;
  }

  /** Queue a committed transaction. */
  append(record: JournalStatement[]): void {
    if (this.closed) throw new Error('the sandbox journal is closed');
    this.queue.push(record);
    this.committed++;
    this.drainSoon();
  }

  /** Resolves when every transaction appended so far is on disk; rejects if writing it failed. */
  flush(): Promise<void> {
    if (this.durable >= this.committed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ upTo: this.committed, resolve, reject });
      this.drainSoon();
    });
  }

  /** Flush, wait for a running compaction, and release the file. The caller then folds the journal into a snapshot. */
  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
      await this.compaction;
    } finally {
      this.closed = true;
      closeSync(this.fd);
    }
  }

  private drainSoon(): void {
    if (this.draining) return;
    this.draining = this.drain().finally(() => {
      this.draining = null;
      // Records queued after the last write started, by a writer that then failed, wait for the next flush().
      if (this.queue.length && this.waiters.length) this.drainSoon();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const records = this.queue;
      this.queue = [];
      const upTo = this.committed;
      const added: string[] = [];
      const buffers = records.map((r) => this.encode(r, added));
      const bytes = buffers.reduce((n, b) => n + b.length, 0);
      try {
        for (let done = 0; done < bytes; ) {
          const rest = done === 0 ? buffers : [Buffer.concat(buffers).subarray(done)];
          done += await writevAsync(this.fd, rest, this.size + done);
        }
        await fdatasyncAsync(this.fd);
      } catch (e) {
        // Nothing of this batch counts: it is written again, at the same place, by the next attempt.
        for (const text of added) this.defs.delete(text);
        this.queue = records.concat(this.queue);
        const err = new Error(`cannot write the sandbox journal ${this.files.current}: ${(e as Error).message}`, { cause: e });
        const failed = this.waiters;
        this.waiters = [];
        for (const w of failed) w.reject(err);
        return;
      }
      this.size += bytes;
      this.durable = upTo;
      const ready = this.waiters.filter((w) => w.upTo <= upTo);
      this.waiters = this.waiters.filter((w) => w.upTo > upTo);
      for (const w of ready) w.resolve();
      await this.maybeCompact();
    }
  }

  private encode(record: JournalStatement[], added: string[]): Buffer {
    const defs: Array<[number, string]> = [];
    const statements = record.map(([text, params]) => {
      let n = this.defs.get(text);
      if (n === undefined) {
        n = this.defs.size + 1;
        this.defs.set(text, n);
        added.push(text);
        defs.push([n, text]);
      }
      return [n, encodeParams(params)];
    });
    const payload = Buffer.from(JSON.stringify([defs, statements]));
    const frame = Buffer.allocUnsafe(8);
    frame.writeUInt32LE(payload.length, 0);
    frame.writeUInt32LE(crc32(payload), 4);
    return Buffer.concat([frame, payload]);
  }

  /**
   * Rotate and fold the old journal into the snapshot on a worker, when the journal has grown enough. Runs in
   * the writer's loop (no append meanwhile); every file operation is asynchronous, because an fsync can wait
   * seconds for other dirty data of the disk (a snapshot being written) and must not stall the answers.
   */
  private async maybeCompact(): Promise<void> {
    if (this.compaction || this.closed) return;
    if (existsSync(this.files.old)) {
      // A compaction that failed earlier: try it again now and then.
      if (Date.now() >= this.retryCompactionAt) this.startCompaction();
      return;
    }
    if (this.size < (this.opts.compactBytes ?? Math.max(COMPACT_MIN_BYTES, this.snapshotBytes / 4))) return;
    // The new journal exists, complete and synced, before the old one is renamed away: after a crash at any
    // point, `current` is a whole journal and `old` (if any) the one before it.
    const next = `${this.files.current}.next`;
    let fd: FileHandle | undefined;
    try {
      fd = await open(next, 'w', 0o600);
      await fd.writeFile(journalHeader(this.generation + 1));
      await fd.sync();
      await fd.close();
      fd = undefined;
      await rename(this.files.current, this.files.old);
      await rename(next, this.files.current);
    } catch (e) {
      await fd?.close().catch(() => undefined);
      this.opts.onError?.(new Error(`cannot start a new sandbox journal: ${(e as Error).message}`, { cause: e }));
      if (existsSync(this.files.old) && !existsSync(this.files.current)) renameSync(this.files.old, this.files.current);
      return;
    }
    // Both renames are done: from here on the new journal is the one written to, whatever the directory's sync
    // says (a failed sync is reported; the renames then reach the disk with the file system's next commit).
    await syncDirAsync(dirname(this.files.current)).catch((e: Error) => this.opts.onError?.(new Error(`cannot sync the directory of the sandbox journal: ${e.message}`, { cause: e })));
    const previous = this.fd;
    this.fd = openSync(this.files.current, 'r+');
    closeSync(previous);
    this.size = JOURNAL_HEADER_BYTES;
    this.defs = new Map();
    this.generation++;
    this.startCompaction();
  }

  private startCompaction(): void {
    const job: CompactJob = { sqlJs: this.opts.sqlJs, wasm: this.opts.wasm, stateFile: this.opts.stateFile, journalFile: this.files.old, generation: this.generation };
    this.compaction = runCompaction(job)
      .then(async (r) => {
        await rm(this.files.old, { force: true });
        if (!r.skipped) this.snapshotBytes = r.bytes;
      })
      .catch((e: Error) => {
        this.retryCompactionAt = Date.now() + COMPACT_RETRY_MS;
        this.opts.onError?.(new Error(`could not fold ${basename(this.files.old)} into ${basename(this.opts.stateFile)} (retried later; nothing is lost): ${e.message}`, { cause: e }));
      })
      .finally(() => {
        this.compaction = null;
      });
  }
}

/** Read the journals of a state file that continue its snapshot, in order; those older than it are skipped. */
export function readJournals(stateFile: string, snapshotGeneration: number): { files: Array<{ file: string; generation: number; bytes: Buffer }>; next: number } {
  const { current, old } = journalFiles(stateFile);
  const files: Array<{ file: string; generation: number; bytes: Buffer }> = [];
  let expect = snapshotGeneration;
  for (const file of [old, current]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new UsageError(`cannot read the sandbox journal ${file}: ${(e as Error).message}`);
    }
    const generation = readJournalHeader(bytes, file);
    if (generation < expect) continue; // already in the snapshot
    if (generation > expect)
      throw new UsageError(
        `${file} (generation ${generation}) does not continue the state file ${stateFile} (generation ${snapshotGeneration})`,
        `remove ${basename(file)} to start from the state file alone, losing the changes it holds`,
      );
    files.push({ file, generation, bytes });
    expect++;
  }
  return { files, next: expect };
}

export function journalsExist(stateFile: string): boolean {
  const { current, old } = journalFiles(stateFile);
  return existsSync(current) || existsSync(old);
}

export function removeJournals(stateFile: string): void {
  const { current, old } = journalFiles(stateFile);
  rmSync(old, { force: true });
  rmSync(current, { force: true });
  rmSync(`${current}.next`, { force: true });
}
