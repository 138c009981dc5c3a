import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sandbox/db.js';
import { APPLICATION_ID, MIGRATIONS } from '../../src/sandbox/schema.sql.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';

/** Version 5 rebuilds word_memories for a scope_type check without an IN list: the same rows, ids and counter. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nvx-migrate-wm-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const V5 = MIGRATIONS.findIndex((m) => m.includes('word_memories_v5'));

/** A state file at version 5 (before the rebuild) holding `rows` word memories, the last `deleted` of them deleted. */
function stateBefore(name: string, rows: number, deleted: number): string {
  const file = join(dir, name);
  const db = new (nodeSqlite().DatabaseSync)(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON');
  for (let v = 0; v < V5; v++) db.exec(MIGRATIONS[v]);
  db.exec(`PRAGMA user_version = ${V5}; PRAGMA application_id = ${APPLICATION_ID}`);
  const insert = db.prepare('INSERT INTO word_memories (scope_type, scope_id, entry, sub_entry, created_at) VALUES (?, ?, ?, ?, ?)');
  const scopes = ['user', 'workspace', 'organization'];
  for (let i = 0; i < rows; i++) insert.run(scopes[i % 3], `s${i % 5}`, `term-${i}`, i % 2 ? `alt-${i}` : null, `2026-01-0${1 + (i % 9)}T00:00:00.000Z`);
  if (deleted) db.prepare('DELETE FROM word_memories WHERE id > ?').run(rows - deleted);
  db.close();
  return file;
}

const ROWS = 'SELECT id, scope_type, scope_id, entry, sub_entry, created_at FROM word_memories ORDER BY id';
const SEQ = "SELECT seq FROM sqlite_sequence WHERE name = 'word_memories'";
const DDL = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name = 'word_memories' ORDER BY type, name";

describe('state version 5: word_memories without an IN-list check', () => {
  it('keeps every row, the ids and the AUTOINCREMENT counter, and the schema of a new state', async () => {
    expect(V5).toBeGreaterThan(0);
    const file = stateBefore('v5.sqlite', 50, 7);
    const before = new (nodeSqlite().DatabaseSync)(file, { readOnly: true });
    const rows = before.prepare(ROWS).all();
    const seq = before.prepare(SEQ).get();
    before.close();
    expect(rows).toHaveLength(43);
    expect(seq).toEqual({ seq: 50 });

    const fresh = await openDatabase({});
    const db = await openDatabase({ stateFile: file });
    try {
      expect(db.get('PRAGMA user_version')).toEqual({ user_version: MIGRATIONS.length });
      expect(db.all(ROWS)).toEqual(rows);
      expect(db.get(SEQ)).toEqual(seq);
      expect(db.all(DDL)).toEqual(fresh.all(DDL));
      expect(db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'word_memories'")!.sql).not.toMatch(/\bIN\s*\(/i);
      expect(db.all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      // The counter goes on after the deleted ids; the check still refuses another scope type.
      db.run("INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES ('user', 's0', 'next', 't')");
      expect(db.get("SELECT id FROM word_memories WHERE entry = 'next'")).toEqual({ id: 51 });
      expect(() => db.run("INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES ('team', 's0', 'bad', 't')")).toThrow(/CHECK constraint failed/);
      expect(() => db.run("INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES ('user', 's0', 'next', 't')")).toThrow(/UNIQUE constraint failed/);
      // The unique key is still the entry within a scope: the same entry in another scope (type or id) is another row.
      db.run("INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES ('user', 's1', 'next', 't'), ('workspace', 's0', 'next', 't')");
      expect(db.get("SELECT count(*) AS n FROM word_memories WHERE entry = 'next'")).toEqual({ n: 3 });
    } finally {
      await db.close();
      await fresh.close();
    }
  });

  it('keeps an empty table and its counter as they were', async () => {
    const file = stateBefore('empty.sqlite', 0, 0);
    const before = new (nodeSqlite().DatabaseSync)(file, { readOnly: true });
    const seq = before.prepare(SEQ).get();
    before.close();
    const db = await openDatabase({ stateFile: file });
    try {
      expect(db.all(ROWS)).toEqual([]);
      expect(db.get(SEQ)).toEqual(seq);
      db.run("INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES ('organization', 'o', 'first', 't')");
      expect(db.get(SEQ)).toEqual({ seq: 1 });
    } finally {
      await db.close();
    }
  });
});
