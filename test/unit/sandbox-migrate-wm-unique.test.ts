import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sandbox/db.js';
import { APPLICATION_ID, MIGRATIONS } from '../../src/sandbox/schema.sql.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';

/**
 * Version 6 makes the unique key of word_memories a named unique index (built after the rows by a bulk load)
 * instead of the table's inline constraint: the same rows, ids, counter and rules.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nvx-migrate-wm-unique-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const V6 = MIGRATIONS.findIndex((m) => m.includes('word_memories_v6'));

/** A state file at version 5 (the inline UNIQUE) holding `rows` word memories, the last `deleted` of them deleted. */
function stateV5(name: string, rows: number, deleted: number): string {
  const file = join(dir, name);
  const db = new (nodeSqlite().DatabaseSync)(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON');
  for (let v = 0; v < V6; v++) db.exec(MIGRATIONS[v]);
  db.exec(`PRAGMA user_version = ${V6}; PRAGMA application_id = ${APPLICATION_ID}`);
  const insert = db.prepare('INSERT INTO word_memories (scope_type, scope_id, entry, sub_entry, created_at) VALUES (?, ?, ?, ?, ?)');
  const scopes = ['user', 'workspace', 'organization'];
  for (let i = 0; i < rows; i++) insert.run(scopes[i % 3], `s${i % 5}`, `term-${i % 17}`, i % 2 ? `alt-${i}` : null, `2026-01-0${1 + (i % 9)}T00:00:00.000Z`);
  if (deleted) db.prepare('DELETE FROM word_memories WHERE id > ?').run(rows - deleted);
  db.close();
  return file;
}

const ROWS = 'SELECT id, scope_type, scope_id, entry, sub_entry, created_at FROM word_memories ORDER BY id';
const SEQ = "SELECT seq FROM sqlite_sequence WHERE name = 'word_memories'";
const DDL = "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name = 'word_memories' ORDER BY type, name";
const add = (scope: string, id: string, entry: string) =>
  `INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES ('${scope}', '${id}', '${entry}', 't')`;

describe('state version 6: the word memories’ unique key as a named index', () => {
  it('opens a version 5 state: every row, the ids, the counter, the schema of a new state, the same rules', async () => {
    expect(V6).toBe(5);
    const file = stateV5('v5.sqlite', 60, 9);
    const before = new (nodeSqlite().DatabaseSync)(file, { readOnly: true });
    const rows = before.prepare(ROWS).all();
    const seq = before.prepare(SEQ).get();
    expect((before.prepare("SELECT sql FROM sqlite_master WHERE name = 'word_memories'").get() as { sql: string }).sql).toMatch(/UNIQUE \(entry, scope_type, scope_id\)/);
    before.close();
    expect(rows).toHaveLength(51);
    expect(seq).toEqual({ seq: 60 });

    const fresh = await openDatabase({});
    const db = await openDatabase({ stateFile: file });
    try {
      expect(db.get('PRAGMA user_version')).toEqual({ user_version: MIGRATIONS.length });
      expect(db.all(ROWS)).toEqual(rows);
      expect(db.get(SEQ)).toEqual(seq);
      expect(db.all(DDL)).toEqual(fresh.all(DDL));
      // No inline constraint (no sqlite_autoindex): a named unique index on the same columns, in the same order.
      expect(db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'word_memories'")!.sql).not.toMatch(/UNIQUE/i);
      expect(db.all("SELECT name, \"unique\", origin FROM pragma_index_list('word_memories') ORDER BY name")).toEqual([
        { name: 'word_memories_entry', unique: 1, origin: 'c' },
        { name: 'word_memories_page', unique: 0, origin: 'c' },
      ]);
      expect(db.all("SELECT name FROM pragma_index_info('word_memories_entry') ORDER BY seqno")).toEqual([{ name: 'entry' }, { name: 'scope_type' }, { name: 'scope_id' }]);
      expect(db.all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      // The counter goes on after the deleted ids; the check refuses another scope type; the key an entry given twice.
      db.run(add('user', 's0', 'next'));
      expect(db.get("SELECT id FROM word_memories WHERE entry = 'next'")).toEqual({ id: 61 });
      expect(() => db.run(add('team', 's0', 'bad'))).toThrow(/CHECK constraint failed/);
      expect(() => db.run(add('user', 's0', 'next'))).toThrow('UNIQUE constraint failed: word_memories.entry, word_memories.scope_type, word_memories.scope_id');
      // The same entry in another scope (type or id) is another row; an upsert on the key's columns finds the index.
      db.run(`${add('user', 's1', 'next')}, ('workspace', 's0', 'next', 't')`);
      expect(db.get("SELECT count(*) AS n FROM word_memories WHERE entry = 'next'")).toEqual({ n: 3 });
      expect(db.run(`${add('user', 's0', 'next')}, ('user', 's0', 'other', 't') ON CONFLICT (scope_type, scope_id, entry) DO NOTHING`).changes).toBe(1);
      expect(db.all('PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      await db.close();
      await fresh.close();
    }
  });

  it('keeps an empty table and its counter as they were', async () => {
    const file = stateV5('empty.sqlite', 0, 0);
    const db = await openDatabase({ stateFile: file });
    try {
      expect(db.all(ROWS)).toEqual([]);
      expect(db.get(SEQ)).toBeUndefined();
      db.run(add('organization', 'o', 'first'));
      expect(db.get(SEQ)).toEqual({ seq: 1 });
    } finally {
      await db.close();
    }
  });

  it('a bulk load builds the index after the rows and refuses an entry given twice in a scope with the same error', async () => {
    const db = await openDatabase({});
    try {
      const load = (rows: Array<[string, string, string]>) =>
        db.bulk((prepare) => {
          const insert = prepare('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)');
          for (const r of rows) insert([...r, 't']);
        });
      expect(() => load([['user', '1', 'a'], ['user', '2', 'a'], ['user', '1', 'a']])).toThrow(
        'UNIQUE constraint failed: word_memories.entry, word_memories.scope_type, word_memories.scope_id',
      );
      expect(db.all(ROWS)).toEqual([]);
      load([['user', '1', 'a'], ['user', '2', 'a']]);
      expect(db.all("SELECT name FROM sqlite_master WHERE tbl_name = 'word_memories' AND type = 'index' ORDER BY name")).toEqual([
        { name: 'word_memories_entry' },
        { name: 'word_memories_page' },
      ]);
      expect(() => db.run(add('user', '1', 'a'))).toThrow(/UNIQUE constraint failed/);
    } finally {
      await db.close();
    }
  });
});
