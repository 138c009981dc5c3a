import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cliEnv } from '../helpers/cli.js';

/**
 * The runtime: notevox needs Node.js ≥ 22.13 (node:sqlite without a flag). The launcher refuses an older Node in one
 * line that names the version found and the fix; node:sqlite's ExperimentalWarning is never printed, any other warning is.
 */

const older = (v: string) => {
  const [major, minor] = v.replace(/^v/, '').split('.').map(Number);
  return major < 22 || (major === 22 && minor < 13);
};

/** A node binary older than 22.13 on this machine (the machine's own, before the project's devDependency), if any. */
function olderNode(): { path: string; version: string } | undefined {
  const candidates = [...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'node')), '/usr/local/bin/node', '/usr/bin/node'];
  for (const path of new Set(candidates.filter((p) => existsSync(p)).map((p) => realpathSync(p)))) {
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
      if (older(version)) return { path, version };
    } catch {
      // not runnable
    }
  }
  return undefined;
}

const old = olderNode();
if (!old) console.warn('node-version.test.ts: no Node.js older than 22.13 on PATH, /usr/local/bin or /usr/bin: the refusal test is skipped');

describe('the launcher on an older Node', () => {
  it.skipIf(!old)('refuses with one line naming the version found and the fix, exit 1, before loading anything', () => {
    const r = spawnSync(old!.path, [BIN, 'notes', 'list'], { encoding: 'utf8', env: cliEnv() });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `notevox: this is Node.js ${old!.version}; notevox needs Node.js 22.13 or newer: install a current Node.js LTS (https://nodejs.org) and run notevox with it\n`,
    );
    // The version answer still works there (for a bug report), and says the Node is not supported.
    const v = spawnSync(old!.path, [BIN, '--version', '--verbose'], { encoding: 'utf8', env: cliEnv() });
    expect(v.status).toBe(0);
    expect(v.stdout).toContain(`node ${old!.version} `);
    expect(v.stdout).toContain('(not supported)');
    expect(v.stdout).toContain('supported Node.js 22 (22.13 or newer), 24 and newer');
  });

  it('runs on this Node (the one the tests run on), which is supported', () => {
    expect(older(process.version)).toBe(false);
    const v = spawnSync(process.execPath, [BIN, '--version', '--verbose'], { encoding: 'utf8', env: cliEnv() });
    expect(v.stdout).toMatch(/^node v\d+\.\d+\.\d+ \(v8 [^)]+\)$/m);
    expect(v.stdout).not.toContain('not supported');
  });
});

describe("node:sqlite's ExperimentalWarning", () => {
  const sqliteModule = new URL('../../src/sandbox/sqlite.ts', import.meta.url).href;

  it('is printed by this Node when node:sqlite loads unfiltered (so the filter has something to do)', () => {
    const r = spawnSync(process.execPath, ['-e', "require('node:sqlite')"], { encoding: 'utf8' });
    // Node lines that no longer warn make the filter a no-op; the other tests still hold.
    if (!r.stderr.includes('ExperimentalWarning')) return;
    expect(r.stderr).toMatch(/ExperimentalWarning: SQLite is an experimental feature/);
  });

  it('is filtered, and only it: another ExperimentalWarning still prints', () => {
    const script = `
      const { nodeSqlite } = await import(${JSON.stringify(sqliteModule)});
      const { DatabaseSync } = nodeSqlite();
      new DatabaseSync(':memory:').exec('SELECT 1');
      process.emitWarning('Some other feature is experimental', 'ExperimentalWarning');
      process.emitWarning('a plain warning');
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).not.toContain('SQLite is an experimental feature');
    expect(r.stderr).toContain('ExperimentalWarning: Some other feature is experimental');
    expect(r.stderr).toContain('Warning: a plain warning');
  });

  it('is not printed by `sandbox start` (the built CLI)', async () => {
    const r = spawnSync(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', '--rate-limit', '0'], {
      encoding: 'utf8',
      env: cliEnv(),
      timeout: 3000,
      killSignal: 'SIGTERM',
    });
    expect(r.stdout).toContain('"baseUrl"');
    expect(r.stderr).not.toContain('ExperimentalWarning');
    expect(r.stderr).not.toContain('experimental');
  });
});
