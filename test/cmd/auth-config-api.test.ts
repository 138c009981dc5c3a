import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { K } from '../helpers/expect.js';
import { commandSandbox, runCommand, SANDBOX_URL, type RunOptions, type Sandbox } from '../helpers/run-command.js';

/** auth, config and api, in-process: profiles in a config dir of this file, the sandbox's app as the service. */

let sb: Sandbox & { wire: NonNullable<RunOptions['sandbox']>['wire'] };
let dir: string;
beforeAll(async () => {
  sb = await commandSandbox();
  dir = mkdtempSync(join(tmpdir(), 'notevox-cmd-auth-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Without NOTEVOX_API_KEY/BASE_URL: the stored profiles decide. */
const stored = (argv: string[], o: RunOptions = {}) => runCommand(argv, { sandbox: sb, configDir: dir, env: { NOTEVOX_BASE_URL: undefined }, ...o });

describe('auth', () => {
  it('login --with-key checks the key, stores it 0600 and never prints it; status and scopes use it', async () => {
    const login = await stored(['auth', 'login', '--with-key', '--base-url', SANDBOX_URL, '--profile', 'sandbox'], { stdin: `${K.admin}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stdout + login.stderr).not.toContain(DEMO_KEYS.admin.secret);
    expect(login.stderr).toMatch(/sandbox/);

    const status = await stored(['auth', 'status', '--profile', 'sandbox', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const s = JSON.parse(status.stdout);
    expect(s).toMatchObject({ profile: 'sandbox', baseUrl: SANDBOX_URL });
    expect(JSON.stringify(s)).not.toContain(DEMO_KEYS.admin.secret);

    const scopes = await stored(['scopes', '--profile', 'sandbox', '--json']);
    expect(scopes.exitCode, scopes.stderr).toBe(0);
    expect(JSON.parse(scopes.stdout).map((x: any) => x.scope)).toContain('note:read');
  });

  it('login on a terminal asks for the key (masked); a refused key is not stored', async () => {
    const bad = await stored(['auth', 'login', '--base-url', SANDBOX_URL, '--profile', 'bad'], {
      tty: true,
      // Asked again after each refusal, three times in all (issue 29 item 3).
      prompts: [1, 2, 3].map(() => ({ kind: 'password' as const, message: 'key', answer: `${DEMO_KEYS.admin.id}.wrongsecretwrongsecret` })),
    });
    expect(bad.exitCode).not.toBe(0);
    expect((await stored(['auth', 'status', '--profile', 'bad'])).exitCode).not.toBe(0);

    const good = await stored(['auth', 'login', '--base-url', SANDBOX_URL, '--profile', 'typed'], { tty: true, prompts: [{ kind: 'password', message: 'key', answer: K.member }] });
    expect(good.exitCode, good.stderr).toBe(0);
    expect(good.stdout + good.stderr).not.toContain(DEMO_KEYS.member.secret);
  });

  it("base URL forms: the API's base path copied from the docs is removed with a note (login stores the service's URL); an endpoint URL is refused at once", async () => {
    const login = await stored(['auth', 'login', '--with-key', '--base-url', `${SANDBOX_URL}/v1/external/`, '--profile', 'copied'], { stdin: `${K.admin}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stderr).toContain(`note: the base URL ${SANDBOX_URL}/v1/external/ ends with the API's base path /v1/external, which notevox adds itself; using ${SANDBOX_URL}`);
    const status = await stored(['auth', 'status', '--profile', 'copied', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ baseUrl: SANDBOX_URL });

    // Flag and environment on any command: the calls reach the API (no /v1/external/v1/external/…), with the note once.
    const flag = await stored(['notes', 'list', '--limit', '1', '--json', '--base-url', `${SANDBOX_URL}/v1/external`], { key: 'admin' });
    expect(flag.exitCode, flag.stderr).toBe(0);
    expect(flag.stderr.match(/note: the base URL/g)).toHaveLength(1);
    const env = await runCommand(['notes', 'list', '--limit', '1', '--json'], { sandbox: sb, key: 'admin', configDir: dir, env: { NOTEVOX_BASE_URL: `${SANDBOX_URL}/v1/external` } });
    expect(env.exitCode, env.stderr).toBe(0);
    expect(env.stderr).toContain('note: the base URL');

    const endpointUrl = await stored(['auth', 'login', '--with-key', '--base-url', `${SANDBOX_URL}/v1/external/notes`, '--profile', 'endpoint'], { stdin: `${K.admin}\n` });
    expect(endpointUrl.exitCode).toBe(2);
    expect(endpointUrl.stderr).toContain(`is the address of an endpoint, not of the service`);
    expect(endpointUrl.stderr).toContain(`Use ${SANDBOX_URL}: notevox adds /v1/external/… to each call itself.`);
    expect((await stored(['auth', 'status', '--profile', 'endpoint'])).exitCode).not.toBe(0);
  });

  it('without a terminal and without --with-key, login needs input: exit 10, nothing asked', async () => {
    const r = await stored(['auth', 'login', '--base-url', SANDBOX_URL, '--profile', 'never']);
    expect(r.exitCode).toBe(10);
  });

  it('switch and logout', async () => {
    const sw = await stored(['auth', 'switch', 'typed']);
    expect(sw.exitCode, sw.stderr).toBe(0);
    expect(sw.stderr).toContain('Now using profile "typed"');
    const status = JSON.parse((await stored(['auth', 'status', '--json'])).stdout);
    expect(status.profile).toBe('typed');
    const out = await stored(['auth', 'logout', '--profile', 'typed']);
    expect(out.exitCode, out.stderr).toBe(0);
    expect((await stored(['auth', 'status', '--profile', 'typed'])).exitCode).toBe(3);
    expect((await stored(['auth', 'switch', 'nosuch'])).exitCode).not.toBe(0);
  });
});

describe('config', () => {
  it('sets, gets, lists and unsets a setting; refuses an unknown one', async () => {
    expect((await stored(['config', 'set', 'output', 'json'])).exitCode).toBe(0);
    const get = await stored(['config', 'get', 'output']);
    expect(get.stdout.trim()).toBe('json');
    const list = await stored(['config', 'list']);
    expect(JSON.parse(list.stdout)).toMatchObject({ output: 'json' }); // the setting applies to config list itself
    expect((await stored(['config', 'unset', 'output'])).exitCode).toBe(0);
    expect((await stored(['config', 'get', 'output'])).stdout).not.toContain('json');
    const bad = await stored(['config', 'set', 'nosuch', 'x']);
    expect(bad.exitCode).toBe(2);
  });
});

describe('api', () => {
  const api = (argv: string[], o: RunOptions = {}) => runCommand(['api', ...argv], { sandbox: sb, key: 'admin', ...o });

  it('GETs a path (the API prefix added) and filters with --query', async () => {
    const r = await api(['GET', 'notes', '-f', 'size=2', '--query', 'content[].guid']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(2);
  });

  it('-i prints the status line and headers to stderr; a 404 exits 5 with the envelope', async () => {
    const r = await api(['notes/nt0000000000x', '-i']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/404/);
  });

  it('POSTs typed fields and an --input file, and pages with --paginate', async () => {
    const made = await api(['POST', 'users/me/word-memories', '--input', '-'], { stdin: JSON.stringify({ entries: [{ entry: 'ApiTyped' }] }) });
    expect(made.exitCode, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).content.map((w: any) => w.entry)).toEqual(['ApiTyped']);
    const file = join(dir, 'body.json');
    writeFileSync(file, JSON.stringify({ entries: [{ entry: 'ApiFromFile' }] }));
    expect((await api(['POST', 'users/me/word-memories', '--input', file])).exitCode).toBe(0);
    const all = await api(['users/me/word-memories', '--paginate', '-o', 'ndjson', '-F', 'size=1']);
    expect(all.exitCode, all.stderr).toBe(0);
    const entries = all.stdout.trim().split('\n').map((l) => JSON.parse(l).entry);
    expect(entries).toEqual(expect.arrayContaining(['ApiTyped', 'ApiFromFile']));
  });

  it('refuses a bad method, a bad field and a foreign URL before any request (exit 2)', async () => {
    for (const argv of [['FETCH', 'notes'], ['GET', 'notes', '-f', 'nokey'], ['https://elsewhere.example/v1/external/notes']]) {
      const r = await api(argv);
      expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
    }
  });

  it('api spec prints the OpenAPI document without a key', async () => {
    const r = await runCommand(['api', 'spec']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).openapi).toMatch(/^3\.1\./);
  });
});
