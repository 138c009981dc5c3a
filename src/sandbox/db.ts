import { chmodSync, constants, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { UsageError } from '../errors.js';
import { APPLICATION_ID, BOOLEAN_COLUMNS, JSON_COLUMNS, MIGRATIONS, SCHEMA_VERSION, TEMP_SCHEMA, type TableName } from './schema.sql.js';
import { isOldStateFile, convertOldStateFile } from './old-state.js';
import { nodeSqlite } from './sqlite.js';

/**
 * The sandbox's state store: node:sqlite, the SQLite inside Node.js. With `--state FILE`, FILE is an ordinary
 * SQLite database opened in place (WAL): every change is in it when the statement returns, and `sqlite3 FILE`
 * shows the current state. Without one the store is in memory, or, when it starts from an image (the demo seed,
 * a cached seed), that file opened read-only until the first change of the state, which first makes a private copy
 * of it in a temporary directory (removed on close) and goes on there: a start on a big cached seed does not wait
 * for copying it, and the image itself is never written.
 */

/**
 * Statement parameters: positional (`?`) as an array, or named as an object. Object keys may carry the
 * prefix (`$name`, `:name`, `@name`) or not (`name` binds whichever of those the statement uses); keys the
 * statement does not use are ignored, names no key fills bind NULL.
 * Values: booleans bind as 0/1, `undefined` as NULL, Dates as ISO text, plain objects and arrays as JSON text.
 */
export type Params = readonly unknown[] | Record<string, unknown>;

export interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

export interface Db {
  /** Every row of a query, as objects keyed by column name. */
  all<T = Record<string, unknown>>(sql: string, params?: Params): T[];
  /** The first row, or undefined. */
  get<T = Record<string, unknown>>(sql: string, params?: Params): T | undefined;
  /** A statement that changes data. */
  run(sql: string, params?: Params): RunResult;
  /**
   * A bulk load (the seed): runs `fn` in one transaction, where `prepare(sql)` gives a changing statement for
   * many rows: prepared once, each call binds the values in order (as `run` binds them) and runs it. The
   * secondary indexes are dropped first and built again after the rows, but those named in `keep`, which the rows
   * update as they go in. Only these statements may run inside `fn`.
   */
  bulk<T>(fn: (prepare: (sql: string) => (values: readonly unknown[]) => void) => T, keep?: readonly string[]): T;
  /**
   * Drop the secondary indexes (of `table`, or of every table) but those named in `keep`, as bulk() does before its
   * rows; their SQL, to build them again. For a load in more than one step (bulk() and a copy after it) whose indexes
   * are to be built once, after the last: bulk() then finds them gone and leaves them so.
   */
  dropIndexes(keep: readonly string[], table?: string): string[];
  /** Run `fn` in a transaction (savepoints when nested): committed when it returns, rolled back when it throws. `fn` must be synchronous. */
  tx<T>(fn: () => T): T;
  /** The whole database as SQLite file bytes. */
  export(): Uint8Array;
  /** Write the whole database to `file` (VACUUM INTO: a compact copy; the file must not exist). */
  saveTo(file: string): void;
  /** Resolves once every change committed so far is on disk: at once, since a commit is durable when it returns. */
  flush(): Promise<void>;
  /** How many changes of the state have been committed (a request that changed nothing need not wait for flush()). */
  readonly commits: number;
  /**
   * Changes whenever the state may differ from what was read before: a row of it changed (committed or not), a
   * transaction rolled back, a bulk load ran. What is derived from the state can be kept while it stays the same.
   */
  readonly dataVersion: number;
  /**
   * Record a request in `request_log` (in memory, never in the state file). Rows are kept in order and inserted
   * together, REQUEST_LOG_BATCH at a time or before any statement that names request_log runs (so a read sees
   * every request recorded before it): a request does not pay a statement of its own. Every
   * REQUEST_LOG_PRUNE_EVERY rows, the rows older than the newest REQUEST_LOG_KEEP go.
   */
  logRequest(row: RequestLogRow): void;
  /** Release the database (a state file is checkpointed; a private copy removed). Further calls throw. */
  close(): Promise<void>;
}

/** A row of `request_log`: `at` in epoch milliseconds (stored as ISO text). */
export interface RequestLogRow {
  at: number;
  keyId: string | null;
  method: string;
  path: string;
  status: number;
}

/** Rows of `request_log` kept (older ones are pruned every REQUEST_LOG_PRUNE_EVERY requests). */
export const REQUEST_LOG_KEEP = 10_000;
const REQUEST_LOG_PRUNE_EVERY = 1000;
/** Rows of logRequest kept in memory before they are inserted, when nothing reads request_log before. */
const REQUEST_LOG_BATCH = 256;

export interface OpenOptions {
  /** Where state lives between runs. Without it the store is in memory (or a private temporary copy of `image`). */
  stateFile?: string;
  /** Notices (the conversion of a state file of the old format). */
  log?: (line: string) => void;
  /** Work on the opened store (loading a seed); `fromImage`: it was copied from `image`. */
  init?: (db: Db, opened: { fromImage: boolean }) => void | Promise<void>;
  /** A SQLite file (its path, or its bytes) to start from when there is no state yet, instead of empty. */
  image?: string | Uint8Array;
}

/**
 * SQL functions for the handlers' queries, where SQLite's own would differ from what the API does in
 * JavaScript (SQLite's lower() folds ASCII only).
 */
const SQL_FUNCTIONS: Record<string, (...args: any[]) => SQLInputValue> = {
  /** How often `needle` (already lower-cased) occurs in `text`, case-insensitively, counted as String#split does. */
  nvx_occurrences: (text: unknown, needle: unknown) => (text === null ? 0 : String(text).toLowerCase().split(String(needle)).length - 1),
  /** String#toLowerCase. */
  nvx_lower: (text: unknown) => (text === null ? null : String(text).toLowerCase()),
};

/** Prepared statements kept for the life of the store (beyond this many, the least recently used are dropped). */
const STATEMENT_CACHE_SIZE = 1024;

/**
 * Reads of a big state (a 160 MB world) come through a memory map of the file, not a read() per page missing from
 * SQLite's cache: as fast as a database in memory, with only the pages read resident.
 */
const READ_PRAGMAS = `PRAGMA mmap_size = ${1 << 30}; PRAGMA cache_size = -32768; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY`;

/**
 * Connection settings. A state file: WAL, and synchronous NORMAL, which in WAL mode writes each commit to the
 * file before the statement returns (a SIGKILL of the sandbox loses nothing acknowledged: the kernel has it; only a
 * power cut may lose the last commits, never consistency). A private copy or memory: nothing needs to survive.
 */
const STATE_PRAGMAS = `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = ${64 << 20}; ${READ_PRAGMAS}`;
/**
 * A private copy keeps a page cache of 2 MiB (SQLite's default), not READ_PRAGMAS' 32 MiB: its reads come from the
 * memory map (the file never has a WAL), so the cache holds little more than pages written, and each commit's
 * cost grows with the pages held (SQLite's pcache1TruncateUnsafe, from pager_end_transaction, walks them): with the
 * pages of a few hundred 1000-row word-memory creates held, a create's commit took 0.6 ms of CPU, now 0.3. A transaction
 * that writes more than 2 MiB still commits as before; its pages beyond that go to the file early (cache spill).
 */
const PRIVATE_PRAGMAS = `PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; ${READ_PRAGMAS}; PRAGMA cache_size = -2048`;

export async function openDatabase(opts: OpenOptions = {}): Promise<Db> {
  const { DatabaseSync } = nodeSqlite();
  const file = opts.stateFile;
  let path = ':memory:';
  let privateDir: string | undefined;
  let fromImage = false;
  if (file) {
    try {
      fromImage = prepareStateFile(file, opts);
    } catch (e) {
      throw e instanceof UsageError ? e : cannotOpen(file, e as Error);
    }
    path = file;
  } else if (typeof opts.image === 'string') {
    const lazy = await openImageLazily(opts.image, opts);
    if (lazy) return lazy;
  }
  if (!file && opts.image !== undefined) {
    privateDir = mkdtempSync(join(tmpdir(), 'notevox-sandbox-db-'));
    path = join(privateDir, 'state.sqlite');
    copyImage(opts.image, path);
    fromImage = true;
  }
  let sql: DatabaseSync;
  try {
    sql = new DatabaseSync(path, { enableForeignKeyConstraints: true });
  } catch (e) {
    if (privateDir) rmSync(privateDir, { recursive: true, force: true });
    throw file ? cannotOpen(file, e as Error) : e;
  }
  let db: NodeDb | undefined;
  try {
    try {
      sql.exec(file ? STATE_PRAGMAS : PRIVATE_PRAGMAS);
    } catch (e) {
      throw file ? notStateFile(file, (e as Error).message) : e;
    }
    migrate(sql, file);
    sql.exec(TEMP_SCHEMA);
    db = new NodeDb(sql, privateDir);
    await opts.init?.(db, { fromImage });
    // What the start wrote (a seed: the whole database) or a crash left in the WAL goes into the file, and the WAL
    // is emptied: reads then come from the memory-mapped file, not page by page from the WAL.
    if (file) sql.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    return db;
  } catch (e) {
    if (db) db.release();
    else {
      sql.close();
      if (privateDir) rmSync(privateDir, { recursive: true, force: true });
    }
    throw e;
  }
}

/**
 * Connection settings of a database built to be an image (a seed's, for the seed cache): written once, in one
 * transaction, by this process only, and renamed into place only once complete and closed, so it needs no
 * journal, no syncing and no shared lock; a crash leaves at most a temporary file that nothing opens. Temporary storage
 * stays a file (not `temp_store = MEMORY`): only then does SQLite's sorter, which builds the indexes after a bulk load's
 * rows, keep its records in one growing buffer (not an allocation each) and use PRAGMA threads: measured, a third
 * less CPU for the word memories' indexes of a big seed. It spills to a file only beyond cache_size.
 */
const BUILD_PRAGMAS = `PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -${256 << 10}; PRAGMA foreign_keys = ON`;

/**
 * Build a database file from nothing at `file` (which must not exist): the schema, then `init` (loading a seed), then
 * closed. The file is then an image to open (`image` of openDatabase): a seed's database is written once, not
 * loaded in memory and then copied out. When `init` throws, the file is removed.
 */
export async function buildImage(file: string, init: (db: Db) => void | Promise<void>): Promise<void> {
  const { DatabaseSync } = nodeSqlite();
  // Not defensive: that mode (node:sqlite's default since Node 24) refuses journal_mode = OFF.
  const sql = new DatabaseSync(file, { enableForeignKeyConstraints: true, defensive: false } as ConstructorParameters<typeof DatabaseSync>[1]);
  let db: NodeDb | undefined;
  try {
    sql.exec(BUILD_PRAGMAS);
    migrate(sql, undefined);
    sql.exec(TEMP_SCHEMA);
    db = new NodeDb(sql, undefined);
    await init(db);
    db.release();
  } catch (e) {
    if (db) db.release();
    else sql.close();
    rmSync(file, { force: true });
    throw e;
  }
}

/**
 * A store without a state file that starts from the image file: the image opened read-only (through a hard link
 * in a private directory, so that the file stays what was opened even if the cache entry is removed), copied to a
 * private writable file at the first statement that changes the state. undefined: the image is not a current
 * notevox state (it goes the ordinary way: copied, then migrated or refused).
 */
async function openImageLazily(image: string, opts: OpenOptions): Promise<Db | undefined> {
  const { DatabaseSync } = nodeSqlite();
  const privateDir = mkdtempSync(join(tmpdir(), 'notevox-sandbox-db-'));
  const base = join(privateDir, 'image.sqlite');
  let sql: DatabaseSync | undefined;
  let db: NodeDb | undefined;
  try {
    try {
      linkSync(image, base);
    } catch {
      copyFileSync(image, base, constants.COPYFILE_FICLONE); // another file system: a copy, still never written
    }
    sql = new DatabaseSync(base, { readOnly: true, enableForeignKeyConstraints: true });
    sql.exec(READ_PRAGMAS);
    if (pragmaNumber(sql, 'user_version') !== SCHEMA_VERSION || pragmaNumber(sql, 'application_id') !== APPLICATION_ID) {
      sql.close();
      rmSync(privateDir, { recursive: true, force: true });
      return undefined;
    }
    sql.exec(TEMP_SCHEMA);
    const writable = () => {
      const path = join(privateDir, 'state.sqlite');
      copyFileSync(base, path, constants.COPYFILE_FICLONE);
      const next = new DatabaseSync(path, { enableForeignKeyConstraints: true });
      try {
        next.exec(PRIVATE_PRAGMAS);
        next.exec(TEMP_SCHEMA);
      } catch (e) {
        next.close();
        throw e;
      }
      return next;
    };
    db = new NodeDb(sql, privateDir, writable);
    await opts.init?.(db, { fromImage: true });
    return db;
  } catch (e) {
    if (db) db.release();
    else {
      sql?.close();
      rmSync(privateDir, { recursive: true, force: true });
    }
    throw e;
  }
}

/**
 * Convert a state file of the old format, or create a new one (a copy of the image, if any), private to its owner.
 * Returns whether it is a copy of the image.
 */
function prepareStateFile(file: string, opts: OpenOptions): boolean {
  if (isOldStateFile(file)) convertOldStateFile(file, opts.log ?? ((l) => process.stderr.write(l + '\n')));
  else if (!existsSync(file) || readStateSize(file) === 0) {
    // A new state file is private to its owner (0600), as SQLite's -wal and -shm files beside it then are.
    mkdirSync(dirname(file), { recursive: true });
    if (opts.image !== undefined) {
      copyImage(opts.image, file);
      chmodSync(file, 0o600);
      return true;
    }
    closeSync(openSync(file, 'a', 0o600));
  }
  return false;
}

function readStateSize(file: string): number {
  const fd = openSync(file, 'r');
  try {
    return readSync(fd, Buffer.alloc(1), 0, 1, 0);
  } finally {
    closeSync(fd);
  }
}

/**
 * A new database file at `to` holding the image (a closed, complete SQLite file, never written to: a byte copy is
 * the database, as SQLite's backup would make it). A copy-on-write clone where the file system has them (btrfs, xfs).
 */
function copyImage(image: string | Uint8Array, to: string): void {
  if (typeof image === 'string') copyFileSync(image, to, constants.COPYFILE_FICLONE);
  else writeFileSync(to, image, { mode: 0o600 });
}

function cannotOpen(file: string, e: Error): UsageError {
  return new UsageError(`cannot open the sandbox state file ${file}: ${e.message}`, 'check the path and its permissions, or pass another --state file');
}

const notStateFile = (file: string | undefined, why: string) =>
  new UsageError(`${file} is not a notevox sandbox state file: ${why}`, 'remove it, or pass another --state file');

function pragmaNumber(sql: DatabaseSync, name: string): number {
  const row = sql.prepare(`PRAGMA ${name}`).get() as Record<string, unknown> | undefined;
  return Number(row ? Object.values(row)[0] : 0);
}

/** Bring the schema to SCHEMA_VERSION, refusing files that are not notevox state. */
function migrate(sql: DatabaseSync, file: string | undefined): void {
  const notState = (why: string) => notStateFile(file, why);
  let version: number;
  let tables: number;
  try {
    version = pragmaNumber(sql, 'user_version');
    tables = Number((sql.prepare('SELECT count(*) AS n FROM sqlite_master').get() as { n: number }).n);
  } catch (e) {
    throw notState((e as Error).message);
  }
  if (tables > 0 && pragmaNumber(sql, 'application_id') !== APPLICATION_ID) throw notState('it is a SQLite database of another application');
  if (version > SCHEMA_VERSION)
    throw new UsageError(`${file} was written by a newer notevox (state version ${version}, this one reads up to ${SCHEMA_VERSION})`, 'upgrade notevox, or remove the file');
  for (let v = version; v < SCHEMA_VERSION; v++) {
    sql.exec('BEGIN');
    try {
      sql.exec(MIGRATIONS[v]);
      sql.exec(`PRAGMA user_version = ${v + 1}; PRAGMA application_id = ${APPLICATION_ID}`);
      sql.exec('COMMIT');
    } catch (e) {
      sql.exec('ROLLBACK');
      throw e;
    }
  }
}

/** A value as node:sqlite binds it. Whole numbers bind as integers (node:sqlite binds every number as a double). */
export function bindValue(v: unknown): SQLInputValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'string' || typeof v === 'bigint' || v instanceof Uint8Array) return v;
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

