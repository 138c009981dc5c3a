// Shared helpers for the benches run by test/bench/run.ts: timing child processes, statistics, a
// sandbox started through the built CLI, and the result table. Numbers are printed, never asserted.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildPath, endpoint } from '../../src/contract/endpoints.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'notevox.js');

/** One line of a bench's result table. */
export interface BenchRow {
  case: string;
  medianMs: number;
  p90Ms: number;
  /** Median divided by the baseline median (1 for the baseline itself); absent when there is none. */
  ratio?: number;
  /** The ratio the row should stay within. */
  target?: number;
}

export interface Sandbox {
  baseUrl: string;
  /** Full keys (`id.secret`) in the seed's order. Demo values of the local sandbox, never real credentials. */
  keys: string[];
  /** A note guid, when the sandbox's JSON line lists notes. */
  noteGuid?: string;
}

/** What the runner hands to every bench's `run(ctx)`. */
export interface BenchContext {
  runs: number;
  warmups: number;
  /** Samples of `node -e 0` (the baseline of startup costs), measured once per run of the runner. */
  baseline(): Promise<number[]>;
  /** A sandbox shared by the benches of this run (started on first use, stopped by the runner). */
  sandbox(): Promise<Sandbox>;
  /** A fresh empty directory, removed when the runner ends. */
  tempDir(): string;
  /** An environment for the CLI: no colour, non-interactive, an empty config dir, plus `extra`. */
  cliEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
}

export function median(samples: number[]): number {
  return percentile(samples, 50);
}

/** Nearest-rank percentile. */
export function percentile(samples: number[], p: number): number {
  if (!samples.length) throw new Error('no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Wall-clock milliseconds of `node <args>`, `runs` times after `warmups` unmeasured runs; any failure throws. */
export function timeNode(args: string[], opts: { runs: number; warmups: number; env?: NodeJS.ProcessEnv }): number[] {
  const samples: number[] = [];
  for (let i = 0; i < opts.warmups + opts.runs; i++) {
    const start = performance.now();
    const r = spawnSync(process.execPath, args, { env: opts.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const ms = performance.now() - start;
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${r.status ?? r.signal}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    if (i >= opts.warmups) samples.push(ms);
  }
  return samples;
}

/** A table row from samples; `baselineMs` and `target` give the ratio and the PASS/MISS column. */
export function row(name: string, samples: number[], opts: { baselineMs?: number; target?: number } = {}): BenchRow {
  const medianMs = median(samples);
  return { case: name, medianMs, p90Ms: percentile(samples, 90), ratio: opts.baselineMs ? medianMs / opts.baselineMs : undefined, target: opts.target };
}

export function formatTable(title: string, rows: BenchRow[]): string {
  const cells = [
    ['case', 'median ms', 'p90 ms', 'ratio', 'target', ''],
    ...rows.map((r) => [
      r.case,
      r.medianMs.toFixed(1),
      r.p90Ms.toFixed(1),
      r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}×`,
      r.target === undefined ? '' : `≤ ${r.target}×`,
      r.target === undefined || r.ratio === undefined ? '' : r.ratio <= r.target ? 'PASS' : 'MISS',
    ]),
  ];
  const widths = cells[0].map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ').trimEnd();
  return [title, line(cells[0]), ...cells.slice(1).map(line)].join('\n') + '\n';
}

/**
 * Start `notevox sandbox start --port 0 --json` from the build and read its first stdout line
 * (`{baseUrl, keys}`); throws with the sandbox's own error output if it does not come up.
 */
export async function startSandbox(env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<Sandbox & { stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'start', '--port', '0', '--rate-limit', '0', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-2000)));
  const fail = (why: string) => new Error(`the sandbox could not start (${why})${stderr.trim() ? `:\n${stderr.trim()}` : ''}`);
  let line: string;
  try {
    line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(fail(`no output within ${timeoutMs / 1000} s`)), timeoutMs);
      createInterface({ input: child.stdout! }).once('line', (l) => {
        clearTimeout(timer);
        resolve(l);
      });
      child.once('error', (e) => reject(fail(e.message)));
      child.once('exit', (code, signal) => reject(fail(`exited with ${code ?? signal}`)));
    });
  } catch (e) {
    await stop(child);
    throw e;
  }
  let parsed: { baseUrl?: unknown; keys?: Array<{ key?: string; id?: string; secret?: string }>; notes?: Array<{ guid?: string }> };
  try {
    parsed = JSON.parse(line);
  } catch {
    await stop(child);
    throw fail(`its first line is not JSON: ${line.slice(0, 200)}`);
  }
  const keys = (parsed.keys ?? []).map((k) => k.key ?? (k.id && k.secret ? `${k.id}.${k.secret}` : '')).filter(Boolean);
  if (typeof parsed.baseUrl !== 'string' || !keys.length) {
    await stop(child);
    throw fail('its JSON line has no baseUrl or no keys');
  }
  return { baseUrl: parsed.baseUrl, keys, noteGuid: parsed.notes?.[0]?.guid, stop: () => stop(child) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** A note and a key that reads it (the JSON line's note with the first key, else the first listed note): for note benches. */
export async function findNote(sandbox: Sandbox): Promise<{ guid: string; key: string }> {
  if (sandbox.noteGuid) return { guid: sandbox.noteGuid, key: sandbox.keys[0] };
  const url = sandbox.baseUrl.replace(/\/+$/, '') + buildPath(endpoint('notes.list'));
  for (const key of sandbox.keys) {
    const res = await fetch(`${url}?size=1`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
    if (!res.ok) continue;
    const body = (await res.json()) as { content?: Array<{ guid?: string; noteGuid?: string }> };
    const note = body.content?.[0];
    const guid = note?.guid ?? note?.noteGuid;
    if (guid) return { guid, key };
  }
  throw new Error(`no seeded key of the sandbox at ${sandbox.baseUrl} lists any note`);
}

/** The context the runner passes to benches; `close()` stops the sandbox and removes temp dirs. */
export function createBenchContext(opts: { runs: number; warmups: number }): BenchContext & { close(): Promise<void> } {
  const dirs: string[] = [];
  let baseline: Promise<number[]> | undefined;
  let sandbox: ReturnType<typeof startSandbox> | undefined;
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'notevox-bench-'));
    dirs.push(d);
    return d;
  };
  const cliEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CI: '1', NOTEVOX_CONFIG_DIR: tempDir(), ...extra };
    for (const k of ['NOTEVOX_API_KEY', 'NOTEVOX_BASE_URL', 'NOTEVOX_PROFILE', 'NOTEVOX_DEBUG']) if (!(k in extra)) delete env[k];
    return env;
  };
  return {
    ...opts,
    baseline: () => (baseline ??= Promise.resolve().then(() => timeNode(['-e', '0'], opts))),
    sandbox: () => (sandbox ??= startSandbox(cliEnv())),
    tempDir,
    cliEnv,
    async close() {
      if (sandbox) await sandbox.then((s) => s.stop(), () => {});
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    },
  };
}
