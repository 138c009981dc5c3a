import type { Readable, Writable } from 'node:stream';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { UsageError } from '../../errors.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';
import { allTools, createMcpServer, matchesTool, offeredTools, redacting } from './server.js';

/** The secrets no message of the server may carry: the API key, and webhook secrets the environment holds. */
export async function secretsOf(ctx: Context): Promise<string[]> {
  const key = (await ctx.credentials().catch(() => undefined))?.apiKey;
  return [key, ctx.env.NOTEVOX_WEBHOOK_SECRET, ctx.env.NOTEVOX_SANDBOX_WEBHOOK_SECRET].filter((s): s is string => typeof s === 'string' && s.trim() !== '');
}

/** `notevox mcp`: serve until the client closes stdin (or Ctrl-C / SIGTERM). Logs go to stderr, never stdout. */
export async function mcp(ctx: Context, flags: Flags<typeof cmd.mcp>): Promise<void> {
  if (flags.allowDestructive && !flags.allowWrites) throw new UsageError('--allow-destructive needs --allow-writes', 'Pass both: notevox mcp --allow-writes --allow-destructive.');
  ctx.takeOverInterrupt();
  const options = { allowWrites: flags.allowWrites, allowDestructive: flags.allowDestructive, tools: flags.tools };
  for (const glob of flags.tools ?? []) {
    if (!allTools().some((t) => matchesTool(glob, t.name))) ctx.io.warn(`--tools: "${glob}" names no tool (docs/mcp.md lists them)`);
  }
  const tools = offeredTools(options);
  if (tools.length === 0) throw new UsageError(`--tools ${flags.tools?.join(',')} matches no tool that is allowed`, 'See docs/mcp.md for the tool names, or `notevox mcp --help`.');
  const secrets = await secretsOf(ctx);
  const server = createMcpServer(ctx, options);
  const stdin = ctx.io.stdin as Readable;
  const transport = redacting(new StdioServerTransport(stdin, ctx.io.stdout as Writable), () => secrets);
  const mode = flags.allowWrites ? (flags.allowDestructive ? 'reads, writes and deletes' : 'reads and writes') : 'read-only';
  const client = await ctx.client().catch(() => undefined);
  ctx.io.info(`notevox mcp: ${tools.length} tools (${mode}) for ${client?.baseUrl ?? 'no base URL'} on stdio; close stdin or press Ctrl-C to stop.`);
  const handle = serveStdio(() => server, { transport, onerror: (e) => ctx.io.warn(`mcp: ${e.message}`) });
  await new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await handle.close();
}
