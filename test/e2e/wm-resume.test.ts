import { execa } from 'execa';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_USERS, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { BIN, tempConfigDir } from '../helpers/cli.js';
import { runCliInProcess as runCli } from '../helpers/run-command.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/** Resuming `wm import`: after the process is killed, and after batches fail for good. The reruns run in this process. */

const { sales, support } = DEMO_WORKSPACES;
const KEY = DEMO_KEYS.admin.token;
const ROWS = 10_000;

let sb: Awaited<ReturnType<typeof startTestSandbox>>;
let config: ReturnType<typeof tempConfigDir>;
let dir: string;
let cache: string;
let csv: string;
let expected: string[];

beforeAll(async () => {
  // Word-memory writes to Sales are slow, so that a run can be killed midway.
  sb = await startTestSandbox({ faults: `latency=1:60-60@/workspaces/${sales}/word-memories` });
  config = tempConfigDir();
  dir = mkdtempSync(join(tmpdir(), 'notevox-wm-resume-'));
  cache = join(dir, 'cache');
  const rows = Array.from({ length: ROWS }, (_, i) => `Resume${i},${i % 2 ? `r${i}` : ''}`);
  csv = join(dir, 'terms.csv');
  writeFileSync(csv, 'entry,subEntry\n' + rows.join('\n') + '\n');
  expected = rows.map((r) => r.replace(/,$/, ',null')).sort();
});
afterAll(async () => {
  await sb?.close();
  config?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ NOTEVOX_CACHE_DIR: cache, NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_API_KEY: KEY, NOTEVOX_CONFIG_DIR: config.dir });
const importArgs = (ws: string, batchSize = 250) => ['wm', 'import', csv, '--workspace', ws, '--batch-size', String(batchSize), '--concurrency', '1', '--json'];
const stored = (ws: string, db = sb.db) =>
  db
    .all<{ entry: string; sub_entry: string | null }>("SELECT entry, sub_entry FROM word_memories WHERE scope_type = 'workspace' AND scope_id = ? AND entry LIKE 'Resume%'", [ws])
    .map((r) => `${r.entry},${r.sub_entry ?? 'null'}`)
    .sort();
const journalFiles = () => {
  try {
    return readdirSync(join(cache, 'wm-journal')).map((f) => join(cache, 'wm-journal', f));
  } catch {
    return [];
  }
};
/** Confirmed batches in the journals (not in the short-lived `.probe-*` file an import writes to check the directory: it may be gone by the read). */
const confirmedBatches = () => journalFiles().filter((f) => f.endsWith('.jsonl')).reduce((n, f) => n + readFileSync(f, 'utf8').split('\n').filter(Boolean).length - 1, 0);

