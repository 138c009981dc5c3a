import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { BIN, cliEnv } from '../helpers/cli.js';
import { useSandboxEnv } from '../helpers/sandbox-env.js';
import { runWithTinyFs, tinyFsSupport } from '../helpers/tiny-fs.js';

/**
 * Issue 14 items 6 and 7 (and issue 13 item 1): output that cannot be written ends with one line that names the
 * real error and a documented exit code, leaves no temporary file, and never turns imported rows into "not
 * imported". Full and read-only disks are tiny tmpfs mounts (test/helpers/tiny-fs.ts); where a test cannot make
 * one, those tests are skipped with the reason. --out files when the service fails part-way: test/cmd/out-files.test.ts.
 */

const ADMIN = DEMO_KEYS.admin.token;
const t = useSandboxEnv('output-errors');

/** Run the built CLI with its stdout going to `fd` (e.g. /dev/full). */
function runToFd(args: string[], fd: number, env = cliEnv({ baseUrl: t.sb.baseUrl, key: ADMIN, configDir: t.config.dir })) {
  return new Promise<{ exitCode: number; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', fd, 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ exitCode: code ?? -1, stderr }));
  });
}

describe('standard output that cannot be written', () => {
  it('`wm export > /dev/full`: one line naming ENOSPC, exit 11 (not a stack and minified source)', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = await runToFd(['wm', 'export'], full);
      expect(r.exitCode).toBe(11);
      expect(r.stderr).toBe('error: cannot write to standard output: ENOSPC (no space left on the device)\n');
      const json = await runToFd(['notes', 'list', '--json'], full);
      expect(json.exitCode).toBe(11);
      expect(JSON.parse(json.stderr)).toEqual({
        error: { exitCode: 11, errorType: null, code: null, message: 'cannot write to standard output: ENOSPC (no space left on the device)', hint: null },
      });
    } finally {
      closeSync(full);
    }
  });

  it('a reader that goes away (EPIPE): the command ends quietly with exit 0, as git and gh do', async () => {
    const child = spawn(process.execPath, [BIN, 'sandbox', 'seed-example'], { env: cliEnv() as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // The reader is gone before the first write.
    child.stdout.destroy();
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  describe('`wm list --all | head -1` in a real shell pipe', () => {
    const env = () => cliEnv({ baseUrl: t.sb.baseUrl, key: ADMIN, configDir: t.config.dir }) as NodeJS.ProcessEnv;
    /** `notevox <args> | <reader>` under bash with pipefail: notevox's own exit code is the pipeline's unless the reader fails. */
    const pipe = (args: string, reader: string) =>
      new Promise<{ exitCode: number; stdout: string; stderr: string }>((resolve) => {
        const child = spawn('bash', ['-c', `set -o pipefail; "$0" "$1" ${args} | ${reader}`, process.execPath, BIN], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (c) => resolve({ exitCode: c ?? -1, stdout, stderr }));
      });

    beforeAll(async () => {
      // 8,000 entries: far more than a pipe holds, so notevox is still writing when head has exited.
      const csv = join(t.dir, 'many.csv');
      writeFileSync(csv, 'entry\n' + Array.from({ length: 8000 }, (_, i) => `Pipeline${i}`).join('\n') + '\n');
      const r = await pipe(`wm import ${csv} -o json`, 'cat');
      expect(r.exitCode, r.stderr).toBe(0);
      const all = await pipe('wm list --all', 'wc -c');
      expect(Number(all.stdout.trim())).toBeGreaterThan(200_000);
    });

    it.each([['wm list --all'], ['wm list --all -o json'], ['wm list --all -o ndjson'], ['wm list --all -o csv'], ['wm export'], ['wm export -o ndjson']])('%s | head -1: one line, nothing on stderr, exit 0', async (command) => {
      const r = await pipe(command, 'head -1');
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout.split('\n')).toHaveLength(2);
    });
  });
});

const tiny = tinyFsSupport();
const mountPoint = () => {
  const m = mkdtempSync(join(t.dir, 'mnt-'));
  return m;
};

describe.skipIf(!tiny.ok)(`full and read-only disks${tiny.ok ? '' : ` (skipped: ${tiny.reason})`}`, () => {
  const env = (extra: Record<string, string> = {}) => ({ baseUrl: t.sb.baseUrl, key: ADMIN, configDir: t.config.dir, env: extra });

  it('wm export --out on a full disk: the real error (ENOSPC), exit 11, no *.tmp left', async () => {
    const m = mountPoint();
    // Enough rows that the export does not fit in what is left.
    const r = await runWithTinyFs(m, ['wm', 'export', '--scope', 'org', '--out', join(m, 'terms.csv')], { full: true, env: env() });
    expect(r.exitCode, r.stderr).toBe(11);
    expect(r.stderr).toMatch(new RegExp(`^error: cannot write --out ${m}/terms.csv: ENOSPC \\(no space left on the device\\)$`, 'm'));
    expect(r.stderr).not.toMatch(/EBADF|bug/);
    expect(r.files).toEqual([]);
  });

  it('wm import --rejects on a full disk: the real error, no *.tmp left', async () => {
    const m = mountPoint();
    const csv = join(t.dir, 'with-rejects.csv');
    writeFileSync(csv, 'entry\n' + Array.from({ length: 200 }, (_, i) => `bad entry ${i}`).join('\n') + '\n');
    const r = await runWithTinyFs(m, ['wm', 'import', csv, '--skip-invalid', '--rejects', join(m, 'rejects.csv'), '--dry-run'], { full: true, env: env() });
    expect(r.exitCode, r.stderr).toBe(11);
    expect(r.stderr).toMatch(/^error: cannot write --rejects .*rejects\.csv: ENOSPC/m);
    expect(r.files).toEqual([]);
  });

  it('a read-only config directory: a clear error naming the file and NOTEVOX_CONFIG_DIR, exit 2', async () => {
    const m = mountPoint();
    const login = await runWithTinyFs(m, ['auth', 'login', '--with-key'], { readOnly: true, input: ADMIN, env: { baseUrl: t.sb.baseUrl, configDir: join(m, 'notevox') } });
    expect(login.exitCode, login.stderr).toBe(2);
    expect(login.stderr).toMatch(new RegExp(`^error: cannot write the config file ${m}/notevox/config.json: EROFS \\(read-only file system\\)$`, 'm'));
    expect(login.stderr).toMatch(/^hint: .*NOTEVOX_CONFIG_DIR/m);
    expect(login.stderr).not.toMatch(/ENOENT|bug/);
    const set = await runWithTinyFs(m, ['config', 'set', 'output', 'json'], { readOnly: true, prepare: 'mkdir notevox', env: { configDir: join(m, 'notevox') } });
    expect(set.exitCode, set.stderr).toBe(2);
    expect(set.stderr).toMatch(/EROFS/);
  });

  it('a full config directory: ENOSPC, exit 11, the old file intact and no *.tmp left', async () => {
    const m = mountPoint();
    const prepare = `mkdir notevox && printf '{"currentProfile":"default","profiles":{},"settings":{"output":"table"}}\\n' > notevox/config.json`;
    const r = await runWithTinyFs(m, ['config', 'set', 'output', 'json'], { full: true, prepare, env: { configDir: join(m, 'notevox') } });
    expect(r.exitCode, r.stderr).toBe(11);
    expect(r.stderr).toMatch(/^error: cannot write the config file .*: ENOSPC/m);
    expect(r.files, r.stderr).toEqual(['notevox', 'notevox/config.json']);
  });

  describe('wm import with a cache directory that cannot hold the journal', () => {
    const csv = () => {
      const p = join(t.dir, `journal-${Math.random().toString(36).slice(2)}.csv`);
      writeFileSync(p, 'entry\n' + Array.from({ length: 300 }, (_, i) => `Journal${p.slice(-8, -4)}x${i}`).join('\n') + '\n');
      return p;
    };
    const writes = () => t.sb.db.get<{ n: number }>("SELECT count(*) AS n FROM request_log WHERE method = 'POST' AND path LIKE '%/word-memories%'")!.n;

    it.each([
      ['read-only', { readOnly: true }, /EROFS \(read-only file system\)/],
      ['full', { full: true }, /ENOSPC \(no space left on the device\)/],
    ] as const)('%s: exit 2 before the first request, naming the directory and NOTEVOX_CACHE_DIR', async (_name, mode, why) => {
      const m = mountPoint();
      const before = writes();
      const r = await runWithTinyFs(m, ['wm', 'import', csv()], { ...mode, env: env({ NOTEVOX_CACHE_DIR: join(m, 'cache') }) });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: cannot write the resume journal in ${m}/cache/wm-journal: .*; nothing was sent$`, 'm'));
      expect(r.stderr, r.stderr).toMatch(why);
      expect(r.stderr).toMatch(/^hint: .*NOTEVOX_CACHE_DIR/m);
      expect(writes()).toBe(before);
    });

    it('filling up during the run: a warning, every row counted as imported, exit 0', async () => {
      const m = mountPoint();
      const file = csv();
      const r = await runWithTinyFs(m, ['wm', 'import', file, '--batch-size', '1', '--concurrency', '4', '-o', 'json'], { sizeKb: 4, env: env({ NOTEVOX_CACHE_DIR: m }) });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/^warning: cannot write the resume journal .*: ENOSPC .*cannot resume if it stops now/m);
      expect(r.stderr).not.toMatch(/not imported|bug/);
      expect(JSON.parse(r.stdout)).toMatchObject({ valid: 300, created: 300, failed: 0 });
    });
  });
});
