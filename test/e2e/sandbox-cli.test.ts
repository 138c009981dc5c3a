import { expectNoSecrets } from '../helpers/expect.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IMAGE_FILE } from '../../src/sandbox/demo-image.js';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';
import { BIN } from '../helpers/cli.js';
import { runCliInProcess as runCli } from '../helpers/run-command.js';

/**
 * `notevox sandbox start` as a user runs it: the built CLI in its own process, stopped by a signal. What ends at once
 * (seed-example, bad flags, a command against the started sandbox) runs in this process.
 */

const token = (k: { id: string; secret: string }) => `${k.id}.${k.secret}`;

interface Started {
  child: ChildProcess;
  /** The first stdout line. */
  first: string;
  stdout: () => string;
  stderr: () => string;
  /** Send a signal and wait for the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

function start(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: join(tmpdir(), 'notevox-test-unused-config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start: ${err}`)), 20_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0 && timer) {
        clearTimeout(timer);
        resolve({
          child,
          first: out.slice(0, nl),
          stdout: () => out,
          stderr: () => err,
          stop: (signal) => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code}: ${err}`));
    });
  });
}

const sqlite = (file: string, sql: string) => execFileSync('sqlite3', [file, sql], { encoding: 'utf8' }).trim();
const hasSqlite3 = (() => {
  try {
    execFileSync('sqlite3', ['-version']);
    return true;
  } catch {
    return false;
  }
})();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-sandbox-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('notevox sandbox start', () => {
  it('honours its flags, has each change on disk when it answers, logs without secrets, and stops cleanly on SIGTERM', async () => {
    const state = join(dir, 'state.db');
    const sb = await start(['--port', '0', '--host', '127.0.0.1', '--json', '--state', state, '--rate-limit', '5/60s', '--now', '2026-05-01T00:00:00Z', '--verbose', '--faults', 'latency=1:1', '--fault-seed', '3']);
    let code: number | null = null;
    try {
      const info = JSON.parse(sb.first);
      expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info.keys.find((k: any) => k.id === DEMO_KEYS.admin.id)).toMatchObject({ type: 'USER', key: token(DEMO_KEYS.admin) });
      expect(info.keys).toHaveLength(Object.keys(DEMO_KEYS).length);
      const get = (path: string, key: string, init: RequestInit = {}) =>
        fetch(info.baseUrl + path, { ...init, headers: { authorization: `Bearer ${key}`, ...(init.headers as Record<string, string>) } });

      // --now before the cutoff: the legacy personal key still works; --rate-limit: the headers say 5
      const legacy = await get('/v1/external/auth/me', token(DEMO_KEYS.legacyPersonal));
      expect(legacy.status).toBe(200);
      expect(legacy.headers.get('x-ratelimit-limit')).toBe('5');

      // a change is in the state file (its WAL) by the time it is answered: another connection sees it
      const renamed = await get(`/v1/external/notes/${DEMO_NOTES.roadmapReview}?updateMask=title`, token(DEMO_KEYS.admin), {
        method: 'PATCH',
        body: JSON.stringify({ title: 'Saved while running' }),
        headers: { 'content-type': 'application/json' },
      });
      expect(renamed.status).toBe(200);
      const reader = new (nodeSqlite().DatabaseSync)(state, { readOnly: true });
      expect(reader.prepare('SELECT title FROM notes WHERE guid = ?').get(DEMO_NOTES.roadmapReview)).toEqual({ title: 'Saved while running' });
      reader.close();
      await get('/v1/external/auth/me', `${DEMO_KEYS.member.id}.${DEMO_KEYS.admin.secret}`);
    } finally {
      code = await sb.stop('SIGTERM');
    }
    expect(code).toBe(0);
    const err = sb.stderr();
    expect(err).toMatch(/sandbox: GET \/v1\/external\/auth\/me 200 \d+ms key=nvk_legacy_personal/);
    expect(err).toMatch(/sandbox: PATCH \/v1\/external\/notes\/\w+ 200 \d+ms key=nvk_user_admin/);
    expect(err).toMatch(/GET \/v1\/external\/auth\/me 401 \d+ms key=-/);
    expect(err).toContain('shutting down');
    expectNoSecrets(err);
    // on shutdown the WAL is checkpointed into the state file and removed: nothing is left beside it
    expect(readdirSync(dir).filter((f) => f.startsWith('state.db'))).toEqual(['state.db']);
    if (hasSqlite3) {
      expect(sqlite(state, 'PRAGMA integrity_check')).toBe('ok');
      expect(sqlite(state, `SELECT title FROM notes WHERE guid = '${DEMO_NOTES.roadmapReview}'`)).toBe('Saved while running');
      // The demo seed came from the database the build wrote beside the chunks (a fresh load salts every key anew).
      const salts = 'SELECT group_concat(secret_salt) FROM (SELECT secret_salt FROM api_keys ORDER BY id)';
      expect(sqlite(state, salts)).toBe(sqlite(join(dirname(BIN), '..', 'dist', 'chunks', DEMO_IMAGE_FILE), salts));
    }
  });

  it('reloads the state file without re-seeding, prints the human summary, and stops on SIGINT', async () => {
    const state = join(dir, 'state.db');
    const sb = await start(['--port', '0', '--state', state]);
    let code: number | null = null;
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(sb.stdout()).toMatch(/^notevox sandbox listening on http:\/\/127\.0\.0\.1:\d+$/m);
      expect(sb.stdout()).toContain(`State loaded from ${state}; no seed applied.`);
      expect(sb.stdout()).toContain(token(DEMO_KEYS.admin)); // the demo keys are recognised
      const base = /listening on (\S+)/.exec(sb.stdout())![1];
      const r = await fetch(`${base}/v1/external/notes/${DEMO_NOTES.roadmapReview}`, { headers: { authorization: `Bearer ${token(DEMO_KEYS.admin)}` } });
      expect(((await r.json()) as { title: string }).title).toBe('Saved while running');
    } finally {
      code = await sb.stop('SIGINT');
    }
    expect(code).toBe(0);
  });

  it('prints the seeded keys in its human summary', async () => {
    const sb = await start(['--port', '0']);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const out = sb.stdout();
      expect(out).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      for (const k of Object.values(DEMO_KEYS)) expect(out).toContain(token(k));
    } finally {
      expect(await sb.stop('SIGTERM')).toBe(0);
    }
  });

  it('its banner shows the rate limit and faults in force, and a Try: line with auth login --base-url (issue 13 item 6)', async () => {
    const sb = await start(['--port', '0', '--rate-limit', '100/10s', '--rate-limit-window', 'sliding', '--faults', '503=0.1', '--fault-seed', '7']);
    try {
      await new Promise((r) => setTimeout(r, 300));
      const out = sb.stdout();
      const base = /listening on (\S+)/.exec(out)![1];
      expect(out).toContain('Rate limit: 100 requests per 10 s per key (sliding window; --rate-limit 0 turns it off). Faults: 503=0.1 (seed 7).');
      expect(out).toContain(`Try: notevox auth login --base-url ${base} --profile sandbox`);
    } finally {
      expect(await sb.stop('SIGTERM')).toBe(0);
    }
    const off = await start(['--port', '0', '--rate-limit', '0']);
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(off.stdout()).toContain('Rate limit: off. Faults: none.');
    } finally {
      expect(await off.stop('SIGTERM')).toBe(0);
    }
  });

  it('loads what seed-example prints through --seed', async () => {
    const ex = await runCli(['sandbox', 'seed-example']);
    expect(ex.exitCode).toBe(0);
    const file = join(dir, 'seed.json');
    writeFileSync(file, ex.stdout);
    const sb = await start(['--port', '0', '--json', '--seed', file]);
    try {
      const ids = JSON.parse(sb.first).keys.map((k: any) => k.id).sort();
      expect(ids).toEqual(Object.values(DEMO_KEYS).map((k) => k.id).sort());
    } finally {
      expect(await sb.stop('SIGTERM')).toBe(0);
    }
  });

  it('refuses bad flags with exit code 2 and a message naming the flag', async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = String((busy.address() as { port: number }).port);
    try {
      for (const [args, message] of [
        [['--port', '70000'], /--port "70000"/],
        [['--port', port], new RegExp(`port ${port} is already in use`)],
        [['--rate-limit', 'fast'], /bad rate limit "fast"/],
        [['--faults', '503=2'], /probability/],
        [['--fault-seed', 'x'], /--fault-seed "x"/],
        [['--now', 'tomorrow'], /--now "tomorrow"/],
        [['--now', '2026-05-01 10:00'], /--now/],
        [['--seed', join(dir, 'missing.json')], /missing\.json/],
        [['--seed', join(dir, 'seed.json'), '--state', join(dir, 'state.db')], /--seed/],
      ] as const) {
        const r = await runCli(['sandbox', 'start', ...args]);
        expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(r.stdout).toBe('');
      }
    } finally {
      busy.close();
    }
  });

  it('--host on every interface warns that the demo keys are public, and prints a base URL the CLI accepts', async () => {
    const sb = await start(['--host', '0.0.0.0', '--port', '0', '--json', '--rate-limit', '0']);
    try {
      const info = JSON.parse(sb.first) as { baseUrl: string; listening: string };
      expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info.listening).toBe(info.baseUrl.replace('127.0.0.1', '0.0.0.0'));
      await new Promise((r) => setTimeout(r, 200));
      expect(sb.stderr()).toMatch(/^warning: the sandbox listens on 0\.0\.0\.0, so other machines can reach it: its demo keys are public values that anyone can use/m);
      expect(sb.stderr()).toContain(`From this machine use --base-url ${info.baseUrl}.`);
      expect(sb.stderr()).toMatch(/ssh -L \d+:127\.0\.0\.1:\d+ <this host>/);
      // The printed base URL works with the CLI as it is (plain http is accepted for loopback only).
      const r = await runCli(['notes', 'get', DEMO_NOTES.sprintRetro, '--json'], { baseUrl: info.baseUrl, key: token(DEMO_KEYS.admin) });
      expect(r.exitCode, r.stderr).toBe(0);
    } finally {
      expect(await sb.stop('SIGTERM')).toBe(0);
    }
    // On loopback, no warning.
    const quiet = await start(['--port', '0', '--json', '--rate-limit', '0']);
    try {
      await new Promise((r) => setTimeout(r, 200));
      expect(quiet.stderr()).not.toMatch(/warning/);
      expect(Object.keys(JSON.parse(quiet.first))).toEqual(['baseUrl', 'keys', 'webhooks']);
    } finally {
      await quiet.stop('SIGTERM');
    }
  });
});
