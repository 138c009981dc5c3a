import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSeed } from '../../src/sandbox/demo-seed.js';
import { nodeSqlite } from '../../src/sandbox/sqlite.js';
import { BIN } from '../helpers/cli.js';

/**
 * The built CLI on a seed big enough to be split at its word memories (seed/word-memories.ts): they are built in a
 * worker thread, which runs only from the bundle (the in-process tests build them in their own thread).
 */

const ITEMS = 30_000; // about 1.5 M characters of word memories: past the size from which a seed is split

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-e2e-seed-split-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const seedWith = (last: object) => ({
  ...demoSeed,
  wordMemories: [...Array.from({ length: ITEMS - 1 }, (_, j) => ({ scope: 'user', scopeId: demoSeed.users![j % 2].id, entry: `entry-${j}` })), last],
});

/** `sandbox start --seed FILE --json --verbose` until its first line (then SIGTERM) or its exit. */
function start(seed: object, cache: string): Promise<{ code: number | null; first: string; stderr: string }> {
  const file = join(dir, 'seed.json');
  writeFileSync(file, JSON.stringify(seed));
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', '--verbose', '--rate-limit', '0', '--seed', file], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', NOTEVOX_CONFIG_DIR: join(dir, 'config'), NOTEVOX_CACHE_DIR: cache, NOTEVOX_DEBUG: 'seed' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  child.stdout.on('data', (d) => {
    out += d;
    if (out.includes('\n')) child.kill('SIGTERM');
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, first: out.split('\n')[0], stderr: err })));
}

describe('sandbox start on a big seed', () => {
  it('builds its word memories in a worker thread into the cached database', async () => {
    const cache = join(dir, 'cache-ok');
    const r = await start(seedWith({ scope: 'workspace', scopeId: demoSeed.workspaces![0].guid, entry: 'last' }), cache);
    expect(r.first).toContain('"baseUrl"');
    expect(r.stderr).not.toContain('loading it whole');
    // the tail of the array built by the start's thread, copied in by the worker (NOTEVOX_DEBUG=seed's steps)
    expect(r.stderr).toMatch(/start .* built the tail of the word memories/);
    expect(r.stderr).toMatch(/start .* \(their tail copied in by the worker\)/);
    expect(r.stderr).not.toMatch(/ExperimentalWarning|SQLite is an experimental/); // node:sqlite's warning is filtered in the worker too (Node 22)
    const seeds = join(cache, 'sandbox-seeds');
    const image = readdirSync(seeds).find((f) => f.endsWith('.sqlite'))!;
    expect(readdirSync(seeds).filter((f) => f.includes('.tmp'))).toEqual([]);
    const db = new (nodeSqlite().DatabaseSync)(join(seeds, image), { readOnly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n, max(id) AS top FROM word_memories').get()).toEqual({ n: ITEMS, top: ITEMS });
      expect(db.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    } finally {
      db.close();
    }
  });

  it('names a problem of its word memories as loading it whole does, and caches nothing', async () => {
    const cache = join(dir, 'cache-bad');
    const r = await start(seedWith({ scope: 'user', scopeId: 999, entry: 'last' }), cache);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('loading it whole');
    expect(r.stderr).toContain(`wordMemories[${ITEMS - 1}].scopeId: unknown user 999`);
    expect(readdirSync(join(cache, 'sandbox-seeds')).filter((f) => f.endsWith('.sqlite') || f.includes('.tmp'))).toEqual([]);
  });
});
