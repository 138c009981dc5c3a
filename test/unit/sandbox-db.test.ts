import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { decodeRow, openDatabase, type Db } from '../../src/sandbox/db.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { hashSecret, newNoteGuid, newSalt, newUuid, newWorkspaceGuid, randomAlnum } from '../../src/sandbox/ids.js';
import { APPLICATION_ID, BOOLEAN_COLUMNS, JSON_COLUMNS, SCHEMA_VERSION, TABLES } from '../../src/sandbox/schema.sql.js';

const SQLITE3 = '/usr/bin/sqlite3';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let opened: Db[] = [];
async function open(opts: Parameters<typeof openDatabase>[0] = {}) {
  const db = await openDatabase(opts);
  opened.push(db);
  return db;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'notevox-db-test-'));
});
afterEach(async () => {
  for (const db of opened) await db.close().catch(() => {});
  opened = [];
  await rm(dir, { recursive: true, force: true });
});

function addOrg(db: Db, id = 'org_a') {
  db.run('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?)', [id, `Org ${id}`, '2026-01-01T00:00:00.000Z']);
}
function addWorkspace(db: Db, guid: string, extra: Record<string, unknown> = {}) {
  db.run(
    'INSERT INTO workspaces (guid, organization_id, name, created_at, wiki_plan, wiki_enabled, monthly_minutes) VALUES ($guid, $org, $name, $at, $plan, $enabled, $minutes)',
    { guid, org: 'org_a', name: 'W', at: '2026-01-01T00:00:00.000Z', plan: true, enabled: false, minutes: undefined, ...extra },
  );
}
/** Read a state file back with sql.js, independent of the Db under test. */
async function readBack(file: string, sql: string): Promise<unknown[][]> {
  const initSqlJs = createRequire(import.meta.url)('sql.js') as typeof import('sql.js');
  const SQL = await initSqlJs();
  const db = new SQL.Database(await readFile(file));
  try {
    return db.exec(sql)[0]?.values ?? [];
  } finally {
    db.close();
  }
}

describe('Db: queries', () => {
  it('inserts, reads, updates and deletes with positional and named parameters', async () => {
    const db = await open();
    addOrg(db);
    addWorkspace(db, 'wsAAAAAAAAAAAAA1');
    const r = db.run('INSERT INTO users (id, name, email, organization_id, org_admin) VALUES (:id, :name, :email, :org, :admin)', {
      ':id': 7, ':name': 'Ann', ':email': 'ann@example.com', ':org': 'org_a', ':admin': true,
    });
    expect(r).toEqual({ changes: 1, lastInsertRowid: 7 });
    expect(db.get('SELECT id, name, org_admin FROM users WHERE id = ?', [7])).toEqual({ id: 7, name: 'Ann', org_admin: 1 });
    expect(db.get('SELECT monthly_minutes, wiki_plan FROM workspaces WHERE guid = $g', { g: 'wsAAAAAAAAAAAAA1' })).toEqual({ monthly_minutes: null, wiki_plan: 1 });

    const log = db.run('INSERT INTO request_log (at, key_id, method, path, status) VALUES (?, ?, ?, ?, ?)', [new Date('2026-01-02T00:00:00Z'), null, 'GET', '/x', 200]);
    expect(log.lastInsertRowid).toBe(1);
    expect(db.get<{ at: string }>('SELECT at FROM request_log')!.at).toBe('2026-01-02T00:00:00.000Z');

    expect(db.run('UPDATE users SET name = ? WHERE id = ?', ['Anna', 7]).changes).toBe(1);
    expect(db.all('SELECT name FROM users')).toEqual([{ name: 'Anna' }]);
    expect(db.run('DELETE FROM users WHERE id = ?', [8]).changes).toBe(0);
    expect(db.run('DELETE FROM users WHERE id = ?', [7]).changes).toBe(1);
    expect(db.get('SELECT * FROM users WHERE id = 7')).toBeUndefined();
    expect(db.all('SELECT * FROM users')).toEqual([]);
  });

  it('stores objects as JSON text and decodeRow maps booleans and JSON back', async () => {
    const db = await open();
    addOrg(db);
    db.run(
      "INSERT INTO api_keys (id, secret_salt, secret_hash, type, organization_id, scopes, created_at, legacy_scope) VALUES ('k1', 's', 'h', 'ORGANIZATION', 'org_a', ?, 'now', ?)",
      [['note:read', 'wiki:read'], false],
    );
    const raw = db.get<{ scopes: string; voice_permission: number; legacy_scope: number; id: string }>('SELECT * FROM api_keys')!;
    expect(raw.scopes).toBe('["note:read","wiki:read"]');
    const row = decodeRow('api_keys', raw);
    expect(row.scopes).toEqual(['note:read', 'wiki:read']);
    expect(row.voice_permission).toBe(true);
    expect(row.legacy_scope).toBe(false);
    expect(row.id).toBe('k1');
  });

  it('enforces the schema: foreign keys and enumerations', async () => {
    const db = await open();
    expect(() => addWorkspace(db, 'wsNoOrganization')).toThrow(/FOREIGN KEY/);
    addOrg(db);
    expect(() => addWorkspace(db, 'wsBadBoolean0001', { plan: 2 })).toThrow(/CHECK/);
  });

  it('declares BOOLEAN_COLUMNS and JSON_COLUMNS exactly as the DDL does', async () => {
    const db = await open();
    const declared = (type: string) => {
      const out: Record<string, string[]> = {};
      for (const t of TABLES) {
        const cols = db.all<{ name: string; type: string }>(`PRAGMA table_info(${t})`).filter((c) => c.type === type).map((c) => c.name);
        if (cols.length) out[t] = cols;
      }
      return out;
    };
    expect(declared('BOOLEAN')).toEqual(BOOLEAN_COLUMNS);
    expect(declared('JSON_TEXT')).toEqual(JSON_COLUMNS);
    const tables = db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").map((r) => r.name);
    expect(tables).toEqual([...TABLES].sort());
  });
});

