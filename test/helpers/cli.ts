import { execa } from 'execa';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/notevox.js', import.meta.url));

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A throw-away config dir; remove it with `cleanup()`. */
export function tempConfigDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'notevox-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Run the built CLI (dist/, via bin/notevox.js) as a user would: non-interactive (CI=1, no TTY), no colour,
 * its own config dir, and the given key and base URL in the environment unless `env` overrides them.
 */
/** The environment runCli gives the CLI. */
export function cliEnv(opts: { baseUrl?: string; key?: string; configDir?: string; env?: Record<string, string | undefined> } = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CI: '1',
    NO_COLOR: '1',
    NOTEVOX_CONFIG_DIR: opts.configDir ?? join(tmpdir(), 'notevox-test-unused-config'),
    NOTEVOX_BASE_URL: opts.baseUrl,
    NOTEVOX_API_KEY: opts.key,
    ...opts.env,
  };
}

/** Start the built CLI without waiting for it (to signal it, or read its output as it comes). */
export function spawnCli(args: string[], opts: Parameters<typeof cliEnv>[0] = {}) {
  return execa(process.execPath, [BIN, ...args], { env: cliEnv(opts) as Record<string, string>, extendEnv: false, reject: false, timeout: 60_000 });
}

export async function runCli(
  args: string[],
  opts: { baseUrl?: string; key?: string; configDir?: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<CliResult> {
  const env = cliEnv(opts);
  const r = await execa(process.execPath, [BIN, ...args], {
    env: env as Record<string, string>,
    extendEnv: false,
    input: opts.input,
    reject: false,
    timeout: opts.timeoutMs ?? 60_000,
    cwd: opts.cwd,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}
