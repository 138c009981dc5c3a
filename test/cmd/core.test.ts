import { expectNoSecrets } from '../helpers/expect.js';
import { chmodSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { tempConfigDir } from '../helpers/cli.js';
import { commandSandbox, runCliInProcess, SANDBOX_URL, type CliLikeOptions } from '../helpers/run-command.js';

/**
 * The core of the CLI in this process (moved from test/e2e/core.test.ts, which keeps what needs the built binary:
 * start-up, pseudo-terminals, Ctrl-C): auth and the key on disk, output formats, errors and exit codes, retries,
 * precedence, colour, api. The sandbox's app answers; `box: null` sends the requests over the real network instead
 * (an address nothing listens on, a server answering nonsense).
 */

type Box = Awaited<ReturnType<typeof commandSandbox>>;
const ADMIN = DEMO_KEYS.admin.token;

let sb: Box;
beforeAll(async () => {
  sb = await commandSandbox();
});
afterAll(() => sb?.close());

/** As the e2e tests run the built CLI, in this process; the sandbox of this file answers unless `box` says another (null: none). */
const inProc = (args: string[], o: Omit<CliLikeOptions, 'sandbox'> & { box?: Box | null } = {}) => runCliInProcess(args, { ...o, sandbox: o.box === null ? undefined : (o.box ?? sb) });

describe('auth', () => {
  it('logs in with the key on stdin, verifies it, stores it 0600 in a 0700 dir, and never prints it', async () => {
    const cfg = tempConfigDir();
    try {
      const r = await inProc(['auth', 'login', '--with-key', '--base-url', SANDBOX_URL], { configDir: cfg.dir, input: ADMIN + '\n' });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toContain('Logged in to');
      expect(r.stderr).toContain('nvk_user_admin.****');
      expectNoSecrets(r.stdout, r.stderr);
      const files = readdirSync(cfg.dir);
      expect(files.length).toBeGreaterThan(0);
      expect(statSync(cfg.dir).mode & 0o777).toBe(0o700);
      const file = join(cfg.dir, 'config.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toContain(DEMO_KEYS.admin.secret);

      const status = await inProc(['auth', 'status', '--json'], { configDir: cfg.dir });
      expect(status.exitCode, status.stderr).toBe(0);
      const s = JSON.parse(status.stdout);
      expect(s).toMatchObject({ profile: 'default', keyId: 'nvk_user_admin', keyType: 'USER', keySource: 'profile "default"' });
      expectNoSecrets(status.stdout, status.stderr);

      // the environment overrides the profile, and status says so
      const env = await inProc(['auth', 'status', '--json'], { configDir: cfg.dir, key: DEMO_KEYS.member.token });
      expect(JSON.parse(env.stdout)).toMatchObject({ keyId: 'nvk_user_member', keySource: 'environment variable NOTEVOX_API_KEY' });
      expect(env.stderr).toMatch(/NOTEVOX_API_KEY overrides/);

      const out = await inProc(['auth', 'logout'], { configDir: cfg.dir });
      expect(out.exitCode).toBe(0);
      expect(readFileSync(file, 'utf8')).not.toContain(DEMO_KEYS.admin.secret);
      const after = await inProc(['notes', 'list'], { configDir: cfg.dir });
      expect(after.exitCode).toBe(3);
      expect(after.stderr).toMatch(/auth login|NOTEVOX_API_KEY/);
    } finally {
      cfg.cleanup();
    }
  });

  it('explains an id-only key (exit 2) and saves nothing for a key the service refuses (exit 3)', async () => {
    const cfg = tempConfigDir();
    try {
      const idOnly = await inProc(['auth', 'login', '--with-key', '--base-url', SANDBOX_URL], { configDir: cfg.dir, input: DEMO_KEYS.admin.id });
      expect(idOnly.exitCode).toBe(2);
      expect(idOnly.stderr).toMatch(/only the key id/i);
      const wrong = await inProc(['auth', 'login', '--with-key', '--base-url', SANDBOX_URL], { configDir: cfg.dir, input: `${DEMO_KEYS.admin.id}.not-the-secret` });
      expect(wrong.exitCode).toBe(3);
      expect(wrong.stderr).not.toContain('not-the-secret');
      expect(readdirSync(cfg.dir).filter((f) => f.endsWith('.json'))).toEqual([]);
    } finally {
      cfg.cleanup();
    }
  });

  it('needs --with-key when it cannot prompt (exit 10 naming the flag)', async () => {
    const r = await inProc(['auth', 'login', '--base-url', SANDBOX_URL]);
    expect(r.exitCode).toBe(10);
    expect(r.stderr).toContain('--with-key');
  });

  it('lists the assignable scopes without a key', async () => {
    const r = await inProc(['scopes', '-o', 'json'], { baseUrl: SANDBOX_URL });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((s: any) => s.scope)).toContain('voice_file_job:write');
  });
});

describe('notes get/list/rename and output formats', () => {
  const cli = (args: string[], key: string = ADMIN, env?: Record<string, string>) => inProc(args, { baseUrl: SANDBOX_URL, key, env });

  it('pipes TSV without a header and ISO times; csv has a header; json and ndjson are the API objects', async () => {
    const tsv = await cli(['notes', 'list', '--limit', '3']);
    expect(tsv.exitCode, tsv.stderr).toBe(0);
    const lines = tsv.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0].split('\t')[0]).toMatch(/^[A-Za-z0-9]{13}$/);
    expect(lines[0]).toMatch(/\t\d{4}-\d\d-\d\dT/);
    expect(tsv.stderr).toMatch(/Showing 3 notes; more are available.*--cursor \S+/);
    const csv = await cli(['notes', 'list', '--limit', '2', '-o', 'csv', '--fields', 'guid,title']);
    expect(csv.stdout.split('\n')[0]).toBe('guid,title');
    const json = JSON.parse((await cli(['notes', 'list', '--limit', '2', '--json'])).stdout);
    expect(json).toHaveLength(2);
    expect(json[0]).toHaveProperty('webUrl');
    const nd = (await cli(['notes', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n');
    const all = JSON.parse((await cli(['notes', 'list', '--limit', '1000', '--json'])).stdout);
    expect(nd.map((l) => JSON.parse(l).guid)).toEqual(all.map((n: any) => n.guid));
    const q = await cli(['notes', 'list', '--limit', '2', '--json', '--query', '[].guid']);
    expect(JSON.parse(q.stdout)).toEqual(json.map((n: any) => n.guid));
  });

  it('continues from --cursor where a cut list stopped', async () => {
    const first = await cli(['notes', 'list', '--limit', '2', '--json']);
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1];
    const next = JSON.parse((await cli(['notes', 'list', '--limit', '2', '--json', '--cursor', cursor])).stdout);
    const all = JSON.parse((await cli(['notes', 'list', '--limit', '4', '--json'])).stdout);
    expect([...JSON.parse(first.stdout), ...next].map((n: any) => n.guid)).toEqual(all.map((n: any) => n.guid));
  });

  it('gets and renames a note; validates the title before any request', async () => {
    const got = JSON.parse((await cli(['notes', 'get', DEMO_NOTES.sprintRetro, '--json'])).stdout);
    expect(got.guid).toBe(DEMO_NOTES.sprintRetro);
    const r = await cli(['notes', 'rename', DEMO_NOTES.sprintRetro, 'Retro (renamed)', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).title).toBe('Retro (renamed)');
    const before = sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log')!.n;
    for (const bad of ['   ', 'x'.repeat(101)]) expect((await cli(['notes', 'rename', DEMO_NOTES.sprintRetro, bad])).exitCode).toBe(2);
    expect((await cli(['notes', 'get', 'not-a-guid'])).exitCode).toBe(2);
    expect(sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log')!.n).toBe(before);
  });

  it('maps service errors to exit codes with a hint, and to JSON on stderr with -o json', async () => {
    const unauth = await cli(['notes', 'list'], `${DEMO_KEYS.admin.id}.wrong`);
    expect(unauth.exitCode).toBe(3);
    const scope = await cli(['folders', 'list', '--workspace', 'Product Team'], DEMO_KEYS.noteReadOnly.token);
    expect(scope.exitCode).toBe(4);
    expect(scope.stderr).toContain('folder:read');
    expect(scope.stderr).toMatch(/^hint: /m);
    const missing = await cli(['notes', 'get', DEMO_NOTES.deletedBrainstorm]);
    expect(missing.exitCode).toBe(5);
    const json = await cli(['notes', 'get', DEMO_NOTES.deletedBrainstorm, '--json']);
    expect(JSON.parse(json.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { exitCode: 5, errorType: 'not_found', code: 404000 } });
    // the value attached to the short flag, as the parser accepts it
    const attached = await cli(['notes', 'get', DEMO_NOTES.deletedBrainstorm, '-ojson']);
    expect(attached.exitCode).toBe(5);
    expect(JSON.parse(attached.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { exitCode: 5, errorType: 'not_found' } });
    const rejected = await cli(['api', 'PATCH', `notes/${DEMO_NOTES.sprintRetro}?updateMask=color`, '-F', 'title=x']);
    expect(rejected.exitCode).toBe(6);
    expect(rejected.stderr).toMatch(/400 bad_request, code 400001/);
    const usage = await cli(['notes', 'list', '--bogus']);
    expect(usage.exitCode).toBe(2);
    const insecure = await cli(['notes', 'list'], ADMIN, { NOTEVOX_BASE_URL: 'http://api.example.com' });
    expect(insecure.exitCode).toBe(2);
    expect(insecure.stderr).toMatch(/http/);
    expectNoSecrets(unauth.stderr, scope.stderr, missing.stderr, json.stderr);
  });

  it('never shows the key in a --debug trace', async () => {
    const r = await cli(['notes', 'list', '--limit', '1', '--debug']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/> GET .*\/v1\/external\/notes/);
    expect(r.stderr).toMatch(/< 200/);
    expectNoSecrets(r.stdout, r.stderr);
  });
});

describe('api', () => {
  it('calls any path and follows nextCursor with --paginate, streaming ndjson', async () => {
    const me = await inProc(['api', 'auth/me'], { baseUrl: SANDBOX_URL, key: ADMIN });
    expect(JSON.parse(me.stdout).keyId).toBe('nvk_user_admin');
    const pages = await inProc(['api', 'notes', '-f', 'size=2', '--paginate', '-o', 'ndjson'], { baseUrl: SANDBOX_URL, key: ADMIN });
    expect(pages.exitCode, pages.stderr).toBe(0);
    const all = JSON.parse((await inProc(['notes', 'list', '--all', '--json'], { baseUrl: SANDBOX_URL, key: ADMIN })).stdout);
    expect(pages.stdout.trim().split('\n').map((l) => JSON.parse(l).guid)).toEqual(all.map((n: any) => n.guid));
    const head = await inProc(['api', '-i', 'auth/me'], { baseUrl: SANDBOX_URL, key: ADMIN });
    expect(head.stderr).toMatch(/HTTP 200/);
  });
});

describe('retries, rate limits and unavailability', () => {
  it('retries injected 503s and 429s (reporting each wait) and succeeds', async () => {
    const flaky = await commandSandbox({ faults: '503=0.25,429=0.25:0', faultSeed: 3 });
    try {
      const r = await inProc(['notes', 'list', '--all', '-o', 'ndjson', '--max-retries', '10'], { box: flaky, baseUrl: SANDBOX_URL, key: ADMIN, env: { NOTEVOX_DEBUG: '' } });
      expect(r.exitCode, r.stderr).toBe(0);
      const pages = await inProc(['api', 'notes', '-f', 'size=1', '--paginate', '-o', 'ndjson', '--max-retries', '10'], { box: flaky, baseUrl: SANDBOX_URL, key: ADMIN });
      expect(pages.exitCode, pages.stderr).toBe(0);
      expect(pages.stdout.trim().split('\n')).toHaveLength(r.stdout.trim().split('\n').length);
      expect(pages.stderr).toMatch(/retrying GET \/v1\/external\/notes in [\d.]+s \(attempt \d+\/11\): (503|429)/);
    } finally {
      await flaky.close();
    }
  });

  it('exit 7 when still rate limited after the retries; exit 8 when the service stays down', async () => {
    const limited = await commandSandbox({ rateLimit: '1/60s' });
    const down = await commandSandbox({ faults: '503=1' });
    try {
      await inProc(['notes', 'list'], { box: limited, baseUrl: SANDBOX_URL, key: ADMIN });
      const r = await inProc(['notes', 'list', '--max-retries', '0', '--debug'], { box: limited, baseUrl: SANDBOX_URL, key: ADMIN });
      expect(r.exitCode).toBe(7);
      // The trace: method and URL, status, duration and attempt, Retry-After; the key only masked.
      expect(r.stderr).toMatch(/^> GET http:\/\/127\.0\.0\.1:\d+\/v1\/external\/notes\?size=50$/m);
      expect(r.stderr).toMatch(/^< 429 Too Many Requests \d+ms attempt 1$/m);
      expect(r.stderr).toMatch(/^< retry-after: \d+$/m);
      expect(r.stderr).toMatch(/^> authorization: Bearer \*\*\*\*$/m);
      expectNoSecrets(r.stderr);
      const d = await inProc(['notes', 'list', '--max-retries', '1'], { box: down, baseUrl: SANDBOX_URL, key: ADMIN });
      expect(d.exitCode).toBe(8);
    } finally {
      await limited.close();
      await down.close();
    }
    const refused = await inProc(['notes', 'list', '--max-retries', '0'], { box: null, baseUrl: 'http://127.0.0.1:1', key: ADMIN });
    expect(refused.exitCode).toBe(8);
  });
});

/** Every file under `dir` whose content includes `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) hits.push(...filesContaining(p, needle));
    else if (entry.isFile() && readFileSync(p, 'utf8').includes(needle)) hits.push(p);
  }
  return hits;
}

describe('the key on disk and on screen', () => {
  it('is stored only in the 0600 file of the XDG config dir, repaired when loosened, and never printed', async () => {
    const home = tempConfigDir();
    try {
      // No NOTEVOX_CONFIG_DIR: the real default location under $HOME.
      const env = { HOME: home.dir, NOTEVOX_CONFIG_DIR: undefined };
      const run = (args: string[], o: { key?: string; input?: string } = {}) => inProc(args, { env, key: o.key, input: o.input });
      const login = await run(['auth', 'login', '--with-key', '--base-url', SANDBOX_URL], { input: `  ${ADMIN}\n` });
      expect(login.exitCode, login.stderr).toBe(0);
      const dir = join(home.dir, '.config', 'notevox');
      const file = join(dir, 'config.json');
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      const outputs = [login.stdout, login.stderr];
      for (const args of [
        ['auth', 'status'],
        ['auth', 'status', '-o', 'table'],
        ['auth', 'status', '--json'],
        ['notes', 'list', '--limit', '2', '--debug'],
        ['notes', 'get', DEMO_NOTES.sprintRetro, '--debug', '-o', 'json'],
        ['notes', 'get', DEMO_NOTES.deletedBrainstorm, '--json'],
        ['api', '-i', 'auth/me'],
        ['api', '-i', `notes/${DEMO_NOTES.deletedBrainstorm}`],
        ['profile', 'list', '--json'],
        ['config', 'list', '--json'],
      ]) {
        const r = await run(args);
        outputs.push(r.stdout, r.stderr);
      }
      // A refused key (wrong secret) and a bare id are not echoed either.
      for (const key of [`${DEMO_KEYS.admin.id}.${DEMO_KEYS.member.secret}`, DEMO_KEYS.member.secret]) {
        const r = await run(['notes', 'list', '--debug'], { key });
        expect(r.exitCode).toBe(3);
        outputs.push(r.stdout, r.stderr);
      }
      expectNoSecrets(...outputs);
      expect(filesContaining(home.dir, DEMO_KEYS.admin.secret)).toEqual([file]);

      // Loosened by hand: the next command (even one that only reads) puts the modes back.
      chmodSync(file, 0o644);
      chmodSync(dir, 0o755);
      expect((await run(['auth', 'status'])).exitCode).toBe(0);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      await run(['auth', 'logout']);
      expect(filesContaining(home.dir, DEMO_KEYS.admin.secret)).toEqual([]);
    } finally {
      home.cleanup();
    }
  });
});

describe('precedence and status sources', () => {
  it('flags > environment > profile > defaults, and auth status names each source', async () => {
    const cfg = tempConfigDir();
    try {
      const run = (args: string[], env: Record<string, string | undefined> = {}, key?: string) => inProc(args, { configDir: cfg.dir, key, env });
      expect((await inProc(['auth', 'login', '--with-key', '--profile', 'work', '--base-url', SANDBOX_URL], { configDir: cfg.dir, input: ADMIN })).exitCode).toBe(0);
      const status = async (args: string[], env?: Record<string, string | undefined>, key?: string) => {
        const r = await run(['auth', 'status', '--json', ...args], env, key);
        expect(r.exitCode, r.stderr).toBe(0);
        return { json: JSON.parse(r.stdout), stderr: r.stderr };
      };
      expect((await status([])).json).toMatchObject({ profile: 'work', baseUrlSource: 'profile', keySource: 'profile "work"', key: 'nvk_user_admin.****0001' });
      // --base-url beats NOTEVOX_BASE_URL, which beats the profile (and status warns about it).
      const bad = 'http://127.0.0.1:1';
      expect((await status(['--base-url', SANDBOX_URL], { NOTEVOX_BASE_URL: bad })).json).toMatchObject({ baseUrl: SANDBOX_URL, baseUrlSource: 'flag' });
      const envUrl = await inProc(['auth', 'status', '--max-retries', '0'], { configDir: cfg.dir, box: null, env: { NOTEVOX_BASE_URL: bad } });
      expect(envUrl.exitCode).toBe(8);
      expect(envUrl.stderr).toMatch(/NOTEVOX_BASE_URL overrides the base URL stored in profile "work"/);
      // --profile beats NOTEVOX_PROFILE; an unknown profile is named, with the known ones.
      expect((await status(['--profile', 'work'], { NOTEVOX_PROFILE: 'other' })).json).toMatchObject({ profile: 'work', keySource: 'profile "work" (--profile)' });
      const unknown = await run(['notes', 'list'], { NOTEVOX_PROFILE: 'other' });
      expect(unknown.exitCode).toBe(3);
      expect(unknown.stderr).toMatch(/no such profile "other" \(NOTEVOX_PROFILE\)/);
      expect(unknown.stderr).toMatch(/Known profiles: work/);
      // Empty variables count as unset.
      expect((await status([], { NOTEVOX_PROFILE: '', NOTEVOX_BASE_URL: '' })).json).toMatchObject({ profile: 'work', baseUrlSource: 'profile' });
      // NOTEVOX_API_KEY beats the stored key, and status warns.
      const env = await status([], undefined, DEMO_KEYS.member.token);
      expect(env.json).toMatchObject({ keyId: 'nvk_user_member', keySource: 'environment variable NOTEVOX_API_KEY' });
      expect(env.stderr).toMatch(/warning: NOTEVOX_API_KEY overrides the key stored in profile "work"/);
      // A refused key is named, masked, with its source.
      const refused = await run(['auth', 'status'], {}, `${DEMO_KEYS.admin.id}.wrong-secret-value`);
      expect(refused.exitCode).toBe(3);
      expect(refused.stderr).toMatch(/the key nvk_user_admin\.\*\*\*\*alue from environment variable NOTEVOX_API_KEY was refused: 401/);
      // Human view: the masked key and where it came from.
      const human = await run(['auth', 'status', '-o', 'table']);
      expect(human.stdout).toMatch(/Key from\s+profile "work"/);
      expect(human.stdout).toMatch(/Key\s+nvk_user_admin\.\*\*\*\*0001/);
      expectNoSecrets(human.stdout, human.stderr, env.stderr);
    } finally {
      cfg.cleanup();
    }
  });
});

describe('colour', () => {
  it('FORCE_COLOR paints even when piped; --no-color, NO_COLOR and FORCE_COLOR=0 win; JSON never has colour', async () => {
    const run = (args: string[], env: Record<string, string | undefined>) =>
      inProc(['notes', 'list', '--limit', '2', '-o', 'table', ...args], { baseUrl: SANDBOX_URL, key: ADMIN, env: { NO_COLOR: undefined, ...env } });
    const ESC = '\u001b[';
    expect((await run([], { FORCE_COLOR: '1' })).stdout).toContain(`${ESC}1mGUID`);
    expect((await run(['--no-color'], { FORCE_COLOR: '1' })).stdout).not.toContain(ESC);
    expect((await run([], { FORCE_COLOR: '1', NO_COLOR: '1' })).stdout).not.toContain(ESC);
    expect((await run([], { FORCE_COLOR: '0' })).stdout).not.toContain(ESC);
    expect((await run([], {})).stdout).not.toContain(ESC);
    const json = await inProc(['notes', 'get', DEMO_NOTES.sprintRetro, '--json'], { baseUrl: SANDBOX_URL, key: ADMIN, env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(json.stdout).not.toContain(ESC);
    const err = await inProc(['notes', 'get', 'bad'], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(err.stderr).toContain(`${ESC}31merror:`);
  });

});

describe('every exit code this core can produce', () => {
  it('1: a response the CLI cannot understand, with a hint', async () => {
    const odd = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"unexpected":true}'));
    await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
    try {
      const r = await inProc(['notes', 'list'], { box: null, baseUrl: `http://127.0.0.1:${(odd.address() as AddressInfo).port}`, key: ADMIN });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/^error: unexpected response/m);
      expect(r.stderr).toMatch(/^hint: /m);
    } finally {
      odd.closeAllConnections();
      await new Promise((r) => odd.close(r));
    }
  });

  it('2 as a JSON object on stderr with --json, also for a usage error found by the parser', async () => {
    const r = await inProc(['notes', 'list', '--bogus', '--json'], { baseUrl: SANDBOX_URL, key: ADMIN });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({ error: { exitCode: 2, errorType: null, code: null, message: "unknown option '--bogus'", hint: expect.any(String) } });
    const human = await inProc(['notes', 'list', '--bogus'], { baseUrl: SANDBOX_URL, key: ADMIN });
    expect(human.stderr.trim().split('\n')).toEqual(["error: unknown option '--bogus'", expect.stringMatching(/^hint: /)]);
  });

});

describe('api fields, errors and headers', () => {
  const cli = (args: string[]) => inProc(args, { baseUrl: SANDBOX_URL, key: ADMIN });

  it('builds nested bodies from -f/-F, sends DELETE fields as a body, and shows an error answer like gh', async () => {
    const created = await cli(['api', 'POST', 'users/me/word-memories', '-f', 'entries[][entry]=CoreAcme', '-f', 'entries[][subEntry]=ACM', '-f', 'entries[][entry]=CoreGlobex']);
    expect(created.exitCode, created.stderr).toBe(0);
    const items = JSON.parse(created.stdout).content;
    expect(items.map((i: any) => [i.entry, i.subEntry])).toEqual([
      ['CoreAcme', 'ACM'],
      ['CoreGlobex', null],
    ]);
    const del = await cli(['api', 'DELETE', 'users/me/word-memories', ...items.flatMap((i: any) => ['-F', `ids[]=${i.id}`])]);
    expect(del.exitCode, del.stderr).toBe(0);
    expect(JSON.parse(del.stdout)).toEqual({ deleted: 2, notFound: [] });

    const missing = await cli(['api', '-i', `notes/${DEMO_NOTES.deletedBrainstorm}`]);
    expect(missing.exitCode).toBe(5);
    expect(JSON.parse(missing.stdout)).toMatchObject({ error: { code: 404000, errorType: 'not_found' } });
    expect(missing.stderr).toMatch(/^HTTP 404$/m);
    expect(missing.stderr).toMatch(/^error: 404 not_found/m);

    const noFile = await cli(['api', 'POST', 'users/me/word-memories', '-F', 'entries=@/nonexistent/file.json']);
    expect(noFile.exitCode).toBe(2);
    expect(noFile.stderr).toContain('/nonexistent/file.json');
    const renamed = await cli(['api', 'PATCH', `notes/${DEMO_NOTES.sprintRetro}?updateMask=title`, '-f', 'title=Via api', '--query', 'title']);
    expect(renamed.exitCode, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout)).toBe('Via api');
  });
});

