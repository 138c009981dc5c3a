import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/** Issue 14 item 4: changes of the config file are serialised (a lock, then read–change–write–rename). */

let sb: Awaited<ReturnType<typeof startTestSandbox>>;
let config: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  sb = await startTestSandbox();
  config = tempConfigDir();
});
afterAll(async () => {
  await sb?.close();
  config?.cleanup();
});

describe('concurrent changes of the config file', () => {
  it('100 `auth login` at once: every one exits 0 and all 100 profiles are kept', async () => {
    const runs = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        runCli(['auth', 'login', '--with-key', '--profile', `p${i}`, '--base-url', sb.baseUrl, '--timeout', '300'], {
          configDir: config.dir,
          input: DEMO_KEYS.admin.token,
          timeoutMs: 880_000,
        }),
      ),
    );
    const failed = runs.filter((r) => r.exitCode !== 0);
    expect(failed.map((r) => r.stderr)).toEqual([]);
    const stored = JSON.parse(readFileSync(join(config.dir, 'config.json'), 'utf8'));
    expect(Object.keys(stored.profiles).sort()).toEqual(Array.from({ length: 100 }, (_, i) => `p${i}`).sort());
    for (const p of Object.values(stored.profiles)) expect(p).toEqual({ baseUrl: sb.baseUrl, apiKey: DEMO_KEYS.admin.token });
    expect(stored.currentProfile).toMatch(/^p\d+$/);
  }, 900_000);
});
