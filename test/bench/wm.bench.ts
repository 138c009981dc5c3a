// Word-memory import: a generated 1,000,000-row CSV through `notevox wm import` and through the naive client
// (fixtures/wm-loop.mjs: read line by line, POST each 1000-row batch with fetch, one after the other), in
// alternating pairs, each into a fresh sandbox without rate limit; both timed from spawn to exit, compared in
// rows/s, with the CLI's peak RSS. On loopback both are bound by the sandbox (one thread answering one batch
// at a time), so the same comparison also runs with 50 ms of injected latency per request, where a client's
// concurrency pays as it would over a real network. Last, one import of a minute's worth of rows at the default
// 600 requests/min: 429 answers seen and the rows/min reached beside the ceiling (not run with --quick).
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { LIMITS } from '../../src/contract/limits.js';
import { childrenCpuMs, cpuMs, FIXTURES, mainThreadCpuMs, runNode, shortCount, tail, type BenchContext, type Sandbox } from './lib.js';
import { series } from './results.js';
import { alternate, median, pairRatios } from './stats.js';

export const title = 'wm import of 1M rows against a sequential loop, memory, and at the 600/min rate limit';

const BATCH = LIMITS.wordMemoryBulkMax;
const LATENCY_MS = 50;
const RATE = LIMITS.rateLimit;
/** Rows the limit lets through per minute with full batches. */
const CEILING_ROWS_PER_MIN = (RATE.requests * BATCH * 60) / RATE.windowSeconds;
const KEY_ID = 'nvk_user_admin';
const round2 = (x: number) => Math.round(x * 100) / 100;

/** The CSV of `rows` rows, cached (deterministic content). */
async function csv(ctx: BenchContext, rows: number): Promise<string> {
  const dir = join(ctx.cacheDir, 'wm');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `wm-${rows}-v1.csv`);
  if (existsSync(file)) return file;
  const tmp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(tmp);
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
  renameSync(tmp, file);
  return file;
}

interface Summary {
  created: number;
  rateLimited: number;
  seconds: number;
}

/** CPU ms of the child process `run` waits for (undefined off Linux). */
async function withChildCpu<T>(run: () => Promise<T>): Promise<[T, number | undefined]> {
  const before = childrenCpuMs();
  const out = await run();
  const after = childrenCpuMs();
  return [out, before === undefined || after === undefined ? undefined : after - before];
}

/** `notevox wm import FILE --json` into `sb`: wall seconds, the printed summary, peak RSS, CPU ms. */
async function cliImport(ctx: BenchContext, sb: Sandbox, file: string): Promise<{ seconds: number; summary: Summary; peakRssMb?: number; cpuMs?: number }> {
  const [r, cpu] = await withChildCpu(() => runNode(ctx.node, [ctx.bin, 'wm', 'import', file, '--json'], { env: ctx.cliEnv({ NOTEVOX_API_KEY: sb.key(KEY_ID), NOTEVOX_BASE_URL: sb.baseUrl }), rss: true }));
  if (r.code !== 0) throw new Error(`notevox wm import exited with ${r.code}: ${tail(r.stderr)}`);
  return { seconds: r.ms / 1000, summary: JSON.parse(r.stdout) as Summary, peakRssMb: r.peakRssMb, cpuMs: cpu };
}

/** The naive loop into `sb`: wall seconds, CPU ms. */
async function loopImport(ctx: BenchContext, sb: Sandbox, file: string, rows: number): Promise<{ seconds: number; cpuMs?: number }> {
  const url = sb.baseUrl + buildPath(endpoint('wm.user.create'));
  const [r, cpu] = await withChildCpu(() => runNode(ctx.node, [join(FIXTURES, 'wm-loop.mjs'), url, String(BATCH), file], { env: ctx.cliEnv({ NOTEVOX_API_KEY: sb.key(KEY_ID) }) }));
  if (r.code !== 0) throw new Error(`the sequential loop failed: ${tail(r.stderr)}`);
  if (Number(r.stdout.trim()) !== rows) throw new Error(`the sequential loop sent ${r.stdout.trim()} of ${rows} rows`);
  return { seconds: r.ms / 1000, cpuMs: cpu };
}

