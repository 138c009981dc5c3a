// Word-memory import: a generated 1,000,000-row CSV through `notevox wm import` into a sandbox without rate limit,
// beside a baseline measured in the same run (a plain sequential loop posting the same 1000-row batches with
// fetch; target: the CLI at least 3× its rows/s, i.e. at most 1/3 of its time), and the CLI's peak RSS during it
// (target under 150 MB). On loopback both are bound by the sandbox (one thread), so the same comparison is also
// made with 50 ms of simulated network latency per request, where sending batches concurrently pays. Then an
// import of about a minute's worth of rows against the default limit of 600 requests/min: 429 responses seen
// (target 0) and the rows/min reached beside the ceiling of 600,000 (target at least 90%, i.e. at most 1.11× the
// time the ceiling allows). Each case runs once: together they take a few minutes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { LIMITS } from '../../src/contract/limits.js';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { BIN, row, type BenchContext, type BenchRow } from './lib.js';

export const title = 'wm import of 1,000,000 rows (rows/s, peak RSS) and at the 600/min rate limit';

const ROWS = 1_000_000;
/** Rows and per-request latency of the simulated-network comparison. */
const LATENCY_ROWS = 200_000;
const LATENCY_MS = 50;
const BATCH = LIMITS.wordMemoryBulkMax;
const RSS_LIMIT_MB = 150;
const SPEEDUP_TARGET = 3;
const RATE = LIMITS.rateLimit;
/** Rows the limit lets through per minute with full batches. */
const CEILING_ROWS_PER_MIN = (RATE.requests * BATCH * 60) / RATE.windowSeconds;
/** A little over one window's budget: the first window's burst, then paced requests in the next. */
const LIMITED_ROWS = Math.round(CEILING_ROWS_PER_MIN * 1.08);
const KEY = DEMO_KEYS.admin.token;

async function writeCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  await write('entry,subEntry\n');
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += `Term-${i.toString(36)}-${i},${i % 3 === 0 ? `alt-${i}` : ''}\n`;
    if (chunk.length > 1 << 16) {
      await write(chunk);
      chunk = '';
    }
  }
  await new Promise<void>((resolve, reject) => out.end(chunk, () => resolve()).once('error', reject));
}

/** `notevox sandbox start --port 0 --json` with the given rate limit (and more flags); resolves with its base URL. */
async function startSandbox(env: NodeJS.ProcessEnv, rateLimit: string, more: string[] = []): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--json', '--rate-limit', rateLimit, ...more], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)));
  });
  return { baseUrl: JSON.parse(line).baseUrl, stop: () => stop(child) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/** The baseline: read the file line by line and POST each 1000-row batch with fetch, one after the other. */
async function fetchLoop(baseUrl: string, file: string): Promise<number> {
  const url = baseUrl + buildPath(endpoint('wm.user.create'));
  const post = async (entries: Array<{ entry: string; subEntry?: string }>) => {
    const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ entries }) });
    if (!res.ok) throw new Error(`baseline POST: ${res.status} ${await res.text()}`);
    await res.json();
  };
  const started = performance.now();
  let batch: Array<{ entry: string; subEntry?: string }> = [];
  let header = true;
  for await (const line of createInterface({ input: createReadStream(file) })) {
    if (header || !line) {
      header = false;
      continue;
    }
    const [entry, subEntry] = line.split(',');
    batch.push(subEntry ? { entry, subEntry } : { entry });
    if (batch.length === BATCH) {
      await post(batch);
      batch = [];
    }
  }
  if (batch.length) await post(batch);
  return performance.now() - started;
}

interface ImportRun {
  ms: number;
  peakRssMb?: number;
  summary: { created: number; alreadyPresent: number; rateLimited: number; seconds: number };
}

