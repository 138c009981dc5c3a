// `notevox mcp`: the time from spawn to the answer of `tools/list` (initialize, initialized, tools/list over
// stdio), paired with the same for the smallest SDK server with one tool (fixtures/minimal-mcp.mjs); and the size
// of the `tools/list` answer, read-only (the default) and with every tool offered, in bytes and ≈ tokens (bytes/4).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { FIXTURES, type BenchContext } from './lib.js';
import { series } from './results.js';
import { alternate, median } from './stats.js';

export const title = '`notevox mcp`: initialize + tools/list over stdio, and the size of tools/list';

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'notevox-bench', version: '1.0.0' } } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

/** Spawn `node args`, speak initialize + tools/list, close stdin: ms from spawn to the tools/list answer, and that answer's bytes. */
function session(node: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; bytes: number; tools: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(node, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr = (stderr + s).slice(-4000)));
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${code}) before answering tools/list: ${stderr.trim()}`));
    });
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      buffer += s;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const msg = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (msg.id === 1) child.stdin.write(JSON.stringify(INITIALIZED) + '\n' + JSON.stringify(LIST) + '\n');
        if (msg.id === 2) {
          const ms = performance.now() - started;
          clearTimeout(timer);
          child.removeAllListeners('close');
          child.stdin.end();
          child.once('close', () => resolve({ ms, bytes: Buffer.byteLength(line), tools: msg.result?.tools?.length ?? 0 }));
        }
      }
    });
    child.stdin.write(JSON.stringify(INITIALIZE) + '\n');
  });
}

export async function run(ctx: BenchContext): Promise<void> {
  const env = ctx.cliEnv({ NOTEVOX_BASE_URL: 'http://127.0.0.1:4010' });
  const minimal = [join(FIXTURES, 'minimal-mcp.mjs')];
  const cli = (...flags: string[]) => [ctx.bin, 'mcp', ...flags];

  await ctx.runCase('startup', '`notevox mcp` vs a one-tool SDK server: spawn → tools/list answered', ['mcp.startup'], async () => {
    const s = await alternate(
      { pairs: ctx.pairs * 2, warmups: Math.max(1, ctx.warmups) },
      async () => (await session(ctx.node, cli(), env)).ms,
      async () => (await session(ctx.node, minimal, env)).ms,
    );
    ctx.report('mcp.startup', { value: median(s.a.map((x, i) => x / s.b[i]!)) });
    return { a: series('notevox mcp', 'ms', s.a), b: series('minimal SDK server', 'ms', s.b) };
  });

  await ctx.runCase('size', 'size of the tools/list answer (read-only default; every tool)', ['mcp.size'], async () => {
    const ro = await session(ctx.node, cli(), env);
    const all = await session(ctx.node, cli('--allow-writes', '--allow-destructive'), env);
    ctx.report('mcp.size', { value: ro.bytes / 1000, detail: `every tool (--allow-writes --allow-destructive): ${(all.bytes / 1000).toFixed(1)} kB, ${all.tools} tools` });
    return {
      info: {
        'read-only: tools': ro.tools,
        'read-only: bytes': ro.bytes,
        'read-only: ≈ tokens': Math.round(ro.bytes / 4),
        'every tool: tools': all.tools,
        'every tool: bytes': all.bytes,
        'every tool: ≈ tokens': Math.round(all.bytes / 4),
      },
    };
  });
}