/** CLI vs loop in alternating pairs, each run into a fresh sandbox (same table size at the start). */
async function compare(ctx: BenchContext, id: string, label: string, rows: number, sandboxArgs: string[], target: string) {
  return ctx.runCase(id, `${label}: notevox wm import vs a sequential fetch loop (rows/s)`, [target, ...(id === 'loopback' ? ['wm.rss'] : [])], async () => {
    const file = await csv(ctx, rows);
    const rss: number[] = [];
    const sendRates: number[] = [];
    // Breakdown: the sandbox's CPU per 1000-row batch under each client (/proc/PID/stat around the run), and the
    // clients' wall time per batch beside it (a sequential loop's wall is about its own CPU plus the sandbox's).
    const sandboxCpu = { cli: [] as number[], loop: [] as number[] };
    // Its main thread's alone under the CLI: the one that answers requests (V8's GC threads run beside it).
    const sandboxMainCpu: number[] = [];
    // The clients' own CPU per batch, and the CLI's time before its first request (start-up and the check pass).
    const clientCpu = { cli: [] as number[], loop: [] as number[] };
    const beforeSend: number[] = [];
    const fresh = async <T>(fn: (sb: Sandbox) => Promise<T>, cpu: number[], mainCpu?: number[]): Promise<T> => {
      const sb = await ctx.sandbox(sandboxArgs);
      try {
        const before = [cpuMs(sb.pid), mainThreadCpuMs(sb.pid)];
        const out = await fn(sb);
        const after = [cpuMs(sb.pid), mainThreadCpuMs(sb.pid)];
        const perBatch = (i: number) => (before[i] !== undefined && after[i] !== undefined ? ((after[i] - before[i]) * BATCH) / rows : undefined);
        const [all, main] = [perBatch(0), perBatch(1)];
        if (all !== undefined) cpu.push(all);
        if (mainCpu && main !== undefined) mainCpu.push(main);
        return out;
      } finally {
        await sb.stop();
      }
    };
    const s = await alternate(
      { pairs: ctx.pairs, warmups: ctx.warmups },
      (i) =>
        fresh(async (sb) => {
          const r = await cliImport(ctx, sb, file);
          if (r.summary.created !== rows) throw new Error(`the CLI created ${r.summary.created} of ${rows} rows`);
          if (i >= 0) {
            if (r.peakRssMb !== undefined) rss.push(r.peakRssMb);
            if (r.summary.seconds > 0) sendRates.push(rows / r.summary.seconds);
            if (r.cpuMs !== undefined) clientCpu.cli.push((r.cpuMs * BATCH) / rows);
            beforeSend.push(r.seconds - r.summary.seconds);
          }
          return rows / r.seconds;
        }, sandboxCpu.cli, sandboxMainCpu),
      (i) =>
        fresh(async (sb) => {
          const r = await loopImport(ctx, sb, file, rows);
          if (i >= 0 && r.cpuMs !== undefined) clientCpu.loop.push((r.cpuMs * BATCH) / rows);
          return rows / r.seconds;
        }, sandboxCpu.loop),
    );
    ctx.report(target, { value: median(pairRatios(s.a, s.b)) });
    if (id === 'loopback') ctx.report('wm.rss', rss.length ? { value: Math.max(...rss), detail: `max of ${rss.length} imports` } : { value: null, detail: 'no RSS (not Linux?)' });
    return {
      a: series('notevox wm import', 'rows/s', s.a.map(Math.round)),
      b: series('sequential loop', 'rows/s', s.b.map(Math.round)),
      peakRssMb: rss.length ? { 'notevox (max)': Math.max(...rss) } : {},
      info: {
        ...(sendRates.length ? { 'CLI sending only (after its check pass), rows/s': Math.round(median(sendRates)) } : {}),
        ...(sandboxCpu.cli.length ? { 'sandbox CPU per batch under the CLI, ms (median)': round2(median(sandboxCpu.cli)) } : {}),
        ...(sandboxMainCpu.length ? { 'of it its main thread, ms (median)': round2(median(sandboxMainCpu)) } : {}),
        ...(sandboxCpu.loop.length ? { 'sandbox CPU per batch under the loop, ms (median)': round2(median(sandboxCpu.loop)) } : {}),
        'wall per batch, CLI / loop, ms (median)': `${round2((BATCH * 1000) / median(s.a))} / ${round2((BATCH * 1000) / median(s.b))}`,
        ...(clientCpu.cli.length && clientCpu.loop.length ? { "clients' own CPU per batch, CLI / loop, ms (median)": `${round2(median(clientCpu.cli))} / ${round2(median(clientCpu.loop))}` } : {}),
        ...(beforeSend.length ? { 'CLI before its first request (start-up, check pass), s (median)': round2(median(beforeSend)) } : {}),
        ...(id === 'loopback' ? ratioBound(sandboxCpu.cli, sandboxMainCpu, clientCpu.cli, beforeSend, s.b, rows) : {}),
      },
    };
  });
}

