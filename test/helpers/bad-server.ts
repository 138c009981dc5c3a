import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a misbehaving server answers instead of the real one (undefined: pass the request on). */
export type BadAnswer = { status?: number; type?: string; body: string } | undefined;

export interface BadServer {
  baseUrl: string;
  /** Requests it answered itself, as `METHOD /path`. */
  intercepted: string[];
  close(): Promise<void>;
}

/**
 * A server in front of a real sandbox (`upstream`) that answers some requests itself, badly: a captive portal's
 * login page, a proxy's "OK", a misconfigured gateway's `{}`. The others go through unchanged.
 */
export async function startBadServer(
  upstream: string | undefined,
  answer: (req: IncomingMessage) => BadAnswer,
  /** Changes an upstream answer on its way back (e.g. a server that echoes the key); undefined keeps it. */
  rewrite?: (req: IncomingMessage, up: { status: number; type: string; body: Buffer }) => Buffer | undefined,
): Promise<BadServer> {
  const intercepted: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bad = answer(req);
      if (bad || !upstream) {
        intercepted.push(`${req.method} ${req.url}`);
        const a = bad ?? { body: '' };
        res.writeHead(a.status ?? 200, { 'content-type': a.type ?? 'text/html; charset=utf-8' }).end(a.body);
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
      fetch(upstream + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined })
        .then(async (up) => {
          const out: Record<string, string> = {};
          up.headers.forEach((v, k) => {
            if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'keep-alive') out[k] = v;
          });
          const body = Buffer.from(await up.arrayBuffer());
          res.writeHead(up.status, out).end(rewrite?.(req, { status: up.status, type: up.headers.get('content-type') ?? '', body }) ?? body);
        })
        .catch((e: Error) => res.writeHead(502).end(e.message));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    intercepted,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A captive portal's answer. */
export const HTML_PAGE = '<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in to continue.</body></html>';
