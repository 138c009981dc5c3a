// Sandbox throughput: GET note (demo seed, an account key) against a bare hono app on @hono/node-server that
// answers the same path with the same JSON, both driven by the in-repo load generator (load.ts, closed loop,
// keep-alive sockets) in alternating bursts. The ratio is the sandbox's req/s over the bare app's.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { api, cleanEnv, cpuMs, FIXTURES, tail, timedGet, type BenchContext } from './lib.js';
import { runLoad, type LoadResult } from './load.js';
import { series } from './results.js';
import { alternate, median, pairRatios, percentile } from './stats.js';

export const title = 'sandbox GET note req/s against a bare hono app';

const CONNECTIONS = 10;

/** Start the bare hono app with the measured node; resolves with its base URL and a stop function. */
async function startBareHono(node: string, path: string, bodyFile: string): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const child = spawn(node, [join(FIXTURES, 'bare-hono.mjs'), path, bodyFile], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the bare hono app exited with ${code}: ${tail(stderr)}`)));
  });
  child.stdout.resume();
  return {
    baseUrl: (JSON.parse(line) as { baseUrl: string }).baseUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function run(ctx: BenchContext): Promise<void> {
  await bulkCpu(ctx);
  const durationMs = ctx.quick ? 1000 : 3000;
  await ctx.runCase('get-note-rps', `GET note: sandbox vs bare hono (${CONNECTIONS} connections, ${durationMs / 1000} s bursts)`, ['http.getNote'], async () => {
    const sandbox = await ctx.sandbox();
    const key = sandbox.key('nvk_user_admin');
    const list = await api<{ content: Array<{ guid?: string }> }>(sandbox.baseUrl, key, 'GET', `${buildPath(endpoint('notes.list'))}?size=1`);
    const guid = list.content[0]?.guid;
    if (!guid) throw new Error('the demo sandbox lists no note');
    const path = buildPath(endpoint('notes.get'), { noteGuid: guid });
    const { body } = await timedGet(sandbox.baseUrl + path, key);
    const bodyFile = join(ctx.tempDir(), 'note.json');
    writeFileSync(bodyFile, body);
    const bare = await startBareHono(ctx.node, path, bodyFile);
    try {
      const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
      const lat = { a: [] as number[], b: [] as number[] };
      const burst = async (url: string, side: 'a' | 'b', index: number) => {
        const r: LoadResult = await runLoad({ url, headers, connections: CONNECTIONS, durationMs });
        if (r.errors) throw new Error(`${side === 'a' ? 'sandbox' : 'bare hono'}: ${r.errors} failed requests (first: ${r.firstError})`);
        // One by one: a burst on a fast machine has more latencies than a call may take arguments (push(...) overflowed the stack).
        if (index >= 0) for (const ms of r.latencies) lat[side].push(ms);
        return r.rps;
      };
      const s = await alternate({ pairs: ctx.pairs, warmups: ctx.warmups }, (i) => burst(sandbox.baseUrl + path, 'a', i), (i) => burst(bare.baseUrl + path, 'b', i));
      ctx.report('http.getNote', { value: median(pairRatios(s.a, s.b)) });
      const ms = (xs: number[], p: number) => percentile(xs, p).toFixed(2);
      const rss = sandbox.peakRssMb();
      return {
        a: series('sandbox', 'req/s', s.a),
        b: series('bare hono', 'req/s', s.b),
        peakRssMb: rss === undefined ? {} : { sandbox: rss },
        info: {
          'sandbox latency p50/p99 ms': `${ms(lat.a, 50)}/${ms(lat.a, 99)}`,
          'bare hono latency p50/p99 ms': `${ms(lat.b, 50)}/${ms(lat.b, 99)}`,
          'answer bytes': Buffer.byteLength(body),
        },
      };
    } finally {
      await bare.stop();
      await sandbox.stop();
    }
  });
}

/**
 * The sandbox's CPU per 1000-row word-memory bulk create (POST …/word-memories with 1000 entries, new each time),
 * read from /proc/PID/stat around rounds of sequential requests, against the same requests' CPU for a GET
 * of one note (the fixed cost of a request: HTTP, auth, routing).
 */
async function bulkCpu(ctx: BenchContext): Promise<void> {
  const perRound = ctx.quick ? 10 : 40;
  await ctx.runCase('bulk-cpu', `sandbox CPU per 1000-row word-memory create (${perRound} sequential requests per round) vs per GET note (${perRound * 10} per round)`, ['http.bulkCpu'], async () => {
    const sandbox = await ctx.sandbox();
    try {
      if (cpuMs(sandbox.pid) === undefined) throw new Error('no /proc/PID/stat here: CPU cannot be read');
      const key = sandbox.key('nvk_user_admin');
      const list = await api<{ content: Array<{ guid?: string }> }>(sandbox.baseUrl, key, 'GET', `${buildPath(endpoint('notes.list'))}?size=1`);
      const notePath = buildPath(endpoint('notes.get'), { noteGuid: list.content[0]!.guid! });
      const wmUrl = `${sandbox.baseUrl}/v1/external/users/me/word-memories`;
      let next = 0;
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      // CPU is read in clock ticks (10 ms): a GET note costs a fraction of a millisecond, so its rounds make ten times as
      // many requests (40 of them could read 0 ticks, and a ratio to 0 fails the case).
      const round = async (request: () => Promise<Response>, requests = perRound) => {
        const before = cpuMs(sandbox.pid)!;
        for (let i = 0; i < requests; i++) {
          const res = await request();
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`status ${res.status}`);
        }
        return (cpuMs(sandbox.pid)! - before) / requests;
      };
      const s = await alternate(
        { pairs: ctx.pairs * 2, warmups: ctx.warmups },
        () =>
          round(() => {
            const entries = Array.from({ length: 1000 }, () => ({ entry: `bench-${next++}`, subEntry: null }));
            return fetch(wmUrl, { method: 'POST', headers, body: JSON.stringify({ entries }) });
          }),
        () => round(() => fetch(sandbox.baseUrl + notePath, { headers }), perRound * 10),
      );
      ctx.report('http.bulkCpu', { value: median(s.a), detail: `GET note ${median(s.b).toFixed(2)} ms of CPU per request` });
      return { a: series('CPU per 1000-row create', 'ms', s.a), b: series('CPU per GET note', 'ms', s.b) };
    } finally {
      await sandbox.stop();
    }
  });
}
