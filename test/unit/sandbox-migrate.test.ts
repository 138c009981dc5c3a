import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRow, openDatabase } from '../../src/sandbox/db.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from '../../src/sandbox/schema.sql.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'nvx-migrate-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A state file as the first schema version wrote it, holding one note with one paragraph. */
async function versionOneFile(): Promise<string> {
  // As notevox 0.1 (sql.js) wrote it: a rollback-journal database file, converted on open (old-state.ts).
  const file = join(dir, 'v1.sqlite');
  const db = new (nodeSqlite().DatabaseSync)(file);
  db.exec('PRAGMA journal_mode = DELETE; PRAGMA foreign_keys = ON');
  db.exec(MIGRATIONS[0]);
  db.exec(`PRAGMA user_version = 1; PRAGMA application_id = ${APPLICATION_ID}`);
  db.exec(`
    INSERT INTO organizations VALUES ('org_a', 'A', '2026-01-01T00:00:00.000Z');
    INSERT INTO users (id, name, email, organization_id) VALUES (1, 'Ann', 'ann@example.com', 'org_a');
    INSERT INTO notes (guid, id, title, owner_user_id, source_type, created_at, updated_at) VALUES ('noteAAAAAAAA1', 1, 'N', 1, 'text', 't', 't');
    INSERT INTO paragraphs (uuid, note_guid, position, time_from, time_to, content) VALUES ('u1', 'noteAAAAAAAA1', 0, 't', 't', 'Hello.');
  `);
  db.close();
  return file;
}

describe('state file migrations', () => {
  it('brings a version-1 state file to the current schema: paragraph fields, user guid, key issuer', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
    const db = await openDatabase({ stateFile: await versionOneFile() });
    try {
      expect(db.get('PRAGMA user_version')).toEqual({ user_version: SCHEMA_VERSION });
      const p = decodeRow('paragraphs', db.get<Record<string, unknown>>('SELECT * FROM paragraphs')!);
      expect(p).toMatchObject({ content: 'Hello.', locked: false, diarized_segments: [], summary: null });
      expect(db.get('SELECT guid FROM users')).toEqual({ guid: null });
      expect(db.all('PRAGMA table_info(api_keys)').map((c: any) => c.name)).toContain('issued_by_user_id');
    } finally {
      await db.close();
    }
  });
});
