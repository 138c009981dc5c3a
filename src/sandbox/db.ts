import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { BindParams, Database, SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { APPLICATION_ID, BOOLEAN_COLUMNS, JSON_COLUMNS, MIGRATIONS, SCHEMA_VERSION, type TableName } from './schema.sql.js';

/**
 * The sandbox's state store: SQLite compiled to WASM (sql.js), held in memory and, with a state file,
 * written back atomically shortly after every change.
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
  /** Run `fn` in a transaction (savepoints when nested): committed when it returns, rolled back when it throws. `fn` must be synchronous. */
  tx<T>(fn: () => T): T;
  /** The whole database as SQLite file bytes. */
  export(): Uint8Array;
  /** Write pending changes to the state file now (no-op without one). */
  flush(): Promise<void>;
  /** Flush, then release the database. Further calls throw. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Where state lives between runs. Without it the store is in memory only. */
  stateFile?: string;
  /** Failures of the background writer. The changes stay pending either way: the next write, flush() or close() retries (and those two raise). */
  onError?: (e: Error) => void;
  /** Background write timing: a write happens `debounceMs` after the last change, at most `maxWaitMs` after the first. */
  writeDelay?: { debounceMs: number; maxWaitMs: number };
}

export const DEFAULT_WRITE_DELAY = { debounceMs: 250, maxWaitMs: 1000 } as const;
/** Prepared statements kept for reuse (least recently used beyond this are freed). */
const STATEMENT_CACHE_SIZE = 256;

const nodeRequire = createRequire(import.meta.url);
let sqlJs: Promise<SqlJsStatic> | undefined;

/** sql.js is loaded through createRequire so that it resolves from node_modules both from src and from a bundle in dist/. */
function loadSqlJs(): Promise<SqlJsStatic> {
  if (!sqlJs) {
    const initSqlJs = nodeRequire('sql.js') as typeof import('sql.js');
    const wasm = nodeRequire.resolve('sql.js/dist/sql-wasm.wasm');
    sqlJs = initSqlJs({ locateFile: () => wasm });
  }
  return sqlJs;
}

