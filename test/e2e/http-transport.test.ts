// The built CLI against hostile networks: a proxy that never answers CONNECT, a recording proxy with a loopback
// base URL, a redirecting server, a stalled answer, and nothing listening. Exit codes and messages, as a user sees them;
// the program runs in this process, its requests go over the real network.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runCliInProcess as runCli } from '../helpers/run-command.js';
import { startTestSandbox } from '../helpers/sandbox.js';

const ADMIN = DEMO_KEYS.admin.token;
const GUID = DEMO_NOTES.launchKickoff;

async function serve(server: Server): Promise<{ host: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A proxy that records every request and CONNECT it gets, and answers none of them. */
function silentProxy() {
  const seen: string[] = [];
  const server = createServer((req) => void seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)}`));
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    seen.push(`CONNECT ${req.url}`);
    socket.on('error', () => {});
  });
  return { server, seen };
}

const cfg = tempConfigDir();
let sb: Awaited<ReturnType<typeof startTestSandbox>>;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
  cfg.cleanup();
});

describe.concurrent('--timeout bounds everything', () => {
  it('a proxy that never answers CONNECT: --timeout 2 ends in about 2 s with exit 8 and says it timed out', async () => {
    const { server, seen } = silentProxy();
    const proxy = await serve(server);
    try {
      const started = Date.now();
      const r = await runCli(['--timeout', '2', 'notes', 'get', GUID], {
        baseUrl: 'https://api.example.test',
        key: ADMIN,
        configDir: cfg.dir,
        env: { HTTPS_PROXY: `http://${proxy.host}` },
      });
      const seconds = (Date.now() - started) / 1000;
      expect(r.exitCode, r.stderr).toBe(8);
      expect(r.stderr).toContain(`error: timed out: the proxy ${proxy.host} opened no connection to api.example.test within 2s`);
      expect(r.stderr).toMatch(/hint: .*raise --timeout \(now 2s\)/);
      // Not a speed target: a guard against the hang (before the fix it waited for minutes until killed).
      expect(seconds).toBeLessThan(15);
      // The CLI may exit before this process has read what it sent: give the proxy a moment.
      for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(seen).toEqual(['CONNECT api.example.test:443']);
    } finally {
      await proxy.close();
    }
  });

  it('a server that stops in the middle of its answer: a timeout (exit 8), not "cannot reach"', async () => {
    const stalled = await serve(
      createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"guid":');
      }),
    );
    try {
      const r = await runCli(['--timeout', '1', 'notes', 'get', GUID], { baseUrl: `http://${stalled.host}`, key: ADMIN, configDir: cfg.dir });
      expect(r.exitCode, r.stderr).toBe(8);
      expect(r.stderr).toContain(`error: timed out: ${stalled.host} did not finish its answer within 1s`);
      expect(r.stderr).not.toContain('cannot reach');
    } finally {
      await stalled.close();
    }
  });
});

describe.concurrent('loopback never goes through a proxy', () => {
  it('with HTTP_PROXY and HTTPS_PROXY set, a sandbox on 127.0.0.1 is reached directly and the proxy sees nothing', async () => {
    const { server, seen } = silentProxy();
    const proxy = await serve(server);
    try {
      const env = { HTTP_PROXY: `http://${proxy.host}`, HTTPS_PROXY: `http://${proxy.host}` };
      const r = await runCli(['notes', 'get', GUID, '-o', 'json', '--debug'], { baseUrl: sb.baseUrl, key: ADMIN, configDir: cfg.dir, env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ guid: GUID });
      expect(r.stderr).toContain(`proxy: not used for ${new URL(sb.baseUrl).host} (loopback)`);
      expect(seen).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

describe.concurrent('what a wrong base URL looks like', () => {
  it('a redirect: "the server redirected to <host>; check --base-url", exit 2, not a bug', async () => {
    const moved = await serve(createServer((_req, res) => res.writeHead(301, { location: 'https://api.moved.example/v1/external/notes' }).end('Moved')));
    try {
      const r = await runCli(['notes', 'get', GUID], { baseUrl: `http://${moved.host}`, key: ADMIN, configDir: cfg.dir });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain('error: the server redirected to https://api.moved.example; check --base-url');
      expect(r.stderr).not.toMatch(/bad_request|looks like a bug/);
    } finally {
      await moved.close();
    }
  });

  it('nothing listening on a loopback URL: asks whether the sandbox runs, and does not suggest --timeout', async () => {
    const gone = await serve(createServer());
    await gone.close();
    const r = await runCli(['--max-retries', '0', 'notes', 'get', GUID], { baseUrl: `http://${gone.host}`, key: ADMIN, configDir: cfg.dir });
    expect(r.exitCode, r.stderr).toBe(8);
    expect(r.stderr).toContain(`error: cannot reach ${gone.host}: connection refused`);
    expect(r.stderr).toContain('hint: Is `notevox sandbox start` running?');
    expect(r.stderr).not.toContain('--timeout');
  });
});
