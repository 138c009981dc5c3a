import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/server.js';
import { tempConfigDir } from './cli.js';
import { startTestSandbox } from './sandbox.js';

export interface SandboxEnv {
  /** A real sandbox on a loopback port (for a server in front of it, or the built CLI). */
  sb: Awaited<ReturnType<typeof startTestSandbox>>;
  /** A scratch directory for the file's inputs and outputs. */
  dir: string;
  /** A config dir of the file's own. */
  config: ReturnType<typeof tempConfigDir>;
}

/**
 * What a test file talking to a real sandbox sets up: the sandbox, a scratch directory and a config dir, made
 * before its tests and removed after them. Read the fields inside tests (they are set in beforeAll).
 */
export function useSandboxEnv(name: string, opts: SandboxOptions = {}): SandboxEnv {
  const env = {} as SandboxEnv;
  beforeAll(async () => {
    env.sb = await startTestSandbox(opts);
    env.dir = mkdtempSync(join(tmpdir(), `notevox-${name}-`));
    env.config = tempConfigDir();
  });
  afterAll(async () => {
    await env.sb?.close();
    if (env.dir) rmSync(env.dir, { recursive: true, force: true });
    env.config?.cleanup();
  });
  return env;
}
