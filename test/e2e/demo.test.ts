import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

/**
 * `npm run demo` (scripts/demo.mjs), as a new user runs it after `npm ci`: it does not build again when dist/ is
 * fresh (the suite's global setup has just built it, as `npm ci`'s prepare step does), and each step's heading comes
 * before anything the step prints, its progress (stderr) before its result (stdout) as in a terminal.
 */

const ROOT = resolve(dirname(BIN), '..');

describe('npm run demo', () => {
  it('builds only when dist/ is stale and prints every step under its own heading', () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NOTEVOX_')));
    // stdout and stderr into one pipe, in the order they were written.
    const r = spawnSync('sh', ['-c', `"${process.execPath}" scripts/demo.mjs 2>&1`], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    const out = r.stdout;
    expect(r.status, out).toBe(0);
    expect(out).not.toMatch(/^built dist\//m);
    const at = (text: string) => {
      const i = out.indexOf(text);
      expect(i, text).toBeGreaterThanOrEqual(0);
      return i;
    };
    expect(at('$ notevox auth login')).toBeLessThan(at('Logged in to'));
    expect(at('Logged in to')).toBeLessThan(at('$ notevox auth status'));
    const upload = at('$ notevox voice upload');
    expect(upload).toBeLessThan(at('Created voice job'));
    expect(at('Created voice job')).toBeLessThan(at('[sandbox transcript'));
    expect(at('COMPLETED after')).toBeLessThan(at('Demo finished;'));
  }, 150_000);
});
