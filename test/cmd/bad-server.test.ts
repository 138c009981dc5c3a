import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { HTML_PAGE, startBadServer, type BadAnswer, type BadServer } from '../helpers/bad-server.js';
import { runCliInProcess as runCli } from '../helpers/run-command.js';
import { useSandboxEnv } from '../helpers/sandbox-env.js';

/**
 * Issue 14 item 1: a 2xx that is not the documented answer (a captive portal's HTML, a proxy's "OK", a gateway's
 * `{}`) is never reported as success. The bad server sits in front of a real sandbox and answers every write
 * itself; reads go through, so that the commands get as far as their writes. The CLI runs in this process and talks
 * HTTP to the bad server.
 */

const ADMIN = DEMO_KEYS.admin.token;
const t = useSandboxEnv('bad-server');

const BODIES: Record<string, Exclude<BadAnswer, undefined>> = {
  html: { body: HTML_PAGE },
  garbage: { body: 'OK', type: 'text/plain' },
  empty: { body: '{}', type: 'application/json' },
};

async function withBadWrites<T>(kind: keyof typeof BODIES, run: (bad: BadServer) => Promise<T>): Promise<T> {
  const bad = await startBadServer(t.sb.baseUrl, (req) => (req.method === 'GET' ? undefined : BODIES[kind]));
  try {
    return await run(bad);
  } finally {
    await bad.close();
  }
}

const cache = (name: string) => join(t.dir, `cache-${name}`);
const journals = (c: string) => {
  try {
    return readdirSync(join(c, 'wm-journal'));
  } catch {
    return [];
  }
};
const wmCount = () => t.sb.db.get<{ n: number }>("SELECT count(*) AS n FROM word_memories WHERE entry LIKE 'Bad-%'")!.n;

