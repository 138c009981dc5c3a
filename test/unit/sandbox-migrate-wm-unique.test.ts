import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sandbox/db.js';
import { expectRebuiltAsNew, versionBefore, WM_ROWS, WM_SEQ, wordMemorySnapshot, wordMemoryState } from '../helpers/wm-state.js';

/**
 * Version 6 makes the unique key of word_memories a named unique index (built after the rows by a bulk load)
 * instead of the table's inline constraint: the same rows, ids, counter and rules.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nvx-migrate-wm-unique-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const V6 = versionBefore('word_memories_v6');

const add = (scope: string, id: string, entry: string) =>
  `INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES ('${scope}', '${id}', '${entry}', 't')`;

describe('state version 6: the word memories’ unique key as a named index', () => {
  it('opens a version 5 state: every row, the ids, the counter, the schema of a new state, the same rules', async () => {
    expect(V6).toBe(5);
    const file = wordMemoryState(dir, 'v5.sqlite', V6, 60, 9, 17);
    const before = wordMemorySnapshot(file);
    expect(before.tableSql).toMatch(/UNIQUE \(entry, scope_type, scope_id\)/);
    expect(before.rows).toHaveLength(51);
    expect(before.seq).toEqual({ seq: 60 });

    const fresh = await openDatabase({});
    const db = await openDatabase({ stateFile: file });
    try {
      expectRebuiltAsNew(db, fresh, before);
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
    const file = wordMemoryState(dir, 'empty.sqlite', V6, 0, 0, 17);
    const db = await openDatabase({ stateFile: file });
    try {
      expect(db.all(WM_ROWS)).toEqual([]);
      expect(db.get(WM_SEQ)).toBeUndefined();
      db.run(add('organization', 'o', 'first'));
      expect(db.get(WM_SEQ)).toEqual({ seq: 1 });
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
      expect(db.all(WM_ROWS)).toEqual([]);
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