describe('wm import resumes', () => {
  it('after SIGKILL mid-run: the rerun sends only what was not confirmed, and the scope holds exactly the file', async () => {
    const child = execa(process.execPath, [BIN, ...importArgs(sales)], { env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', ...env() }, extendEnv: false, reject: false });
    const deadline = Date.now() + 20_000;
    while (confirmedBatches() < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    const killed = await child;
    expect(killed.signal).toBe('SIGKILL');
    const confirmed = confirmedBatches();
    expect(confirmed).toBeGreaterThanOrEqual(8);
    expect(confirmed).toBeLessThan(ROWS / 250);
    expect(stored(sales).length).toBeLessThan(ROWS);

    const rerun = await runCli(importArgs(sales), { env: env() });
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/Resuming: \d+ of 40 batches/);
    const summary = JSON.parse(rerun.stdout);
    expect(summary.doneEarlier).toBe(confirmed * 250);
    expect(summary.created + summary.alreadyPresent + summary.doneEarlier).toBe(ROWS);
    expect(summary.alreadyPresent).toBeLessThanOrEqual(250); // at most the batch in flight when it was killed
    expect(stored(sales)).toEqual(expected);
    expect(journalFiles()).toEqual([]);
  });

  it('after batches fail for good: exit 8 keeps the journal, and reruns finish the import', async () => {
    // A sandbox of its own whose writes to Customer Support fail 30% of the time: with one request at a time and
    // a fixed fault seed, the sequence of failures is the same on every test run.
    const flaky = await startTestSandbox({ faults: `503=0.3@/workspaces/${support}/word-memories`, faultSeed: 7 });
    try {
      let failures = 0;
      let resumed = 0;
      for (let runs = 1; ; runs++) {
        const r = await runCli([...importArgs(support, 1000), '--max-retries', '0'], { env: { ...env(), NOTEVOX_BASE_URL: flaky.baseUrl } });
        if (/Resuming/.test(r.stderr)) resumed++;
        if (r.exitCode === 0) break;
        failures++;
        expect(r.exitCode, r.stderr).toBe(8);
        expect(r.stderr).toMatch(/rows were not imported: 503/);
        expect(r.stderr).toMatch(/[Rr]un the same command again/);
        expect(runs).toBeLessThan(20);
      }
      expect(failures).toBeGreaterThan(0);
      expect(resumed).toBeGreaterThan(0);
      expect(stored(support, flaky.db)).toEqual(expected);
      expect(journalFiles()).toEqual([]);
    } finally {
      await flaky.close();
    }
  });

  it('after Ctrl-C: exit 130 with a resume hint; --restart ignores the journal and removes it at the end', async () => {
    // A sandbox whose user-scope writes are slow, so that the run can be interrupted midway.
    const slow = await startTestSandbox({ faults: 'latency=1:60-60@/users/me/word-memories' });
    const userRows = () =>
      slow.db.get<{ n: number }>("SELECT count(*) AS n FROM word_memories WHERE scope_type = 'user' AND scope_id = ? AND entry LIKE 'Resume%'", [String(DEMO_USERS.dana)])!.n;
    const slowEnv = { ...env(), NOTEVOX_BASE_URL: slow.baseUrl };
    const args = ['wm', 'import', csv, '--batch-size', '250', '--concurrency', '1', '--json'];
    try {
      const child = execa(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', NO_COLOR: '1', ...slowEnv }, extendEnv: false, reject: false });
      const deadline = Date.now() + 20_000;
      while (confirmedBatches() < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGINT');
      const stopped = await child;
      expect(stopped.exitCode, String(stopped.stderr)).toBe(130);
      const confirmed = confirmedBatches();
      const said = /(\d+) batches are confirmed\. Run the same command again to resume/.exec(String(stopped.stderr));
      expect(said, String(stopped.stderr)).not.toBeNull();
      // a batch answered in the instant of the interrupt may be recorded just after the message
      expect(confirmed - Number(said![1])).toBeGreaterThanOrEqual(0);
      expect(confirmed - Number(said![1])).toBeLessThanOrEqual(1);
      expect(journalFiles()).toHaveLength(1);
      expect(userRows()).toBeGreaterThanOrEqual(confirmed * 250);
      expect(userRows()).toBeLessThan(ROWS);

      const plan = await runCli([...args, '--dry-run'], { env: slowEnv });
      expect(JSON.parse(plan.stdout)).toMatchObject({ batches: 40, batchesDoneEarlier: confirmed, rowsToSend: ROWS - confirmed * 250 });
      const planRestart = await runCli([...args, '--dry-run', '--restart'], { env: slowEnv });
      expect(JSON.parse(planRestart.stdout)).toMatchObject({ batchesDoneEarlier: 0, rowsToSend: ROWS });
      expect(journalFiles()).toHaveLength(1); // dry runs leave the journal as it is

      const present = userRows();
      const restart = await runCli([...args, '--restart', '--concurrency', '4'], { env: slowEnv });
      expect(restart.exitCode, restart.stderr).toBe(0);
      expect(restart.stderr).not.toMatch(/Resuming/);
      expect(JSON.parse(restart.stdout)).toMatchObject({ doneEarlier: 0, created: ROWS - present, alreadyPresent: present, failed: 0 });
      expect(userRows()).toBe(ROWS);
      expect(journalFiles()).toEqual([]);
    } finally {
      await slow.close();
    }
  });
});
