// `npm run bench [-- <name>… --runs=N --warmups=N]`: builds nothing (npm run bench builds first), then runs
// every test/bench/<name>.bench.ts, or the named ones, and prints one table each. A bench module exports
// `async function run(ctx: BenchContext): Promise<BenchRow[]>` and optionally `title`. Targets are
// printed as PASS/MISS, never asserted; the exit code is 1 only when a bench could not run.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createBenchContext, formatTable, ROOT, type BenchContext, type BenchRow } from './lib.js';

interface BenchModule {
  title?: string;
  run(ctx: BenchContext): Promise<BenchRow[]>;
}

const DIR = join(ROOT, 'test', 'bench');
const SUFFIX = '.bench.ts';

function parseArgs(argv: string[]) {
  const numbers = { runs: 15, warmups: 2 };
  const names: string[] = [];
  for (const a of argv) {
    const m = /^--(runs|warmups)=(\d+)$/.exec(a);
    if (m) numbers[m[1] as 'runs' | 'warmups'] = Number(m[2]);
    else if (a.startsWith('-')) throw new Error(`unknown option ${a} (expected --runs=N, --warmups=N and bench names)`);
    else names.push(a.replace(/\.bench\.ts$/, ''));
  }
  if (numbers.runs < 1) throw new Error('--runs must be at least 1');
  return { ...numbers, names };
}

async function main(): Promise<number> {
  const { runs, warmups, names } = parseArgs(process.argv.slice(2));
  const available = readdirSync(DIR)
    .filter((f) => f.endsWith(SUFFIX))
    .map((f) => f.slice(0, -SUFFIX.length))
    .sort();
  const unknown = names.filter((n) => !available.includes(n));
  if (unknown.length) throw new Error(`no bench named ${unknown.join(', ')}; available: ${available.join(', ')}`);
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` first (`npm run bench` does)');

  const ctx = createBenchContext({ runs, warmups });
  let failures = 0;
  try {
    for (const name of names.length ? names : available) {
      const mod = (await import(pathToFileURL(join(DIR, name + SUFFIX)).href)) as BenchModule;
      try {
        const rows = await mod.run(ctx);
        process.stdout.write(formatTable(`${name}: ${mod.title ?? ''} (${runs} runs after ${warmups} warm-ups)`, rows) + '\n');
      } catch (e) {
        failures++;
        process.stderr.write(`bench ${name} failed: ${(e as Error).message}\n\n`);
      }
    }
  } finally {
    await ctx.close();
  }
  return failures ? 1 : 0;
}

main().then(
  (code) => (process.exitCode = code),
  (e: Error) => {
    process.stderr.write(`bench: ${e.message}\n`);
    process.exitCode = 2;
  },
);
