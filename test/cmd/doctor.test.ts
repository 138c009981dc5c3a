import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkClock, checkNode, checkRateLimit, type Check } from '../../src/commands/doctor/checks.js';
import { EXIT } from '../../src/errors.js';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { realClock } from '../../src/timing.js';
import { HTML_PAGE, startBadServer } from '../helpers/bad-server.js';
import { expectNoSecrets } from '../helpers/expect.js';
import { commandSandbox, runCommand, SANDBOX_URL, type RunOptions } from '../helpers/run-command.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/**
 * `notevox doctor` (issue 28, docs/doctor.md): a good set-up passes; each broken part fails with its fix; no
 * secret in any output. Against the sandbox in this process, a real one on a socket (for the Date header and the
 * misbehaving server in front of it), and an address nothing listens on.
 */

let sb: Awaited<ReturnType<typeof commandSandbox>>;
let real: Awaited<ReturnType<typeof startTestSandbox>>;
const dirs: string[] = [];
beforeAll(async () => {
  sb = await commandSandbox();
  real = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
  await real?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'notevox-doctor-'));
  dirs.push(d);
  return d;
};

/** `doctor -o json`: the exit code and the checks by name; every output checked for secrets. */
async function doctor(args: string[], o: RunOptions = {}) {
  const r = await runCommand(['doctor', '-o', 'json', ...args], o);
  expectNoSecrets(r.stdout, r.stderr);
  if (typeof o.key === 'string' && o.key.includes('.')) expect(r.stdout + r.stderr).not.toContain(o.key.split('.')[1]);
  const checks = JSON.parse(r.stdout) as Check[];
  const by = Object.fromEntries(checks.map((c) => [c.check, c])) as Record<string, Check>;
  return { ...r, checks, by };
}

const failed = (checks: Check[]) => checks.filter((c) => c.verdict === 'fail').map((c) => c.check);

