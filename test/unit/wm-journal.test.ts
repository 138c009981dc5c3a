import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheDir, Journal, journalPath, type JournalKey } from '../../src/commands/wm/journal.js';

const dir = mkdtempSync(join(tmpdir(), 'notevox-wm-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { NOTEVOX_CACHE_DIR: dir };
const key: JournalKey = { sha256: 'a'.repeat(64), scope: 'user', target: 'users/me', baseUrl: 'http://127.0.0.1:4010', keyId: 'nvk_user_admin', batchSize: 1000, columns: '' };

describe('wm resume journal', () => {
  it('lives in the cache dir: NOTEVOX_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(cacheDir({ NOTEVOX_CACHE_DIR: '/x/cache' })).toBe('/x/cache');
    expect(cacheDir({ XDG_CACHE_HOME: '/xdg' })).toBe('/xdg/notevox');
    expect(cacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/notevox');
    expect(cacheDir({})).toBe(join(homedir(), '.cache', 'notevox'));
    expect(journalPath(env, key)).toMatch(new RegExp(`^${dir}/wm-journal/[0-9a-f]{40}\\.jsonl$`));
  });

  it('is keyed by content, scope, target, base URL, key, batch size and columns', () => {
    const paths = new Set(
      [key, { ...key, sha256: 'b'.repeat(64) }, { ...key, scope: 'organization' }, { ...key, target: 'workspaces/x' }, { ...key, baseUrl: 'http://other' }, { ...key, keyId: 'k2' }, { ...key, batchSize: 500 }, { ...key, columns: 'entry' }].map((k) =>
        journalPath(env, k),
      ),
    );
    expect(paths.size).toBe(8);
  });

  it('records confirmed batches, reloads them, ignores a torn last line, and is removed at the end', () => {
    const j = Journal.load(env, key);
    expect(j.confirmed.size).toBe(0);
    expect(existsSync(j.path)).toBe(false); // nothing is written before the first confirmation
    j.record({ batch: 0, created: 1000, present: 0 });
    j.record({ batch: 2, created: 990, present: 10 });
    j.close();
    appendFileSync(j.path, '{"batch":3,"crea'); // killed mid-write
    const again = Journal.load(env, key);
    expect([...again.confirmed.keys()]).toEqual([0, 2]);
    expect(again.confirmed.get(2)).toEqual({ batch: 2, created: 990, present: 10 });
    again.record({ batch: 1, created: 5, present: 995 });
    again.close();
    expect(readFileSync(again.path, 'utf8').split('\n').filter(Boolean).at(-1)).toBe('{"batch":1,"created":5,"present":995}');
    expect([...Journal.load(env, key).confirmed.keys()].sort()).toEqual([0, 1, 2]);
    again.remove();
    expect(existsSync(again.path)).toBe(false);
  });

  it('starts over with --restart (reset)', () => {
    const j = Journal.load(env, key);
    j.record({ batch: 4, created: 1, present: 0 });
    j.reset();
    expect(j.confirmed.size).toBe(0);
    expect(existsSync(j.path)).toBe(false);
    j.record({ batch: 0, created: 1, present: 0 });
    j.close();
    expect([...Journal.load(env, key).confirmed.keys()]).toEqual([0]);
    j.remove();
  });

  it('checks before the first request that it can be written, leaving no file; says which directory when not', () => {
    const j = Journal.load(env, key);
    j.check();
    expect(existsSync(join(dir, 'wm-journal'))).toBe(true);
    expect(readdirSync(join(dir, 'wm-journal'))).toEqual([]);
    writeFileSync(join(dir, 'blocked'), 'a file where the cache directory should be');
    const blocked = Journal.load({ NOTEVOX_CACHE_DIR: join(dir, 'blocked') }, key);
    expect(() => blocked.check()).toThrow(new RegExp(`^cannot write the resume journal in ${dir}/blocked/wm-journal: ENOTDIR .*; nothing was sent$`));
    try {
      blocked.check();
    } catch (e) {
      expect(e).toMatchObject({ exitCode: 2, hint: expect.stringContaining('NOTEVOX_CACHE_DIR') });
    }
  });

  it('a write that fails later keeps the batch confirmed, returns the error once and stops recording', () => {
    const j = Journal.load(env, { ...key, batchSize: 7 });
    mkdirSync(j.path, { recursive: true }); // a directory where the file should be: every open fails
    const err = j.record({ batch: 0, created: 7, present: 0 });
    expect(err).toMatchObject({ code: 'EISDIR' });
    expect(j.record({ batch: 1, created: 7, present: 0 })).toBeUndefined();
    expect([...j.confirmed.keys()]).toEqual([0, 1]);
    expect(j.broken).toBe(err);
    rmSync(j.path, { recursive: true });
  });
});
