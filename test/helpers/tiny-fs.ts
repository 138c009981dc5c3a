import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cliEnv, type CliResult } from './cli.js';

/**
 * A tiny file system for tests of full and read-only disks: a tmpfs mounted in a private mount namespace
 * (`unshare --map-root-user --mount`, from util-linux), so no privileges are needed where user namespaces are
 * allowed, and the mount vanishes with the process. A read-only mount stops root too, which chmod does not.
 */

let available: boolean | undefined;

/** Whether this machine lets a test mount a tmpfs in a user namespace; the reason when not. */
export function tinyFsSupport(): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== 'linux') return { ok: false, reason: 'needs Linux mount namespaces' };
  if (available === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-tinyfs-probe-'));
    try {
      execFileSync('unshare', ['--map-root-user', '--mount', 'sh', '-c', `mount -t tmpfs -o size=16k tmpfs '${dir}'`], { stdio: 'ignore' });
      available = true;
    } catch {
      available = false;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return available ? { ok: true } : { ok: false, reason: 'cannot mount a tmpfs with `unshare --map-root-user --mount` here (Debian package util-linux, and user namespaces allowed)' };
}

export interface TinyFsRun extends CliResult {
  /** `ls -A` of the tiny file system after the command, recursively (paths relative to it). */
  files: string[];
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Run the built CLI with a tiny tmpfs mounted at `mount` (an existing empty directory): `full` fills it before the
 * command, `readOnly` remounts it read-only (after `prepare`, shell commands run inside it first, e.g. mkdir).
 */
export async function runWithTinyFs(
  mount: string,
  args: string[],
  o: { sizeKb?: number; full?: boolean; readOnly?: boolean; prepare?: string; input?: string; env?: Parameters<typeof cliEnv>[0] } = {},
): Promise<TinyFsRun> {
  const listing = join(mkdtempSync(join(tmpdir(), 'notevox-tinyfs-')), 'files');
  const m = shellQuote(mount);
  const script = [
    'set -e',
    `mount -t tmpfs -o size=${o.sizeKb ?? 64}k,mode=0777 tmpfs ${m}`,
    o.prepare ? `(cd ${m} && ${o.prepare})` : '',
    // Fill every page (dd stops with ENOSPC, which is the point).
    o.full ? `dd if=/dev/zero of=${m}/filler bs=4096 2>/dev/null || true` : '',
    o.readOnly ? `mount -o remount,ro ${m}` : '',
    'set +e',
    `${shellQuote(process.execPath)} ${shellQuote(BIN)} ${args.map(shellQuote).join(' ')}`,
    'code=$?',
    `(cd ${m} && find . -mindepth 1 ! -name filler | sort) > ${shellQuote(listing)}`,
    'exit $code',
  ]
    .filter(Boolean)
    .join('\n');
  writeFileSync(listing, '');
  // Not spawnSync: the test's sandbox runs in this process and must go on answering.
  const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('unshare', ['--map-root-user', '--mount', 'sh', '-c', script], { env: cliEnv(o.env) as NodeJS.ProcessEnv, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(o.input ?? '');
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
  const files = readFileSync(listing, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^\.\//, ''));
  rmSync(join(listing, '..'), { recursive: true, force: true });
  return { exitCode: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, files };
}
