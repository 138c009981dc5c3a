import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demoSeed } from '../../src/sandbox/demo-seed.js';
import { prepareSandbox } from '../../src/sandbox/server.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';

/** `sandbox start --seed FILE`: the built seed database is cached by the file's content (seed/cache.ts). */

let dir: string;
let cache: string;
let seedFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-seed-cache-'));
  cache = join(dir, 'cache');
  seedFile = join(dir, 'seed.json');
  // The demo seed, pretty-printed (the apiKeys array is found at its place in the file) and with a key of its own.
  writeFileSync(seedFile, JSON.stringify({ ...demoSeed, apiKeys: [...demoSeed.apiKeys!, { id: 'k_own', secret: 'sk_own_secret_0001', type: 'USER', userId: demoSeed.apiKeys![0].userId }] }, null, 2));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function started(opts: { stateFile?: string; seedCacheDir?: string } = {}) {
  const sb = await prepareSandbox({ seedFile, rateLimit: '0', log: () => {}, ...opts });
  try {
    const own = sb.keys.find((k) => k.id === 'k_own');
    const res = await sb.app.request('/v1/external/users/me/word-memories', { headers: { authorization: `Bearer k_own.sk_own_secret_0001` } });
    const marker = sb.db.get<{ n: number }>("SELECT count(*) AS n FROM organizations WHERE id = 'org_marker'")!.n;
    return { own, status: res.status, marker, reloaded: sb.reloaded };
  } finally {
    await sb.shutdown();
  }
}

/** Put a row into every cached database, to tell a start that opened one from a start that loaded the seed. */
function markCache(): void {
  for (const f of readdirSync(cache).filter((x) => x.endsWith('.sqlite'))) {
    const db = new (nodeSqlite().DatabaseSync)(join(cache, f));
    db.exec("INSERT OR IGNORE INTO organizations (id, name, created_at) VALUES ('org_marker', 'Marker', '2026-01-01T00:00:00.000Z')");
    db.close();
  }
}

describe('the seed cache', () => {
  it('builds the seed database on the first start and opens a copy of it on the next, with the seed file\'s keys', async () => {
    utimesSync(seedFile, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000)); // not changed just now: its stamp is recorded
    const first = await started({ seedCacheDir: cache });
    expect(first).toMatchObject({ status: 200, marker: 0, reloaded: false });
    expect(first.own).toMatchObject({ id: 'k_own', secret: 'sk_own_secret_0001' });
    const files = readdirSync(cache).sort();
    expect(files).toHaveLength(3);
    expect(files.filter((f) => /^[0-9a-f]{40}\.json$/.test(f))).toHaveLength(1);
    expect(files.filter((f) => /^[0-9a-f]{40}\.sqlite$/.test(f))).toHaveLength(1);
    expect(files.filter((f) => /^[0-9a-f]{40}\.stat\.json$/.test(f))).toHaveLength(1); // the seed file's stamp: the next start need not hash it
    markCache();

    const second = await started({ seedCacheDir: cache });
    expect(second).toMatchObject({ status: 200, marker: 1, reloaded: false });
    expect(second.own).toMatchObject({ id: 'k_own', secret: 'sk_own_secret_0001' });
    // The cache holds no secret in clear: only the seed file does.
    for (const f of readdirSync(cache)) expect(readFileSync(join(cache, f)).includes('sk_own_secret_0001')).toBe(false);

    // A state file starts as a copy of the cached database too; the cache is not changed by the sandbox's writes.
    const withState = await started({ seedCacheDir: cache, stateFile: join(dir, 'state.sqlite') });
    expect(withState).toMatchObject({ status: 200, marker: 1 });
    expect(withState.own).toMatchObject({ secret: 'sk_own_secret_0001' });
  });

  it('builds anew when the seed file changes, and is skipped without a cache directory (--no-seed-cache)', async () => {
    const old = new Date(Date.now() - 60_000);
    utimesSync(seedFile, old, old);
    await started({ seedCacheDir: cache });
    markCache();
    // An edit of the same size, its modification time put back: the change time tells the stamp apart.
    writeFileSync(seedFile, readFileSync(seedFile, 'utf8').replace('sk_own_secret_0001', 'sk_own_secret_0002'));
    utimesSync(seedFile, old, old);
    const edited = await started({ seedCacheDir: cache });
    expect(edited).toMatchObject({ marker: 0 });
    expect(edited.own).toMatchObject({ secret: 'sk_own_secret_0002' });
    markCache();
    writeFileSync(seedFile, JSON.stringify({ ...demoSeed, apiKeys: [...demoSeed.apiKeys!, { id: 'k_own', secret: 'sk_own_secret_0001', type: 'USER', userId: demoSeed.apiKeys![0].userId }] }));
    expect(await started({ seedCacheDir: cache })).toMatchObject({ marker: 0 });
    expect(readdirSync(cache).filter((f) => f.endsWith('.sqlite'))).toHaveLength(3);
    expect(await started()).toMatchObject({ marker: 0, status: 200 });
  });

  it('keeps no entry of a seed that fails to load (the database is built under a temporary name, renamed once complete)', async () => {
    const bad = { ...demoSeed, wordMemories: [...(demoSeed.wordMemories ?? []), { scope: 'user', scopeId: 1, entry: 'Twice' }, { scope: 'user', scopeId: 1, entry: 'Twice' }] };
    writeFileSync(seedFile, JSON.stringify(bad));
    await expect(started({ seedCacheDir: cache })).rejects.toThrow(/duplicate entry "Twice" in this scope/);
    expect(readdirSync(cache)).toEqual([]);
  });

  it('removes what a build killed on the way left (its temporary files, their process gone) when it builds that entry again', async () => {
    await started({ seedCacheDir: cache });
    const entry = readdirSync(cache).find((f) => f.endsWith('.sqlite'))!;
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!; // a process that has exited
    const orphans = [
      `${entry}.${gone}.tmp`, `${entry}.${gone}.tmp-journal`, `${entry}.${gone}.tmp-word-memories`, `${entry}.${gone}.tmp-word-memories-journal`,
      // a split seed's word memories, and the tail of them built on the start's thread (seed/word-memories.ts)
      `seed-build.${gone}.tmp-1-word-memories`, `seed-build.${gone}.tmp-1-word-memories-tail`, `seed-build.${gone}.tmp-1-word-memories-tail-journal`,
    ];
    for (const f of orphans) writeFileSync(join(cache, f), 'half a build');
    rmSync(join(cache, entry));
    expect(await started({ seedCacheDir: cache })).toMatchObject({ status: 200, marker: 0 });
    const files = readdirSync(cache);
    for (const f of orphans) expect(files).not.toContain(f);
    expect(files).toContain(entry);
  });
});