describe('a 2xx that is not the documented answer is never success', () => {
  it.each(Object.keys(BODIES))('wm import (%s): exit 1 "unexpected response", nothing counted as present, no journal claims anything', async (kind) => {
    const csv = join(t.dir, `import-${kind}.csv`);
    writeFileSync(csv, 'entry,subEntry\n' + Array.from({ length: 30 }, (_, i) => `Bad-${kind}-${i},`).join('\n') + '\n');
    const c = cache(kind);
    // A journal from an earlier, interrupted run of the same import: it must survive too.
    await withBadWrites(kind as keyof typeof BODIES, async (bad) => {
      const r = await runCli(['wm', 'import', csv, '--batch-size', '10', '-o', 'json'], { baseUrl: bad.baseUrl, key: ADMIN, configDir: t.config.dir, env: { NOTEVOX_CACHE_DIR: c } });
      expect(r.exitCode, r.stderr).toBe(1);
      const { error } = JSON.parse(r.stderr);
      expect(error.message).toMatch(/^30 rows were not imported: unexpected response from wm\.user\.create/);
      expect(error.hint).toMatch(/cannot tell whether the change was made/);
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({ created: 0, alreadyPresent: 0, failed: 30 });
      expect(bad.intercepted.length).toBeGreaterThan(0);
    });
    expect(wmCount()).toBe(0);
    // Nothing was confirmed, so there is nothing to resume from, and no journal claims otherwise.
    expect(journals(c)).toEqual([]);
  });

  it('wm import: the batches confirmed before the bad answers stay in the journal, and the rerun resumes', async () => {
    const csv = join(t.dir, 'import-partial.csv');
    writeFileSync(csv, 'entry\n' + Array.from({ length: 30 }, (_, i) => `Bad-partial-${i}`).join('\n') + '\n');
    const c = cache('partial');
    let writes = 0;
    let healthy = false;
    const bad = await startBadServer(t.sb.baseUrl, (req) => (!healthy && req.method !== 'GET' && ++writes > 1 ? BODIES.html : undefined));
    const o = { baseUrl: bad.baseUrl, key: ADMIN, configDir: t.config.dir, env: { NOTEVOX_CACHE_DIR: c } };
    try {
      const r = await runCli(['wm', 'import', csv, '--batch-size', '10', '--concurrency', '1'], o);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/20 rows were not imported: unexpected response/);
      expect(r.stderr).toMatch(/1 batches are confirmed/);
      expect(journals(c)).toHaveLength(1);
      // The server is fixed: the same import resumes after the confirmed batch.
      healthy = true;
      const again = await runCli(['wm', 'import', csv, '--batch-size', '10', '--concurrency', '1', '-o', 'json'], o);
      expect(again.exitCode, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout), again.stdout).toMatchObject({ created: 20, doneEarlier: 10, failed: 0 });
    } finally {
      await bad.close();
    }
    expect(journals(c)).toEqual([]);
    t.sb.db.run("DELETE FROM word_memories WHERE entry LIKE 'Bad-%'");
  });

  it('wm import: an answer that reads like a create answer but lacks a field is refused (the count of answer.ts is no check of its own)', async () => {
    const csv = join(t.dir, 'import-almost.csv');
    writeFileSync(csv, 'entry\n' + Array.from({ length: 10 }, (_, i) => `Bad-almost-${i}`).join('\n') + '\n');
    const items = Array.from({ length: 10 }, (_, i) => `{"id":${i + 1},"entry":"Bad-almost-${i}","subEntry":null}`).join(',');
    const bad = await startBadServer(t.sb.baseUrl, (req) => (req.method === 'GET' ? undefined : { body: `{"content":[${items}]}`, type: 'application/json' }));
    try {
      const r = await runCli(['wm', 'import', csv, '-o', 'json'], { baseUrl: bad.baseUrl, key: ADMIN, configDir: t.config.dir, env: { NOTEVOX_CACHE_DIR: cache('almost') } });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(JSON.parse(r.stderr).error.message).toMatch(/^10 rows were not imported: unexpected response from wm\.user\.create: content\[0\]\.createdAt: /);
      expect(JSON.parse(r.stdout)).toMatchObject({ created: 0, alreadyPresent: 0, failed: 10 });
    } finally {
      await bad.close();
    }
  });

  it.each(Object.keys(BODIES))('wm rm, wm add and wm sync (%s) fail the same way', async (kind) => {
    const [made] = t.sb.db.all<{ id: number }>("SELECT id FROM word_memories WHERE scope_type = 'user' ORDER BY id LIMIT 1");
    await withBadWrites(kind as keyof typeof BODIES, async (bad) => {
      const o = { baseUrl: bad.baseUrl, key: ADMIN, configDir: t.config.dir, env: { NOTEVOX_CACHE_DIR: cache(`other-${kind}`) } };
      const rm = await runCli(['wm', 'rm', String(made.id), '--yes'], o);
      expect(rm.exitCode, rm.stderr).toBe(1);
      expect(rm.stderr).toMatch(/^error: unexpected response from wm\.user\.delete/m);
      expect(rm.stderr).not.toMatch(/Deleted/);

      const add = await runCli(['wm', 'add', 'Bad-add'], o);
      expect(add.exitCode, add.stderr).toBe(1);
      expect(add.stderr).toMatch(/^error: unexpected response from wm\.user\.create/m);
      expect(add.stderr).not.toMatch(/already in|TypeError/);

      const csv = join(t.dir, `sync-${kind}.csv`);
      writeFileSync(csv, 'entry\nBad-sync-1\nBad-sync-2\n');
      const sync = await runCli(['wm', 'sync', csv, '--yes', '-o', 'json'], o);
      expect(sync.exitCode, sync.stderr).toBe(1);
      expect(sync.stderr).toMatch(/2 changes were not applied: unexpected response from wm\.user\.create/);
      expect(JSON.parse(sync.stdout).applied).toMatchObject({ created: 0, failed: 2 });
    });
    expect(t.sb.db.get('SELECT id FROM word_memories WHERE id = ?', [made.id])).toBeDefined();
  });

  it('other writes too: folders create', async () => {
    await withBadWrites('html', async (bad) => {
      const o = { baseUrl: bad.baseUrl, key: ADMIN, configDir: t.config.dir };
      const folder = await runCli(['folders', 'create', 'Bad folder', '--workspace', 'Sales'], o);
      expect(folder.exitCode, folder.stderr).toBe(1);
      expect(folder.stderr).toMatch(/^error: unexpected response from folders\.create\w+: the body is not JSON \("<!DOCTYPE html>/m);
    });
  });

  it.each(['html', 'empty'] as const)('reads too: folders create whose workspace lookup is answered %s says "unexpected response from", not a TypeError', async (kind) => {
    const bad = await startBadServer(t.sb.baseUrl, (req) => (req.method === 'GET' && req.url?.startsWith('/v1/external/workspaces') ? BODIES[kind] : undefined));
    try {
      const folder = await runCli(['folders', 'create', 'Lookup folder', '--workspace', 'Sales'], { baseUrl: bad.baseUrl, key: ADMIN, configDir: t.config.dir });
      expect(folder.exitCode, folder.stderr).toBe(1);
      expect(folder.stderr).toMatch(/^error: unexpected response from workspaces\.reachable: /m);
      expect(folder.stderr).not.toMatch(/Cannot read properties|looks like a bug/);
      expect(bad.intercepted.length).toBeGreaterThan(0);
    } finally {
      await bad.close();
    }
    expect(t.sb.db.get("SELECT id FROM folders WHERE title = 'Lookup folder'")).toBeUndefined();
  });

  it('auth status, auth login and wm add against a server that answers HTML to everything: the same clear error', async () => {
    const bad = await startBadServer(undefined, () => BODIES.html);
    try {
      const o = { baseUrl: bad.baseUrl, key: ADMIN, configDir: t.config.dir };
      const status = await runCli(['auth', 'status'], o);
      expect(status.exitCode, status.stderr).toBe(1);
      expect(status.stderr).toMatch(/^error: unexpected response from auth\.me: the body is not JSON/m);
      expect(status.stderr).not.toMatch(/TypeError|looks like a bug/);

      const login = await runCli(['auth', 'login', '--with-key', '--base-url', bad.baseUrl], { configDir: t.config.dir, input: ADMIN });
      expect(login.exitCode, login.stderr).toBe(1);
      expect(login.stderr).toMatch(/^error: unexpected response from auth\.me/m);
      // Nothing was saved from a login that could not be checked.
      const list = await runCli(['auth', 'status'], { configDir: t.config.dir });
      expect(list.exitCode).toBe(3);

      const add = await runCli(['wm', 'add', 'Bad-add'], o);
      expect(add.exitCode, add.stderr).toBe(1);
      expect(add.stderr).toMatch(/unexpected response from wm\.user\.create: the body is not JSON/);

      const scopes = await runCli(['scopes'], o);
      expect(scopes.exitCode, scopes.stderr).toBe(1);
      expect(scopes.stderr).toMatch(/^error: unexpected response from scopes\.list: the body is not JSON/m);
    } finally {
      await bad.close();
    }
  });
});

