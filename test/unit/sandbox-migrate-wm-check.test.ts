import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sandbox/db.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';
import { expectRebuiltAsNew, versionBefore, WM_ROWS, WM_SEQ, wordMemorySnapshot, wordMemoryState } from '../helpers/wm-state.js';

/** Version 5 rebuilds word_memories for a scope_type check without an IN list: the same rows, ids and counter. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nvx-migrate-wm-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const V5 = versionBefore('word_memories_v5');

describe('state version 5: word_memories without an IN-list check', () => {
  it('keeps every row, the ids and the AUTOINCREMENT counter, and the schema of a new state', async () => {
    expect(V5).toBeGreaterThan(0);
    const file = wordMemoryState(dir, 'v5.sqlite', V5, 50, 7);
    const before = wordMemorySnapshot(file);
    expect(before.rows).toHaveLength(43);
    expect(before.seq).toEqual({ seq: 50 });

    const fresh = await openDatabase({});
    const db = await openDatabase({ stateFile: file });
    try {
      expectRebuiltAsNew(db, fresh, before);
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
    const file = wordMemoryState(dir, 'empty.sqlite', V5, 0, 0);
    const before = new (nodeSqlite().DatabaseSync)(file, { readOnly: true });
    const seq = before.prepare(WM_SEQ).get();
    before.close();
    const db = await openDatabase({ stateFile: file });
    try {
      expect(db.all(WM_ROWS)).toEqual([]);
      expect(db.get(WM_SEQ)).toEqual(seq);
      db.run("INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES ('organization', 'o', 'first', 't')");
      expect(db.get(WM_SEQ)).toEqual({ seq: 1 });
    } finally {
      await db.close();
    }
  });
});