const PARAMETER = /'(?:[^']|'')*'|"(?:[^"]|"")*"|([$:@][A-Za-z_][A-Za-z0-9_]*)/g;
const READ_ONLY = /^\s*(SELECT|PRAGMA|EXPLAIN)\b/i;

/** A cached statement, with what its runs reuse: its named parameters by bare name, and what it may change. */
class Prepared {
  /** bare name → the prefixed names the statement uses (`$x`, `:x`, `@x`). */
  private names: Map<string, string[]> | undefined;
  /** It may change rows of the state (not only the in-memory request_log). */
  readonly changesState: boolean;
  /** It names request_log: the rows of Db.logRequest go in first. */
  readonly namesLog: boolean;

  constructor(
    readonly stmt: StatementSync,
    readonly text: string,
  ) {
    this.namesLog = /\brequest_log\b/.test(text);
    this.changesState = !this.namesLog && (!READ_ONLY.test(text) || /\bRETURNING\b/i.test(text));
  }

  private nameMap(): Map<string, string[]> {
    if (this.names) return this.names;
    const names = new Map<string, string[]>();
    for (const m of this.text.matchAll(PARAMETER)) {
      if (!m[1]) continue;
      const bare = m[1].slice(1);
      const list = names.get(bare) ?? [];
      if (!list.includes(m[1])) list.push(m[1]);
      names.set(bare, list);
    }
    return (this.names = names);
  }

