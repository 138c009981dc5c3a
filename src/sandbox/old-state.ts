import { closeSync, copyFileSync, existsSync, openSync, readFileSync, readSync, renameSync, rmSync } from 'node:fs';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { UsageError } from '../errors.js';
import { APPLICATION_ID } from './schema.sql.js';
import { nodeSqlite } from './sqlite.js';

/**
 * State files of notevox 0.1 (sql.js): FILE was a snapshot, a SQLite file in rollback-journal mode, and
 * FILE.journal (and FILE.journal.old while it was being folded) held the changes made since, as records of
 * [payload length u32 LE][CRC-32 u32 LE][JSON [definitions, statements]] after a 16-byte header ("NVXJRNL1",
 * generation u32 LE, 4 zero bytes). Today's state file is the database itself, in WAL mode. On first open an old
 * file is converted: the originals are kept beside it as FILE.v0.1 (and FILE.v0.1.journal …), the journals are
 * replayed into a copy, which then replaces FILE.
 */

const MAGIC = 'NVXJRNL1';
const HEADER_BYTES = 16;

export const oldFiles = (file: string) => ({ backup: `${file}.v0.1`, journals: [`${file}.journal.old`, `${file}.journal`] });

/** A SQLite file of notevox in rollback-journal mode (bytes 18–19 = 1): the snapshot of a 0.1 state file. */
export function isOldStateFile(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const header = Buffer.alloc(100);
    if (readSync(fd, header, 0, 100, 0) < 100 || header.toString('latin1', 0, 15) !== 'SQLite format 3') return false;
    return header[18] === 1 && header[19] === 1 && header.readUInt32BE(68) === APPLICATION_ID;
  } finally {
    closeSync(fd);
  }
}

export function convertOldStateFile(file: string, log: (line: string) => void): void {
  const { backup, journals } = oldFiles(file);
  const work = `${file}.converting`;
  const present = journals.filter((j) => existsSync(j));
  // The originals first, beside it: a conversion cut short is done again from them.
  copyFileSync(file, backup);
  for (const j of present) copyFileSync(j, backup + j.slice(file.length));
  copyFileSync(file, work);
  const { DatabaseSync } = nodeSqlite();
  const db = new DatabaseSync(work);
  try {
    const meta = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'state_meta'").get()!.n === 1; // schema 4 on
    let generation = meta ? Number((db.prepare("SELECT value FROM state_meta WHERE key = 'journal_generation'").get() as { value?: number } | undefined)?.value ?? 0) : 0;
    for (const j of present) {
      const bytes = readFileSync(j);
      if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== MAGIC) throw refuse(file, `${j} is not a notevox 0.1 journal`);
      const g = bytes.readUInt32LE(8);
      if (g < generation) continue; // already in the snapshot
      if (g > generation) throw refuse(file, `${j} (generation ${g}) does not continue the state file (generation ${generation})`);
      replay(db, bytes.subarray(HEADER_BYTES), j, file);
      generation++;
    }
    db.exec(`${meta ? 'DELETE FROM state_meta; ' : ''}PRAGMA journal_mode = WAL`);
  } catch (e) {
    db.close();
    rmSync(work, { force: true });
    throw e instanceof UsageError ? e : refuse(file, (e as Error).message);
  }
  db.close();
  renameSync(work, file);
  for (const j of present) rmSync(j, { force: true });
  log(`sandbox: converted ${file} from the notevox 0.1 format (snapshot and journal) to a plain SQLite database; the original is kept as ${backup}`);
}

const refuse = (file: string, why: string) =>
  new UsageError(
    `cannot convert the notevox 0.1 state file ${file}: ${why}`,
    `start it once with notevox 0.1 and stop it with Ctrl-C (which folds its journal in), or remove ${file} and its .journal files to start afresh`,
  );

/** Apply a journal's records, each in its own transaction, up to the first incomplete or corrupt one (never acknowledged). */
function replay(db: DatabaseSync, buf: Buffer, journal: string, file: string): void {
  const texts = new Map<number, string>();
  const prepared = new Map<number, StatementSync>();
  const decode = (v: unknown): SQLInputValue => {
    if (v === null || typeof v !== 'object') return typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : (v as SQLInputValue);
    const o = v as { b?: string; f?: string };
    return o.b !== undefined ? new Uint8Array(Buffer.from(o.b, 'base64')) : Number(o.f);
  };
  // node:zlib taken here, not imported: every sandbox start loaded it, for a conversion that is rare.
  const { crc32 } = process.getBuiltinModule('node:zlib');
  let at = 0;
  let count = 0;
  while (at + 8 <= buf.length) {
    const length = buf.readUInt32LE(at);
    if (at + 8 + length > buf.length) break;
    const payload = buf.subarray(at + 8, at + 8 + length);
    if (crc32(payload) !== buf.readUInt32LE(at + 4)) break;
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
        const run = stmt.run as (...a: unknown[]) => unknown;
        if (Array.isArray(params)) run.apply(stmt, byPosition(texts.get(n)!, params.map(decode)));
        else if (params !== null && params !== undefined) run.call(stmt, Object.fromEntries(Object.entries(params as Record<string, unknown>).map(([k, v]) => [k, decode(v)])));
        else run.call(stmt);
      }
      db.exec('COMMIT');
    } catch (e) {
      db.exec('ROLLBACK');
      throw refuse(file, `${journal} does not apply (record ${count + 1}): ${(e as Error).message}`);
    }
    count++;
    at += 8 + length;
  }
}

const PARAMETERS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|(\?\d*|[$:@][A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The 0.1 journal recorded values by position (SQLite's parameter index); node:sqlite binds an array to the
 * anonymous `?` parameters only, and named ones by name: the arguments for `values`, in SQLite's numbering
 * (a name takes the next index where it first appears, `?` the next, `?N` index N).
 */
function byPosition(text: string, values: SQLInputValue[]): unknown[] {
  const named: Record<string, SQLInputValue> = {};
  const anonymous: SQLInputValue[] = [];
  const seen = new Map<string, number>();
  let max = 0;
  for (const m of text.matchAll(PARAMETERS)) {
    const p = m[1];
    if (!p) continue;
    if (p.startsWith('?')) {
      const index = p.length > 1 ? Number(p.slice(1)) : max + 1;
      max = Math.max(max, index);
      if (p.length === 1) anonymous.push(values[index - 1] ?? null);
      else named[p] = values[index - 1] ?? null;
    } else if (!seen.has(p)) {
      seen.set(p, ++max);
      named[p] = values[max - 1] ?? null;
    }
  }
  return Object.keys(named).length ? [named, ...anonymous] : anonymous;
}