/**
 * The ratio the CPU numbers allow on loopback, against the loop's wall per batch as measured (its CPU and the
 * sandbox's under it overlap a little: their sum is more than its wall). The CLI's wall per batch is at least its
 * time before the first request, spread over the batches (the sandbox idles then), plus:
 * - with the sandbox as it is, one thread answering one batch at a time: its main thread's CPU per batch (V8's GC
 *   threads and the CLI's own CPU run beside it, on the other core);
 * - were the sandbox's work spread over both cores (no thread of it ever waiting for another): half of the CPU the
 *   sandbox (all its threads) and the CLI spend per batch after the CLI's start (its start is taken as all CPU, a
 *   whole core).
 */
function ratioBound(sandboxCpu: number[], sandboxMainCpu: number[], cliCpu: number[], beforeSend: number[], loopRowsPerSecond: number[], rows: number): Record<string, number> {
  if (!sandboxCpu.length || !loopRowsPerSecond.length || !beforeSend.length) return {};
  const batches = rows / BATCH;
  const loopWall = (BATCH * 1000) / median(loopRowsPerSecond);
  const start = (median(beforeSend) * 1000) / batches;
  return {
    ...(sandboxMainCpu.length ? { "ratio one sandbox thread allows: loop's wall / (CLI start + sandbox main thread CPU), per batch": round2(loopWall / (start + median(sandboxMainCpu))) } : {}),
    ...(cliCpu.length
      ? { "ratio 2 cores allow, the sandbox on both: loop's wall / (CLI start + (sandbox + CLI CPU - CLI start) / 2), per batch": round2(loopWall / (start + (median(sandboxCpu) + median(cliCpu) - start) / 2)) }
      : {}),
  };
}

/** Sleep until just after the next rate-limit window starts (the sandbox's windows are aligned to the epoch). */
async function nextWindow(): Promise<void> {
  const span = RATE.windowSeconds * 1000;
  await new Promise((r) => setTimeout(r, span - (Date.now() % span) + 200));
}

export async function run(ctx: BenchContext): Promise<void> {
  const rows = ctx.quick ? 20_000 : 1_000_000;
  const latencyRows = ctx.quick ? 10_000 : 200_000;
  await compare(ctx, 'loopback', `${shortCount(rows)} rows, loopback`, rows, [], 'wm.loopback');
  await compare(ctx, 'latency', `${shortCount(latencyRows)} rows, +${LATENCY_MS} ms latency`, latencyRows, ['--faults', `latency=1:${LATENCY_MS}-${LATENCY_MS}@/word-memories`], 'wm.latency');

  if (ctx.quick) {
    const why = 'not run with --quick (it takes over a minute)';
    ctx.report('wm.rate429', { value: null, detail: why });
    ctx.report('wm.rateCeiling', { value: null, detail: why });
    return;
  }
  // A little over one window's budget: the first window's burst, then paced requests in the next.
  const limitedRows = Math.round(CEILING_ROWS_PER_MIN * 1.08);
  await ctx.runCase('rate-limit', `${limitedRows} rows at the default ${RATE.requests} requests/${RATE.windowSeconds} s`, ['wm.rate429', 'wm.rateCeiling'], async () => {
    const file = await csv(ctx, limitedRows);
    const sb = await ctx.sandbox(['--rate-limit', `${RATE.requests}/${RATE.windowSeconds}s`]);
    try {
      await nextWindow();
      const r = await cliImport(ctx, sb, file);
      const perMinute = limitedRows / (r.summary.seconds / 60);
      const wallPerMinute = limitedRows / (r.seconds / 60);
      ctx.report('wm.rate429', { value: r.summary.rateLimited });
      ctx.report('wm.rateCeiling', { value: perMinute / CEILING_ROWS_PER_MIN, detail: `${Math.round(perMinute)} rows/min while sending; ${Math.round((wallPerMinute / CEILING_ROWS_PER_MIN) * 100)} % from process start to exit` });
      return {
        a: series('rows/min while sending', 'rows/min', [Math.round(perMinute)]),
        info: { '429 answers': r.summary.rateLimited, 'rows/min from start to exit': Math.round(wallPerMinute), ceiling: CEILING_ROWS_PER_MIN },
      };
    } finally {
      await sb.stop();
    }
  });
}
