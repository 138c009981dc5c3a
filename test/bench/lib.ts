// What the benches share: running the measured checkout's CLI and sandbox (from `--root`, with `--node`),
// peak RSS of child processes, small HTTP helpers, and the context through which a bench records its cases
// and target values. Numbers are printed and written to a JSON file, never asserted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pairedCase, type CaseResult, type Series, type TargetReport } from './results.js';
import { ensureWorld, type WorldInfo } from './world.js';

/** This checkout (the bench's own code, caches and results). */
export const BENCH_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
export const FIXTURES = join(BENCH_ROOT, 'test', 'bench', 'fixtures');
const RSS_PROBE = pathToFileURL(join(FIXTURES, 'rss-probe.mjs')).href;

/** Variables that would make the measured processes differ from a user's (and from each other). */
const STRIPPED_ENV = ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS', 'NOTEVOX_API_KEY', 'NOTEVOX_BASE_URL', 'NOTEVOX_PROFILE', 'NOTEVOX_DEBUG', 'NOTEVOX_BENCH_RSS_FILE'];

export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of STRIPPED_ENV) delete env[k];
  return { ...env, ...extra };
}

export interface ProcResult {
  ms: number;
  /** performance.now() at the exit (to pair with the times `onStderr` sees). */
  exitAt: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Peak RSS (the process's own maxRSS at exit), when asked for and the process exited normally. */
  peakRssMb?: number;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  /** Record the peak RSS of a node process (adds `--import rss-probe.mjs`: do not use it on timed start-up runs). */
  rss?: boolean;
  /** Kill the process (SIGKILL) after this many ms; the result then has `signal`. */
  timeoutMs?: number;
  /** Keep at most this many characters of stdout (default 1 MB); `onStdout` sees every chunk. */
  maxStdout?: number;
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string, at: number) => void;
}

/** Run `node <args>` with `node` (not the bench's own runtime) and time it from spawn to exit. */
export function runNode(node: string, args: string[], opts: RunOptions): Promise<ProcResult> {
  let rssFile: string | undefined;
  let env = opts.env;
  if (opts.rss) {
    rssFile = join(mkdtempSync(join(tmpdir(), 'notevox-bench-rss-')), 'maxrss');
    env = { ...env, NOTEVOX_BENCH_RSS_FILE: rssFile };
    args = ['--import', RSS_PROBE, ...args];
  }
  const maxStdout = opts.maxStdout ?? 1 << 20;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let exitAt = 0;
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      if (stdout.length < maxStdout) stdout += s.slice(0, maxStdout - stdout.length);
      opts.onStdout?.(s);
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr = (stderr + s).slice(-20_000);
      opts.onStderr?.(s, performance.now());
    });
    child.once('error', reject);
    child.once('exit', () => (exitAt = performance.now()));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      let peakRssMb: number | undefined;
      if (rssFile) {
        try {
          peakRssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
        } catch {
          // killed before its exit handler ran
        }
        rmSync(join(rssFile, '..'), { recursive: true, force: true });
      }
      resolve({ ms: exitAt - started, exitAt, code, signal, stdout, stderr, peakRssMb });
    });
  });
}

