import type { IncomingHttpHeaders } from 'node:http';

/**
 * One HTTP POST of a small body with a total timeout, on node:http(s) and a fresh connection (nothing pooled, so a
 * shutdown never waits on an idle socket). Used by the sandbox (webhook deliveries) and the CLI (`webhooks listen
 * --forward-to`), so it lives beside neither.
 */

export interface PostOutcome {
  /** The HTTP status; undefined when no answer came. */
  status?: number;
  headers?: IncomingHttpHeaders;
  /** The answer's body (the first MAX_BODY bytes). */
  body?: string;
  /** Why no answer came: `timeout after 60s`, `connection refused`, … */
  error?: string;
  durationMs: number;
  /** The request was cut short by the signal (e.g. on shutdown). */
  aborted?: boolean;
}

const MAX_BODY = 64 * 1024;

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
};

function describe(e: NodeJS.ErrnoException): string {
  return (e.code && REASONS[e.code]) ?? e.message;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 120) return `${Number.isInteger(s) ? s : s.toFixed(1)}s`;
  const m = s / 60;
  return m < 120 ? `${Math.round(m)}m` : `${Math.round(m / 60)}h`;
}

export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  o: { timeoutMs: number; signal?: AbortSignal },
): Promise<PostOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const done = (out: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      resolve({ ...out, durationMs: elapsed() });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ error: 'invalid URL', durationMs: 0 });
      return;
    }
    // node:https (and TLS) loaded at the first https POST, not when the sandbox starts; getBuiltinModule, as
    // client/node-transport.ts explains, for node:http's getters.
    const send = target.protocol === 'https:' ? process.getBuiltinModule('node:https').request : process.getBuiltinModule('node:http').request;
    const req = send(target, {
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' },
    });
    const timer = setTimeout(() => {
      done({ error: `timeout after ${formatDuration(o.timeoutMs)}` });
      req.destroy();
    }, o.timeoutMs);
    const onAbort = () => {
      done({ error: 'aborted', aborted: true });
      req.destroy();
    };
    if (o.signal?.aborted) return onAbort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size < MAX_BODY) chunks.push(c);
        size += c.length;
      });
      res.on('end', () => done({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).subarray(0, MAX_BODY).toString('utf8') }));
      // An answer whose body breaks off still has its status.
      res.on('error', () => done({ status: res.statusCode, headers: res.headers, body: '' }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => done({ error: describe(e) }));
    req.end(body);
  });
}