  /** The arguments of a run: positional values, or one object keyed by the statement's own parameter names. */
  args(params: Params | undefined): SQLInputValue[] | [Record<string, SQLInputValue>] {
    if (params === undefined) return [];
    if (Array.isArray(params)) return params.map(bindValue);
    const names = this.nameMap();
    const out: Record<string, SQLInputValue> = {};
    for (const k of Object.keys(params)) {
      const value = bindValue((params as Record<string, unknown>)[k]);
      const c = k.charCodeAt(0);
      if (c === 36 || c === 58 || c === 64) {
        if (names.get(k.slice(1))?.includes(k)) out[k] = value;
      } else for (const n of names.get(k) ?? []) out[n] = value;
    }
    return [out];
  }
}

class NodeDb implements Db {
  private depth = 0;
  private closed = false;
  private readonly statements = new Map<string, Prepared>();
  private inBulk = false;
  /** The open transaction changed the state. */
  private txChanged = false;
  commits = 0;
  dataVersion = 0;
  private control: Record<'begin' | 'commit' | 'rollback', StatementSync>;
  /** Rows of logRequest not yet in request_log, in order. */
  private pendingLog: RequestLogRow[] = [];
  private logInsert: StatementSync | undefined;
  /** The last `at` of a row inserted, and its text: requests of the same millisecond share it. */
  private logAt = { ms: Number.NaN, text: '' };