describe('Db: transactions', () => {
  it('commits on return and rolls back on throw', async () => {
    const db = await open();
    expect(db.tx(() => (addOrg(db, 'o1'), 'done'))).toBe('done');
    expect(() =>
      db.tx(() => {
        addOrg(db, 'o2');
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.all('SELECT id FROM organizations')).toEqual([{ id: 'o1' }]);
  });

  it('nests with savepoints: an inner failure undoes only the inner work', async () => {
    const db = await open();
    db.tx(() => {
      addOrg(db, 'outer');
      expect(() =>
        db.tx(() => {
          addOrg(db, 'inner');
          db.tx(() => addOrg(db, 'innermost'));
          throw new Error('inner fails');
        }),
      ).toThrow('inner fails');
      db.tx(() => addOrg(db, 'second'));
    });
    expect(db.all('SELECT id FROM organizations ORDER BY id')).toEqual([{ id: 'outer' }, { id: 'second' }]);
  });

  it('rolls back an outer failure including committed inner savepoints', async () => {
    const db = await open();
    expect(() =>
      db.tx(() => {
        db.tx(() => addOrg(db, 'inner'));
        throw new Error('outer fails');
      }),
    ).toThrow('outer fails');
    expect(db.all('SELECT id FROM organizations')).toEqual([]);
    db.tx(() => addOrg(db, 'after')); // the transaction state is clean again
    expect(db.all('SELECT id FROM organizations')).toEqual([{ id: 'after' }]);
  });

  it('refuses an async function and rolls back', async () => {
    const db = await open();
    expect(() => db.tx((async () => addOrg(db, 'x')) as unknown as () => void)).toThrow(/synchronous/);
    expect(db.all('SELECT id FROM organizations')).toEqual([]);
    expect(() => db.tx(() => db.export())).toThrow(/inside a transaction/);
  });
});

describe('Db: persistence', () => {
  it('round-trips through the state file, written atomically', async () => {
    const file = join(dir, 'nested', 'state.sqlite');
    const db = await openDatabase({ stateFile: file });
    addOrg(db);
    addWorkspace(db, 'wsPersisted00001');
    db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t', 'GET', '/a', 200]);
    await db.close();
    await expect(db.flush()).rejects.toThrow(/closed/);
    expect(() => db.get('SELECT 1')).toThrow(/closed/);

    expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['state.sqlite']); // no temp file left behind
    const again = await open({ stateFile: file });
    expect(again.all('SELECT guid, wiki_plan FROM workspaces')).toEqual([{ guid: 'wsPersisted00001', wiki_plan: 1 }]);
    expect(again.get('SELECT path FROM request_log')).toEqual({ path: '/a' });
    expect(again.get('PRAGMA user_version')).toEqual({ user_version: SCHEMA_VERSION });

    if (existsSync(SQLITE3)) {
      expect(execFileSync(SQLITE3, [file, 'select count(*) from notes']).toString().trim()).toBe('0');
      expect(execFileSync(SQLITE3, [file, 'select guid from workspaces']).toString().trim()).toBe('wsPersisted00001');
    } else {
      expect(await readBack(file, 'select count(*) from notes')).toEqual([[0]]);
    }
  });

  it('writes within a second of a change even while changes keep coming (debounce with a maximum wait)', async () => {
    const file = join(dir, 'state.sqlite');
    const db = await open({ stateFile: file });
    addOrg(db);
    await db.flush();
    const before = (await stat(file)).mtimeMs;

    const started = Date.now();
    let writes = 0;
    let seenAt: number | null = null;
    while (Date.now() - started < 1600) {
      db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t', 'GET', `/${writes++}`, 200]);
      await sleep(50);
      if (seenAt === null && (await stat(file)).mtimeMs !== before) seenAt = Date.now() - started;
    }
    expect(seenAt).not.toBeNull();
    expect(seenAt!).toBeLessThanOrEqual(1150);

    // Once changes stop, the last one lands within the debounce.
    await sleep(600);
    expect(await readBack(file, 'select count(*) from request_log')).toEqual([[writes]]);
    expect((await readdir(dir)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('writes a single change after the debounce without flush()', async () => {
    const file = join(dir, 'state.sqlite');
    const db = await open({ stateFile: file });
    addOrg(db, 'debounced');
    await sleep(700);
    expect(await readBack(file, 'select id from organizations')).toEqual([['debounced']]);
  });

  it('leaves no partial file when a write fails, reports it, and retries on flush', async () => {
    const file = join(dir, 'state.sqlite');
    const errors: Error[] = [];
    const db = await open({ stateFile: file, onError: (e) => errors.push(e), writeDelay: { debounceMs: 10, maxWaitMs: 20 } });
    await mkdir(file); // the rename over a directory fails
    addOrg(db);
    await sleep(150);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0].message).toMatch(/cannot write the sandbox state file/);
    await expect(db.flush()).rejects.toThrow(/cannot write the sandbox state file/);
    expect((await readdir(dir)).sort()).toEqual(['state.sqlite']);
    expect(await readdir(file)).toEqual([]);

    await rm(file, { recursive: true });
    await db.flush(); // still dirty: the retry succeeds
    expect(await readBack(file, 'select count(*) from organizations')).toEqual([[1]]);
  });

  it('refuses files that are not notevox state', async () => {
    const junk = join(dir, 'junk.sqlite');
    await writeFile(junk, 'definitely not a database, just some text that is long enough to have a header'.repeat(20));
    await expect(openDatabase({ stateFile: junk })).rejects.toThrow(/not a notevox sandbox state file/);

    const initSqlJs = createRequire(import.meta.url)('sql.js') as typeof import('sql.js');
    const SQL = await initSqlJs();
    const other = new SQL.Database();
    other.exec('CREATE TABLE t (x)');
    await writeFile(join(dir, 'other.sqlite'), other.export());
    await expect(openDatabase({ stateFile: join(dir, 'other.sqlite') })).rejects.toThrow(/another application/);

    other.exec(`PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    await writeFile(join(dir, 'newer.sqlite'), other.export());
    await expect(openDatabase({ stateFile: join(dir, 'newer.sqlite') })).rejects.toThrow(/newer notevox/);
    other.close();
  });

  it('treats an empty state file as a new store', async () => {
    const file = join(dir, 'empty.sqlite');
    await writeFile(file, '');
    const db = await open({ stateFile: file });
    expect(db.all('SELECT * FROM organizations')).toEqual([]);
  });
});

describe('ids', () => {
  it('makes ids of the documented formats, deterministically from a seeded source', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const ids = [newNoteGuid(a), newWorkspaceGuid(a), newUuid(a), randomAlnum(22, a)];
    expect([newNoteGuid(b), newWorkspaceGuid(b), newUuid(b), randomAlnum(22, b)]).toEqual(ids);
    expect(ids[0]).toMatch(LIMITS.noteGuidPattern);
    expect(ids[1]).toMatch(LIMITS.workspaceGuidPattern);
    expect(ids[2]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ids[3]).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(newNoteGuid()).not.toBe(newNoteGuid());
    expect(newUuid()).toMatch(LIMITS.uuidPattern);
  });

  it('hashes secrets with a salt: hex HMAC-SHA256, never the secret itself', () => {
    const salt = newSalt();
    expect(salt).toMatch(/^[0-9a-f]{32}$/);
    expect(newSalt()).not.toBe(salt);
    const h = hashSecret('sk_secret', salt);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret('sk_secret', salt)).toBe(h);
    expect(hashSecret('sk_secret', newSalt())).not.toBe(h);
    expect(hashSecret('sk_other', salt)).not.toBe(h);
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?"
    expect(hashSecret('what do ya want for nothing?', 'Jefe')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});