/** Wall-clock ms of one `node <args>` run, synchronously (the least overhead around a short process); throws unless it exits 0. */
export function timeNodeSync(node: string, args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const r = spawnSync(node, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = performance.now() - started;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited with ${r.status ?? r.signal}: ${tail(r.stderr)}`);
  return ms;
}

/** 1000000 → 1M, 100000 → 100k, 648000 → 648k, 500 → 500. */
export function shortCount(n: number): string {
  if (n >= 1e6 && n % 1e5 === 0) return `${n / 1e6}M`;
  if (n >= 1000 && n % 100 === 0) return `${n / 1000}k`;
  return String(n);
}

export const tail = (s: string, lines = 3) => s.trim().split('\n').slice(-lines).join(' | ');

/**
 * Two clock-tick fields of a /proc stat file added, in ms (100 ticks per second on Linux); `at`: their index among the
 * fields after the command name (which may hold spaces). undefined off Linux or once the process is gone.
 */
function statMs(path: string, at: number): number | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[at]) + Number(fields[at + 1])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a running process has used so far, in ms (utime and stime: fields 14 and 15 of proc(5)). */
export const cpuMs = (pid: number | undefined): number | undefined => (pid ? statMs(`/proc/${pid}/stat`, 11) : undefined);

/** The same for a process's main thread alone (its task whose id is the process's): not V8's GC or other helper threads. */
export const mainThreadCpuMs = (pid: number | undefined): number | undefined => (pid ? statMs(`/proc/${pid}/task/${pid}/stat`, 11) : undefined);

/**
 * CPU time (user + system, ms) of this process's children that have exited and been waited for (cutime and cstime:
 * fields 16 and 17): the difference around a runNode call is that child's CPU, when no other child ended meanwhile.
 */
export const childrenCpuMs = (): number | undefined => statMs('/proc/self/stat', 13);

/** VmHWM (peak resident set) of a running process in MB; undefined off Linux or once it is gone. */
export function vmHwmMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return kb ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- the measured checkout's sandbox

export interface Sandbox {
  baseUrl: string;
  /** Full keys (`id.secret`) by key id, as printed by `sandbox start --json`. */
  keys: Map<string, string>;
  /** ms from spawn to the JSON line. */
  startMs: number;
  /** VmHWM when the JSON line came. */
  readyRssMb?: number;
  pid: number;
  key(id: string): string;
  /** VmHWM now. */
  peakRssMb(): number | undefined;
  /** The last 4000 characters of its stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

export class SandboxStartError extends Error {}

/** Thrown by a case that cannot be measured for a known reason (not a failure of the bench or the code). */
export class NotApplicable extends Error {}

/**
 * `notevox sandbox start --port 0 --json --rate-limit 0 [args]` of the measured checkout; resolves with its
 * first stdout line parsed. `args` may override the rate limit.
 */
export async function startSandbox(node: string, bin: string, env: NodeJS.ProcessEnv, args: string[] = [], timeoutMs = 600_000): Promise<Sandbox> {
  const started = performance.now();
  const child = spawn(node, [bin, 'sandbox', 'start', '--port', '0', '--json', '--rate-limit', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-4000)));
  const fail = (why: string) => new SandboxStartError(`sandbox start ${args.join(' ')} failed (${why})${stderr.trim() ? `: ${tail(stderr, 4)}` : ''}`);
  let line: string;
  try {
    line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(fail(`no output within ${timeoutMs / 1000} s`)), timeoutMs);
      createInterface({ input: child.stdout }).once('line', (l) => {
        clearTimeout(timer);
        resolve(l);
      });
      child.once('error', (e) => reject(fail(e.message)));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(fail(`exited with ${code ?? signal}`));
      });
    });
  } catch (e) {
    await stopChild(child);
    throw e;
  }
  const startMs = performance.now() - started;
  const readyRssMb = vmHwmMb(child.pid);
  let parsed: { baseUrl?: unknown; keys?: Array<{ id?: string; key?: string; secret?: string }> };
  try {
    parsed = JSON.parse(line);
  } catch {
    await stopChild(child);
    throw fail(`its first line is not JSON: ${line.slice(0, 120)}`);
  }
  if (typeof parsed.baseUrl !== 'string') {
    await stopChild(child);
    throw fail('its JSON line has no baseUrl');
  }
  const keys = new Map<string, string>();
  for (const k of parsed.keys ?? []) {
    const full = k.key ?? (k.id && k.secret ? `${k.id}.${k.secret}` : undefined);
    if (k.id && full) keys.set(k.id, full);
  }
  // Drain stdout so the sandbox never blocks on a full pipe.
  child.stdout.resume();
  return {
    baseUrl: parsed.baseUrl,
    keys,
    startMs,
    readyRssMb,
    pid: child.pid!,
    key(id) {
      const k = keys.get(id);
      if (!k) throw new Error(`the sandbox printed no key ${id} (it printed ${[...keys.keys()].join(', ') || 'none'})`);
      return k;
    },
    peakRssMb: () => vmHwmMb(child.pid),
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------- HTTP helpers (setup and single timed requests)

/** A JSON API call for setting a case up (not timed). */
export async function api<T>(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(baseUrl.replace(/\/+$/, '') + path, {
    method,
    headers: { authorization: `Bearer ${key}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

/** One GET over a kept-alive connection: ms to the last byte of the answer, and the body. Throws on a non-2xx status. */
export function timedGet(url: string, key: string): Promise<{ ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { agent: keepAlive, headers: { authorization: `Bearer ${key}`, accept: 'application/json' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => {
        const ms = performance.now() - started;
        const body = Buffer.concat(parts).toString('utf8');
        if ((res.statusCode ?? 0) >= 300) reject(new Error(`GET ${new URL(url).pathname}: HTTP ${res.statusCode} ${body.slice(0, 300)}`));
        else resolve({ ms, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export function closeHttp(): void {
  keepAlive.destroy();
}

// ---------------------------------------------------------------- the context a bench runs in

export interface CaseBody {
  a?: Series;
  b?: Series;
  /** Peak RSS by process; undefined values (not measured) are left out. */
  peakRssMb?: Record<string, number | undefined>;
  /** Undefined values are left out. */
  info?: Record<string, string | number | undefined>;
}

export interface BenchContext {
  bench: string;
  quick: boolean;
  pairs: number;
  warmups: number;
  /** The checkout measured (`--root`), its CLI entry and the node binary that runs it (`--node`). */
  root: string;
  bin: string;
  node: string;
  cacheDir: string;
  /** Progress to stderr. */
  log(msg: string): void;
  /** A fresh empty directory, removed when the run ends. */
  tempDir(): string;
  /** An environment for the CLI: no colour, non-interactive, an empty config dir, plus `extra`. */
  cliEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** A sandbox of the measured checkout, stopped when the run ends (or by `stop()`). */
  sandbox(args?: string[], env?: Record<string, string>): Promise<Sandbox>;
  /** The cached seed world of `notes` notes (generated on first use). */
  world(notes: number): Promise<WorldInfo>;
  /**
   * Run one case: `body` measures and returns the series; the case is printed and recorded. When it throws,
   * the case is recorded as n/a with the message and every target in `targets` not yet reported becomes n/a.
   */
  runCase(id: string, title: string, targets: string[], body: () => Promise<CaseBody>): Promise<CaseResult>;
  /** The value of a target (a median ratio, seconds, MB…), or null with the reason it could not be measured. */
  report(targetId: string, report: TargetReport): void;
}

export interface ContextHooks {
  onCase(c: CaseResult): void;
  onReport(id: string, r: TargetReport): void;
  hasReport(id: string): boolean;
}

export interface ContextOptions {
  quick: boolean;
  pairs: number;
  warmups: number;
  root: string;
  node: string;
  cacheDir: string;
}

/** The context of one bench (cases tagged with its name); `close()` stops its sandboxes and removes its temp dirs. */
export function createContext(bench: string, opts: ContextOptions, hooks: ContextHooks): BenchContext & { close(): Promise<void> } {
  const dirs: string[] = [];
  const sandboxes: Sandbox[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'notevox-bench-'));
    dirs.push(d);
    return d;
  };
  const bin = join(opts.root, 'bin', 'notevox.js');
  const cliEnv = (extra: Record<string, string> = {}) => cleanEnv({ NO_COLOR: '1', CI: '1', NOTEVOX_CONFIG_DIR: tempDir(), NOTEVOX_CACHE_DIR: tempDir(), ...extra });
  const log = (msg: string) => process.stderr.write(`[${bench}] ${msg}\n`);
  const ctx: BenchContext & { close(): Promise<void> } = {
    bench,
    ...opts,
    bin,
    log,
    tempDir,
    cliEnv,
    async sandbox(args = [], env = {}) {
      const sb = await startSandbox(opts.node, bin, cliEnv(env), args);
      const stop = sb.stop;
      const tracked: Sandbox = {
        ...sb,
        stop: async () => {
          const i = sandboxes.indexOf(tracked);
          if (i >= 0) sandboxes.splice(i, 1);
          await stop();
        },
      };
      sandboxes.push(tracked);
      return tracked;
    },
    world: (notes) => ensureWorld(opts.cacheDir, notes, log),
    async runCase(id, title, targets, body) {
      const load = loadavg();
      let c: CaseResult;
      try {
        const r = await body();
        const rss = Object.entries(r.peakRssMb ?? {}).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
        const base = { bench, id, title, load, ...(rss.length ? { peakRssMb: Object.fromEntries(rss) } : {}), ...(r.info ? { info: Object.fromEntries(Object.entries(r.info).filter((e): e is [string, string | number] => e[1] !== undefined)) } : {}) };
        c = r.a && r.b ? pairedCase(base, r.a, r.b) : { ...base, a: r.a };
      } catch (e) {
        const why = (e as Error).message;
        c = { bench, id, title, load, na: why, ...(e instanceof NotApplicable ? {} : { failed: true }) };
        for (const t of targets) if (!hooks.hasReport(t)) hooks.onReport(t, { value: null, detail: `case failed: ${why}` });
      }
      hooks.onCase(c);
      return c;
    },
    report: (id, r) => hooks.onReport(id, r),
    async close() {
      for (const sb of [...sandboxes]) await sb.stop().catch(() => {});
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
  return ctx;
}

/** The git commit of a checkout and whether it has uncommitted changes (null when it is not a git checkout). */
export function gitState(dir: string): { commit: string | null; dirty: boolean | null } {
  const head = spawnSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) return { commit: null, dirty: null };
  const status = spawnSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
  return { commit: head.stdout.trim(), dirty: status.status === 0 ? status.stdout.trim() !== '' : null };
}

export function checkRoot(root: string): void {
  if (!existsSync(join(root, 'bin', 'notevox.js'))) throw new Error(`${root} has no bin/notevox.js: --root must be a notevox checkout`);
  if (!existsSync(join(root, 'dist', 'cli.js'))) throw new Error(`${root}/dist/cli.js is missing: run \`npm ci\` (or \`npm run build\`) in that checkout first`);
}

/** One sandbox start with `args`, timed to listening (seconds), then stopped; its RSS at ready goes into `rss` if given. */
export async function timedStart(ctx: Pick<BenchContext, 'sandbox'>, args: string[], env?: Record<string, string>, rss?: number[]): Promise<number> {
  const sb = await ctx.sandbox(args, env);
  try {
    if (rss && sb.readyRssMb !== undefined) rss.push(sb.readyRssMb);
    return sb.startMs / 1000;
  } finally {
    await sb.stop();
  }
}
