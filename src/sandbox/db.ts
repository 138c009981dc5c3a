import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { BindParams, Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { createJournal, JOURNAL_HEADER_BYTES, journalFiles, journalsExist, JournalWriter, readJournals, removeJournals, replayJournal, syncDir, type JournalStatement } from './journal.js';
import { APPLICATION_ID, BOOLEAN_COLUMNS, JSON_COLUMNS, MIGRATIONS, SCHEMA_VERSION, TEMP_SCHEMA, type TableName } from './schema.sql.js';

/**
 * The sandbox's state store: SQLite compiled to WASM (sql.js), held in memory. With a state file, every
 * committed change is appended to a journal (journal.ts) and synced before `flush()` resolves (the app
 * answers a request only then); the journal is folded into the state file in the background, at start-up
 * and on close. Reads never touch the disk.
 */

/**
 * Statement parameters: positional (`?`) as an array, or named as an object. Object keys may carry the
 * prefix (`$name`, `:name`, `@name`) or not (`name` binds whichever of those the statement uses).
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
   * A bulk load (the seed): runs `fn` in a transaction, where `prepare(sql)` gives a changing statement for
   * many rows: prepared once, each call binds the values in order (as `run` binds them), steps and resets.
   * SQLite's update hook is off meanwhile (it costs a call into JavaScript and two string copies per row),
   * so only these statements may run inside `fn`; each one that changed rows is recorded like `run`'s.
   */
  bulk<T>(fn: (prepare: (sql: string) => (values: readonly unknown[]) => void) => T): T;
  /** Run `fn` in a transaction (savepoints when nested): committed when it returns, rolled back when it throws. `fn` must be synchronous. */
  tx<T>(fn: () => T): T;
  /** The whole database as SQLite file bytes. */
  export(): Uint8Array;
  /** Resolves once every change committed so far is on disk (immediately without a state file); rejects when writing it failed. */
  flush(): Promise<void>;
  /** How many changes of the state have been committed (a request that changed nothing need not wait for flush()). */
  readonly commits: number;
  /** Flush, fold the journal into the state file, then release the database. Further calls throw. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Where state lives between runs. Without it the store is in memory only. */
  stateFile?: string;
  /** Failures of background work (compaction of the journal); nothing is lost by them. */
  onError?: (e: Error) => void;
  /**
   * Work on the opened store before changes are journaled (loading a seed): whatever it changes is written
   * with the state file's first snapshot instead of the journal.
   */
  init?: (db: Db) => void | Promise<void>;
  /** Fold the journal into the state file once it holds this many bytes (default: 8 MiB or a quarter of the state file, whichever is more). */
  compactBytes?: number;
  /**
   * About how large a new store will grow in `init` (a big seed), so that its memory is set aside at once:
   * sql.js keeps the database in a buffer that otherwise grows by an eighth at a time, copying it all each
   * time (and each copy makes V8 collect the whole heap, the parsed seed included). Only for a new store.
   */
  reserveBytes?: number;
}

/**
 * SQL functions for the handlers' queries, where SQLite's own would differ from what the API does in
 * JavaScript (SQLite's lower() folds ASCII only). For reads: the journal replays writes without them.
 */
const SQL_FUNCTIONS: Record<string, (...args: any[]) => SqlValue> = {
  /** How often `needle` (already lower-cased) occurs in `text`, case-insensitively, counted as String#split does. */
  nvx_occurrences: (text: SqlValue, needle: SqlValue) => (text === null ? 0 : String(text).toLowerCase().split(String(needle)).length - 1),
  /** String#toLowerCase. */
  nvx_lower: (text: SqlValue) => (text === null ? null : String(text).toLowerCase()),
};

/** Prepared statements kept for reuse (least recently used beyond this are freed). */
const STATEMENT_CACHE_SIZE = 256;

const nodeRequire = createRequire(import.meta.url);
let sqlJs: Promise<SqlJsStatic> | undefined;
const sqlJsPaths = () => ({ sqlJs: nodeRequire.resolve('sql.js'), wasm: nodeRequire.resolve('sql.js/dist/sql-wasm.wasm') });

/** sql.js is loaded through createRequire so that it resolves from node_modules both from src and from a bundle in dist/. */
function loadSqlJs(): Promise<SqlJsStatic> {
  if (!sqlJs) {
    const { wasm } = sqlJsPaths();
    const initSqlJs = nodeRequire('sql.js') as typeof import('sql.js');
    sqlJs = initSqlJs({ locateFile: () => wasm });
  }
  return sqlJs;
}

