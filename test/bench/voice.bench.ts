// Voice uploads: a generated 400 MB WAV-headed file through `notevox voice upload` beside `curl -T` to a fresh
// signed URL of the same sandbox (target: at least 0.8× curl's throughput, i.e. at most 1.25× its time), the
// CLI's peak RSS during that upload (target under 120 MB), and the time from upload-complete to the printed
// transcript beside the sandbox's configured pace (two stages of --job-seconds, default 2 s).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { DEFAULT_JOB_SECONDS } from '../../src/sandbox/voice/worker.js';
import { writeLargeWav } from '../helpers/audio.js';
import { BIN, median, ROOT, row, type BenchContext, type BenchRow } from './lib.js';

export const title = 'voice upload of a 400 MB file, memory, and time to transcript';

const UPLOAD_BYTES = 400 * 1000 * 1000;
/** Uploads are slow and write 400 MB each: a few runs are enough. */
const MAX_UPLOAD_RUNS = 3;
const RSS_LIMIT_MB = 120;
const KEY = DEMO_KEYS.workspaceKey.token;

interface Timed {
  /** ms from the first stderr line matching `from` to the first matching `to` (or to the exit). */
  spanMs: number;
  /** Highest VmHWM seen in /proc (Linux), MB; undefined elsewhere. */
  peakRssMb?: number;
  stdout: string;
}

/** Run the CLI, timing the span between two stderr lines and sampling its peak RSS. */
function runCli(args: string[], env: NodeJS.ProcessEnv, from: RegExp, to?: RegExp): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    let start: number | undefined;
    let end: number | undefined;
    let peak: number | undefined;
    const status = `/proc/${child.pid}/status`;
    const sample = () => {
      try {
        const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'))?.[1]);
        if (kb) peak = Math.max(peak ?? 0, kb / 1024);
      } catch {
        // not Linux, or the process is gone
      }
    };
    const sampler = setInterval(sample, 20);
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      sample();
      if (start === undefined && from.test(stderr)) start = performance.now();
      if (to && end === undefined && start !== undefined && to.test(stderr)) end = performance.now();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const exitAt = performance.now();
      clearInterval(sampler);
      if (code !== 0 || start === undefined) return reject(new Error(`notevox ${args.join(' ')} exited with ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
      resolve({ spanMs: (end ?? exitAt) - start, peakRssMb: peak, stdout });
    });
  });
}

async function api<T>(baseUrl: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (res.status === 204 ? undefined : await res.json()) as T;
}

const deleteJob = (baseUrl: string, id: string) => api(baseUrl, 'DELETE', buildPath(endpoint('voice.delete'), { jobId: id }));

/** `curl -T` of the file to a fresh signed URL; the job is deleted afterwards (the sandbox keeps no 400 MB files). */
async function curlUpload(baseUrl: string, file: string): Promise<number> {
  const job = await api<{ id: string; uploadUri: string }>(baseUrl, 'POST', buildPath(endpoint('voice.create')), {});
  try {
    const started = performance.now();
    const r = spawnSync('curl', ['-sS', '--fail', '-o', '/dev/null', '-T', file, '-H', 'Content-Type: audio/wav', job.uploadUri], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    const ms = performance.now() - started;
    if (r.status !== 0) throw new Error(`curl -T failed (${r.status}): ${r.stderr.trim()}`);
    return ms;
  } finally {
    await deleteJob(baseUrl, job.id);
  }
}

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const sandbox = await ctx.sandbox();
  const env = ctx.cliEnv({ NOTEVOX_API_KEY: KEY, NOTEVOX_BASE_URL: sandbox.baseUrl });
  const file = join(ctx.tempDir(), 'big.wav');
  writeLargeWav(file, UPLOAD_BYTES - 44);
  const runs = Math.max(1, Math.min(ctx.runs, MAX_UPLOAD_RUNS));
  const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

  const cliMs: number[] = [];
  const curlMs: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < runs; i++) {
    // the upload is the span between "Created voice job" (just before the PUT) and "Uploaded …" (just after it)
    const t = await runCli(['voice', 'upload', file, '--no-wait'], env, /Created voice job/, /Uploaded big\.wav/);
    await deleteJob(sandbox.baseUrl, t.stdout.trim()); // before the worker reads 400 MB
    cliMs.push(t.spanMs);
    if (t.peakRssMb !== undefined) rss.push(t.peakRssMb);
    if (hasCurl) curlMs.push(await curlUpload(sandbox.baseUrl, file));
  }

  const rows: BenchRow[] = [];
  if (hasCurl) rows.push(row('curl -T 400 MB (baseline)', curlMs, { baselineMs: median(curlMs) }));
  rows.push(row('notevox voice upload 400 MB (upload only)', cliMs, hasCurl ? { baselineMs: median(curlMs), target: 1.25 } : {}));
  if (rss.length) {
    // peak RSS in MB, shown in the value columns; the ratio is against the 120 MB target
    rows.push(row(`notevox peak RSS during it (MB, limit ${RSS_LIMIT_MB})`, rss, { baselineMs: RSS_LIMIT_MB, target: 1 }));
  }

  // upload-complete → transcript printed, beside the sandbox's pace (UPLOADED → PROCESSING → COMPLETED)
  const sample = join(ROOT, 'samples', 'hello.wav');
  if (existsSync(sample)) {
    const paceMs = 2 * DEFAULT_JOB_SECONDS * 1000;
    const waits: number[] = [];
    for (let i = 0; i < runs; i++) waits.push((await runCli(['voice', 'upload', sample], env, /Uploaded hello\.wav/)).spanMs);
    rows.push(row(`upload-complete → transcript (pace ${paceMs} ms)`, waits, { baselineMs: paceMs, target: 1.5 }));
  }
  return rows;
}