  constructor(
    private sql: DatabaseSync,
    /** The temporary directory of a private copy, removed on close. */
    private readonly privateDir: string | undefined,
    /** `sql` is a read-only image: this opens the writable copy that replaces it at the first change. */
    private makeWritable?: () => DatabaseSync,
  ) {
    this.control = this.setUp(sql);
  }

  private setUp(sql: DatabaseSync): Record<'begin' | 'commit' | 'rollback', StatementSync> {
    for (const [name, fn] of Object.entries(SQL_FUNCTIONS)) sql.function(name, { deterministic: true }, fn);
    this.logInsert = undefined;
    return { begin: sql.prepare('BEGIN'), commit: sql.prepare('COMMIT'), rollback: sql.prepare('ROLLBACK') };
  }

  /**
   * Before the first change of a store opened read-only on its image: go on in a writable copy, with the request
   * log and the open transaction (nothing of the state changed in it yet, so it begins again there as it was).
   */
  private writable(): void {
    const make = this.makeWritable;
    if (!make) return;
    this.flushLog();
    const old = this.open();
    const next = make();
    this.makeWritable = undefined;
    try {
      const log = old.prepare('SELECT id, at, key_id, method, path, status FROM temp.request_log ORDER BY id').all();
      const insert = next.prepare('INSERT INTO temp.request_log (id, at, key_id, method, path, status) VALUES ($id, $at, $key_id, $method, $path, $status)');
      next.exec('BEGIN');
      for (const row of log) insert.run(row as Record<string, SQLInputValue>);
      next.exec('COMMIT');
      if (this.depth > 0) {
        next.exec('BEGIN');
        for (let d = 1; d < this.depth; d++) next.exec(`SAVEPOINT nvx_sp_${d}`);
      }
      this.control = this.setUp(next);
    } catch (e) {
      next.close();
      throw e;
    }
    this.statements.clear();
    this.sql = next;
    try {
      if (old.isTransaction) old.exec('ROLLBACK');
    } finally {
      old.close();
    }
  }