export async function openDatabase(opts: OpenOptions = {}): Promise<Db> {
  const SQL = await loadSqlJs();
  const bytes = opts.stateFile ? await readStateFile(opts.stateFile) : undefined;
  const sql = bytes ? new SQL.Database(bytes) : new SQL.Database();
  try {
    migrate(sql, opts.stateFile);
  } catch (e) {
    sql.close();
    throw e;
  }
  const db = new SqlJsDb(sql, opts);
  if (!bytes) db.markDirty(); // a new state file is written even before the first change
  return db;
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

/** Bring the schema to SCHEMA_VERSION, refusing files that are not notevox state. */
function migrate(sql: Database, file: string | undefined) {
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
}

function bindValue(v: unknown): SqlValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' || typeof v === 'number' || v instanceof Uint8Array) return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

function bindParams(params: Params | undefined): BindParams | undefined {
  if (params === undefined) return undefined;
  if (Array.isArray(params)) return params.map(bindValue);
  const out: Record<string, SqlValue> = {};
  for (const [k, v] of Object.entries(params)) {
    const value = bindValue(v);
    if (/^[$:@]/.test(k)) out[k] = value;
    else for (const prefix of ['$', ':', '@']) out[prefix + k] = value;
  }
  return out;
}

class SqlJsDb implements Db {
  private depth = 0;
  private closed = false;
  private dirty = false;
  private timer: NodeJS.Timeout | null = null;
  private firstDirtyAt: number | null = null;
  /** Writes are serialized on this chain; it never rejects. */
  private writing: Promise<void> = Promise.resolve();
  private readonly delay: { debounceMs: number; maxWaitMs: number };
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly sql: Database,
    private readonly opts: OpenOptions,
  ) {
    this.delay = opts.writeDelay ?? DEFAULT_WRITE_DELAY;
    // Row changes made through any call (INSERT … RETURNING via all(), for example) mark the state dirty.
    sql.updateHook(() => this.markDirty());
  }

  private open(): Database {
    if (this.closed) throw new Error('the sandbox database is closed');
    return this.sql;
  }

  /** Run a statement from the cache; `consume` steps through it. The statement is reset (bindings cleared) afterwards. */
  private execute<R>(sqlText: string, params: Params | undefined, consume: (stmt: Statement) => R): R {
    const sql = this.open();
    let stmt = this.statements.get(sqlText);
    if (stmt) this.statements.delete(sqlText);
    else stmt = sql.prepare(sqlText);
    this.statements.set(sqlText, stmt);
    if (this.statements.size > STATEMENT_CACHE_SIZE) {
      const [oldest, old] = this.statements.entries().next().value!;
      this.statements.delete(oldest);
      old.free();
    }
    try {
      const bound = bindParams(params);
      if (bound !== undefined) stmt.bind(bound);
      return consume(stmt);
    } finally {
      stmt.reset();
    }
  }

  private query<T>(sqlText: string, params: Params | undefined, limit: number): T[] {
    return this.execute(sqlText, params, (stmt) => {
      const rows: T[] = [];
      while (rows.length < limit && stmt.step()) rows.push(stmt.getAsObject() as T);
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
    this.markDirty();
    const changes = this.sql.getRowsModified();
    const lastInsertRowid = Number(this.get<{ id: number }>('SELECT last_insert_rowid() AS id')!.id);
    return { changes, lastInsertRowid };
  }

  tx<T>(fn: () => T): T {
    const sql = this.open();
    const outer = this.depth === 0;
    const savepoint = `nvx_sp_${this.depth}`;
    const undo = () => {
      try {
        sql.exec(outer ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
      } catch {
        // SQLite already rolled back (it does on some errors): the original error is what matters
      }
    };
    sql.exec(outer ? 'BEGIN' : `SAVEPOINT ${savepoint}`);
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
    return result;
  }

  export(): Uint8Array {
    if (this.depth > 0) throw new Error('Db.export: cannot export inside a transaction');
    return this.open().export();
  }

  /** Note a change and (re)arm the debounced writer. */
  markDirty(): void {
    if (!this.opts.stateFile || this.closed) return;
    this.dirty = true;
    const now = Date.now();
    this.firstDirtyAt ??= now;
    const due = Math.min(now + this.delay.debounceMs, this.firstDirtyAt + this.delay.maxWaitMs);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.persist().catch((e: Error) => this.opts.onError?.(e));
    }, Math.max(0, due - now));
    this.timer.unref();
  }

  /** Queue a write of the current state. Runs from the microtask queue, so never inside a synchronous tx(). */
  private persist(): Promise<void> {
    const p = this.writing.then(() => this.writeIfDirty());
    this.writing = p.catch(() => undefined);
    return p;
  }

  private async writeIfDirty(): Promise<void> {
    const file = this.opts.stateFile;
    if (!file || !this.dirty || this.closed) return;
    this.dirty = false;
    this.firstDirtyAt = null;
    const bytes = this.sql.export();
    try {
      await writeAtomically(file, bytes);
    } catch (e) {
      this.dirty = true;
      throw new Error(`cannot write the sandbox state file ${file}: ${(e as Error).message}`, { cause: e });
    }
  }

  async flush(): Promise<void> {
    this.open();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.persist();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.flush();
      if (this.dirty) await this.flush(); // changes made while the first write was in flight
    } finally {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.closed = true;
      for (const stmt of this.statements.values()) stmt.free();
      this.statements.clear();
      this.sql.close();
    }
  }
}

/** The state file: synced to disk, then renamed over the old one (io/atomic-file). */
async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  writeFileAtomic(file, bytes, { mode: 0o600, sync: true });
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