/**
 * Connection settings. The database is private to this process (sql.js keeps it in memory), so SQLite keeps
 * its lock for good instead of taking and dropping it around every statement, and keeps its rollback journal
 * in memory: durability comes from the state journal, not from SQLite's.
 */
const PRAGMAS = 'PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY; PRAGMA foreign_keys = ON';

export async function openDatabase(opts: OpenOptions = {}): Promise<Db> {
  const SQL = await loadSqlJs();
  const file = opts.stateFile;
  const bytes = file ? await readStateFile(file) : undefined;
  const sql = bytes ? new SQL.Database(bytes) : opts.reserveBytes ? reservedDatabase(SQL, opts.reserveBytes) : new SQL.Database();
  let db: SqlJsDb | undefined;
  try {
    const migrated = migrate(sql, file);
    sql.exec(PRAGMAS);
    sql.exec(TEMP_SCHEMA);
    let next = 0;
    let journaled = false;
    if (file) {
      journaled = journalsExist(file);
      const journals = readJournals(file, stateGeneration(sql));
      for (const j of journals.files) replayJournal(sql, j.bytes.subarray(JOURNAL_HEADER_BYTES), j.file);
      next = journals.next;
    }
    db = new SqlJsDb(sql, opts);
    await opts.init?.(db);
    if (file) {
      // One snapshot holding everything so far, then an empty journal continuing it.
      if (!bytes || migrated || journaled || db.changedSinceSnapshot) db.writeSnapshot(next);
      createJournal(journalFiles(file).current, next);
      db.startJournal(next, bytes?.length ?? 0, sqlJsPaths());
    }
    return db;
  } catch (e) {
    if (db) db.release();
    else sql.close();
    throw e;
  }
}

/**
 * A new store whose file already has room for `reserve` more bytes: the image of an empty database followed
 * by zeros. SQLite goes by the page count in the header and writes new pages into the room, and cuts the file
 * to its pages: the room is never part of an export (nor of the state file).
 */
function reservedDatabase(SQL: SqlJsStatic, reserve: number): Database {
  const empty = new SQL.Database();
  let image: Uint8Array;
  try {
    migrate(empty, undefined);
    image = empty.export();
  } finally {
    empty.close();
  }
  const room = new OwnedBytes(image.length + Math.min(Math.max(0, Math.floor(reserve)), MAX_RESERVE_BYTES));
  room.set(image);
  return new SQL.Database(room);
}

/**
 * Bytes handed over for good: a whole-array `slice()` answers a plain Uint8Array over the same memory
 * instead of a copy. sql.js writes the bytes given to `new Database(bytes)` into its in-memory file system
 * with `slice()`; copying a reserve of hundreds of MB cost seconds (every page of both buffers is touched),
 * while the file may simply own the buffer, which nothing else keeps. Any other slice is a real copy. The
 * file gets a plain Uint8Array, not this subclass: typed-array methods on a subclass take V8's slow path,
 * and the file system calls them for every page SQLite reads or writes.
 */
class OwnedBytes extends Uint8Array {
  override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
    const plain = new Uint8Array(this.buffer, this.byteOffset, this.length);
    return (start ?? 0) === 0 && (end ?? this.length) === this.length ? plain : plain.slice(start, end);
  }
}

/** More is not set aside: the buffer grows past it as it would have anyway. */
const MAX_RESERVE_BYTES = 1024 * 1024 * 1024;

