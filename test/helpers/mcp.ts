import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { GlobalOptions } from '../../src/commands/types.js';
import { useClientSettings } from '../../src/commands/mcp/composite.js';
import { secretsOf } from '../../src/commands/mcp/run.js';
import { createMcpServer, redacting, type McpServerOptions } from '../../src/commands/mcp/server.js';
import { createContext } from '../../src/context.js';
import { createMemoryIO } from '../../src/io/memory.js';
import { K, type KeyName } from './expect.js';
import { SANDBOX_URL, type commandSandbox } from './run-command.js';

/**
 * `notevox mcp` in this process: the server made by the command's own code, with a context as main() builds it
 * (memory streams, its own config dir and environment, the in-process sandbox as transport), linked to the SDK's
 * client by the SDK's in-memory transport.
 */
export async function mcpPair(sb: Awaited<ReturnType<typeof commandSandbox>>, key: KeyName | null, o: McpServerOptions & { env?: Record<string, string> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'nvx-mcp-'));
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', CI: '1', NOTEVOX_CONFIG_DIR: dir, NOTEVOX_CACHE_DIR: join(dir, 'cache'), NOTEVOX_BASE_URL: SANDBOX_URL, ...(key ? { NOTEVOX_API_KEY: K[key] } : {}), ...o.env };
  const memory = createMemoryIO({ env });
  const settings = { wire: sb.wire, sleep: async () => {} };
  const disposers: Array<() => unknown> = [];
  const ctx = createContext({
    io: memory.io,
    env,
    globals: {} as GlobalOptions,
    client: settings,
    signal: new AbortController().signal,
    onInterrupt: () => () => undefined,
    onDispose: (fn) => disposers.push(fn),
    takeOverInterrupt: () => undefined,
  });
  useClientSettings(ctx, settings);
  const server = createMcpServer(ctx, o);
  const secrets = await secretsOf(ctx);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(redacting(serverSide, () => secrets));
  const client = new Client({ name: 'notevox-test', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    stderr: () => memory.stderr(),
    async close() {
      await client.close();
      await server.close();
      for (const fn of disposers) await fn();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
