import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
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
  /**
   * Changes whenever the state may differ from what was read before: a row of it changed (committed or not), a
   * transaction rolled back, a bulk load ran. What is derived from the state can be kept while it stays the same.
   */
  readonly dataVersion: number;
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
  init?: (db: Db, opened: { fromImage: boolean }) => void | Promise<void>;
  /**
   * SQLite file bytes to start from when there is no state yet (no state file, or none on disk): the store opens
   * as a copy of them (`init` is told), instead of empty.
   */
  image?: Uint8Array;
  /** Fold the journal into the state file once it holds this many bytes (default: 8 MiB or a quarter of the state file, whichever is more). */
  compactBytes?: number;
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

/**
 * The parts of sql.js's Emscripten module that the statement fast path (StatementRunner) calls directly: SQLite's C
 * functions as the wasm module exports them (no wrapper in between), and the module's memory.
 */
interface SqliteApi {
  _sqlite3_column_type(stmt: number, i: number): number;
  _sqlite3_column_double(stmt: number, i: number): number;
  _sqlite3_column_text(stmt: number, i: number): number;
  _sqlite3_column_bytes(stmt: number, i: number): number;
  _sqlite3_bind_parameter_index(stmt: number, name: number): number;
  _sqlite3_open(filename: number, out: number): number;
  _sqlite3_close_v2(db: number): number;
  _sqlite3_errmsg(db: number): number;
  _sqlite3_backup_init(dest: number, destName: number, source: number, sourceName: number): number;
  _sqlite3_backup_step(backup: number, pages: number): number;
  _sqlite3_backup_finish(backup: number): number;
  UTF8ToString(ptr: number): string;
  _sqlite3_update_hook(db: number, callback: number, arg: number): number;
  addFunction(fn: (...args: never[]) => void, signature: string): number;
  removeFunction(ptr: number): void;
  stringToNewUTF8(s: string): number;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  /** The wasm module's memory (kept as the module is instantiated). */
  memory: WasmMemory;
  /** The property of a sql.js Statement that holds SQLite's statement pointer (its name is minified). */
  statementPointer: string;
}

/** What is used of the WebAssembly global (this project's TypeScript libs do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmGlobal {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: abstract new (...args: never[]) => WasmMemory;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;

let sqliteApi: SqliteApi | undefined;

let heapView: Buffer | undefined;
/** The wasm module's memory as a Buffer, for reading SQLite's strings in place (a new view once the memory grew). */
function heap(api: SqliteApi): Buffer {
  if (!heapView || heapView.buffer !== api.memory.buffer) heapView = Buffer.from(api.memory.buffer);
  return heapView;
}

/**
 * sql.js is loaded through createRequire so that it resolves from node_modules both from src and from a bundle in
 * dist/. Its wasm module is instantiated here (Emscripten's `instantiateWasm` hook) to keep a handle on the module's
 * memory, from which StatementRunner reads result text without a copy.
 */
function loadSqlJs(): Promise<SqlJsStatic> {
  if (!sqlJs) {
    const { wasm } = sqlJsPaths();
    const initSqlJs = privateSqlJs();
    sqlJs = (async () => {
      const module = await Wasm.compile(await readFile(wasm));
      let memory: WasmMemory | undefined;
      const config = {
        locateFile: () => wasm,
        // Called inside a Promise executor: a throw here rejects initSqlJs.
        instantiateWasm(imports: object, done: (instance: object) => void) {
          const instance = new Wasm.Instance(module, imports);
          memory = Object.values(instance.exports).find((x): x is WasmMemory => x instanceof Wasm.Memory);
          done(instance);
          return {};
        },
      };
      const SQL = await initSqlJs(config as Parameters<typeof initSqlJs>[0]);
      if (!memory) throw new Error('sql.js: its wasm module exports no memory');
      sqliteApi = Object.assign(SQL as unknown as Omit<SqliteApi, 'memory' | 'statementPointer'>, { memory, statementPointer: statementPointerKey(SQL) });
      return SQL;
    })();
    sqlJs.catch(() => (sqlJs = undefined));
  }
  return sqlJs;
}

