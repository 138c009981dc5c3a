import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { decodeRow, openDatabase, REQUEST_LOG_KEEP, type Db } from '../../src/sandbox/db.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { hashSecret, newNoteGuid, newSalt, newUuid, newWorkspaceGuid, randomAlnum } from '../../src/sandbox/ids.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';
import { APPLICATION_ID, BOOLEAN_COLUMNS, JSON_COLUMNS, MIGRATIONS, SCHEMA_VERSION, TABLES, TEMP_TABLES } from '../../src/sandbox/schema.sql.js';

const SQLITE3 = '/usr/bin/sqlite3';

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
/** Read a state file back through a connection of its own (as `sqlite3 FILE` would), independent of the Db under test. */
async function readBack(file: string, sql: string): Promise<unknown[][]> {
  const db = new (nodeSqlite().DatabaseSync)(file, { readOnly: true });
  try {
    return db.prepare(sql).all().map((r) => Object.values(r as object));
  } finally {
    db.close();
  }
}
/** A SQLite file made without the Db under test. */
function plainFile(file: string, sql: string): void {
  const db = new (nodeSqlite().DatabaseSync)(file);
  try {
    db.exec(sql);
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
    const temp = db.all<{ name: string }>("SELECT name FROM sqlite_temp_master WHERE type = 'table' ORDER BY name").map((r) => r.name);
    expect(temp).toEqual([...TEMP_TABLES].sort());
  });
});

