// Voice uploads: a generated 400 MB WAV through `notevox voice upload --no-wait` and through `curl -T` to a
// fresh signed URL of the same sandbox, in alternating pairs (throughput in MB/s; the CLI's is timed from its
// "Created voice job" line, just before the PUT, to its "Uploaded" line, so that both sides time the transfer
// alone), the CLI's peak RSS, and the time from upload-complete to the printed transcript beside the sandbox's
// pace (two stages of --job-seconds). Beside the whole-process case, node:http scripts making the same three calls are
// timed against curl too (fixtures/voice-node.mjs): a plain one, and a lean one that sends the file as notevox does
// and does nothing else (also with its PUT on a raw socket): what Node itself costs a client, with no notevox code.
// Beside the ratios, the CPU each side spent (the client's processes, the sandbox's threads), read from /proc.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { writeLargeWav } from '../helpers/audio.js';
import { api, BENCH_ROOT, childrenCpuMs, cpuMs, FIXTURES, NotApplicable, runNode, tail, type BenchContext, type Sandbox } from './lib.js';
import { series } from './results.js';
import { alternate, median, pairRatios, repeat } from './stats.js';

export const title = 'voice upload of a 400 MB file against curl -T, memory, and time to transcript';

const JOB_SECONDS = 2;
const KEY_ID = 'nvk_ws_product';

const deleteJob = (sb: Sandbox, id: string) => api(sb.baseUrl, sb.key(KEY_ID), 'DELETE', buildPath(endpoint('voice.delete'), { jobId: id }));

/**
 * CPU time (user + system, ms) for the breakdowns printed beside the ratios, read from /proc without touching the
 * processes timed: the sandbox's (all its threads, receiving and writing the upload) from its own stat, and the clients'
 * (the CLI's node process, curl's processes) from this process's children's total, which grows by a child's CPU when
 * it is reaped (lib.ts cpuMs, childrenCpuMs). Linux only, in clock ticks of 10 ms: medians over the pairs.
 */
/** CPU spent by the sandbox and by this process's children while `fn` runs, pushed to `into` when known. */
async function cpuAround<T>(sb: Sandbox, into: { sandbox: number[]; client: number[] } | undefined, fn: () => Promise<T>): Promise<T> {
  const s0 = cpuMs(sb.pid);
  const c0 = childrenCpuMs();
  const r = await fn();
  const s1 = cpuMs(sb.pid);
  const c1 = childrenCpuMs();
  if (into && s0 !== undefined && s1 !== undefined) into.sandbox.push(s1 - s0);
  if (into && c0 !== undefined && c1 !== undefined) into.client.push(c1 - c0);
  return r;
}
const cpuSeries = () => ({ sandbox: [] as number[], client: [] as number[] });
/** Milliseconds (a median, rounded) for the bench's info lines, or n/a when nothing was measured. */
const ms = (v: number[]) => (v.length ? Math.round(median(v)) : 'n/a');

/** `curl -T` of the file to a fresh signed URL: seconds of the transfer. The job is deleted afterwards. */
async function curlUpload(sb: Sandbox, file: string, cpu?: ReturnType<typeof cpuSeries>): Promise<number> {
  const job = await api<{ id: string; uploadUri: string }>(sb.baseUrl, sb.key(KEY_ID), 'POST', buildPath(endpoint('voice.create')), {});
  try {
    const started = performance.now();
    const r = await cpuAround(sb, cpu, () => new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn('curl', ['-sS', '--fail', '-o', '/dev/null', '-T', file, '-H', 'Content-Type: audio/wav', job.uploadUri], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stderr }));
    }));
    const seconds = (performance.now() - started) / 1000;
    if (r.code !== 0) throw new Error(`curl -T failed (${r.code}): ${r.stderr.trim()}`);
    return seconds;
  } finally {
    await deleteJob(sb, job.id);
  }
}