/**
 * sql.js's factory, loaded for this module alone: it initializes once per load and then answers every call with
 * that first module, whatever the call's options, so a copy someone else initialized first (without the hook that
 * keeps the memory) is not the one used here.
 */
function privateSqlJs(): typeof import('sql.js') {
  const id = nodeRequire.resolve('sql.js');
  const cached = nodeRequire.cache[id];
  if (!cached) return nodeRequire('sql.js') as typeof import('sql.js');
  delete nodeRequire.cache[id];
  try {
    return nodeRequire('sql.js') as typeof import('sql.js');
  } finally {
    nodeRequire.cache[id] = cached;
  }
}

/**
 * Which property of a sql.js Statement holds its SQLite pointer: the one whose value is the key under which the
 * Database registers the statement (it keeps its open statements by pointer, to free them on close).
 */
function statementPointerKey(SQL: SqlJsStatic): string {
  const db = new SQL.Database();
  try {
    const stmt = db.prepare('SELECT 1');
    const registry = Object.values(db).find((v): v is Record<string, unknown> => v !== null && typeof v === 'object' && Object.values(v as object).includes(stmt));
    const pointer = registry && Object.keys(registry).find((k) => registry[k] === stmt);
    const key = pointer === undefined ? undefined : Object.keys(stmt).find((k) => (stmt as unknown as Record<string, unknown>)[k] === Number(pointer));
    if (!key) throw new Error('sql.js: cannot find the statement pointer of a prepared statement (an unsupported sql.js version?)');
    return key;
  } finally {
    db.close();
  }
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
  const fromImage = !bytes && opts.image !== undefined;
  let sql: Database;
  try {
    sql = inMemory(SQL, bytes ? new SQL.Database(bytes) : fromImage ? new SQL.Database(opts.image) : new SQL.Database());
  } catch (e) {
    throw bytes ? notStateFile(file, (e as Error).message) : e;
  }
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
    await opts.init?.(db, { fromImage });
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
 * The database of `source` (which is closed) in a sql.js Database whose connection is an in-memory SQLite database.
 * sql.js keeps each database as a file of Emscripten's in-memory file system, into which SQLite writes every page a
 * transaction dirtied, at commit (a copy, and a copy of the whole file each time it grows: most of the cost of a
 * 1000-row write). In memory, pages stay in SQLite's cache and nothing is written. sql.js reaches SQLite through
 * the Database's `db` connection pointer on every call (export() backs that connection up into a file of its own),
 * so the pointer is swapped for one opened on ":memory:". Durability comes from the state journal, not from here.
 */
function inMemory(SQL: SqlJsStatic, source: Database): Database {
  const api = sqliteApi!;
  const target = new SQL.Database();
  const swap = target as unknown as { db: number };
  const cString = (s: string) => api.stringToNewUTF8(s);
  const fail = (what: string, handle: number) => new Error(`sql.js: ${what}: ${handle ? api.UTF8ToString(api._sqlite3_errmsg(handle)) : 'out of memory'}`);
  try {
    const out = api._malloc(4);
    const name = cString(':memory:');
    let memoryDb = 0;
    try {
      const rc = api._sqlite3_open(name, out);
      memoryDb = new DataView(api.memory.buffer).getInt32(out, true);
      if (rc !== 0) {
        const e = fail('cannot open an in-memory database', memoryDb);
        api._sqlite3_close_v2(memoryDb);
        throw e;
      }
    } finally {
      api._free(name);
      api._free(out);
    }
    api._sqlite3_close_v2(swap.db);
    swap.db = memoryDb;
    // An in-memory destination takes a backup only at the source's page size.
    target.exec(`PRAGMA page_size = ${pragmaNumber(source, 'page_size')}`);
    const main = cString('main');
    try {
      const backup = api._sqlite3_backup_init(memoryDb, main, (source as unknown as { db: number }).db, main);
      if (!backup) throw fail('cannot copy the database into memory', memoryDb);
      const rc = api._sqlite3_backup_step(backup, -1);
      api._sqlite3_backup_finish(backup);
      if (rc !== 101) throw fail('cannot copy the database into memory', memoryDb); // SQLITE_DONE
    } finally {
      api._free(main);
    }
  } catch (e) {
    target.close();
    throw e;
  } finally {
    source.close();
  }
  return target;
}

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

const notStateFile = (file: string | undefined, why: string) =>
  new UsageError(`${file} is not a notevox sandbox state file: ${why}`, 'remove it, or pass another --state file');

/** Bring the schema to SCHEMA_VERSION, refusing files that are not notevox state. Returns whether anything changed. */
function migrate(sql: Database, file: string | undefined): boolean {
  const notState = (why: string) => notStateFile(file, why);
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

const NO_SLOTS: readonly number[] = [];

/**
 * A cached prepared statement and what its runs reuse: its column names, and the parameter positions of the names
 * it was bound by. sql.js looks both up again on every run (a call into SQLite and a string conversion per column
 * and per name); here a run binds by position and reads each row's columns straight from the module's memory.
 */
class StatementRunner {
  /** Column names, read once: the schema does not change while the store is open (migrations run before). */
  private columns: string[] | undefined;
  /** Parameter positions (1-based) of each name a params object has used; none when the statement lacks it. */
  private readonly slots = new Map<string, readonly number[]>();

  constructor(
    readonly stmt: Statement,
    private readonly api: SqliteApi,
  ) {}

  private get pointer(): number {
    return (this.stmt as unknown as Record<string, number>)[this.api.statementPointer];
  }

  /** The positions a parameter name binds (a name without a prefix: every prefixed form the statement uses). */
  private slotsOf(name: string): readonly number[] {
    let at = this.slots.get(name);
    if (at) return at;
    const c = name.charCodeAt(0);
    const names = c === 36 || c === 58 || c === 64 ? [name] : ['$' + name, ':' + name, '@' + name]; // $ : @
    const found: number[] = [];
    for (const n of names) {
      const ptr = this.api.stringToNewUTF8(n);
      try {
        const i = this.api._sqlite3_bind_parameter_index(this.pointer, ptr);
        if (i > 0) found.push(i);
      } finally {
        this.api._free(ptr);
      }
    }
    at = found.length ? found : NO_SLOTS;
    this.slots.set(name, at);
    return at;
  }

  /**
   * The values to bind, by position (also what the journal records of a change): an array as given, an object's
   * names resolved to their positions. A position no name fills binds NULL, as an unbound parameter reads.
   */
  positional(params: Params | undefined): SqlValue[] | undefined {
    if (params === undefined) return undefined;
    if (Array.isArray(params)) return params.map(bindValue);
    const out: SqlValue[] = [];
    for (const k of Object.keys(params)) {
      const at = this.slotsOf(k);
      if (at.length === 0) continue;
      const value = bindValue((params as Record<string, unknown>)[k]);
      for (const i of at) {
        while (out.length < i) out.push(null);
        out[i - 1] = value;
      }
    }
    return out;
  }

  /** The current row (after a step that returned true), keyed by column name, with the values sql.js's get() gives. */
  row<T>(): T {
    const columns = (this.columns ??= this.stmt.getColumnNames());
    const api = this.api;
    const p = this.pointer;
    const row: Record<string, SqlValue> = {};
    for (let i = 0; i < columns.length; i++) {
      switch (api._sqlite3_column_type(p, i)) {
        case 1: // SQLITE_INTEGER (a double, as sql.js reads it)
        case 2: // SQLITE_FLOAT
          row[columns[i]] = api._sqlite3_column_double(p, i);
          break;
        case 3: {
          // SQLITE_TEXT: the pointer first, then the length (SQLite's order); decoded like TextDecoder (U+FFFD for bad bytes)
          const ptr = api._sqlite3_column_text(p, i);
          const n = api._sqlite3_column_bytes(p, i);
          row[columns[i]] = n === 0 ? '' : heap(api).toString('utf8', ptr, ptr + n);
          break;
        }
        case 4: // SQLITE_BLOB
          row[columns[i]] = (this.stmt as unknown as { getBlob(i: number): Uint8Array }).getBlob(i);
          break;
        default:
          row[columns[i]] = null;
      }
    }
    return row as T;
  }
}

class SqlJsDb implements Db {
  private depth = 0;
  private closed = false;
  private readonly statements = new Map<string, StatementRunner>();
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
  dataVersion = 0;
  private readonly api: SqliteApi;

  constructor(
    private readonly sql: Database,
    private readonly opts: OpenOptions,
  ) {
    if (!sqliteApi) throw new Error('Db: sql.js is not loaded');
    this.api = sqliteApi;
    this.hook();
    for (const [name, fn] of Object.entries(SQL_FUNCTIONS)) sql.create_function(name, fn);
  }

  /** The update hook's function in the wasm table (0: none installed). */
  private hookPointer = 0;

  /**
   * SQLite's update hook, called for every row changed: the last rowid inserted, and whether a row of the state
   * (database "main", not the in-memory request_log of "temp") changed. Installed directly rather than through
   * sql.js's updateHook, which turns the database and table names of every row into strings first.
   */
  private hook(): void {
    const api = this.api;
    const onChange = (_arg: number, op: number, database: number, _table: number, rowid: bigint) => {
      if (op === 18) this.lastRowid = Number(rowid); // SQLITE_INSERT
      const m = heap(api);
      // "main\0"
      if (m[database] === 0x6d && m[database + 1] === 0x61 && m[database + 2] === 0x69 && m[database + 3] === 0x6e && m[database + 4] === 0) {
        this.changedState = true;
        this.dataVersion++;
      }
    };
    this.hookPointer = api.addFunction(onChange as (...args: never[]) => void, 'viiiij');
    api._sqlite3_update_hook(this.connection, this.hookPointer, 0);
  }

  private unhook(): void {
    if (!this.hookPointer) return;
    this.api._sqlite3_update_hook(this.connection, 0, 0);
    this.api.removeFunction(this.hookPointer);
    this.hookPointer = 0;
  }

  private get connection(): number {
    return (this.sql as unknown as { db: number }).db;
  }

  private open(): Database {
    if (this.closed) throw new Error('the sandbox database is closed');
    return this.sql;
  }

  /** Run a statement from the cache; `consume` steps through it. The statement is reset (bindings cleared) afterwards. */
  private execute<R>(sqlText: string, params: Params | undefined, consume: (runner: StatementRunner) => R): R {
    const sql = this.open();
    if (this.inBulk) throw new Error('Db: only the statements of bulk() run inside it');
    let runner = this.statements.get(sqlText);
    if (runner) this.statements.delete(sqlText);
    else runner = new StatementRunner(sql.prepare(sqlText), this.api);
    this.statements.set(sqlText, runner);
    if (this.statements.size > STATEMENT_CACHE_SIZE) {
      const [oldest, old] = this.statements.entries().next().value!;
      this.statements.delete(oldest);
      old.stmt.free();
    }
    const stmt = runner.stmt;
    const bound = runner.positional(params);
    this.changedState = false;
    let result: R;
    try {
      if (bound !== undefined && bound.length > 0) stmt.bind(bound);
      result = consume(runner);
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
    return this.execute(sqlText, params, (runner) => {
      const rows: T[] = [];
      while (rows.length < limit && runner.stmt.step()) rows.push(runner.row<T>());
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
    this.execute(sqlText, params, ({ stmt }) => {
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
    this.unhook();
    try {
      return this.tx(() => fn(prepare));
    } finally {
      this.dataVersion++;
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
      this.dataVersion++;
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
    for (const runner of this.statements.values()) runner.stmt.free();
    this.statements.clear();
    this.unhook();
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