describe('Db: reading and binding', () => {
  it('reads every type: integers beyond 32 bits, floats, text of any script, NUL inside text, empty text, NULL, blobs', async () => {
    const db = await open();
    const sql = `SELECT 1 AS one, -7 AS neg, 9007199254740991 AS big, 4294967296 AS wide, 2.5 AS half, 1e300 AS huge, 'plain' AS ascii,
      ? AS mixed, 'a' || char(0) || 'b' AS nul, '' AS empty, NULL AS none, x'00ff10' AS blob, zeroblob(0) AS noblob, ? AS bound`;
    const params = ['Grüße, 日本語, emoji 😀 and ﬁ', 'x'.repeat(5000)];
    const rows = db.all(sql, params);
    // Node 22's node:sqlite reads text up to its first NUL (Node 24 reads it whole); it stores it whole on both.
    const nul = Number(process.versions.node.split('.')[0]) >= 24 ? 'a\0b' : 'a';
    expect(rows).toEqual([
      { one: 1, neg: -7, big: 9007199254740991, wide: 4294967296, half: 2.5, huge: 1e300, ascii: 'plain', mixed: params[0], nul, empty: '', none: null, blob: new Uint8Array([0, 0xff, 0x10]), noblob: new Uint8Array(0), bound: params[1] },
    ]);
    expect(db.get("SELECT length(CAST('a' || char(0) || 'b' AS BLOB)) AS n")).toEqual({ n: 3 });
    // Whole numbers bind as integers (node:sqlite alone binds every number as a double: 5 would read back "5.0" from TEXT).
    expect(db.get("SELECT typeof(?) AS t, CAST(? AS TEXT) AS text, typeof(?) AS f", [5, 5, 2.5])).toEqual({ t: 'integer', text: '5', f: 'real' });
    expect(rows[0]).toMatchObject({ big: 9007199254740991, wide: 4294967296, nul, empty: '', none: null, blob: new Uint8Array([0, 0xff, 0x10]) });
    // Many rows, text in each.
    const many = db.all<{ v: number; t: string }>("WITH RECURSIVE n(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM n WHERE v < 3000) SELECT v, printf('row %d é', v) || hex(randomblob(200)) AS t FROM n");
    expect(many).toHaveLength(3000);
    expect(many.every((r, i) => r.v === i + 1 && r.t.startsWith(`row ${i + 1} é`) && r.t.length === `row ${i + 1} é`.length + 400)).toBe(true);
  });

  it('binds names with or without their prefix ($, :, @), every form a statement uses, and leaves unnamed ones NULL', async () => {
    const db = await open();
    expect(db.get('SELECT $a AS a, :b AS b, @c AS c, $d AS d', { a: 'A', ':b': 2, '@c': true, unused: 'x' })).toEqual({ a: 'A', b: 2, c: 1, d: null });
    expect(db.get('SELECT $x AS dollar, :x AS colon, @x AS at', { x: 'same' })).toEqual({ dollar: 'same', colon: 'same', at: 'same' });
    // The same statement again with other names bound: nothing of the previous run stays bound.
    expect(db.get('SELECT $a AS a, :b AS b, @c AS c, $d AS d', { d: 4 })).toEqual({ a: null, b: null, c: null, d: 4 });
    expect(db.get('SELECT ?2 AS second, ?1 AS first', ['one', 'two'])).toEqual({ second: 'two', first: 'one' });
  });

  it('writes bound by name are in the state file as bound', async () => {
    const file = join(dir, 'named.sqlite');
    const db = await open({ stateFile: file });
    addOrg(db);
    addWorkspace(db, 'wsAAAAAAAAAAAAA2', { name: 'Named' });
    db.run('UPDATE workspaces SET name = :name, monthly_minutes = $m WHERE guid = @g', { name: 'Renamed', m: 90, g: 'wsAAAAAAAAAAAAA2' });
    db.run('UPDATE workspaces SET used_minutes = $u WHERE guid = $g', { g: 'wsAAAAAAAAAAAAA2', u: 7 });
    expect(await readBack(file, 'SELECT name, monthly_minutes, typeof(monthly_minutes), used_minutes FROM workspaces')).toEqual([['Renamed', 90, 'integer', 7]]);
  });

  it('dataVersion changes with every change of the state, a rollback and a bulk load, and not with reads or request_log', async () => {
    const db = await open();
    const v0 = db.dataVersion;
    db.get('SELECT count(*) AS n FROM organizations');
    db.run("INSERT INTO request_log (at, method, path, status) VALUES ('t', 'GET', '/', 200)");
    expect(db.dataVersion).toBe(v0);
    addOrg(db);
    const v1 = db.dataVersion;
    expect(v1).not.toBe(v0);
    expect(() =>
      db.tx(() => {
        db.run("UPDATE organizations SET name = 'x'");
        throw new Error('undo');
      }),
    ).toThrow('undo');
    const v2 = db.dataVersion;
    expect(v2).not.toBe(v1);
    db.bulk((prepare) => prepare("INSERT INTO organizations (id, name, created_at) VALUES (?, 'B', 't')")(['org_b']));
    expect(db.dataVersion).not.toBe(v2);
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

  it('bulk: one transaction of reused statements, indexes built after the rows, rolled back whole on failure', async () => {
    const file = join(dir, 'state.sqlite');
    const db = await openDatabase({ stateFile: file });
    addOrg(db);
    const count = db.bulk((prepare) => {
      const insert = prepare('INSERT INTO word_memories (id, scope_type, scope_id, entry, sub_entry, created_at) VALUES (?, ?, ?, ?, ?, ?)');
      for (let i = 1; i <= 500; i++) insert([i, 'organization', 'org_a', `w${i}`, i % 2 ? null : { s: i }, '2026-01-01T00:00:00.000Z']);
      expect(() => db.get('SELECT 1')).toThrow(/only the statements of bulk\(\) run inside it/);
      return 500;
    });
    expect(count).toBe(500);
    // The secondary indexes are back.
    expect(db.all("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'notes_by_time'")).toEqual([{ name: 'notes_by_time' }]);
    expect(db.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'org_a', 'after', 't']).lastInsertRowid).toBe(501);
    expect(() =>
      db.bulk((prepare) => {
        const insert = prepare('INSERT INTO word_memories (id, scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?, ?)');
        insert([900, 'organization', 'org_a', 'new', 't']);
        insert([901, 'organization', 'org_a', 'w1', 't']); // the unique (scope, entry) refuses it
      }),
    ).toThrow(/UNIQUE/);
    await db.flush();
    // Every bulk row is in the state file: a second connection, while this one is open (as after a kill), has them.
    const again = await open({ stateFile: file });
    expect(again.get('SELECT count(*) AS n, max(id) AS last FROM word_memories')).toEqual({ n: 501, last: 501 });
    expect(again.get('SELECT sub_entry FROM word_memories WHERE id = 2')).toEqual({ sub_entry: '{"s":2}' });
    expect(again.get("SELECT id FROM word_memories WHERE entry = 'new'")).toBeUndefined();
    await db.close();
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
  it('round-trips through the state file, an ordinary SQLite database in WAL mode, private to its owner', async () => {
    const file = join(dir, 'nested', 'state.sqlite');
    const db = await openDatabase({ stateFile: file });
    addOrg(db);
    addWorkspace(db, 'wsPersisted00001');
    db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t', 'GET', '/a', 200]);
    expect(db.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
    expect(db.get('PRAGMA synchronous')).toEqual({ synchronous: 1 }); // NORMAL: in WAL mode, each commit is written before it returns
    // `sqlite3 FILE` sees the current state while the sandbox runs, not a snapshot of some earlier moment.
    expect(await readBack(file, 'select guid from workspaces')).toEqual([['wsPersisted00001']]);
    await db.close();
    await expect(db.flush()).rejects.toThrow(/closed/);
    expect(() => db.get('SELECT 1')).toThrow(/closed/);

    expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['state.sqlite']); // the WAL checkpointed and removed on close
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    const again = await open({ stateFile: file });
    expect(again.all('SELECT guid, wiki_plan FROM workspaces')).toEqual([{ guid: 'wsPersisted00001', wiki_plan: 1 }]);
    expect(again.get('SELECT path FROM request_log')).toBeUndefined(); // in memory only
    expect(again.get('PRAGMA user_version')).toEqual({ user_version: SCHEMA_VERSION });
    if (existsSync(SQLITE3)) {
      expect(execFileSync(SQLITE3, [file, 'select count(*) from notes']).toString().trim()).toBe('0');
      expect(execFileSync(SQLITE3, [file, 'select guid from workspaces']).toString().trim()).toBe('wsPersisted00001');
    }
  });

  it('has every committed change in its files when the statement returns, without close (what survives a kill)', async () => {
    const file = join(dir, 'state.sqlite');
    const db = await open({ stateFile: file });
    addOrg(db);
    db.tx(() => {
      addWorkspace(db, 'wsCommitted00001');
      db.tx(() => addWorkspace(db, 'wsCommitted00002'));
      expect(() =>
        db.tx(() => {
          addWorkspace(db, 'wsRolledBack0001');
          throw new Error('inner fails');
        }),
      ).toThrow('inner fails');
    });
    expect(() =>
      db.tx(() => {
        addWorkspace(db, 'wsRolledBack0002');
        throw new Error('outer fails');
      }),
    ).toThrow('outer fails');
    expect(() => addWorkspace(db, 'wsCommitted00001')).toThrow(/UNIQUE/); // a failed statement changes nothing
    db.run('UPDATE workspaces SET name = ? WHERE guid = ?', ['Renamed', 'wsCommitted00002']);
    db.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'org_a', 'blob', new Uint8Array([1, 2])]);

    // The files as a SIGKILL would leave them: the database and its WAL, never checkpointed or closed.
    const crashed = join(dir, 'crashed');
    await mkdir(crashed);
    for (const f of await readdir(dir)) if (f.startsWith('state.sqlite') && !f.endsWith('-shm')) await copyFile(join(dir, f), join(crashed, f));
    const again = await open({ stateFile: join(crashed, 'state.sqlite') });
    expect(again.all('SELECT guid, name FROM workspaces ORDER BY guid')).toEqual([
      { guid: 'wsCommitted00001', name: 'W' },
      { guid: 'wsCommitted00002', name: 'Renamed' },
    ]);
    expect(again.get<{ created_at: Uint8Array }>('SELECT created_at FROM word_memories')!.created_at).toEqual(new Uint8Array([1, 2]));
    expect(again.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
  });

  it('keeps request_log out of the state: recording requests writes nothing', async () => {
    const file = join(dir, 'state.sqlite');
    const db = await open({ stateFile: file });
    addOrg(db);
    const sizes = async () => Promise.all([file, `${file}-wal`].map(async (f) => (await stat(f)).size));
    const before = await sizes();
    const commits = db.commits;
    for (let i = 0; i < 50; i++) db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t', 'GET', `/${i}`, 200]);
    db.run('DELETE FROM request_log WHERE id <= 10');
    expect(await sizes()).toEqual(before);
    expect(db.commits).toBe(commits);
    expect(db.get('SELECT count(*) AS n FROM request_log')).toEqual({ n: 40 });
  });

  it('logRequest: rows in order with statements on request_log, seen by the next read, kept across a rollback and the switch from an image, pruned every 1000, never a change of the state', async () => {
    const src = await open();
    addOrg(src);
    const image = join(dir, 'image.sqlite');
    src.saveTo(image);
    const db = await open({ image });
    const row = (path: string, status = 200) => ({ at: Date.parse('2026-01-02T00:00:00Z'), keyId: 'k1', method: 'GET', path, status });
    db.logRequest(row('/a'));
    db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t', 'GET', '/direct', 201]);
    db.logRequest(row('/b', 404));
    expect(db.all('SELECT at, key_id, method, path, status FROM request_log ORDER BY id')).toEqual([
      { at: '2026-01-02T00:00:00.000Z', key_id: 'k1', method: 'GET', path: '/a', status: 200 },
      { at: 't', key_id: null, method: 'GET', path: '/direct', status: 201 },
      { at: '2026-01-02T00:00:00.000Z', key_id: 'k1', method: 'GET', path: '/b', status: 404 },
    ]);
    // recorded before the first change (the switch to a copy): still there; before a transaction that rolls back: too
    db.logRequest(row('/c'));
    addOrg(db, 'org_b');
    db.logRequest(row('/d'));
    expect(() =>
      db.tx(() => {
        expect(db.get('SELECT count(*) AS n FROM request_log')).toEqual({ n: 5 });
        addOrg(db, 'org_x');
        throw new Error('undo');
      }),
    ).toThrow('undo');
    const commits = db.commits;
    const paths = () => db.all<{ path: string }>('SELECT path FROM request_log ORDER BY id').map((r) => r.path);
    expect(paths()).toEqual(['/a', '/direct', '/b', '/c', '/d']);
    // inserted on their own in batches, changing nothing of the state
    const version = db.dataVersion;
    for (let i = 0; i < 600; i++) db.logRequest(row(`/e${i}`, 200 + (i % 3)));
    expect(db.commits).toBe(commits);
    expect(db.dataVersion).toBe(version);
    const all = paths();
    expect(all).toHaveLength(605);
    expect(all.slice(5)).toEqual(Array.from({ length: 600 }, (_, i) => `/e${i}`));
    expect(db.get('SELECT count(*) AS n FROM request_log WHERE status = 202')).toEqual({ n: 200 });
    // the newest REQUEST_LOG_KEEP rows stay once a multiple of 1000 is reached
    db.tx(() => {
      for (let i = 605; i < 10_998; i++) db.run("INSERT INTO request_log (at, method, path, status) VALUES ('t', 'GET', '/filler', 200)");
    });
    for (let i = 0; i < 3; i++) db.logRequest(row(`/f${i}`));
    expect(db.get('SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM request_log')).toEqual({ n: REQUEST_LOG_KEEP + 1, lo: 1001, hi: 11_001 });
  });

  it('a store exports only its pages (VACUUM INTO), and saves a copy that opens as the same state', async () => {
    const file = join(dir, 'pages.sqlite');
    const db = await open({ stateFile: file, init: (d) => {
      d.run("INSERT INTO organizations (id, name, created_at) VALUES ('o', 'O', 't')");
      d.tx(() => {
        for (let i = 0; i < 5000; i++) d.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'o', 'e' + i, 't']);
      });
    } });
    const pages = Number(db.get<{ n: number }>('SELECT page_count * page_size AS n FROM pragma_page_count, pragma_page_size')!.n);
    expect(pages).toBeLessThan(4 << 20);
    expect(db.export().length).toBeLessThanOrEqual(pages);
    expect(db.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
    db.saveTo(join(dir, 'copy.sqlite'));
    const copy = await open({ image: join(dir, 'copy.sqlite') });
    expect(copy.get('SELECT count(*) AS n FROM word_memories')).toEqual({ n: 5000 });
    db.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'o', 'later', 't']);
    await db.close();
    const again = await open({ stateFile: file });
    expect(again.get('SELECT count(*) AS n FROM word_memories')).toEqual({ n: 5001 });
  });

  it('keeps temporary tables (the request log) in memory on every kind of connection', async () => {
    const memory = { temp_store: 2 };
    const image = join(dir, 'temp-image.sqlite');
    const src = await open();
    expect(src.get('PRAGMA temp_store')).toEqual(memory);
    src.saveTo(image);
    const state = await open({ stateFile: join(dir, 'temp-state.sqlite') });
    expect(state.get('PRAGMA temp_store')).toEqual(memory);
    const fromImage = await open({ image });
    expect(fromImage.get('PRAGMA temp_store')).toEqual(memory);
    addOrg(fromImage, 'org_t'); // its writable copy
    expect(fromImage.get('PRAGMA temp_store')).toEqual(memory);
  });

  it('opens an image as a private copy: the image is not changed, the copy is removed on close', async () => {
    const image = join(dir, 'image.sqlite');
    const src = await open();
    addOrg(src);
    src.saveTo(image);
    const before = await stat(image);
    const db = await openDatabase({ image, init: (_d, o) => expect(o).toEqual({ fromImage: true }) });
    const where = String(db.get<{ file: string }>("SELECT file FROM pragma_database_list WHERE name = 'main'")!.file);
    expect(where).not.toBe(image);
    addOrg(db, 'org_b');
    await db.close();
    expect(existsSync(where)).toBe(false);
    expect((await stat(image)).mtimeMs).toBe(before.mtimeMs);
    expect(await readBack(image, 'select id from organizations')).toEqual([['org_a']]);
    // A state file that does not exist yet starts as a copy of the image too.
    const state = await open({ stateFile: join(dir, 'from-image.sqlite'), image });
    expect(state.all('SELECT id FROM organizations')).toEqual([{ id: 'org_a' }]);
  });

  it('a private copy (a page cache of 2 MiB) rolls back and commits whole a transaction that writes far more than its cache', async () => {
    const image = join(dir, 'image.sqlite');
    const src = await open();
    addOrg(src);
    src.saveTo(image);
    const db = await open({ image });
    // ~40k rows of ~200 bytes: about 8 MiB of table and index pages, so pages go to the file before the commit.
    const fill = (tag: string) =>
      db.run(
        `WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 40000)
         INSERT INTO word_memories (scope_type, scope_id, entry, sub_entry, created_at)
         SELECT 'user', '1', ?1 || '-' || value || '-' || hex(randomblob(40)), NULL, '2026-01-01T00:00:00.000Z' FROM n`,
        [tag],
      );
    const count = () => db.get<{ n: number }>('SELECT count(*) AS n FROM word_memories')!.n;
    expect(() =>
      db.tx(() => {
        fill('undone');
        expect(count()).toBe(40000);
        throw new Error('stop');
      }),
    ).toThrow('stop');
    expect(count()).toBe(0);
    // The image was read in place until that first change; the private copy goes on with the small cache.
    expect(db.get('PRAGMA cache_size')).toEqual({ cache_size: -2048 });
    db.tx(() => fill('kept'));
    expect(count()).toBe(40000);
    expect(db.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM word_memories WHERE entry LIKE 'undone-%'")!.n).toBe(0);
  });

  it('reads an image in place until the first change, then goes on in a private copy with its request log and open transaction', async () => {
    const image = join(dir, 'image.sqlite');
    const src = await open();
    addOrg(src);
    src.saveTo(image);
    const bytes = async () => createHash('sha256').update(await readFile(image)).digest('hex');
    const before = await bytes();
    const db = await open({ image });
    const main = () => String(db.get<{ file: string }>("SELECT file FROM pragma_database_list WHERE name = 'main'")!.file);
    db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t1', 'GET', '/a', 200]);
    const readOnly = main();
    expect(readOnly).not.toBe(image);
    expect(db.all('SELECT id FROM organizations')).toEqual([{ id: 'org_a' }]);
    const version = db.dataVersion;
    // the first change comes inside a nested transaction, after reads in it
    db.tx(() => {
      expect(db.get('SELECT count(*) AS n FROM organizations')).toEqual({ n: 1 });
      db.tx(() => {
        db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t2', 'GET', '/b', 200]);
        addOrg(db, 'org_b');
      });
      expect(() =>
        db.tx(() => {
          addOrg(db, 'org_c');
          throw new Error('undo');
        }),
      ).toThrow('undo');
    });
    expect(main()).not.toBe(readOnly);
    expect(db.dataVersion).toBeGreaterThan(version);
    expect(db.commits).toBe(1);
    expect(db.all('SELECT id FROM organizations ORDER BY id')).toEqual([{ id: 'org_a' }, { id: 'org_b' }]);
    expect(db.all('SELECT path FROM request_log ORDER BY id')).toEqual([{ path: '/a' }, { path: '/b' }]);
    // a change that is rolled back as a whole, on a fresh image store
    const other = await open({ image });
    expect(() =>
      other.tx(() => {
        addOrg(other, 'org_x');
        throw new Error('undo');
      }),
    ).toThrow('undo');
    expect(other.all('SELECT id FROM organizations')).toEqual([{ id: 'org_a' }]);
    addOrg(other, 'org_y');
    expect(other.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
    await db.close();
    await other.close();
    expect(await bytes()).toBe(before);
  });

  it('migrates a version 1 state file: request_log leaves it, the rows stay', async () => {
    const file = join(dir, 'v1.sqlite');
    plainFile(file, `PRAGMA journal_mode = WAL; ${MIGRATIONS[0]}; PRAGMA user_version = 1; PRAGMA application_id = ${APPLICATION_ID};
      INSERT INTO organizations (id, name, created_at) VALUES ('org_old', 'Old', 't'); INSERT INTO request_log (at, method, path, status) VALUES ('t', 'GET', '/', 200)`);
    const db = await open({ stateFile: file });
    expect(db.all('SELECT id FROM organizations')).toEqual([{ id: 'org_old' }]);
    expect(await readBack(file, "select count(*) from sqlite_master where name = 'request_log'")).toEqual([[0]]);
    expect(await readBack(file, 'pragma user_version')).toEqual([[SCHEMA_VERSION]]);
  });

  it('fails to open when the state file cannot be opened, leaving no partial file', async () => {
    const file = join(dir, 'state.sqlite');
    await mkdir(file); // a directory where the file should be
    await expect(openDatabase({ stateFile: file })).rejects.toThrow(/cannot open the sandbox state file/);
    expect((await readdir(dir)).sort()).toEqual(['state.sqlite']);
    expect(await readdir(file)).toEqual([]);
  });

  it('refuses files that are not notevox state', async () => {
    const junk = join(dir, 'junk.sqlite');
    await writeFile(junk, 'definitely not a database, just some text that is long enough to have a header'.repeat(20));
    await expect(openDatabase({ stateFile: junk })).rejects.toThrow(/not a notevox sandbox state file/);
    plainFile(join(dir, 'other.sqlite'), 'CREATE TABLE t (x)');
    await expect(openDatabase({ stateFile: join(dir, 'other.sqlite') })).rejects.toThrow(/another application/);
    plainFile(join(dir, 'newer.sqlite'), `PRAGMA journal_mode = WAL; CREATE TABLE t (x); PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    await expect(openDatabase({ stateFile: join(dir, 'newer.sqlite') })).rejects.toThrow(/newer notevox/);
  });

  it('holds a store without state or image in memory, and opens a state file of any page size', async () => {
    const db = await open();
    expect(db.all('PRAGMA database_list')).toEqual([
      { seq: 0, name: 'main', file: '' },
      { seq: 1, name: 'temp', file: '' },
    ]);
    const file = join(dir, 'pages.sqlite');
    plainFile(file, 'PRAGMA page_size = 8192; VACUUM');
    const state = await open({ stateFile: file });
    expect(state.get('PRAGMA page_size')).toEqual({ page_size: 8192 });
    addOrg(state);
    await state.close();
    const again = await open({ stateFile: file });
    expect(again.get('SELECT id FROM organizations')).toEqual({ id: 'org_a' });
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