  /** The cached statement of `text`, on a writable store when it may change the state. */
  private forRun(text: string): Prepared {
    const p = this.prepared(text);
    if (p.namesLog) this.flushLog();
    if (!p.changesState || !this.makeWritable) return p;
    this.writable();
    return this.prepared(text);
  }

  private open(): DatabaseSync {
    if (this.closed) throw new Error('the sandbox database is closed');
    return this.sql;
  }

  private prepared(text: string): Prepared {
    const sql = this.open();
    if (this.inBulk) throw new Error('Db: only the statements of bulk() run inside it');
    let p = this.statements.get(text);
    if (p) {
      // most recently used last (a Map keeps insertion order)
      this.statements.delete(text);
      this.statements.set(text, p);
      return p;
    }
    const stmt = sql.prepare(text);
    stmt.setAllowBareNamedParameters(false); // Prepared.args names every parameter with its prefix
    p = new Prepared(stmt, text);
    this.statements.set(text, p);
    if (this.statements.size > STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
    return p;
  }

  logRequest(row: RequestLogRow): void {
    if (this.closed) return;
    if (this.pendingLog.push(row) >= REQUEST_LOG_BATCH && !this.inBulk) this.flushLog();
  }

  /**
   * Insert the rows of logRequest, in one transaction (unless one is open: then in it; tx() flushes before it
   * begins, so only a statement naming request_log inside a transaction gets here with rows pending), and prune.
   * A failure loses those rows and nothing else, as a failed insert of one row did.
   */
  private flushLog(): void {
    const rows = this.pendingLog;
    if (rows.length === 0) return;
    this.pendingLog = [];
    const sql = this.open();
    const outer = !sql.isTransaction;
    try {
      const insert = (this.logInsert ??= sql.prepare('INSERT INTO temp.request_log (at, key_id, method, path, status) VALUES (?, ?, ?, ?, ?)'));
      if (outer) this.control.begin.run();
      let prune = 0;
      const at = this.logAt;
      for (const r of rows) {
        if (r.at !== at.ms) {
          at.ms = r.at;
          at.text = new Date(r.at).toISOString();
        }
        const id = Number(insert.run(at.text, r.keyId, r.method, r.path, r.status).lastInsertRowid);
        if (id % REQUEST_LOG_PRUNE_EVERY === 0) prune = id;
      }
      // Keep the log bounded in a long run: the newest REQUEST_LOG_KEEP rows.
      if (prune) this.prepared('DELETE FROM request_log WHERE id <= ?').stmt.run(prune - REQUEST_LOG_KEEP);
      if (outer) this.control.commit.run();
    } catch {
      if (outer && sql.isTransaction) this.control.rollback.run();
    }
  }

  /** A statement that may have changed the state ran. */
  private changed(): void {
    this.dataVersion++;
    if (this.depth > 0) this.txChanged = true;
    else this.commits++;
  }

  all<T = Record<string, unknown>>(text: string, params?: Params): T[] {
    const p = this.forRun(text);
    const rows = (p.stmt.all as (...a: unknown[]) => unknown[])(...p.args(params)) as T[];
    if (p.changesState) this.changed();
    return rows;
  }

  get<T = Record<string, unknown>>(text: string, params?: Params): T | undefined {
    const p = this.forRun(text);
    const row = (p.stmt.get as (...a: unknown[]) => unknown)(...p.args(params)) as T | undefined;
    if (p.changesState) this.changed();
    return row;
  }

  run(text: string, params?: Params): RunResult {
    const p = this.forRun(text);
    const r = (p.stmt.run as (...a: unknown[]) => { changes: number | bigint; lastInsertRowid: number | bigint })(...p.args(params));
    if (p.changesState && Number(r.changes) > 0) this.changed();
    return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
  }

  bulk<T>(fn: (prepare: (sql: string) => (values: readonly unknown[]) => void) => T, keep: readonly string[] = []): T {
    this.open();
    if (this.inBulk) throw new Error('Db.bulk: already in a bulk load');
    this.writable();
    const sql = this.open();
    const prepare = (text: string) => {
      const stmt = sql.prepare(text);
      const run = stmt.run as (...a: SQLInputValue[]) => unknown;
      return (values: readonly unknown[]) => {
        run.apply(stmt, values.map(bindValue));
      };
    };
    return this.tx(() => {
      this.txChanged = true;
      // Secondary indexes are built once after the rows, not updated row by row.
      const indexes = this.dropIndexes(keep);
      this.inBulk = true;
      let result: T;
      try {
        result = fn(prepare);
      } finally {
        this.inBulk = false;
        this.dataVersion++;
      }
      for (const ix of indexes) sql.exec(ix);
      return result;
    });
  }

  dropIndexes(keep: readonly string[], table?: string): string[] {
    this.writable();
    const sql = this.open();
    const all = sql.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL${table === undefined ? '' : ' AND tbl_name = ?'}`);
    const indexes = (all.all(...(table === undefined ? [] : [table])) as Array<{ name: string; sql: string }>).filter((ix) => !keep.includes(ix.name));
    for (const ix of indexes) sql.exec(`DROP INDEX "${ix.name}"`);
    return indexes.map((ix) => ix.sql);
  }

  tx<T>(fn: () => T): T {
    this.open();
    // this.sql each time: the first change inside fn may move the store to its writable copy (writable()).
    const outer = this.depth === 0;
    const savepoint = `nvx_sp_${this.depth}`;
    const undo = () => {
      this.dataVersion++;
      try {
        if (outer) this.control.rollback.run();
        else this.sql.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      } catch {
        // SQLite already rolled back (it does on some errors): the original error is what matters
      }
      if (outer) this.txChanged = false;
    };
    if (outer) {
      // The recorded requests go in before it: a rollback of it must not take them.
      this.flushLog();
      this.control.begin.run();
    } else this.sql.exec(`SAVEPOINT ${savepoint}`);
    this.depth++;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new TypeError('Db.tx: the function must be synchronous (it returned a Promise)');
    } catch (e) {
      this.depth--;
      undo();
      throw e;
    }
    this.depth--;
    try {
      if (outer) this.control.commit.run();
      else this.sql.exec(`RELEASE ${savepoint}`);
    } catch (e) {
      undo();
      throw e;
    }
    if (outer && this.txChanged) {
      this.txChanged = false;
      this.commits++;
    }
    return result;
  }

  saveTo(file: string): void {
    if (this.depth > 0) throw new Error('Db.saveTo: cannot copy inside a transaction');
    this.open().prepare('VACUUM INTO ?').run(file);
  }

  export(): Uint8Array {
    if (this.depth > 0) throw new Error('Db.export: cannot export inside a transaction');
    const dir = mkdtempSync(join(tmpdir(), 'notevox-export-'));
    try {
      const file = join(dir, 'db.sqlite');
      this.saveTo(file);
      return new Uint8Array(readFileSync(file));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async flush(): Promise<void> {
    this.open();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.release();
  }

  /** Release the statements and the database. */
  release(): void {
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.pendingLog = [];
    try {
      this.sql.close();
    } finally {
      if (this.privateDir) rmSync(this.privateDir, { recursive: true, force: true });
    }
  }
}

// ---- Row mapping: booleans and JSON back from their stored form ----

type BoolColumn<T extends TableName> = T extends keyof typeof BOOLEAN_COLUMNS ? (typeof BOOLEAN_COLUMNS)[T][number] : never;
type JsonColumn<T extends TableName> = T extends keyof typeof JSON_COLUMNS ? (typeof JSON_COLUMNS)[T][number] : never;

/** A row of `table` with its BOOLEAN columns as booleans and its JSON_TEXT columns parsed. */
export type Decoded<T extends TableName, R> = {
  [K in keyof R]: K extends BoolColumn<T> ? boolean : K extends JsonColumn<T> ? any : R[K];
};

/** Map a row read from `table` (e.g. `SELECT * FROM notes`) so handlers get booleans and parsed JSON. Columns absent from the row are left alone. */
export function decodeRow<T extends TableName, R extends object>(table: T, row: R): Decoded<T, R> {
  const out = { ...row } as Record<string, unknown>;
  for (const c of (BOOLEAN_COLUMNS as Record<string, readonly string[]>)[table] ?? []) if (c in out) out[c] = Boolean(out[c]);
  for (const c of (JSON_COLUMNS as Record<string, readonly string[]>)[table] ?? [])
    if (typeof out[c] === 'string') out[c] = JSON.parse(out[c] as string);
  return out as Decoded<T, R>;
}
