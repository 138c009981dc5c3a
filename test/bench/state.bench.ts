// GET note latency with a state file: two sandboxes on the same big seed (100k notes, 1M word memories; its
// sql.js state is about 160 MB, issue 15's was 144 MB), one with `--state`, one without, each driven in turn
// by an open-loop load (a fixed request rate, latency counted from the scheduled send, so a server that stalls
// while saving its state shows it in p99 instead of hiding it). The ratio is p99 with the state over without.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { shortCount, timedStart, type BenchContext } from './lib.js';
import { runLoad } from './load.js';
import { series } from './results.js';
import { alternate, median, pairRatios, percentile } from './stats.js';

export const title = 'GET note p99 with --state on the 100k-note world vs without state';

/** Bytes of every file under `dir` (the state file and whatever the sandbox keeps beside it). */
function sizeOf(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? sizeOf(p) : statSync(p).size;
  }
  return total;
}

/** Wait until the state directory has stopped growing for a second (the first save of the seeded state). */
async function settled(dir: string, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = -1;
  let stableSince = performance.now();
  for (;;) {
    const size = sizeOf(dir);
    if (size !== last) {
      last = size;
      stableSince = performance.now();
    } else if (size > 0 && performance.now() - stableSince >= 1000) return size;
    if (performance.now() > deadline) return size;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function run(ctx: BenchContext): Promise<void> {
  await restart(ctx);
  const notes = ctx.quick ? 5000 : 100_000;
  const rate = ctx.quick ? 100 : 200;
  const durationMs = ctx.quick ? 2000 : 5000;
  const world = await ctx.world(notes);
  await ctx.runCase(
    'p99',
    `GET note p99 at ${rate} req/s (open loop, ${durationMs / 1000} s bursts), ${shortCount(notes)}-note world: with --state vs without`,
    ['state.p99'],
    async () => {
      const stateDir = ctx.tempDir();
      ctx.log('starting a sandbox with --state and one without on the big world …');
      const withState = await ctx.sandbox(['--seed', world.file, '--state', join(stateDir, 'state.db')]);
      const plain = await ctx.sandbox(['--seed', world.file]);
      const stateBytes = await settled(stateDir, 120_000);
      const path = buildPath(endpoint('notes.get'), { noteGuid: world.noteGuid });
      const headers = { authorization: `Bearer ${world.memberKey}`, accept: 'application/json' };
      const p50 = { a: [] as number[], b: [] as number[] };
      const unanswered = { a: 0, b: 0 };
      const burst = async (baseUrl: string, side: 'a' | 'b', index: number) => {
        const r = await runLoad({ url: baseUrl + path, headers, connections: 64, durationMs, rate, drainMs: 30_000 });
        if (r.errors) throw new Error(`${side === 'a' ? 'with --state' : 'without state'}: ${r.errors} failed requests (first: ${r.firstError})`);
        // a request still unanswered 30 s after the burst counts with the time it had waited (a lower bound)
        const all = [...r.latencies, ...r.unanswered];
        if (index >= 0) {
          unanswered[side] += r.unanswered.length;
          p50[side].push(percentile(all, 50));
        }
        return percentile(all, 99);
      };
      const s = await alternate({ pairs: ctx.pairs, warmups: ctx.warmups }, (i) => burst(withState.baseUrl, 'a', i), (i) => burst(plain.baseUrl, 'b', i));
      const value = median(pairRatios(s.a, s.b));
      const stateMb = stateBytes / 1e6;
      ctx.report('state.p99', { value, detail: `state ${stateMb.toFixed(0)} MB; p99 ${median(s.a).toFixed(1)} vs ${median(s.b).toFixed(1)} ms` });
      const peak: Record<string, number> = {};
      const ra = withState.peakRssMb();
      const rb = plain.peakRssMb();
      if (ra !== undefined) peak['sandbox with --state'] = ra;
      if (rb !== undefined) peak['sandbox without'] = rb;
      await withState.stop();
      await plain.stop();
      const p50Without = median(p50.b);
      return {
        a: series('p99 with --state', 'ms', s.a),
        b: series('p99 without state', 'ms', s.b),
        peakRssMb: peak,
        info: {
          'state on disk, MB': stateMb.toFixed(1),
          'p50 ms with/without (median of bursts)': `${median(p50.a).toFixed(2)}/${p50Without.toFixed(2)}`,
          'start s with/without': `${(withState.startMs / 1000).toFixed(1)}/${(plain.startMs / 1000).toFixed(1)}`,
          'unanswered after 30 s (counted at their wait) with/without': `${unanswered.a}/${unanswered.b}`,
          ...(p50Without > 50
            ? { warning: `without state the median latency is ${p50Without.toFixed(0)} ms: the sandbox cannot keep up with ${rate} req/s on this machine now, so both p99s measure a queue` }
            : {}),
        },
      };
    },
  );
}

/** Restart on the big world's state file (seeded once, stopped cleanly): time to listening and RSS then, against a demo start. */
async function restart(ctx: BenchContext): Promise<void> {
  const notes = ctx.quick ? 5000 : 100_000;
  const world = await ctx.world(notes);
  await ctx.runCase('restart', `restart on the ${shortCount(notes)}-note world's state file vs a start on the demo seed`, ['state.restart', 'state.restartRss'], async () => {
    const stateDir = ctx.tempDir();
    const file = join(stateDir, 'state.db');
    ctx.log('seeding a state file with the big world …');
    await (await ctx.sandbox(['--seed', world.file, '--state', file])).stop();
    const stateMb = sizeOf(stateDir) / 1e6;
    const rss: number[] = [];
    const s = await alternate(
      { pairs: ctx.pairs, warmups: ctx.warmups },
      (i) => timedStart(ctx, ['--state', file], undefined, i >= 0 ? rss : undefined),
      () => timedStart(ctx, []),
    );
    ctx.report('state.restart', { value: median(s.a), detail: `state ${stateMb.toFixed(0)} MB` });
    ctx.report('state.restartRss', rss.length ? { value: Math.max(...rss), detail: `max of ${rss.length} restarts` } : { value: null, detail: 'no RSS reading (not Linux?)' });
    return {
      a: series('restart with --state', 's', s.a),
      b: series('start, demo seed', 's', s.b),
      peakRssMb: rss.length ? { 'restart (max at ready)': Math.max(...rss) } : {},
      info: { 'state on disk, MB': stateMb.toFixed(1) },
    };
  });
}
