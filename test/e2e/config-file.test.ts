import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/** The config file: changes are serialised (issue 14 item 4), and a bad setting in it is named as such (item 8). */

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

describe('a bad setting in the config file', () => {
  it.each([
    ['timeout', 'soon', /^error: the timeout setting "soon" in .*config\.json is not a number ≥ 1$/m, /config set timeout 30/],
    ['max_retries', '-1', /^error: the max_retries setting "-1" in .*config\.json is not a number ≥ 0$/m, /config set max_retries 3/],
  ])('%s: the error names the setting and the file, not a flag nobody passed', async (name, value, message, hint) => {
    const cfg = tempConfigDir();
    try {
      mkdirSync(cfg.dir, { recursive: true });
      writeFileSync(join(cfg.dir, 'config.json'), JSON.stringify({ currentProfile: 'default', profiles: {}, settings: { [name]: value } }));
      const r = await runCli(['notes', 'list'], { baseUrl: sb.baseUrl, key: DEMO_KEYS.admin.token, configDir: cfg.dir });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(hint);
      expect(r.stderr).not.toMatch(/--timeout|--max-retries/);
      // The flag still wins over the setting.
      const flag = await runCli(['notes', 'list', '--timeout', '30', '--max-retries', '1'], { baseUrl: sb.baseUrl, key: DEMO_KEYS.admin.token, configDir: cfg.dir });
      expect(flag.exitCode, flag.stderr).toBe(0);
    } finally {
      cfg.cleanup();
    }
  });
});
