import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { maskKey, parseApiKey } from '../../src/config/apikey.js';
import { isLoopbackHost, validateBaseUrl } from '../../src/config/baseurl.js';
import { DEFAULT_BASE_URL } from '../../src/config/defaults.js';
import { resolveCredentials } from '../../src/config/resolve.js';
import { inspect, removeIfStill } from '../../src/config/lock.js';
import { configDir, openConfig, withLock, type ConfigStore } from '../../src/config/store.js';
import { EXIT, UsageError } from '../../src/errors.js';

const KEY_DEFAULT = 'kdef.secret_default_0001';
const KEY_WORK = 'kwork.secret_work_0002';
const KEY_ENV = 'kenv.secret_env_0003';

let root: string;
let dir: string;
let env: NodeJS.ProcessEnv;
let store: ConfigStore;

const mode = (p: string) => statSync(p).mode & 0o777;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'notevox-config-test-'));
  dir = join(root, 'cfg');
  env = { NOTEVOX_CONFIG_DIR: dir };
  store = openConfig(env);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('config store', () => {
  it('a change is made under a lock, which it removes, leaving no temporary file', () => {
    store.setProfile('work', { apiKey: KEY_WORK }, { makeCurrent: true });
    expect(store.currentProfile()).toBe('work');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('waits for a live lock holder, and gives up after the bound with a clear error', () => {
    mkdirSync(dir);
    const lock = join(dir, 'config.json.lock');
    writeFileSync(lock, `${process.ppid}\n`); // a process that is alive: not stale
    const started = Date.now();
    expect(() => withLock(lock, () => 'never', 300)).toThrow(`the config file is being changed by another notevox (pid ${process.ppid}); gave up after waiting 0.3s for it`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(existsSync(lock)).toBe(true);
  });

  it('takes over a lock left by a process that died', () => {
    mkdirSync(dir);
    const dead = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    writeFileSync(join(dir, 'config.json.lock'), `${dead}\n`);
    store.setSetting('output', 'json');
    expect(store.getSetting('output')).toBe('json');
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('takes over an empty lock (a holder killed between creating and writing it) within a second or two', () => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.json.lock'), '');
    const started = Date.now();
    store.setSetting('output', 'json');
    expect(Date.now() - started).toBeLessThan(5000); // the wait for a live holder is 30 s
    expect(store.getSetting('output')).toBe('json');
    expect(readdirSync(dir)).toEqual(['config.json']);
  }, 40_000);

  it('releases the lock only if it is still its own', () => {
    mkdirSync(dir);
    const lock = join(dir, 'config.json.lock');
    withLock(lock, () => {
      expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${process.pid}-[a-z0-9]+\\n$`));
      // Someone took it over meanwhile (a live process): its lock is not ours to remove.
      rmSync(lock);
      writeFileSync(lock, `${process.ppid}-other\n`);
    });
    expect(readFileSync(lock, 'utf8')).toBe(`${process.ppid}-other\n`);
  });

  it('a takeover removes only the lock it judged: not a newer one, and not while another process takes it over', () => {
    mkdirSync(dir);
    const lock = join(dir, 'config.json.lock');
    const dead = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    writeFileSync(lock, `${dead}-old\n`);
    const judged = inspect(lock)!;
    // Meanwhile another waiter removed it and a live process took the lock: the late taker leaves that one alone.
    rmSync(lock);
    writeFileSync(lock, `${process.ppid}-live\n`);
    removeIfStill(lock, judged);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.ppid}-live\n`);
    // A live process is taking over this very file (its marker): it is left to that process.
    rmSync(lock);
    writeFileSync(lock, `${dead}-old\n`);
    const again = inspect(lock)!;
    const marker = `${lock}.takeover-${dead}-old`;
    writeFileSync(marker, `${process.ppid}-taker\n`);
    removeIfStill(lock, again);
    expect(existsSync(lock)).toBe(true);
    // That taker died: its marker goes, and the next attempt removes the judged lock.
    writeFileSync(marker, `${dead}-taker\n`);
    removeIfStill(lock, again);
    expect(existsSync(marker)).toBe(false);
    removeIfStill(lock, again);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('sweeps the files that dead writers left beside the config, and keeps those of live ones', () => {
    mkdirSync(dir);
    const dead = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']));
    const left = [`.config.json.tmp-${dead}-abc123.tmp`, `config.json.lock.new-${dead}-abc123`, `config.json.lock.takeover-42`];
    for (const f of left) writeFileSync(join(dir, f), f.includes('takeover') ? `${dead}-x\n` : '{}');
    const live = `.config.json.tmp-${process.ppid}-abc123.tmp`;
    writeFileSync(join(dir, live), '{}');
    writeFileSync(join(dir, 'config.json.lock'), `${dead}-zz\n`);
    store.setSetting('output', 'json');
    expect(readdirSync(dir).sort()).toEqual([live, 'config.json'].sort());
  });

  it('lives at $NOTEVOX_CONFIG_DIR/config.json, else in the XDG config dir', () => {
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(configDir({ XDG_CONFIG_HOME: '/x/conf', HOME: '/home/u' })).toBe('/x/conf/notevox');
    if (process.platform !== 'win32') expect(configDir({ HOME: '/home/u' })).toBe('/home/u/.config/notevox');
  });

  it('reading an absent config creates nothing', () => {
    expect(store.currentProfile()).toBe('default');
    expect(store.listProfiles()).toEqual([]);
    expect(store.getSetting('output')).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
  });

  it('stores profiles and settings in the documented shape', () => {
    store.setProfile('work', { baseUrl: 'https://work.example', apiKey: KEY_WORK });
    store.setProfile('other', { baseUrl: 'http://127.0.0.1:4010' });
    store.useProfile('work');
    store.setSetting('output', 'json');
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      currentProfile: 'work',
      profiles: { work: { baseUrl: 'https://work.example', apiKey: KEY_WORK }, other: { baseUrl: 'http://127.0.0.1:4010' } },
      settings: { output: 'json' },
    });
    expect(store.listProfiles()).toEqual([
      { name: 'other', baseUrl: 'http://127.0.0.1:4010', hasKey: false, current: false },
      { name: 'work', baseUrl: 'https://work.example', hasKey: true, current: true },
    ]);
  });

  it.skipIf(process.platform === 'win32')('writes the file 0600 in a 0700 directory', () => {
    store.setProfile('default', { apiKey: KEY_DEFAULT });
    expect(mode(store.path)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
  });

  it.skipIf(process.platform === 'win32')('repairs a 0644 file and a 0755 directory on read and on write', () => {
    store.setProfile('default', { apiKey: KEY_DEFAULT });
    chmodSync(store.path, 0o644);
    chmodSync(dir, 0o755);
    expect(openConfig(env).getProfile('default')?.apiKey).toBe(KEY_DEFAULT);
    expect(mode(store.path)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);

    chmodSync(store.path, 0o644);
    store.setSetting('timeout', '60');
    expect(mode(store.path)).toBe(0o600);
  });

  it('setProfile replaces the profile: an undefined key is removed', () => {
    store.setProfile('default', { baseUrl: 'https://a.example', apiKey: KEY_DEFAULT });
    store.setProfile('default', { baseUrl: 'https://a.example', apiKey: undefined });
    expect(store.getProfile('default')).toEqual({ baseUrl: 'https://a.example' });
    expect(readFileSync(store.path, 'utf8')).not.toContain('secret_default');
  });

  it('useProfile refuses an unknown profile; removing the current profile falls back to default', () => {
    expect(() => store.useProfile('nope')).toThrow(UsageError);
    store.setProfile('work', { apiKey: KEY_WORK });
    store.useProfile('work');
    expect(store.removeProfile('work')).toBe(true);
    expect(store.removeProfile('work')).toBe(false);
    expect(store.currentProfile()).toBe('default');
  });

  it('rejects invalid profile names', () => {
    expect(() => store.setProfile('../evil', {})).toThrow(/invalid profile name/);
    expect(() => store.setProfile('__proto__', {})).toThrow(UsageError);
  });

  it('validates settings: unknown keys list the valid ones, values are checked', () => {
    store.setSetting('output', 'csv');
    store.setSetting('max_retries', '0');
    store.setSetting('color', 'never');
    expect(store.listSettings()).toEqual({ output: 'csv', max_retries: '0', color: 'never' });
    store.unsetSetting('output');
    expect(store.getSetting('output')).toBeUndefined();

    const unknown = (() => {
      try {
        store.setSetting('base_url', 'x');
      } catch (e) {
        return e as UsageError;
      }
    })();
    expect(unknown).toBeInstanceOf(UsageError);
    expect(unknown?.exitCode).toBe(EXIT.USAGE);
    expect(unknown?.hint).toContain('output, timeout, max_retries, color');
    expect(() => store.getSetting('nope')).toThrow(UsageError);
    expect(() => store.setSetting('output', 'yaml')).toThrow(/table, json, ndjson, csv, tsv/);
    expect(() => store.setSetting('timeout', '0')).toThrow(UsageError);
    expect(() => store.setSetting('timeout', 'abc')).toThrow(UsageError);
    expect(() => store.setSetting('color', 'sometimes')).toThrow(UsageError);
  });

  it('a config file that is not JSON is a clear error, not silently cleared', () => {
    store.setProfile('default', { apiKey: KEY_DEFAULT });
    writeFileSync(store.path, readFileSync(store.path, 'utf8').slice(0, 10));
    expect(() => openConfig(env).currentProfile()).toThrow(/cannot read the config file/);
  });
});

describe('resolveCredentials precedence: flag > env > profile > default', () => {
  beforeEach(() => {
    store.setProfile('default', { apiKey: KEY_DEFAULT });
    store.setProfile('work', { baseUrl: 'https://work.example', apiKey: KEY_WORK });
    store.setProfile('nokey', {});
  });
  const resolve = (flags: { profile?: string; baseUrl?: string }, e: NodeJS.ProcessEnv) => resolveCredentials({ flags, env: e, store });

  it.each([
    // [flags, env, profile, profileSource, baseUrl, baseUrlSource, apiKey, keySource]
    [{}, {}, 'default', 'default', DEFAULT_BASE_URL, 'default', KEY_DEFAULT, 'profile'],
    [{}, { NOTEVOX_PROFILE: 'work' }, 'work', 'env', 'https://work.example', 'profile', KEY_WORK, 'profile'],
    [{ profile: 'default' }, { NOTEVOX_PROFILE: 'work' }, 'default', 'flag', DEFAULT_BASE_URL, 'default', KEY_DEFAULT, 'profile'],
    [{ profile: 'work' }, { NOTEVOX_BASE_URL: 'https://env.example' }, 'work', 'flag', 'https://env.example', 'env', KEY_WORK, 'profile'],
    [{ profile: 'work', baseUrl: 'https://flag.example' }, { NOTEVOX_BASE_URL: 'https://env.example' }, 'work', 'flag', 'https://flag.example', 'flag', KEY_WORK, 'profile'],
    [{ profile: 'work' }, { NOTEVOX_API_KEY: KEY_ENV }, 'work', 'flag', 'https://work.example', 'profile', KEY_ENV, 'env'],
    [{ profile: 'nokey' }, {}, 'nokey', 'flag', DEFAULT_BASE_URL, 'default', undefined, undefined],
    [{ profile: 'nokey' }, { NOTEVOX_API_KEY: KEY_ENV }, 'nokey', 'flag', DEFAULT_BASE_URL, 'default', KEY_ENV, 'env'],
    [{ profile: '' }, { NOTEVOX_PROFILE: '', NOTEVOX_API_KEY: '  ', NOTEVOX_BASE_URL: '' }, 'default', 'default', DEFAULT_BASE_URL, 'default', KEY_DEFAULT, 'profile'],
  ] as const)('flags %j env %j → profile %s (%s), base URL %s (%s), key %s (%s)', (flags, e, profile, profileSource, baseUrl, baseUrlSource, apiKey, keySource) => {
    const r = resolve(flags, e);
    expect(r.profile).toBe(profile);
    expect(r.profileSource).toBe(profileSource);
    expect(r.baseUrl).toBe(baseUrl);
    expect(r.baseUrlSource).toBe(baseUrlSource);
    expect(r.apiKey).toBe(apiKey);
    expect(r.apiKeySource?.kind).toBe(keySource);
  });

  it('the stored current profile is used when no flag or env chooses one', () => {
    store.useProfile('work');
    const r = resolve({}, {});
    expect([r.profile, r.profileSource, r.apiKey]).toEqual(['work', 'config', KEY_WORK]);
    expect(r.apiKeySource).toEqual({ kind: 'profile', profile: 'work' });
  });

  it('flags envOverridesProfile only when the env key shadows a stored key', () => {
    expect(resolve({ profile: 'work' }, { NOTEVOX_API_KEY: KEY_ENV })).toMatchObject({ envOverridesProfile: true, apiKeySource: { kind: 'env', name: 'NOTEVOX_API_KEY' } });
    expect(resolve({ profile: 'nokey' }, { NOTEVOX_API_KEY: KEY_ENV }).envOverridesProfile).toBe(false);
    expect(resolve({ profile: 'work' }, {}).envOverridesProfile).toBe(false);
  });
});

describe('maskKey', () => {
  it.each([KEY_DEFAULT, KEY_WORK, 'id.abcdefghijklmnopqrstuvwxyz0123456789', 'id.short', ' id.with_newline_secret_0001\n'])('never reveals the secret of %j', (key) => {
    const secret = key.trim().split('.')[1];
    const masked = maskKey(key);
    expect(masked).not.toContain(secret);
    expect(masked.startsWith(key.trim().split('.')[0] + '.****')).toBe(true);
  });

  it('shows the id and the last 4 characters of a long secret', () => {
    expect(maskKey('nvk_user_admin.sk_demo_user_admin_0001')).toBe('nvk_user_admin.****0001');
    expect(maskKey('id.short')).toBe('id.****');
    expect(maskKey('no-dot-at-all')).toBe('****');
  });
});

describe('parseApiKey', () => {
  it('accepts {id}.{secret}, trimming whitespace and the newline', () => {
    expect(parseApiKey('  abc.def123\n')).toEqual({ ok: true, id: 'abc', secret: 'def123' });
  });

  it('explains a key id pasted without its secret', () => {
    const r = parseApiKey('nvk_user_admin\n');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toContain('only the key id');
    expect(r.hint).toContain('{id}.{secret}');
    expect(r.hint).toContain('shown once when the key was created');
    expect(parseApiKey('abc.').ok).toBe(false);
  });

  it.each(['', '   ', 'a.b.c', '.secret', 'ab c.def', 'abc.de\tf'])('rejects %j without echoing it', (raw) => {
    const r = parseApiKey(raw);
    expect(r.ok).toBe(false);
    if (!r.ok && raw.trim()) expect(r.reason + r.hint).not.toContain(raw.trim());
  });
});

describe('validateBaseUrl', () => {
  it('accepts https and strips the trailing slash', () => {
    expect(validateBaseUrl('https://api.notevox.example/')).toBe('https://api.notevox.example');
    expect(validateBaseUrl('https://host.example/prefix/')).toBe('https://host.example/prefix');
  });

  it.each(['http://localhost:4010', 'http://127.0.0.1:4010/', 'http://127.9.8.7', 'http://[::1]:8080', 'http://LOCALHOST'])('allows plain http to loopback %s', (url) => {
    expect(validateBaseUrl(url)).toMatch(/^http:\/\//);
  });

  it.each(['http://api.notevox.example', 'http://10.0.0.5:4010', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io'])('refuses plain http to %s with a hint', (url) => {
    let err: unknown;
    try {
      validateBaseUrl(url);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(/plain http/);
    expect((err as UsageError).hint).toMatch(/https/);
  });

  it.each(['ftp://x.example', 'not a url', 'https://user:pw@host.example', 'https://host.example/?a=1'])('refuses %s', (url) => {
    expect(() => validateBaseUrl(url)).toThrow(UsageError);
  });

  it.each([
    ['http://127.0.0.1:4010/v1/external', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/v1/external/', 'http://127.0.0.1:4010'],
    ['https://api.notevox.example/v1/external', 'https://api.notevox.example'],
    ['https://gw.example/notevox/v1/external', 'https://gw.example/notevox'],
  ])("accepts %s, the API's base path copied from the docs, as %s with a note", (url, fixed) => {
    const notes: string[] = [];
    expect(validateBaseUrl(url, (n) => notes.push(n))).toBe(fixed);
    expect(notes).toEqual([`note: the base URL ${url} ends with the API's base path /v1/external, which notevox adds itself; using ${fixed}`]);
  });

  it('keeps other paths, and paths that only look like the base path, without a note', () => {
    const notes: string[] = [];
    expect(validateBaseUrl('https://gw.example/v1/externals', (n) => notes.push(n))).toBe('https://gw.example/v1/externals');
    expect(validateBaseUrl('https://gw.example/v1', (n) => notes.push(n))).toBe('https://gw.example/v1');
    expect(notes).toEqual([]);
  });

  it("refuses a URL that goes past the API's base path (an endpoint), naming the URL to use", () => {
    expect(() => validateBaseUrl('http://127.0.0.1:4010/v1/external/notes')).toThrow(/is the address of an endpoint, not of the service/);
    try {
      validateBaseUrl('http://127.0.0.1:4010/v1/external/notes');
    } catch (e) {
      expect((e as UsageError).hint).toBe('Use http://127.0.0.1:4010: notevox adds /v1/external/… to each call itself.');
    }
  });

  it('knows loopback hosts', () => {
    expect(['localhost', '127.0.0.1', '[::1]', '::1'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '128.0.0.1', 'example.com'].some(isLoopbackHost)).toBe(false);
  });
});
