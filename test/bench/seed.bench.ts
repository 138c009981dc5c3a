// Sandbox start on a big seed: `notevox sandbox start --seed <100k notes, 1M word memories>` from spawn to its
// JSON line (the sandbox answers from then on), and its peak RSS at that moment, paired with a start on the
// built-in demo seed (the fixed cost of starting at all).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { KEPT_INDEXES } from '../../src/sandbox/seed/word-memories.js';
import { FIXTURES, runNode, shortCount, tail, timedStart, timeNodeSync, type BenchContext } from './lib.js';
import { series } from './results.js';
import { alternate, median } from './stats.js';

export const title = 'sandbox start on a 100k-notes/1M-word-memories seed';

export async function run(ctx: BenchContext): Promise<void> {
  const notes = ctx.quick ? 5000 : 100_000;
  const world = await ctx.world(notes);
  const label = `${shortCount(notes)} notes/${shortCount(world.wordMemories)} word memories`;
  const rss = { big: [] as number[], demo: [] as number[] };
  const start = async (args: string[], into: number[], index: number) => {
    const sb = await ctx.sandbox(args);
    try {
      if (index >= 0 && sb.readyRssMb !== undefined) into.push(sb.readyRssMb);
      return sb.startMs / 1000;
    } finally {
      await sb.stop();
    }
  };
  await ctx.runCase('start', `sandbox start with a seed of ${label} (${Math.round(world.bytes / 1e6)} MB JSON) vs the demo seed`, ['seed.start'], async () => {
    const s = await alternate(
      { pairs: ctx.pairs, warmups: ctx.warmups },
      (i) => start(['--seed', world.file], rss.big, i),
      (i) => start([], rss.demo, i),
    );
    ctx.report('seed.start', { value: median(s.a), detail: rss.big.length ? `RSS at ready ${Math.min(...rss.big).toFixed(0)}–${Math.max(...rss.big).toFixed(0)} MB` : undefined });
    return {
      a: series(`start, ${label}`, 's', s.a),
      b: series('start, demo seed', 's', s.b),
      peakRssMb: rss.big.length ? { [`${label} (max at ready)`]: Math.max(...rss.big), 'demo seed (max at ready)': Math.max(...rss.demo) } : {},
      info: rss.big.length ? { [`RSS at ready, ${label}, MB`]: rss.big.map((x) => x.toFixed(0)).join(' ') } : {},
    };
  });
  const parseSeconds = await runCache(ctx, world, label);
  await runPhases(ctx, world, label, parseSeconds);
}

/**
 * Where a first start's time goes: one start with NOTEVOX_DEBUG=seed, whose sandbox prints when each step of
 * building the seed's database ended, on which thread, with that thread's CPU time (src/sandbox/seed/phases.ts).
 * Printed as it came; not a target. Beside it, the least wall time the two threads' CPU allows on two cores (half
 * their sum: each core busy all the time, neither waiting) and, given `parseSeconds` (the vs-parse case's median of
 * read + JSON.parse), the ratio that would give. Then SQLite's own share of that CPU: the database the start built
 * (its cache entry) built again from itself by INSERT … SELECT (fixtures/sqlite-floor.mjs), no JSON read and no value
 * bound from JavaScript; half of it on two cores is what no build of this database through SQLite goes below.
 */
export async function runPhases(ctx: BenchContext, world: { file: string }, label: string, parseSeconds?: number): Promise<void> {
  await ctx.runCase('phases', `where a first start on the ${label} seed spends its time (NOTEVOX_DEBUG=seed, one start)`, [], async () => {
    const cache = ctx.tempDir();
    const sb = await ctx.sandbox(['--seed', world.file], { NOTEVOX_DEBUG: 'seed', NOTEVOX_CACHE_DIR: cache });
    let lines: string[];
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the worker's lines come through the start's thread
      lines = sb.stderr().split('\n').filter((l) => l.startsWith('sandbox: seed: '));
    } finally {
      await sb.stop();
    }
    if (lines.length === 0) return { info: { phases: 'none printed (a checkout without NOTEVOX_DEBUG=seed)' } };
    const phases = lines.map((l) => /^sandbox: seed: +(\d+) ms (start|worker) +cpu +(\d+) ms \(\+ *(\d+)\) (.*)$/.exec(l)).filter((m) => m !== null);
    phases.sort((x, y) => Number(x[1]) - Number(y[1]));
    for (const m of phases) ctx.log(`  ${(Number(m[1]) / 1000).toFixed(2).padStart(6)} s  ${m[2].padEnd(6)}  CPU ${(Number(m[4]) / 1000).toFixed(2)} s  ${m[5]}`);
    const cpu = (thread: string) => Math.max(0, ...phases.filter((m) => m[2] === thread).map((m) => Number(m[3]))) / 1000;
    const at = (name: string) => phases.find((m) => m[5] === name)?.[1];
    /** The least wall time the two threads' CPU allows on two cores, s. */
    const floor = (cpu('start') + cpu('worker')) / 2;
    const sqlite = await sqliteShare(ctx, cache);
    return {
      info: {
        'ready, s': (sb.startMs / 1000).toFixed(2),
        'word memories done, s': at('word memories done') && (Number(at('word memories done')) / 1000).toFixed(2),
        'cache entry stored, s': at('stored the cache entry') && (Number(at('stored the cache entry')) / 1000).toFixed(2),
        'start thread CPU to then, s': cpu('start').toFixed(2),
        'worker CPU, s': cpu('worker').toFixed(2),
        'both threads\' CPU / 2 cores, s': floor.toFixed(2),
        ...(parseSeconds ? { 'that / read + JSON.parse (the least ratio 2 cores allow)': (floor / parseSeconds).toFixed(2) } : {}),
        "SQLite's own work (the built database inserted again from itself), CPU s": (sqlite.cpuMs / 1000).toFixed(2),
        ...(parseSeconds ? { 'half of that / read + JSON.parse (SQLite alone on 2 cores)': (sqlite.cpuMs / 2000 / parseSeconds).toFixed(2) } : {}),
        "SQLite's largest parts, CPU s": Object.entries(sqlite.parts)
          .sort((x, y) => y[1] - x[1])
          .slice(0, 4)
          .map(([name, ms]) => `${name} ${(ms / 1000).toFixed(2)}`)
          .join(', '),
      },
    };
  });
}