async function readStateFile(file: string): Promise<Uint8Array | undefined> {
  try {
    const buf = await readFile(file);
    return buf.length > 0 ? new Uint8Array(buf) : undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the sandbox state file ${file}: ${(e as Error).message}`);
  }
}

function pragmaNumber(sql: Database, name: string): number {
  return Number(sql.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0] ?? 0);
}

/** The first journal generation the snapshot does not hold. */
function stateGeneration(sql: Database): number {
  return Number(sql.exec("SELECT value FROM state_meta WHERE key = 'journal_generation'")[0]?.values[0]?.[0] ?? 0);
}

/** Bring the schema to SCHEMA_VERSION, refusing files that are not notevox state. Returns whether anything changed. */
function migrate(sql: Database, file: string | undefined): boolean {
  const notState = (why: string) =>
    new UsageError(`${file} is not a notevox sandbox state file: ${why}`, 'remove it, or pass another --state file');
  let version: number;
  let tables: number;
  try {
    version = pragmaNumber(sql, 'user_version');
    tables = Number(sql.exec('SELECT count(*) FROM sqlite_master')[0].values[0][0]);
  } catch (e) {
    throw notState((e as Error).message);
  }
  if (tables > 0 && pragmaNumber(sql, 'application_id') !== APPLICATION_ID) throw notState('it is a SQLite database of another application');
  if (version > SCHEMA_VERSION)
    throw new UsageError(`${file} was written by a newer notevox (state version ${version}, this one reads up to ${SCHEMA_VERSION})`, 'upgrade notevox, or remove the file');
  sql.exec('PRAGMA foreign_keys = ON');
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
  return version < SCHEMA_VERSION;
}

function bindValue(v: unknown): SqlValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' || typeof v === 'number' || v instanceof Uint8Array) return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

function bindParams(params: Params | undefined): SqlValue[] | Record<string, SqlValue> | undefined {
  if (params === undefined) return undefined;
  if (Array.isArray(params)) return params.map(bindValue);
  const out: Record<string, SqlValue> = {};
  for (const [k, v] of Object.entries(params)) {
    const value = bindValue(v);
    const c = k.charCodeAt(0);
    if (c === 36 || c === 58 || c === 64) out[k] = value; // $ : @
    else for (const prefix of ['$', ':', '@']) out[prefix + k] = value;
  }
  return out;
}

class SqlJsDb implements Db {
  private depth = 0;
  private closed = false;
  private readonly statements = new Map<string, Statement>();
  /** Inside `bulk`: the update hook is off, so other statements must not run. */
  private inBulk = false;
  /** Set by the update hook when the statement running changed a row of the state (not of the in-memory tables). */
  private changedState = false;
  /** The rowid of the last row inserted (what last_insert_rowid() would answer), from the update hook. */
  private lastRowid = 0;
  /** Statements of the open transaction that changed the state, with the buffer length at each savepoint. */
  private txStatements: JournalStatement[] = [];
  private savepoints: number[] = [];
  private journal: JournalWriter | null = null;
  /** The state has changed since the last snapshot in a way the journal does not hold (before the journal starts). */
  changedSinceSnapshot = false;
  commits = 0;

  constructor(
    private readonly sql: Database,
    private readonly opts: OpenOptions,
  ) {
    this.hook();
    for (const [name, fn] of Object.entries(SQL_FUNCTIONS)) sql.create_function(name, fn);
  }

  private hook(): void {
    this.sql.updateHook((op, database, _table, rowid) => {
      if (op === 'insert') this.lastRowid = rowid;
      if (database === 'main') this.changedState = true;
    });
  }

  private open(): Database {
    if (this.closed) throw new Error('the sandbox database is closed');
    return this.sql;
  }

  /** Run a statement from the cache; `consume` steps through it. The statement is reset (bindings cleared) afterwards. */
  private execute<R>(sqlText: string, params: Params | undefined, consume: (stmt: Statement) => R): R {
    const sql = this.open();
    if (this.inBulk) throw new Error('Db: only the statements of bulk() run inside it');
    let stmt = this.statements.get(sqlText);
    if (stmt) this.statements.delete(sqlText);
    else stmt = sql.prepare(sqlText);
    this.statements.set(sqlText, stmt);
    if (this.statements.size > STATEMENT_CACHE_SIZE) {
      const [oldest, old] = this.statements.entries().next().value!;
      this.statements.delete(oldest);
      old.free();
    }
    const bound = bindParams(params);
    this.changedState = false;
    let result: R;
    try {
      if (bound !== undefined) stmt.bind(bound as BindParams);
      result = consume(stmt);
    } finally {
      stmt.reset();
    }
    if (this.changedState) this.record([sqlText, bound]);
    return result;
  }

  /** A statement that changed the state: into the open transaction's record, or a record of its own. */
  private record(statement: JournalStatement): void {
    if (!this.journal) {
      this.changedSinceSnapshot = true;
      return;
    }
    if (this.depth > 0) this.txStatements.push(statement);
    else {
      this.journal.append([statement]);
      this.commits++;
    }
  }

  private query<T>(sqlText: string, params: Params | undefined, limit: number): T[] {
    return this.execute(sqlText, params, (stmt) => {
      const rows: T[] = [];
      if (rows.length >= limit || !stmt.step()) return rows;
      const columns = stmt.getColumnNames();
      do {
        const values = stmt.get();
        const row: Record<string, unknown> = {};
        for (let i = 0; i < columns.length; i++) row[columns[i]] = values[i];
        rows.push(row as T);
      } while (rows.length < limit && stmt.step());
      return rows;
    });
  }

  all<T = Record<string, unknown>>(sqlText: string, params?: Params): T[] {
    return this.query<T>(sqlText, params, Infinity);
  }

  get<T = Record<string, unknown>>(sqlText: string, params?: Params): T | undefined {
    return this.query<T>(sqlText, params, 1)[0];
  }

  run(sqlText: string, params?: Params): RunResult {
    this.execute(sqlText, params, (stmt) => {
      while (stmt.step()) {
        // drain (a RETURNING clause yields rows)
      }
    });
    return { changes: this.sql.getRowsModified(), lastInsertRowid: this.lastRowid };
  }

  bulk<T>(fn: (prepare: (sql: string) => (values: readonly unknown[]) => void) => T): T {
    const sql = this.open();
    if (this.inBulk) throw new Error('Db.bulk: already in a bulk load');
    const statements: Statement[] = [];
    const prepare = (sqlText: string) => {
      const stmt = sql.prepare(sqlText);
      statements.push(stmt);
      return (values: readonly unknown[]) => {
        const bound = values.map(bindValue);
        try {
          stmt.bind(bound);
          stmt.step();
        } finally {
          stmt.reset();
        }
        if (sql.getRowsModified() > 0) this.record([sqlText, bound]);
      };
    };
    this.inBulk = true;
    sql.updateHook(null);
    try {
      return this.tx(() => fn(prepare));
    } finally {
      this.inBulk = false;
      this.hook();
      for (const stmt of statements) stmt.free();
    }
  }

  tx<T>(fn: () => T): T {
    const sql = this.open();
    const outer = this.depth === 0;
    const savepoint = `nvx_sp_${this.depth}`;
    const undo = () => {
      if (outer) this.txStatements = [];
      else this.txStatements.length = this.savepoints.pop()!;
      try {
        sql.exec(outer ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      } catch {
        // SQLite already rolled back (it does on some errors): the original error is what matters
      }
    };
    sql.exec(outer ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
    if (!outer) this.savepoints.push(this.txStatements.length);
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
      sql.exec(outer ? 'COMMIT' : `RELEASE ${savepoint}`);
    } catch (e) {
      undo();
      throw e;
    }
    if (!outer) this.savepoints.pop();
    else if (this.txStatements.length) {
      const statements = this.txStatements;
      this.txStatements = [];
      this.journal?.append(statements);
      this.commits++;
    }
    return result;
  }

  export(): Uint8Array {
    if (this.depth > 0) throw new Error('Db.export: cannot export inside a transaction');
    return this.open().export();
  }

  /** Start journaling changes to the state file's journal of `generation` (already created). */
  startJournal(generation: number, snapshotBytes: number, paths: { sqlJs: string; wasm: string }): void {
    this.journal = new JournalWriter({ stateFile: this.opts.stateFile!, generation, snapshotBytes, compactBytes: this.opts.compactBytes, ...paths, onError: this.opts.onError });
  }

  /**
   * Write the whole state as the state file, holding every journal below `generation`, and remove the
   * journals. Blocks while SQLite exports: for start-up and shutdown only.
   */
  writeSnapshot(generation: number): void {
    const file = this.opts.stateFile!;
    this.sql.exec(`INSERT OR REPLACE INTO state_meta (key, value) VALUES ('journal_generation', ${generation})`);
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileAtomic(file, this.sql.export(), { mode: 0o600, sync: true });
      syncDir(dirname(file));
    } catch (e) {
      throw new Error(`cannot write the sandbox state file ${file}: ${(e as Error).message}`, { cause: e });
    }
    this.changedSinceSnapshot = false;
    removeJournals(file);
  }

  async flush(): Promise<void> {
    this.open();
    await this.journal?.flush();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      const journal = this.journal;
      this.journal = null;
      if (journal) {
        await journal.close();
        this.writeSnapshot(journal.generation + 1);
      }
    } finally {
      this.release();
    }
  }

  /** Free the statements and the database. */
  release(): void {
    this.closed = true;
    for (const stmt of this.statements.values()) stmt.free();
    this.statements.clear();
    this.sql.close();
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