describe('a key that a server echoes back in a 200 body is masked (issue 14 item 8)', () => {
  const KEY = DEMO_KEYS.admin;
  const secret = KEY.secret;
  const me = { keyId: KEY.token, keyType: 'USER', scopes: [], user: { id: 1, name: `echo ${KEY.token}`, email: `${secret}@example.test` }, workspaceGuid: null, organizationId: null, createdAt: '2026-01-01T00:00:00Z', expiresAt: null };

  it('in `api`, `auth status` and `auth login` output', async () => {
    const echo = await startBadServer(undefined, (req) =>
      req.url!.endsWith('/auth/me')
        ? { type: 'application/json', body: JSON.stringify(me) }
        : req.url!.includes('text')
          ? { type: 'text/plain', body: `you sent Bearer ${KEY.token} (secret ${secret})` }
          : { type: 'application/json', body: JSON.stringify({ authorization: `Bearer ${KEY.token}`, [secret]: [secret, { nested: KEY.token }] }) },
    );
    try {
      const o = { baseUrl: echo.baseUrl, key: KEY.token, configDir: t.config.dir };
      const outputs = [
        await runCli(['api', 'debug/echo'], o),
        await runCli(['api', 'debug/text'], o),
        await runCli(['api', 'auth/me', '--json'], o),
        await runCli(['auth', 'status'], o),
        await runCli(['auth', 'status', '--json'], o),
        await runCli(['auth', 'login', '--with-key', '--base-url', echo.baseUrl, '--profile', 'echo'], { configDir: t.config.dir, input: KEY.token }),
        await runCli(['auth', 'login', '--with-key', '--base-url', echo.baseUrl, '--profile', 'echo', '--json'], { configDir: t.config.dir, input: KEY.token }),
      ];
      for (const r of outputs) {
        expect(r.exitCode, r.stderr).toBe(0);
        expect(r.stdout + r.stderr).not.toContain(secret);
        expect(r.stdout + r.stderr).toContain('****');
      }
      expect(JSON.parse(outputs[0].stdout)).toEqual({ authorization: 'Bearer ****', '****': ['****', { nested: '****' }] });
      expect(outputs[1].stdout).toBe('"you sent Bearer **** (secret ****)"\n');
    } finally {
      await echo.close();
    }
  });
});
