import { execFileSync, spawnSync } from 'node:child_process';
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
import { APPLICATION_ID, BOOLEAN_COLUMNS, JSON_COLUMNS, MIGRATIONS, SCHEMA_VERSION, TABLES, TEMP_TABLES } from '../../src/sandbox/schema.sql.js';

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
    const temp = db.all<{ name: string }>("SELECT name FROM sqlite_temp_master WHERE type = 'table' ORDER BY name").map((r) => r.name);
    expect(temp).toEqual([...TEMP_TABLES].sort());
    // The journal sees changes through the update hook, which skips WITHOUT ROWID tables.
    expect(db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%WITHOUT ROWID%'")).toEqual([]);
  });
});

describe('Db: reading and binding (the statement fast path)', () => {
  /** sql.js's own reading of the same query, for comparison. */
  async function sqlJsRows(sql: string, params: unknown[] | Record<string, unknown>) {
    const initSqlJs = createRequire(import.meta.url)('sql.js') as typeof import('sql.js');
    const SQL = await initSqlJs();
    const db = new SQL.Database();
    try {
      const stmt = db.prepare(sql);
      stmt.bind(params as never);
      const rows: Record<string, unknown>[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject());
      stmt.free();
      return rows;
    } finally {
      db.close();
    }
  }

  it('reads every type as sql.js does: integers beyond 32 bits, floats, text of any script, NUL inside text, empty text, NULL, blobs', async () => {
    const db = await open();
    const sql = `SELECT 1 AS one, -7 AS neg, 9007199254740991 AS big, 4294967296 AS wide, 2.5 AS half, 1e300 AS huge, 'plain' AS ascii,
      ? AS mixed, 'a' || char(0) || 'b' AS nul, '' AS empty, NULL AS none, x'00ff10' AS blob, zeroblob(0) AS noblob, ? AS bound`;
    const params = ['Grüße, 日本語, emoji 😀 and ﬁ', 'x'.repeat(5000)];
    const rows = db.all(sql, params);
    expect(rows).toEqual(await sqlJsRows(sql, params));
    expect(rows[0]).toMatchObject({ big: 9007199254740991, wide: 4294967296, nul: 'a\0b', empty: '', none: null, blob: new Uint8Array([0, 0xff, 0x10]) });
    // Many rows, text in each (the module's memory may grow between them).
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

  it('journals a write bound by name so that it replays the same (by position)', async () => {
    const file = join(dir, 'named.sqlite');
    const db = await open({ stateFile: file });
    addOrg(db);
    addWorkspace(db, 'wsAAAAAAAAAAAAA2', { name: 'Named' });
    db.run('UPDATE workspaces SET name = :name, monthly_minutes = $m WHERE guid = @g', { name: 'Renamed', m: 90, g: 'wsAAAAAAAAAAAAA2' });
    db.run('UPDATE workspaces SET used_minutes = $u WHERE guid = $g', { g: 'wsAAAAAAAAAAAAA2', u: 7 });
    await db.flush();
    // The files as a SIGKILL would leave them: the journal is replayed.
    const crashed = join(dir, 'crashed');
    await mkdir(crashed);
    for (const f of await readdir(dir)) if (f.startsWith('named.sqlite')) await writeFile(join(crashed, f), await readFile(join(dir, f)));
    const again = await open({ stateFile: join(crashed, 'named.sqlite') });
    expect(again.get('SELECT name, monthly_minutes, used_minutes FROM workspaces')).toEqual({ name: 'Renamed', monthly_minutes: 90, used_minutes: 7 });
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

  it('bulk: one transaction of reused statements, journaled like run, rolled back whole on failure', async () => {
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
    // The update hook is back: run reports the new row again.
    expect(db.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'org_a', 'after', 't']).lastInsertRowid).toBe(501);
    expect(() =>
      db.bulk((prepare) => {
        const insert = prepare('INSERT INTO word_memories (id, scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?, ?)');
        insert([900, 'organization', 'org_a', 'new', 't']);
        insert([901, 'organization', 'org_a', 'w1', 't']); // the unique (scope, entry) refuses it
      }),
    ).toThrow(/UNIQUE/);
    await db.flush();
    // Every bulk row is in the journal: a store reopened without close (as after a kill) has them.
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
  it('round-trips through the state file: the journal is folded in on close', async () => {
    const file = join(dir, 'nested', 'state.sqlite');
    const db = await openDatabase({ stateFile: file });
    expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['state.sqlite', 'state.sqlite.journal']);
    addOrg(db);
    addWorkspace(db, 'wsPersisted00001');
    db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t', 'GET', '/a', 200]);
    await db.close();
    await expect(db.flush()).rejects.toThrow(/closed/);
    expect(() => db.get('SELECT 1')).toThrow(/closed/);

    expect((await readdir(join(dir, 'nested'))).sort()).toEqual(['state.sqlite']); // no journal or temp file left behind
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    const again = await open({ stateFile: file });
    expect(again.all('SELECT guid, wiki_plan FROM workspaces')).toEqual([{ guid: 'wsPersisted00001', wiki_plan: 1 }]);
    expect(again.get('SELECT path FROM request_log')).toBeUndefined(); // in memory only
    expect(again.get('PRAGMA user_version')).toEqual({ user_version: SCHEMA_VERSION });

    if (existsSync(SQLITE3)) {
      expect(execFileSync(SQLITE3, [file, 'select count(*) from notes']).toString().trim()).toBe('0');
      expect(execFileSync(SQLITE3, [file, 'select guid from workspaces']).toString().trim()).toBe('wsPersisted00001');
    } else {
      expect(await readBack(file, 'select count(*) from notes')).toEqual([[0]]);
    }
  });

  it('has every committed change on disk once flush() resolves, without close (what survives a kill)', async () => {
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
    await db.flush();

    // The files as a SIGKILL would leave them: the state file of the last snapshot and the journal.
    const crashed = join(dir, 'crashed');
    await mkdir(crashed);
    for (const f of await readdir(dir)) if (f.startsWith('state.sqlite')) await writeFile(join(crashed, f), await readFile(join(dir, f)));
    expect(await readBack(join(crashed, 'state.sqlite'), 'select count(*) from workspaces')).toEqual([[0]]);

    const again = await open({ stateFile: join(crashed, 'state.sqlite') });
    expect(again.all('SELECT guid, name FROM workspaces ORDER BY guid')).toEqual([
      { guid: 'wsCommitted00001', name: 'W' },
      { guid: 'wsCommitted00002', name: 'Renamed' },
    ]);
    expect(again.get<{ created_at: Uint8Array }>('SELECT created_at FROM word_memories')!.created_at).toEqual(new Uint8Array([1, 2]));
    // Opening folded the journal into the state file.
    expect(await readBack(join(crashed, 'state.sqlite'), 'select count(*) from workspaces')).toEqual([[2]]);
  });

  it('keeps request_log out of the state: recording requests writes nothing', async () => {
    const file = join(dir, 'state.sqlite');
    const db = await open({ stateFile: file });
    addOrg(db);
    await db.flush();
    const journal = `${file}.journal`;
    const before = await stat(journal);
    const stateBefore = await stat(file);
    for (let i = 0; i < 50; i++) db.run('INSERT INTO request_log (at, method, path, status) VALUES (?, ?, ?, ?)', ['t', 'GET', `/${i}`, 200]);
    db.run('DELETE FROM request_log WHERE id <= 10');
    await db.flush();
    await sleep(50);
    expect((await stat(journal)).size).toBe(before.size);
    expect((await stat(file)).mtimeMs).toBe(stateBefore.mtimeMs);
    expect(db.get('SELECT count(*) AS n FROM request_log')).toEqual({ n: 40 });
  });

  it('ignores a record cut short by a crash, and refuses a journal that does not continue the state file', async () => {
    const file = join(dir, 'state.sqlite');
    const db = await open({ stateFile: file });
    addOrg(db, 'kept');
    await db.flush();
    const journal = await readFile(`${file}.journal`);
    const state = await readFile(file);

    const torn = join(dir, 'torn');
    await mkdir(torn);
    await writeFile(join(torn, 'state.sqlite'), state);
    // A second record whose last bytes never reached the disk.
    await writeFile(join(torn, 'state.sqlite.journal'), Buffer.concat([journal, journal.subarray(16, journal.length - 3)]));
    const again = await open({ stateFile: join(torn, 'state.sqlite') });
    expect(again.all('SELECT id FROM organizations')).toEqual([{ id: 'kept' }]);

    const stranger = join(dir, 'stranger');
    await mkdir(stranger);
    await writeFile(join(stranger, 'state.sqlite.journal'), journal); // its state file is gone
    journal.writeUInt32LE(7, 8);
    await writeFile(join(stranger, 'other.sqlite.journal'), journal);
    await writeFile(join(stranger, 'other.sqlite'), state);
    await expect(openDatabase({ stateFile: join(stranger, 'other.sqlite') })).rejects.toThrow(/does not continue the state file/);
    await writeFile(join(stranger, 'bad.sqlite.journal'), 'not a journal at all');
    await expect(openDatabase({ stateFile: join(stranger, 'bad.sqlite') })).rejects.toThrow(/is not a notevox sandbox journal/);
  });

  it('folds a growing journal into the state file on a worker thread while writes go on', async () => {
    const file = join(dir, 'state.sqlite');
    const errors: Error[] = [];
    const db = await open({ stateFile: file, compactBytes: 4096, onError: (e) => errors.push(e) });
    addOrg(db);
    let written = 0;
    const generation = async () => Number((await readBack(file, "select value from state_meta where key = 'journal_generation'"))[0]?.[0]);
    const first = await generation();
    for (let round = 0; round < 40 && (await generation()) < first + 2; round++) {
      db.tx(() => {
        for (let i = 0; i < 20; i++)
          db.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'org_a', `entry-${written++}`, 't']);
      });
      await db.flush();
      await sleep(20);
    }
    expect(errors).toEqual([]);
    expect(await generation()).toBeGreaterThanOrEqual(first + 2); // folded in at least twice
    const inSnapshot = Number((await readBack(file, 'select count(*) from word_memories'))[0][0]);
    expect(inSnapshot).toBeGreaterThan(0);

    // State file and journal together hold everything (a crash now loses nothing).
    const crashed = join(dir, 'crashed');
    await mkdir(crashed);
    await sleep(200); // let a compaction that is running finish renaming
    for (const f of await readdir(dir)) if (f.startsWith('state.sqlite')) await writeFile(join(crashed, f), await readFile(join(dir, f)));
    const again = await open({ stateFile: join(crashed, 'state.sqlite') });
    expect(again.get('SELECT count(*) AS n FROM word_memories')).toEqual({ n: written });
  });

  it('compacts also when the sources run through tsx (whose esbuild wraps functions in __name)', () => {
    // The worker runs the compaction from the functions' source text; under tsx that text calls __name().
    const dbModule = new URL('../../src/sandbox/db.ts', import.meta.url).href;
    const file = join(dir, 'tsx.sqlite');
    const script = `
      import { existsSync } from 'node:fs';
      const { openDatabase } = await import(${JSON.stringify(dbModule)});
      const file = ${JSON.stringify(file)};
      const errors = [];
      const db = await openDatabase({ stateFile: file, compactBytes: 1024, onError: (e) => errors.push(e.message) });
      db.run("INSERT INTO organizations (id, name, created_at) VALUES ('o', 'O', 't')");
      let rotated = false;
      for (let i = 0; i < 400 && !rotated; i++) {
        db.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'o', 'e' + i, 't']);
        await db.flush();
        rotated = existsSync(file + '.journal.old');
      }
      // The worker folds the old journal into the file and removes it, or reports an error.
      for (let i = 0; i < 500 && existsSync(file + '.journal.old') && !errors.length; i++) await new Promise((r) => setTimeout(r, 20));
      const folded = !existsSync(file + '.journal.old');
      await db.close();
      console.log(JSON.stringify({ errors, rotated, folded }));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toEqual({ errors: [], rotated: true, folded: true });
  });

  it('a store exports only its pages, and its state file likewise', async () => {
    const file = join(dir, 'pages.sqlite');
    const db = await open({ stateFile: file, init: (d) => {
      d.run("INSERT INTO organizations (id, name, created_at) VALUES ('o', 'O', 't')");
      d.tx(() => {
        for (let i = 0; i < 5000; i++) d.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'o', 'e' + i, 't']);
      });
    } });
    const pages = Number(db.get<{ n: number }>('SELECT page_count * page_size AS n FROM pragma_page_count, pragma_page_size')!.n);
    expect(pages).toBeLessThan(4 << 20);
    expect((await stat(file)).size).toBe(pages);
    expect(db.export().length).toBe(pages);
    expect(db.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
    db.run('INSERT INTO word_memories (scope_type, scope_id, entry, created_at) VALUES (?, ?, ?, ?)', ['organization', 'o', 'later', 't']);
    await db.close();
    const again = await open({ stateFile: file });
    expect(again.get('SELECT count(*) AS n FROM word_memories')).toEqual({ n: 5001 });
  });

  it('migrates a version 1 state file: request_log leaves it, the rows stay', async () => {
    const initSqlJs = createRequire(import.meta.url)('sql.js') as typeof import('sql.js');
    const SQL = await initSqlJs();
    const v1 = new SQL.Database();
    v1.exec(MIGRATIONS[0]);
    v1.exec(`PRAGMA user_version = 1; PRAGMA application_id = ${APPLICATION_ID}`);
    v1.exec("INSERT INTO organizations (id, name, created_at) VALUES ('org_old', 'Old', 't'); INSERT INTO request_log (at, method, path, status) VALUES ('t', 'GET', '/', 200)");
    const file = join(dir, 'v1.sqlite');
    await writeFile(file, v1.export());
    v1.close();
    const db = await open({ stateFile: file });
    expect(db.all('SELECT id FROM organizations')).toEqual([{ id: 'org_old' }]);
    expect(await readBack(file, "select count(*) from sqlite_master where name = 'request_log'")).toEqual([[0]]);
    expect(await readBack(file, 'pragma user_version')).toEqual([[SCHEMA_VERSION]]);
  });

  it('fails to open when the state file cannot be written, leaving no partial file', async () => {
    const file = join(dir, 'state.sqlite');
    await mkdir(file); // a directory where the file should be
    await expect(openDatabase({ stateFile: file })).rejects.toThrow(/cannot read the sandbox state file|cannot write the sandbox state file/);
    expect((await readdir(dir)).sort()).toEqual(['state.sqlite']);
    expect(await readdir(file)).toEqual([]);
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

  it('holds the database in memory (no file in sql.js), whatever page size the state file has', async () => {
    const db = await open();
    expect(db.all('PRAGMA database_list')).toEqual([
      { seq: 0, name: 'main', file: '' },
      { seq: 1, name: 'temp', file: '' },
    ]);
    const initSqlJs = createRequire(import.meta.url)('sql.js') as typeof import('sql.js');
    const SQL = await initSqlJs();
    const big = new SQL.Database();
    big.exec('PRAGMA page_size = 8192; VACUUM');
    const file = join(dir, 'pages.sqlite');
    await writeFile(file, big.export());
    big.close();
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
