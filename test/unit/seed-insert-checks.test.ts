import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sandbox/db.js';
import { insertSeed } from '../../src/sandbox/seed/load.js';

/**
 * A seed's rows go in with SQLite's CHECK constraints verified once after them (quick_check), not row by row
 * (load.ts, insertSeed). Should a row break one, the load must fail exactly as a row-by-row load fails, with
 * nothing of it left.
 */
describe('insertSeed', () => {
  const org = (id: string) => [id, 'Org', '2026-01-01T00:00:00.000Z'];
  const workspace = (source: string) => ['wsInsertChecks01', 'o1', 'Workspace', '2026-01-01T00:00:00.000Z', source];

  it('inserts rows that meet every constraint, and checks row by row again afterwards', async () => {
    const db = await openDatabase();
    try {
      let loads = 0;
      const keys = insertSeed(db, () => ({
        load(prepare) {
          loads++;
          prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)')(org('o1'));
          prepare('INSERT INTO workspaces (guid, organization_id, name, created_at, used_minutes) VALUES (?, ?, ?, ?, ?)')(workspace('5'));
          return [];
        },
      }));
      expect(keys).toEqual([]);
      expect(loads).toBe(1);
      expect(db.all('SELECT guid, used_minutes FROM workspaces')).toEqual([{ guid: 'wsInsertChecks01', used_minutes: 5 }]);
      // the constraints are checked row by row again after the load
      expect(() => db.run('INSERT INTO workspaces (guid, organization_id, name, created_at, used_minutes) VALUES (?, ?, ?, ?, ?)', ['wsInsertChecks02', 'o1', 'W', 'x', -1])).toThrow(
        /CHECK constraint failed/,
      );
    } finally {
      await db.close();
    }
  });

  it('fails as a row-by-row load does when a row breaks a CHECK constraint, leaving nothing', async () => {
    const db = await openDatabase();
    try {
      let loads = 0;
      const load = () =>
        insertSeed(db, () => ({
          load(prepare) {
            loads++;
            prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)')(org('o1'));
            prepare('INSERT INTO workspaces (guid, organization_id, name, created_at, used_minutes) VALUES (?, ?, ?, ?, ?)')(workspace('-3'));
            return [];
          },
        }));
      expect(load).toThrow(/CHECK constraint failed: used_minutes >= 0/);
      expect(loads).toBe(2); // once unchecked (quick_check found it, rolled back), once checked row by row
      expect(db.all('SELECT id FROM organizations')).toEqual([]);
      expect(db.all('SELECT guid FROM workspaces')).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