/**
 * First start against reading and parsing the same file; then the second start of it, its database cached. Returns
 * the median seconds of read + JSON.parse (undefined when that case did not run).
 */
export async function runCache(ctx: BenchContext, world: { file: string; bytes: number }, label: string): Promise<number | undefined> {
  let parseSeconds: number | undefined;
  const parse = ['-e', `JSON.parse(require('node:fs').readFileSync(${JSON.stringify(world.file)}, 'utf8'))`];
  await ctx.runCase('vs-parse', `first sandbox start on the ${label} seed vs reading and JSON.parse of that file (one process each)`, ['seed.vsParse'], async () => {
    const s = await alternate(
      { pairs: ctx.pairs, warmups: ctx.warmups },
      async () => {
        const sb = await ctx.sandbox(['--seed', world.file]); // a fresh cache directory each time: nothing cached
        try {
          return sb.startMs / 1000;
        } finally {
          await sb.stop();
        }
      },
      () => timeNodeSync(ctx.node, parse, process.env) / 1000,
    );
    ctx.report('seed.vsParse', { value: median(s.a.map((x, i) => x / s.b[i])) });
    parseSeconds = median(s.b);
    return { a: series(`first start, ${label}`, 's', s.a), b: series('read + JSON.parse', 's', s.b) };
  });
  await ctx.runCase('cached', `second sandbox start on the ${label} seed (its database cached) vs a start on the demo seed`, ['seed.cached'], async () => {
    const cache = ctx.tempDir();
    const env = { NOTEVOX_CACHE_DIR: cache };
    await (await ctx.sandbox(['--seed', world.file], env)).stop(); // the first start builds the cache entry
    const rss: number[] = [];
    const s = await alternate(
      { pairs: ctx.pairs, warmups: ctx.warmups },
      (i) => timedStart(ctx, ['--seed', world.file], env, i >= 0 ? rss : undefined),
      () => timedStart(ctx, []),
    );
    ctx.report('seed.cached', { value: median(s.a), detail: rss.length ? `RSS at ready ${Math.max(...rss).toFixed(0)} MB` : undefined });
    return { a: series(`cached start, ${label}`, 's', s.a), b: series('start, demo seed', 's', s.b), peakRssMb: rss.length ? { 'cached start (max at ready)': Math.max(...rss) } : {} };
  });
  return parseSeconds;
}

/** fixtures/sqlite-floor.mjs on the database a first start stored in the seed cache `cache`. */
async function sqliteShare(ctx: BenchContext, cache: string): Promise<{ cpuMs: number; parts: Record<string, number> }> {
  const dir = join(cache, 'sandbox-seeds');
  const built = readdirSync(dir).filter((f) => f.endsWith('.sqlite'));
  if (built.length !== 1) throw new Error(`expected one built seed database in ${dir}, found ${built.length}`);
  const r = await runNode(ctx.node, [join(FIXTURES, 'sqlite-floor.mjs'), join(dir, built[0]), join(ctx.tempDir(), 'again.sqlite'), KEPT_INDEXES.join(',')], { env: ctx.cliEnv() });
  if (r.code !== 0) throw new Error(`sqlite-floor.mjs exited with ${r.code}: ${tail(r.stderr)}`);
  return JSON.parse(r.stdout) as { cpuMs: number; parts: Record<string, number> };
}