describe('notevox doctor', () => {
  it('passes a good set-up: every check ok (or a warning), exit 0', async () => {
    const r = await doctor([], { sandbox: sb, key: 'admin' });
    expect(r.exitCode, r.stdout).toBe(EXIT.OK);
    expect(failed(r.checks)).toEqual([]);
    expect(r.checks.map((c) => c.check)).toEqual(['node', 'config', 'profile', 'proxy', 'base-url', 'tls', 'key', 'scopes', 'workspace', 'voice', 'rate-limit', 'clock']);
    for (const name of ['base-url', 'key', 'scopes', 'workspace', 'voice', 'tls', 'proxy']) expect(r.by[name].verdict, name).toBe('ok');
    expect(r.by.key.found).toContain('nvk_user_admin (USER)');
    expect(r.by.profile.details).toMatchObject({ baseUrl: { value: SANDBOX_URL, source: 'env' }, key: { id: 'nvk_user_admin', source: 'env' } });
    expect(r.by.voice.found).toContain('Product Team');
  });

  it('fails a wrong key with the fix, and never prints it', async () => {
    const r = await doctor([], { sandbox: sb, key: `${DEMO_KEYS.admin.id}.sk_not_the_secret_at_all` });
    expect(r.exitCode).toBe(EXIT.CHECK_FAILED);
    expect(failed(r.checks)).toEqual(['key']);
    expect(r.by.key.found).toMatch(/refused: 401/);
    expect(r.by.key.fix).toMatch(/auth login/);
    expect(r.by.scopes.verdict).toBe('skip');
  });

  it('fails a key that lacks scopes the commands need, naming them and the commands; --for narrows what is needed', async () => {
    const r = await doctor([], { sandbox: sb, key: 'noteReadOnly' });
    expect(r.exitCode).toBe(EXIT.CHECK_FAILED);
    expect(failed(r.checks)).toEqual(['scopes']);
    expect(r.by.scopes.found).toMatch(/missing .*word_memory:write/);
    expect(r.by.scopes.found).toContain('notevox wm');
    expect(r.by.scopes.fix).toMatch(/^Add .*word_memory:write.* to the key in the dashboard\.$/);
    // An organization key cannot be given scopes later: the fix says so, and names what the key can check instead.
    const orgRead = await doctor([], { sandbox: sb, key: 'orgReadOnly' });
    expect(orgRead.by.scopes.fix ?? '').toMatch(/organization keys have fixed scopes: issue a new one with them\), or, if the key is meant for less, check only what it is for: `notevox doctor --for [a-z,]*wiki/);
    const wm = await doctor(['--for', 'wm'], { sandbox: sb, key: 'noteReadOnly' });
    expect(wm.by.scopes.details).toMatchObject({ missing: ['word_memory:read', 'word_memory:write'] });
    expect(wm.by.voice.verdict).toBe('skip');
  });

  it('fails a key bound to a workspace without voice file jobs, and one without the voice-file permission', async () => {
    const sales = await doctor([], { sandbox: sb, key: 'salesWorkspaceKey' });
    expect(sales.exitCode).toBe(EXIT.CHECK_FAILED);
    expect(failed(sales.checks)).toEqual(['voice']);
    expect(sales.by.voice.found).toMatch(/not enabled in \w+ \(Sales\)/);
    expect(sales.by.voice.fix).toMatch(/enable voice file jobs/);
    // Without voice, the rest of what the key is for passes.
    const rest = await doctor(['--for', 'notes,folders,templates'], { sandbox: sb, key: 'salesWorkspaceKey' });
    expect(rest.exitCode).toBe(EXIT.OK);

    const noPermission = await doctor([], { sandbox: sb, key: 'noVoiceWorkspaceKey' });
    expect(failed(noPermission.checks)).toEqual(['voice']);
    expect(noPermission.by.voice.found).toMatch(/lacks the voice-file permission/);
  });

  it('fails an unreachable base URL at once (no retries), and skips what needs it', async () => {
    const started = Date.now();
    const r = await doctor([], { key: 'admin', env: { NOTEVOX_BASE_URL: 'http://127.0.0.1:9' } });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.exitCode).toBe(EXIT.CHECK_FAILED);
    expect(failed(r.checks)).toEqual(['base-url']);
    expect(r.by['base-url'].found).toMatch(/connection refused/);
    expect(r.by['base-url'].fix).toMatch(/sandbox start/);
    expect(r.by.key.verdict).toBe('skip');
  });

  it('fails a config file other users can read (the run tightens it: the key may have leaked meanwhile)', async () => {
    const dir = scratch();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ currentProfile: 'sb', profiles: { sb: { baseUrl: SANDBOX_URL, apiKey: DEMO_KEYS.admin.token } } }));
    chmodSync(file, 0o644);
    const r = await doctor(['--no-network'], { configDir: dir, env: { NOTEVOX_BASE_URL: undefined } });
    expect(r.exitCode).toBe(EXIT.CHECK_FAILED);
    expect(failed(r.checks)).toEqual(['config']);
    expect(r.by.config.found).toMatch(/was readable by other users \(mode 644\)/);
    expect(r.by.config.fix).toMatch(/revoke it/);
    expect(r.by.profile.details).toMatchObject({ profile: { value: 'sb', source: 'config' }, baseUrl: { source: 'profile' }, key: { id: 'nvk_user_admin', source: 'profile' } });
    for (const name of ['base-url', 'key', 'clock']) expect(r.by[name]).toMatchObject({ verdict: 'skip', found: '--no-network' });
    // Now 600: the next run passes.
    const again = await doctor(['--no-network'], { configDir: dir, env: { NOTEVOX_BASE_URL: undefined } });
    expect(again.by.config.verdict).toBe('ok');
  });

  it('fails a clock that is skewed from the server Date, with the fix', async () => {
    const ahead = { now: () => Date.now() + 3_600_000, sleep: realClock.sleep };
    const r = await doctor([], { key: 'admin', env: { NOTEVOX_BASE_URL: real.baseUrl }, clock: ahead });
    expect(failed(r.checks)).toEqual(['clock']);
    expect(r.exitCode).toBe(EXIT.CHECK_FAILED);
    expect(r.by.clock.found).toMatch(/3600 s ahead of the service's/);
    expect(r.by.clock.fix).toMatch(/timedatectl set-ntp true/);
    const inStep = await doctor([], { key: 'admin', env: { NOTEVOX_BASE_URL: real.baseUrl } });
    expect(inStep.by.clock.verdict).toBe('ok');
    expect(inStep.by['rate-limit'].verdict).toBe('ok');
  });

  it('fails when a captive portal answers in place of the service', async () => {
    const bad = await startBadServer(real.baseUrl, (req) => (req.url?.includes('/auth/me') ? { body: HTML_PAGE } : undefined));
    try {
      const r = await doctor([], { key: 'admin', env: { NOTEVOX_BASE_URL: bad.baseUrl } });
      expect(r.exitCode).toBe(EXIT.CHECK_FAILED);
      expect(failed(r.checks)).toEqual(['key']);
      expect(r.by.key.found).toMatch(/not in the documented shape/);
      expect(r.by.key.fix).toMatch(/proxy or login page/);
    } finally {
      await bad.close();
    }
  });

  it('prints a table with the fixes in full on a terminal, and a line per check when piped', async () => {
    const tty = await runCommand(['doctor', '--for', 'wm'], { sandbox: sb, key: 'noteReadOnly', tty: true, columns: 100 });
    expect(tty.exitCode).toBe(EXIT.CHECK_FAILED);
    expect(tty.stdout).toMatch(/^CHECK +RESULT +FOUND/);
    expect(tty.stdout).toMatch(/^scopes +fail +note:read; missing/m);
    expect(tty.stdout).toMatch(/^To fix:\n(?: {2}.*\n)*? {2}scopes \(fail\): note:read; missing word_memory:read, word_memory:write: notevox wm will be refused \(403 insufficient_scope\)\n {4}Add word_memory:read, word_memory:write to the key in the dashboard\.\n/m);
    expect(tty.stdout).toMatch(/1 check failed/);
    const piped = await runCommand(['doctor', '--no-network'], { key: 'admin', env: { NOTEVOX_BASE_URL: SANDBOX_URL } });
    expect(piped.stdout.split('\n').filter(Boolean).map((l) => l.split('\t').slice(0, 2).join(' '))).toContain('key skip');
    expectNoSecrets(tty.stdout, tty.stderr, piped.stdout, piped.stderr);
  });

  it('fails a certificate the machine does not trust (a TLS-inspecting proxy), naming NODE_EXTRA_CA_CERTS', async (t) => {
    const dir = scratch();
    const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    if (made.status !== 0) return t.skip('needs openssl making a self-signed certificate (apt package openssl)');
    const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await doctor([], { key: 'admin', env: { NOTEVOX_BASE_URL: `https://localhost:${port}` } });
      expect(r.exitCode).toBe(EXIT.CHECK_FAILED);
      expect(failed(r.checks)).toEqual(['base-url', 'tls']);
      expect(r.by.tls.found).toMatch(/SELF_SIGNED/);
      expect(r.by.tls.fix).toContain('NODE_EXTRA_CA_CERTS');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('proxy: loopback never goes through one, NO_PROXY is named, a proxy URL that cannot be used fails (without its password)', async () => {
    const loop = await doctor(['--no-network'], { key: 'admin', env: { NOTEVOX_BASE_URL: SANDBOX_URL, HTTPS_PROXY: 'http://user:hunter2@proxy.corp:3128', HTTP_PROXY: 'http://user:hunter2@proxy.corp:3128' } });
    expect(loop.by.proxy).toMatchObject({ verdict: 'ok', found: expect.stringContaining('loopback addresses never go through a proxy') });
    expect(loop.stdout).not.toContain('hunter2');
    const via = await doctor(['--no-network'], { key: 'admin', env: { NOTEVOX_BASE_URL: 'https://api.notevox.example', HTTPS_PROXY: 'http://user:hunter2@proxy.corp:3128' } });
    expect(via.by.proxy.found).toContain('go through proxy.corp:3128');
    expect(via.stdout).not.toContain('hunter2');
    const bypass = await doctor(['--no-network'], { key: 'admin', env: { NOTEVOX_BASE_URL: 'https://api.notevox.example', HTTPS_PROXY: 'http://proxy.corp:3128', NO_PROXY: '.notevox.example' } });
    expect(bypass.by.proxy.found).toContain('not used for api.notevox.example (NO_PROXY)');
    const broken = await doctor(['--no-network'], { key: 'admin', env: { NOTEVOX_BASE_URL: 'https://api.notevox.example', HTTPS_PROXY: 'ftp://user:hunter2@x' } });
    expect(broken.exitCode).toBe(EXIT.CHECK_FAILED);
    expect(broken.by.proxy).toMatchObject({ verdict: 'fail', fix: expect.stringContaining('HTTPS_PROXY') });
    expect(broken.stdout).not.toContain('hunter2');
  });

  it('refuses an unknown --for group, naming the valid ones', async () => {
    const r = await runCommand(['doctor', '--for', 'nots'], { key: 'admin' });
    expect(r.exitCode).toBe(EXIT.USAGE);
    expect(r.stderr).toMatch(/unknown command group "nots"/);
    expect(r.stderr).toMatch(/notes, .*voice/);
  });
});

describe('doctor checks', () => {
  const at = Date.parse('2026-11-27T12:00:00Z');
  it('node: an older Node than engines fails, an ended line warns, a supported one passes', () => {
    expect(checkNode(at, '20.18.0', '>=22.13', false)).toMatchObject({ verdict: 'fail' });
    expect(checkNode(at, '22.12.0', '>=22.13', false).fix).toMatch(/Node.js 22.13 or newer/);
    expect(checkNode(at, '20.20.2', '>=20.19', false)).toMatchObject({ verdict: 'warn' });
    expect(checkNode(at, '24.11.0', '>=22.13', true)).toMatchObject({ verdict: 'ok', found: expect.stringContaining('the notevox executable, built with Node.js v24.11.0') });
  });
  it('rate-limit: headroom from the headers', () => {
    const h = (remaining: number) => ({ 'x-ratelimit-limit': '600', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(at / 1000 + 30) });
    expect(checkRateLimit(h(500), at)).toMatchObject({ verdict: 'ok', found: '500 of 600 requests left in the window, which resets in 30 s' });
    expect(checkRateLimit(h(20), at).verdict).toBe('warn');
    expect(checkRateLimit(h(0), at)).toMatchObject({ verdict: 'fail', fix: expect.stringContaining('Wait 30 s') });
    expect(checkRateLimit({}, at).verdict).toBe('ok');
  });
  it('clock: within the Date header resolution and the round trip is in step; minutes warn; more fails', () => {
    const answer = (skewMs: number) => ({ response: { status: 200, headers: { date: new Date(at + skewMs).toUTCString() }, data: null, attempts: 1 }, sentAt: at - 100, receivedAt: at + 100 });
    expect(checkClock(answer(0)).verdict).toBe('ok');
    expect(checkClock(answer(-120_000))).toMatchObject({ verdict: 'warn', found: expect.stringMatching(/1[12]\d s ahead of/) });
    expect(checkClock(answer(600_000))).toMatchObject({ verdict: 'fail', found: expect.stringMatching(/60[01] s behind/) });
  });
});