/** `notevox wm import FILE --json [args]`: wall time, peak RSS (VmHWM, Linux) and the printed summary. */
function cliImport(file: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<ImportRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'wm', 'import', file, '--json', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak: number | undefined;
    const sample = () => {
      try {
        const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
        if (kb) peak = Math.max(peak ?? 0, kb / 1024);
      } catch {
        // not Linux, or the process is gone
      }
    };
    const sampler = setInterval(sample, 20);
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
      sample();
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-2000)));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`notevox wm import exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
      resolve({ ms, peakRssMb: peak, summary: JSON.parse(stdout) });
    });
  });
}

/** Sleep until just after the next rate-limit window starts (the sandbox's windows are aligned to the epoch). */
async function nextWindow(): Promise<void> {
  const span = RATE.windowSeconds * 1000;
  await new Promise((r) => setTimeout(r, span - (Date.now() % span) + 200));
}

const perSecond = (rows: number, ms: number) => Math.round(rows / (ms / 1000));

/** Baseline then the CLI (default flags, then each of `variants`), each into a fresh sandbox so that all start from the same table size. */
async function compare(ctx: BenchContext, file: string, rows: number, label: string, sandboxFlags: string[] = [], variants: string[][] = []) {
  const fresh = () => startSandbox(ctx.cliEnv(), '0', sandboxFlags);
  let sb = await fresh();
  const baselineMs = await fetchLoop(sb.baseUrl, file).finally(() => sb.stop());
  const target = Math.round(100 / SPEEDUP_TARGET) / 100;
  const out: BenchRow[] = [row(`${label}: fetch loop, sequential (baseline): ${perSecond(rows, baselineMs)} rows/s`, [baselineMs], { baselineMs })];
  let first: ImportRun | undefined;
  for (const args of [[], ...variants]) {
    sb = await fresh();
    const cli = await cliImport(file, ctx.cliEnv({ NOTEVOX_API_KEY: KEY, NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_CACHE_DIR: ctx.tempDir() }), args).finally(() => sb.stop());
    if (cli.summary.created !== rows) throw new Error(`the CLI created ${cli.summary.created} of ${rows} rows`);
    first ??= cli;
    const how = args.length ? args.join(' ') : 'defaults';
    out.push(row(`${label}: notevox wm import (${how}): ${perSecond(rows, cli.ms)} rows/s (target ≥ ${SPEEDUP_TARGET}× baseline)`, [cli.ms], { baselineMs, target }));
    if (!args.length) out.push(row(`${label}: of which sending (after the check pass): ${perSecond(rows, cli.summary.seconds * 1000)} rows/s`, [cli.summary.seconds * 1000], { baselineMs }));
  }
  return { cli: first!, rows: out };
}

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = ctx.tempDir();
  const big = join(dir, 'wm-1m.csv');
  const small = join(dir, 'wm-latency.csv');
  const limited = join(dir, 'wm-limited.csv');
  await writeCsv(big, ROWS);
  await writeCsv(small, LATENCY_ROWS);
  await writeCsv(limited, LIMITED_ROWS);

  const loopback = await compare(ctx, big, ROWS, '1M rows, loopback');
  const rows = loopback.rows;
  if (loopback.cli.peakRssMb !== undefined) rows.push(row(`1M rows: notevox peak RSS (MB, limit ${RSS_LIMIT_MB})`, [loopback.cli.peakRssMb], { baselineMs: RSS_LIMIT_MB, target: 1 }));
  const latency = ['--faults', `latency=1:${LATENCY_MS}-${LATENCY_MS}@/word-memories`];
  rows.push(...(await compare(ctx, small, LATENCY_ROWS, `${LATENCY_ROWS / 1000}k rows, +${LATENCY_MS} ms latency`, latency, [['--concurrency', '2']])).rows);

  // With the default limit: starting at a window boundary, a minute and a bit of rows.
  const sb = await startSandbox(ctx.cliEnv(), `${RATE.requests}/${RATE.windowSeconds}s`);
  try {
    await nextWindow();
    const paced = await cliImport(limited, ctx.cliEnv({ NOTEVOX_API_KEY: KEY, NOTEVOX_BASE_URL: sb.baseUrl, NOTEVOX_CACHE_DIR: dir }));
    const sentMs = paced.summary.seconds * 1000;
    const perMinute = Math.round(LIMITED_ROWS / (sentMs / 60_000));
    const idealMs = (LIMITED_ROWS / CEILING_ROWS_PER_MIN) * 60_000;
    rows.push(row(`429 responses at ${RATE.requests}/min (target 0): ${paced.summary.rateLimited}`, [paced.summary.rateLimited], { baselineMs: 1, target: 0 }));
    rows.push(
      row(`${LIMITED_ROWS} rows at ${RATE.requests}/min: ${perMinute} rows/min = ${Math.round((perMinute / CEILING_ROWS_PER_MIN) * 100)}% of ${CEILING_ROWS_PER_MIN} (target ≥ 90%)`, [sentMs], {
        baselineMs: idealMs,
        target: Math.round((100 / 90) * 100) / 100,
      }),
    );
    // The same from the command's start (process start-up and the check pass included): the stricter figure.
    const wallPerMinute = Math.round(LIMITED_ROWS / (paced.ms / 60_000));
    rows.push(
      row(`  … from process start to exit: ${wallPerMinute} rows/min = ${Math.round((wallPerMinute / CEILING_ROWS_PER_MIN) * 100)}% of the ceiling (target ≥ 90%)`, [paced.ms], {
        baselineMs: idealMs,
        target: Math.round((100 / 90) * 100) / 100,
      }),
    );
  } finally {
    await sb.stop();
  }
  return rows;
}
