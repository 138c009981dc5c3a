import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

/**
 * A webhook receiver for tests on a free loopback port: answers with the scripted statuses in turn (the last one
 * repeats), or never answers with `'hang'`; records every request.
 */
export async function startReceiver(script: Array<number | 'hang'> = [200], port = 0) {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any = null;
      try {
        json = JSON.parse(body);
      } catch {}
      received.push({ at: Date.now(), path: req.url ?? '/', headers: req.headers, body, json });
      for (const w of waiters.splice(0)) w();
      const step = script[Math.min(received.length - 1, script.length - 1)];
      if (step === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(step, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: step < 300 }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}/hooks`,
    received,
    /** Resolves once `n` requests have arrived (rejects after `timeoutMs`). */
    async waitFor(n: number, timeoutMs = 20_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver: ${received.length} of ${n} requests after ${timeoutMs}ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
      return received;
    },
    async close() {
      for (const r of hanging) r.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Poll `check` until it returns a value other than undefined, null or false (rejects after `timeoutMs`). */
export async function eventually<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
