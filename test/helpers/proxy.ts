import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny HTTP proxy in front of a sandbox, for tests that need the service to answer as another version of it
 * would (a transcript with only `segments`, a sandbox without the plain workspace paths). `answer` may answer a
 * request itself; `rewrite` may change the JSON body of a forwarded answer. Every forwarded request is recorded.
 */
export interface ProxyOptions {
  answer?: (method: string, path: string) => { status: number; body: unknown } | undefined;
  rewrite?: (method: string, path: string, body: any) => unknown;
}

export interface RunningProxy {
  baseUrl: string;
  /** `METHOD /path` of every request, in order (answered or forwarded). */
  requests: string[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function startProxy(target: string, o: ProxyOptions = {}): Promise<RunningProxy> {
  const requests: string[] = [];
  const server = createServer(async (req, res) => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', target);
    requests.push(`${method} ${url.pathname}`);
    try {
      const own = o.answer?.(method, url.pathname);
      if (own) {
        res.writeHead(own.status, { 'content-type': 'application/json' }).end(JSON.stringify(own.body));
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v;
      const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req);
      const upstream = await fetch(url, { method, headers, body });
      let text = await upstream.text();
      if (o.rewrite && text && (upstream.headers.get('content-type') ?? '').includes('json')) {
        const changed = o.rewrite(method, url.pathname, JSON.parse(text));
        if (changed !== undefined) text = JSON.stringify(changed);
      }
      const out: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
      });
      res.writeHead(upstream.status, out).end(text);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
