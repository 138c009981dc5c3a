import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { K } from '../helpers/expect.js';
import { tempConfigDir } from '../helpers/cli.js';
import { commandSandbox, runCommand } from '../helpers/run-command.js';

/**
 * Issue 29 item 5: a short sliding window. The sandbox announces its policy (`RateLimit-Policy: 20;w=10`) and the
 * import paces by that window, not by the 60 s it assumes when none is announced (177 s for these 60 rows before).
 * The sandbox counts in real time, so this test takes the half minute the limit asks for (a discrete-event
 * version of the same case is in test/unit/wm-pacer.test.ts).
 */

let sb: Awaited<ReturnType<typeof commandSandbox>>;
let config: ReturnType<typeof tempConfigDir>;
let dir: string;

beforeAll(async () => {
  sb = await commandSandbox({ rateLimit: '20/10s', rateLimitWindow: 'sliding' });
  config = tempConfigDir();
  dir = mkdtempSync(join(tmpdir(), 'notevox-wm-policy-'));
});
afterAll(async () => {
  await sb?.close();
  config?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('wm import under a short sliding window the sandbox announces', () => {
  it('60 rows one per request finish within 45 s with no 429', async () => {
    const csv = join(dir, 'sixty.csv');
    writeFileSync(csv, Array.from({ length: 60 }, (_, i) => `Policy${i}`).join('\n') + '\n');
    const r = await runCommand(['wm', 'import', csv, '--batch-size', '1', '--json'], { sandbox: sb, key: K.admin, configDir: config.dir, env: { NOTEVOX_CACHE_DIR: join(dir, 'cache') } });
    expect(r.exitCode, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ created: 60, failed: 0, requests: 60, rateLimited: 0 });
    expect(summary.seconds).toBeLessThan(45);
    const limited = sb.db.get<{ n: number }>('SELECT count(*) AS n FROM request_log WHERE status = 429')!.n;
    expect(limited).toBe(0);
    const policy = sb.db.get<{ n: number }>("SELECT count(*) AS n FROM word_memories WHERE entry LIKE 'Policy%'")!.n;
    expect(policy).toBe(60);
  }, 90_000);
});
