// State files at an older schema version holding word memories, for the tests of the migrations that rebuild
// word_memories (versions 5 and 6): written with the shipped migrations up to that version, as an older notevox did.
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Db } from '../../src/sandbox/db.js';
import { APPLICATION_ID, MIGRATIONS } from '../../src/sandbox/schema.sql.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';

/** The version a migration brings a store from: the index of the first migration whose SQL contains `marker`. */
export const versionBefore = (marker: string) => MIGRATIONS.findIndex((m) => m.includes(marker));

/**
 * A state file `dir/name` at schema `version` holding `rows` word memories (in 3 scope types × 5 scope ids; entries
 * `term-<i % entries>`), the last `deleted` of them deleted.
 */
export function wordMemoryState(dir: string, name: string, version: number, rows: number, deleted: number, entries = Infinity): string {
  const file = join(dir, name);
  const db = new (nodeSqlite().DatabaseSync)(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON');
  for (let v = 0; v < version; v++) db.exec(MIGRATIONS[v]);
  db.exec(`PRAGMA user_version = ${version}; PRAGMA application_id = ${APPLICATION_ID}`);
  const insert = db.prepare('INSERT INTO word_memories (scope_type, scope_id, entry, sub_entry, created_at) VALUES (?, ?, ?, ?, ?)');
  const scopes = ['user', 'workspace', 'organization'];
  for (let i = 0; i < rows; i++) insert.run(scopes[i % 3], `s${i % 5}`, `term-${i % entries}`, i % 2 ? `alt-${i}` : null, `2026-01-0${1 + (i % 9)}T00:00:00.000Z`);
  if (deleted) db.prepare('DELETE FROM word_memories WHERE id > ?').run(rows - deleted);
  db.close();
  return file;
}

/** Every word memory, the AUTOINCREMENT counter, and the table's DDL: what a rebuild must keep (or match). */
export const WM_ROWS = 'SELECT id, scope_type, scope_id, entry, sub_entry, created_at FROM word_memories ORDER BY id';
export const WM_SEQ = "SELECT seq FROM sqlite_sequence WHERE name = 'word_memories'";
export const WM_DDL = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name = 'word_memories' ORDER BY type, name";

/** What a state file holds before its migration: its word memories, counter, and the table's CREATE statement. */
export function wordMemorySnapshot(file: string): { rows: unknown[]; seq: unknown; tableSql: string } {
  const db = new (nodeSqlite().DatabaseSync)(file, { readOnly: true });
  try {
    const table = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'word_memories'").get() as { sql: string };
    return { rows: db.prepare(WM_ROWS).all(), seq: db.prepare(WM_SEQ).get(), tableSql: table.sql };
  } finally {
    db.close();
  }
}

/** `db`, opened on a migrated state file, is at the newest version with `before`'s rows and counter, and the DDL of `fresh` (a new state). */
export function expectRebuiltAsNew(db: Db, fresh: Db, before: { rows: unknown[]; seq: unknown }): void {
  expect(db.get('PRAGMA user_version')).toEqual({ user_version: MIGRATIONS.length });
  expect(db.all(WM_ROWS)).toEqual(before.rows);
  expect(db.get(WM_SEQ)).toEqual(before.seq);
  expect(db.all(WM_DDL)).toEqual(fresh.all(WM_DDL));
}
