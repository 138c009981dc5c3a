// Start-up: whole-process wall clock of `--version`, `--help`, `notes list --help`, `notes get -o json` and
// `auth status` (against a local sandbox; auth status checks the service's answer against the contract), each paired with `node -e 0` of the same Node binary (the floor: nothing the CLI
// can do starts faster). Peak RSS of each comes from one extra, untimed run. `notes get` and `sandbox start` run with
// Node's compile cache warm (the target) and cold.
import { buildPath, endpoint } from '../../src/contract/endpoints.js';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { api, cleanEnv, FIXTURES, runNode, timeNodeSync, type BenchContext } from './lib.js';
import { series } from './results.js';
import { alternate, median } from './stats.js';

export const title = 'start-up of the CLI against `node -e 0`';

/** Start-up runs are short: three times the pairs of the slow cases, and two warm-ups. */
const PAIRS_FACTOR = 3;

export async function run(ctx: BenchContext): Promise<void> {
  const pairs = ctx.pairs * PAIRS_FACTOR;
  const warmups = Math.max(2, ctx.warmups);
  const floor = ['-e', '0'];

  const measure = async (id: string, label: string, target: string, args: string[], env: NodeJS.ProcessEnv) =>
    ctx.runCase(id, `\`notevox ${label}\` vs \`node -e 0\``, [target], async () => {
      const s = await alternate(
        { pairs, warmups },
        () => timeNodeSync(ctx.node, [ctx.bin, ...args], env),
        () => timeNodeSync(ctx.node, floor, env),
      );
      const [cli, bare] = await Promise.all([runNode(ctx.node, [ctx.bin, ...args], { env, rss: true }), runNode(ctx.node, floor, { env, rss: true })]);
      if (cli.code !== 0) throw new Error(`notevox ${label} exited with ${cli.code}`);
      const a = series(`notevox ${label}`, 'ms', s.a);
      const b = series('node -e 0', 'ms', s.b);
      const ratios = s.a.map((x, i) => x / s.b[i]);
      ctx.report(target, { value: median(ratios) });
      const peakRssMb: Record<string, number> = {};
      if (cli.peakRssMb !== undefined) peakRssMb[`notevox ${label}`] = cli.peakRssMb;
      if (bare.peakRssMb !== undefined) peakRssMb['node -e 0'] = bare.peakRssMb;
      return { a, b, peakRssMb };
    });

  const env = ctx.cliEnv();
  await sandboxStart(ctx, pairs, warmups);
  await measure('version', '--version', 'startup.version', ['--version'], env);
  await measure('help', '--help', 'startup.help', ['--help'], env);
  await measure('notes-list-help', 'notes list --help', 'startup.notesListHelp', ['notes', 'list', '--help'], env);

  let guid: string | undefined;
  let key: string | undefined;
  let baseUrl: string | undefined;
  let setupError: Error | undefined;
  try {
    const sandbox = await ctx.sandbox();
    baseUrl = sandbox.baseUrl;
    key = sandbox.key('nvk_user_admin');
    const list = await api<{ content: Array<{ guid?: string; noteGuid?: string }> }>(baseUrl, key, 'GET', `${buildPath(endpoint('notes.list'))}?size=1`);
    guid = list.content[0]?.guid ?? list.content[0]?.noteGuid;
    if (!guid) throw new Error('the demo sandbox lists no note');
  } catch (e) {
    setupError = e as Error;
  }
  if (setupError || !guid || !key || !baseUrl) {
    await ctx.runCase('notes-get', '`notevox notes get -o json` vs `node -e 0`', ['startup.notesGet'], () => Promise.reject(setupError));
    await ctx.runCase('auth-status', '`notevox auth status` vs `node -e 0`', ['startup.authStatus'], () => Promise.reject(setupError));
    return;
  }
  const withKey = ctx.cliEnv({ NOTEVOX_API_KEY: key, NOTEVOX_BASE_URL: baseUrl });
  // Each case keeps one cache directory, so Node's compile cache (Node >= 22) is warm after the warm-ups, as for a
  // user's second command; the cold case gives every run an empty one (a first run, or a new version).
  await measure('notes-get', `notes get ${guid} -o json`, 'startup.notesGet', ['notes', 'get', guid, '-o', 'json'], withKey);
  await ctx.runCase('notes-get-cold', `\`notevox notes get -o json\`, compile cache cold, vs \`node -e 0\``, [], async () => {
    const args = [ctx.bin, 'notes', 'get', guid, '-o', 'json'];
    const s = await alternate(
      { pairs, warmups },
      () => timeNodeSync(ctx.node, args, { ...withKey, NOTEVOX_CACHE_DIR: ctx.tempDir() }),
      () => timeNodeSync(ctx.node, floor, withKey),
    );
    return { a: series('notevox notes get (cold cache)', 'ms', s.a), b: series('node -e 0', 'ms', s.b) };
  });
  await measure('auth-status', 'auth status', 'startup.authStatus', ['auth', 'status'], withKey);
}

/** ms from spawn to the first stdout line of `node <args>` (the process is then stopped). */
async function timeToFirstLine(node: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(node, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', () => resolve());
      child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before its first line`)));
    });
    return performance.now() - started;
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

/** Start `node <args>`, wait for its first stdout line, then stop it with SIGTERM as Ctrl-C would and wait for its exit. */
async function startAndStop(node: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(node, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise((r) => child.once('exit', r));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before its first line`)));
  });
  child.kill('SIGTERM');
  await exited;
}

/**
 * Demo-seed `sandbox start` to its JSON line (listening) against the bare hono app of the http bench to its own.
 * The target case is a user's next start: one cache directory, filled by a start stopped as a user stops it (Node
 * writes its compile cache at exit; the timed runs are SIGKILLed at their first line and write nothing). The cold
 * case gives every start an empty cache directory (a first start, or a new version).
 */
async function sandboxStart(ctx: BenchContext, pairs: number, warmups: number): Promise<void> {
  const body = join(ctx.tempDir(), 'body.json');
  writeFileSync(body, '{"ok":true}');
  const args = [ctx.bin, 'sandbox', 'start', '--port', '0', '--json'];
  const bare = () => timeToFirstLine(ctx.node, [join(FIXTURES, 'bare-hono.mjs'), '/x', body], cleanEnv());
  await ctx.runCase('sandbox-start', '`sandbox start` (demo seed) to listening vs a bare hono app to listening', ['startup.sandbox'], async () => {
    const env = ctx.cliEnv();
    await startAndStop(ctx.node, args, env);
    const s = await alternate({ pairs, warmups }, () => timeToFirstLine(ctx.node, args, env), bare);
    ctx.report('startup.sandbox', { value: median(s.a.map((x, i) => x / s.b[i])) });
    return { a: series('sandbox start (demo seed)', 'ms', s.a), b: series('bare hono app', 'ms', s.b) };
  });
  await ctx.runCase('sandbox-start-cold', '`sandbox start` (demo seed), compile cache cold, vs a bare hono app', [], async () => {
    const s = await alternate({ pairs, warmups }, () => timeToFirstLine(ctx.node, args, ctx.cliEnv()), bare);
    return { a: series('sandbox start (cold cache)', 'ms', s.a), b: series('bare hono app', 'ms', s.b) };
  });
}
