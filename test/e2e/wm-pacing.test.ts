import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_USERS } from '../../src/sandbox/demo-seed.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/**
 * `wm import` against a rate-limited sandbox with the default concurrency: it paces itself from the X-RateLimit
 * headers and never runs into a 429. 420 requests per 2-second window: read as a per-minute rate at first, that is
 * 7 a second, for which the default is 4 requests in flight (as for 600/min), and a run of 600 requests crosses
 * at least one window boundary within seconds (the window length is learned from the answers).
 */

const ROWS = 3000;
const BATCH = 5;

let sb: Awaited<ReturnType<typeof startTestSandbox>>;
let config: ReturnType<typeof tempConfigDir>;
let dir: string;

beforeAll(async () => {
  sb = await startTestSandbox({ rateLimit: '420/2s' });
  config = tempConfigDir();
  dir = mkdtempSync(join(tmpdir(), 'notevox-wm-pacing-'));
});
afterAll(async () => {
  await sb?.close();
  config?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('wm import pacing', () => {
  it('stays within the announced limit with the default concurrency: no 429 across window boundaries', async () => {
    const csv = join(dir, 'paced.csv');
    writeFileSync(csv, Array.from({ length: ROWS }, (_, i) => `Paced${i}`).join('\n') + '\n');
    const r = await runCli(['wm', 'import', csv, '--batch-size', String(BATCH), '--json'], {
      baseUrl: sb.baseUrl,
      key: DEMO_KEYS.wsAdmin.token,
      configDir: config.dir,
      env: { NOTEVOX_CACHE_DIR: join(dir, 'cache') },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout);
    expect(summary).toMatchObject({ created: ROWS, failed: 0, requests: ROWS / BATCH, retries: 0, rateLimited: 0, concurrency: 4 });
    const limited = sb.db.get<{ n: number }>('SELECT count(*) AS n FROM request_log WHERE status = 429')!.n;
    expect(limited).toBe(0);
    const stored = sb.db.get<{ n: number }>("SELECT count(*) AS n FROM word_memories WHERE scope_type = 'user' AND scope_id = ?", [String(DEMO_USERS.marco)])!.n;
    expect(stored).toBe(ROWS);
  }, 60_000); // about 6 s alone; the point is 0×429, not speed, on a loaded machine
});