/** A process to its exit: its stdout, or an error naming it with its stderr. */
function runTool(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${cmd} ${args[0]} … failed (${code}): ${stderr.trim()}`))));
  });
}

/**
 * What a user of curl runs for one upload, as whole processes: create the job (curl POST), `curl -T` the file to
 * its uploadUri, tell the service the upload is complete (curl PUT). Seconds from the first start to the last exit,
 * and the milliseconds of each call; the job is deleted afterwards.
 */
async function curlThreeCalls(sb: Sandbox, file: string, phases?: { create: number[]; put: number[]; complete: number[] }, cpu?: ReturnType<typeof cpuSeries>): Promise<number> {
  const auth = ['-H', `Authorization: Bearer ${sb.key(KEY_ID)}`, '-H', 'Content-Type: application/json'];
  const url = (path: string) => sb.baseUrl.replace(/\/+$/, '') + path;
  const started = performance.now();
  let jobId: string | undefined;
  try {
    const { created, put, done } = await cpuAround(sb, cpu, async () => {
      const job = JSON.parse(await runTool('curl', ['-sS', '--fail', ...auth, '-X', 'POST', '-d', '{}', url(buildPath(endpoint('voice.create')))])) as { id: string; uploadUri: string };
      jobId = job.id;
      const created = performance.now();
      await runTool('curl', ['-sS', '--fail', '-o', '/dev/null', '-T', file, '-H', 'Content-Type: audio/wav', job.uploadUri]);
      const put = performance.now();
      await runTool('curl', ['-sS', '--fail', '-o', '/dev/null', ...auth, '-X', 'PUT', url(buildPath(endpoint('voice.uploadComplete'), { jobId: job.id }))]);
      return { created, put, done: performance.now() };
    });
    phases?.create.push(created - started);
    phases?.put.push(put - created);
    phases?.complete.push(done - put);
    return (done - started) / 1000;
  } finally {
    if (jobId) await deleteJob(sb, jobId);
  }
}

/** The CLI: seconds between two stderr lines (or to the exit), its stdout and peak RSS. */
async function cliSpan(ctx: BenchContext, sb: Sandbox, args: string[], from: RegExp, to?: RegExp): Promise<{ seconds: number; stdout: string; peakRssMb?: number }> {
  let stderr = '';
  let start: number | undefined;
  let end: number | undefined;
  const r = await runNode(ctx.node, [ctx.bin, ...args], {
    env: ctx.cliEnv({ NOTEVOX_API_KEY: sb.key(KEY_ID), NOTEVOX_BASE_URL: sb.baseUrl }),
    rss: true,
    onStderr: (s, at) => {
      stderr += s;
      if (start === undefined && from.test(stderr)) start = at;
      if (to && end === undefined && start !== undefined && to.test(stderr)) end = at;
    },
  });
  if (r.code !== 0) throw new Error(`notevox ${args.join(' ')} exited with ${r.code}: ${tail(r.stderr)}`);
  if (start === undefined) throw new Error(`notevox ${args.join(' ')} printed no line matching ${from}`);
  return { seconds: ((end ?? r.exitAt) - start) / 1000, stdout: r.stdout, peakRssMb: r.peakRssMb };
}

export async function run(ctx: BenchContext): Promise<void> {
  const bytes = ctx.quick ? 40e6 : 400e6;
  const mb = bytes / 1e6;
  const sb = await ctx.sandbox(['--job-seconds', String(JOB_SECONDS)]);
  const file = join(ctx.tempDir(), 'big.wav');
  const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
  /** The file every upload case sends, written by the first that runs. */
  const wav = () => {
    if (!existsSync(file)) writeLargeWav(file, bytes - 44);
  };
  /** The file, for a case that compares with curl (not applicable without it). */
  const wavAndCurl = () => {
    if (!hasCurl) throw new NotApplicable('curl is not installed (Debian package curl)');
    wav();
  };

  await ctx.runCase('upload', `voice upload of ${mb} MB vs curl -T (MB/s)`, ['voice.throughput', 'voice.rss'], async () => {
    wavAndCurl();
    const rss: number[] = [];
    const cliCpu = cpuSeries();
    const curlCpu = cpuSeries();
    const cli = async (i: number) => {
      const t = await cpuAround(sb, i >= 0 ? cliCpu : undefined, () => cliSpan(ctx, sb, ['voice', 'upload', file, '--no-wait'], /Created voice job/, /Uploaded big\.wav/));
      await deleteJob(sb, t.stdout.trim()); // before the sandbox's worker reads 400 MB
      if (i >= 0 && t.peakRssMb !== undefined) rss.push(t.peakRssMb);
      return mb / t.seconds;
    };
    const s = await alternate({ pairs: ctx.pairs, warmups: ctx.warmups }, cli, async (i) => mb / (await curlUpload(sb, file, i >= 0 ? curlCpu : undefined)));
    ctx.report('voice.throughput', { value: median(pairRatios(s.a, s.b)) });
    // CPU (ms, medians): the CLI's whole process (its start and the create and complete calls included) beside
    // `curl -T`'s, and the sandbox's while each ran: where the 2 cores went.
    const info = {
      'CPU ms: notevox process': ms(cliCpu.client),
      'curl -T': ms(curlCpu.client),
      'sandbox during notevox': ms(cliCpu.sandbox),
      'sandbox during curl -T': ms(curlCpu.sandbox),
    };
    ctx.report('voice.rss', rss.length ? { value: Math.max(...rss), detail: `max of ${rss.length} uploads` } : { value: null, detail: 'no RSS (not Linux?)' });
    return { a: series('notevox voice upload', 'MB/s', s.a), b: series('curl -T', 'MB/s', s.b), peakRssMb: rss.length ? { 'notevox (max)': Math.max(...rss) } : {}, info };
  });

  // As a user experiences it: `voice upload --no-wait` from its start to its exit (start-up, preflight, create,
  // upload, complete) beside curl's three calls, each also a whole process. Where the time goes is printed beside the
  // ratio (medians, ms): the CLI to its "Created voice job" line (Node's start, the CLI's, the preflight and the
  // create call), from there to its "Uploaded" line (the PUT), and from there to its exit (upload-complete); curl's
  // three calls each; and `node -e 0`, timed once per pair: the part of the CLI's start that no code of ours can save.
  const env = ctx.cliEnv({ NOTEVOX_API_KEY: sb.key(KEY_ID), NOTEVOX_BASE_URL: sb.baseUrl });
  /** `voice upload --no-wait` of the file as a whole process; its job deleted after. */
  const cliProcess = async (onStderr?: (s: string, at: number) => void) => {
    const r = await runNode(ctx.node, [ctx.bin, 'voice', 'upload', file, '--no-wait'], { env, onStderr });
    if (r.code !== 0) throw new Error(`notevox voice upload exited with ${r.code}: ${tail(r.stderr)}`);
    await deleteJob(sb, r.stdout.trim());
    return r;
  };
  await ctx.runCase('upload-process', `voice upload --no-wait of ${mb} MB as a whole process vs curl's three calls (MB/s)`, ['voice.process'], async () => {
    wavAndCurl();
    const cliPhases = { start: [] as number[], put: [] as number[], complete: [] as number[] };
    const curlPhases = { create: [] as number[], put: [] as number[], complete: [] as number[] };
    const bare: number[] = [];
    const cliCpu = cpuSeries();
    const curlCpu = cpuSeries();
    const cli = async (i: number) => {
      let stderr = '';
      let created: number | undefined;
      let uploaded: number | undefined;
      const r = await cpuAround(sb, i >= 0 ? cliCpu : undefined, () =>
        cliProcess((s, at) => {
          stderr += s;
          if (created === undefined && /Created voice job/.test(stderr)) created = at;
          if (uploaded === undefined && /Uploaded big\.wav/.test(stderr)) uploaded = at;
        }),
      );
      if (i >= 0 && created !== undefined && uploaded !== undefined) {
        cliPhases.start.push(created - (r.exitAt - r.ms));
        cliPhases.put.push(uploaded - created);
        cliPhases.complete.push(r.exitAt - uploaded);
      }
      if (i >= 0) bare.push((await runNode(ctx.node, ['-e', '0'], { env })).ms);
      return mb / (r.ms / 1000);
    };
    const s = await alternate({ pairs: ctx.pairs, warmups: ctx.warmups }, cli, async (i) => mb / (await curlThreeCalls(sb, file, i >= 0 ? curlPhases : undefined, i >= 0 ? curlCpu : undefined)));
    ctx.report('voice.process', { value: median(pairRatios(s.a, s.b)) });
    const info = {
      'notevox to Created': ms(cliPhases.start),
      'notevox Created→Uploaded': ms(cliPhases.put),
      'notevox Uploaded→exit': ms(cliPhases.complete),
      'curl create': ms(curlPhases.create),
      'curl -T': ms(curlPhases.put),
      'curl complete': ms(curlPhases.complete),
      'node -e 0': ms(bare),
      'CPU ms: notevox process': ms(cliCpu.client),
      "curl's three": ms(curlCpu.client),
      'sandbox during notevox': ms(cliCpu.sandbox),
      "sandbox during curl's": ms(curlCpu.sandbox),
    };
    return { a: series('notevox voice upload --no-wait (process)', 'MB/s', s.a), b: series('curl: create, -T, complete', 'MB/s', s.b), info };
  });

  // What Node itself costs a client, as the node:http one-shot shows for `notes get`: node:http scripts making the same
  // three calls as whole processes beside curl's (fixtures/voice-node.mjs): the plain one is what anyone would write
  // (a read stream piped into the request); the lean one sends the file as notevox does and does nothing else, the
  // floor Node allows under notevox's own ratio, and the raw one the same with its PUT written straight to a socket (no
  // node:http, curl's send loop); last, notevox against the lean script.
  const base = sb.baseUrl.replace(/\/+$/, '');
  const script = (mode: 'plain' | 'lean' | 'raw') => async () => {
    const args = [join(FIXTURES, 'voice-node.mjs'), base + buildPath(endpoint('voice.create')), base + endpoint('voice.uploadComplete').path, file, mode];
    const r = await runNode(ctx.node, args, { env });
    if (r.code !== 0) throw new Error(`voice-node.mjs ${mode} exited with ${r.code}: ${tail(r.stderr)}`);
    await deleteJob(sb, r.stdout.trim());
    return mb / (r.ms / 1000);
  };
  const scripts = [
    { id: 'upload-process-node', mode: 'plain', label: 'a plain node:http script' },
    { id: 'upload-process-lean', mode: 'lean', label: 'the lean node:http script' },
    { id: 'upload-process-raw', mode: 'raw', label: 'the lean script with its PUT on a raw socket' },
  ] as const;
  for (const { id, mode, label } of scripts) {
    await ctx.runCase(id, `${label}'s three calls for ${mb} MB as a whole process vs curl's (MB/s)`, [], async () => {
      wavAndCurl();
      const s = await alternate({ pairs: ctx.pairs, warmups: ctx.warmups }, script(mode), async () => mb / (await curlThreeCalls(sb, file)));
      return { a: series(`voice-node.mjs ${mode}: create, PUT, complete (process)`, 'MB/s', s.a), b: series('curl: create, -T, complete', 'MB/s', s.b) };
    });
  }
  await ctx.runCase('upload-process-vs-lean', `voice upload --no-wait of ${mb} MB as a whole process vs the lean node:http script's (MB/s)`, [], async () => {
    wav();
    const cli = async () => mb / ((await cliProcess()).ms / 1000);
    const s = await alternate({ pairs: ctx.pairs, warmups: ctx.warmups }, cli, script('lean'));
    return { a: series('notevox voice upload --no-wait (process)', 'MB/s', s.a), b: series('voice-node.mjs lean (process)', 'MB/s', s.b) };
  });

  const sample = join(BENCH_ROOT, 'samples', 'hello.wav');
  const paceMs = 2 * JOB_SECONDS * 1000;
  await ctx.runCase('transcript', `upload-complete → transcript printed, beside the pace (${paceMs} ms)`, ['voice.transcript'], async () => {
    if (!existsSync(sample)) throw new NotApplicable(`${sample} is missing`);
    const waits = await repeat({ runs: Math.min(ctx.pairs, 3), warmups: 0 }, async () => (await cliSpan(ctx, sb, ['voice', 'upload', sample], /Uploaded hello\.wav/)).seconds * 1000);
    ctx.report('voice.transcript', { value: median(waits) / paceMs, detail: `median ${median(waits).toFixed(0)} ms` });
    return { a: series('upload-complete → transcript', 'ms', waits), info: { 'pace ms': paceMs } };
  });
  await sb.stop();
}
