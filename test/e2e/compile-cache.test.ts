import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * The launcher turns on Node's compile cache (Node >= 22.1: module.enableCompileCache) in notevox's cache directory
 * for the commands that load the bundle, and not for --version and help, which gain nothing from it. On an older
 * Node the launcher skips it, and nothing is written.
 */
const hasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe(`Node's compile cache (node ${process.versions.node}: ${hasCompileCache ? 'has' : 'has no'} module.enableCompileCache)`, () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'notevox-compile-cache-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const cache = () => join(dir, 'cache', 'compile-cache');
  const run = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(args, { configDir: join(dir, 'config'), env: { NOTEVOX_CACHE_DIR: join(dir, 'cache'), ...env } });

  it(`a command that loads the bundle ${hasCompileCache ? 'fills' : 'leaves no'} compile-cache/ in NOTEVOX_CACHE_DIR`, async () => {
    const r = await run(['config', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(cache())).toBe(hasCompileCache);
    if (hasCompileCache) expect(readdirSync(cache()).length).toBeGreaterThan(0);
    // the second run reads what the first wrote, with the same result
    const again = await run(['config', 'list']);
    expect(again).toEqual(r);
  });

  it('--version and --help write nothing there', async () => {
    for (const args of [['--version'], ['--help'], ['notes', 'list', '--help']]) expect((await run(args)).exitCode).toBe(0);
    expect(existsSync(join(dir, 'cache'))).toBe(false);
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', async () => {
    expect((await run(['config', 'list'], { NODE_DISABLE_COMPILE_CACHE: '1' })).exitCode).toBe(0);
    expect(existsSync(cache())).toBe(false);
  });
});
