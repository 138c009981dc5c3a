import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { truncateSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { errorEnvelope, ERROR_CODES } from '../../src/contract/errors.js';
import { PAGE_SIZES } from '../../src/contract/limits.js';
import type { EndpointSchemas } from '../../src/contract/endpoint-schemas.js';
import type { Endpoint } from '../../src/contract/types.js';
import { ApiError, buildQuery, createClient, explainError, JsonText, NetworkError, parseRateLimit, type ApiClient, type ClientOptions } from '../../src/client/client.js';
import { networkHint } from '../../src/client/hints.js';
import { describeProxy, proxyFor, type TransportKind } from '../../src/client/transport.js';
import { loadUndici } from '../../src/client/undici-transport.js';
import { CliError, EXIT } from '../../src/errors.js';
import { closeAtEnd, scopedIt as it } from '../helpers/scope.js';

const KEY = 'kid_123.s3cr3t-value-xyz';
const NOTES = '/v1/external/notes';
const TRANSPORTS: TransportKind[] = ['node', 'undici'];

function ep(over: Partial<Endpoint & EndpointSchemas> = {}): Endpoint {
  return {
    id: 'test.list',
    method: 'GET',
    path: NOTES,
    summary: 'test endpoint',
    scope: null,
    auth: true,
    keyTypes: ['USER'],
    idempotent: true,
    successStatus: 200,
    ...over,
  };
}
const post = (idempotent: boolean) => ep({ id: 'test.create', method: 'POST', idempotent, successStatus: 201 });
const envelope = (status: number, code: number, message: string, detail: string | null = null) => JSON.stringify(errorEnvelope(status, code, message, detail));

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const shut = async (server: Server) => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
};

// ---------------------------------------------------------------------------------------------------------------
// A scripted HTTP server on a real loopback socket, so that the same cases run against both transports.

interface Seen {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The client's port: the same for requests on one kept-alive connection. */
  port: number;
}

type Action =
  | { kind: 'reply'; status: number; body: string; headers: Record<string, string> }
  | { kind: 'fn'; fn: (seen: Seen) => { statusCode: number; data?: unknown; headers?: Record<string, string> } }
  /** Close the connection without answering. */
  | { kind: 'close' }
  /** Never answer. */
  | { kind: 'hang' }
  /** Send the headers and the first part of the body, then nothing more. */
  | { kind: 'stall'; first: string }
  /** Send the body one byte every `everyMs`. */
  | { kind: 'drip'; body: string; everyMs: number };

interface Interceptor {
  method: string;
  /** Pathname and sorted query, as `key()` builds it. */
  key: string;
  action: Action;
  left: number;
}

const key = (pathname: string, params: URLSearchParams) => {
  const q = [...params].sort(([a], [b]) => a.localeCompare(b));
  return q.length ? `${pathname}?${new URLSearchParams(q).toString()}` : pathname;
};

async function scriptedServer() {
  const interceptors: Interceptor[] = [];
  const seen: Seen[] = [];
  const unmatched: string[] = [];
  const run = (i: Interceptor, s: Seen, req: IncomingMessage, res: ServerResponse) => {
    const a = i.action;
    if (a.kind === 'reply') return res.writeHead(a.status, a.headers).end(a.body);
    if (a.kind === 'fn') {
      const r = a.fn(s);
      const body = r.data === undefined ? '' : typeof r.data === 'string' ? r.data : JSON.stringify(r.data);
      return res.writeHead(r.statusCode, { 'content-type': 'application/json', ...r.headers }).end(body);
    }
    if (a.kind === 'close') return req.socket.destroy();
    if (a.kind === 'hang') return;
    if (a.kind === 'stall') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(a.first.length + 100) });
      return res.write(a.first);
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(a.body)) });
    let n = 0;
    const timer = setInterval(() => {
      if (n >= a.body.length || res.destroyed) return clearInterval(timer);
      res.write(a.body[n++]);
      if (n === a.body.length) res.end();
    }, a.everyMs);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), port: req.socket.remotePort ?? 0 };
      seen.push(s);
      const i = interceptors.find((x) => x.left > 0 && x.method === s.method && x.key === key(url.pathname, url.searchParams));
      if (!i) {
        unmatched.push(`${s.method} ${s.url}`);
        return res.writeHead(418).end(`no interceptor for ${s.method} ${s.url}`);
      }
      i.left--;
      run(i, s, req, res);
    });
  });
  const host = await listen(server);
  const base = `http://${host}`;

  /** Like undici's MockAgent: `intercept({path, method, query}).reply(status, body, {headers}).times(n)`. */
  function intercept(m: { path: string; method?: string; query?: Record<string, string> }) {
    const url = new URL(m.path, 'http://x');
    for (const [k, v] of Object.entries(m.query ?? {})) url.searchParams.append(k, v);
    const add = (action: Action) => {
      const i: Interceptor = { method: m.method ?? 'GET', key: key(url.pathname, url.searchParams), action, left: 1 };
      interceptors.push(i);
      return { times: (n: number) => void (i.left = n) };
    };
    return {
      reply(status: number | Extract<Action, { kind: 'fn' }>['fn'], body?: unknown, opts: { headers?: Record<string, string> } = {}) {
        if (typeof status === 'function') return add({ kind: 'fn', fn: status });
        const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
        const headers = { ...(typeof body === 'object' ? { 'content-type': 'application/json' } : {}), ...opts.headers };
        return add({ kind: 'reply', status, body: text, headers });
      },
      close: () => add({ kind: 'close' }),
      hang: () => add({ kind: 'hang' }),
      stall: (first: string) => add({ kind: 'stall', first }),
      drip: (body: string, everyMs: number) => add({ kind: 'drip', body, everyMs }),
    };
  }
  return { server, host, base, seen, unmatched, intercept, close: () => shut(server) };
}

type Scripted = Awaited<ReturnType<typeof scriptedServer>>;
/**
 * A scripted server and a client for it on the given transport; sleeps are recorded, not waited. Both are closed
 * when the test ends (client first), and a request the server had no interceptor for fails the test then.
 */
async function setup(transport: TransportKind, over: Partial<ClientOptions> = {}) {
  const pool = await scriptedServer();
  closeAtEnd(async () => {
    const unmatched = [...pool.unmatched];
    await pool.close();
    expect(unmatched, 'requests no interceptor expected').toEqual([]);
  });
  const lines: string[] = [];
  const waits: number[] = [];
  const client = createClient({
    baseUrl: pool.base,
    apiKey: KEY,
    log: (l) => lines.push(l),
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    env: {},
    transport,
    ...over,
  });
  closeAtEnd(() => client.close());
  return { pool, client, lines, waits };
}

describe.concurrent.each(TRANSPORTS)('%s transport', (transport) => {
  describe('retries', () => {
    it('retries a 503 and then succeeds', async () => {
      const { pool, client, lines, waits } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(503, envelope(503, ERROR_CODES.INTERNAL, 'boom'));
      pool.intercept({ path: NOTES }).reply(200, { ok: true });
      const res = await client.callEndpoint(ep());
      expect(res).toMatchObject({ status: 200, data: { ok: true }, attempts: 2 });
      expect(waits).toEqual([250]); // 0.5 × 500 ms × 2^0
      expect(client.stats).toEqual({ requests: 2, retries: 1, rateLimited: 0 });
      expect(lines).toEqual([`retrying GET ${NOTES} in 0.3s (attempt 2/4): 503 internal_error`]);
    });

    it('honours Retry-After in seconds and counts rate limiting', async () => {
      const retries: number[] = [];
      const { pool, client, lines, waits } = await setup(transport, { onRetry: (e) => retries.push(e.attempt) });
      pool.intercept({ path: NOTES }).reply(429, envelope(429, ERROR_CODES.RATE_LIMITED, 'slow down'), { headers: { 'retry-after': '3' } });
      pool.intercept({ path: NOTES }).reply(200, {});
      await client.callEndpoint(ep());
      expect(waits).toEqual([3000]);
      expect(retries).toEqual([2]);
      expect(client.stats.rateLimited).toBe(1);
      expect(lines[0]).toMatch(/in 3s \(attempt 2\/4\): 429 rate limited \(Retry-After 3s\)$/);
    });

    it('honours Retry-After as an HTTP date', async () => {
      const now = Date.UTC(2026, 0, 1, 12, 0, 0);
      const { pool, client, waits } = await setup(transport, { now: () => now });
      pool.intercept({ path: NOTES }).reply(503, 'busy', { headers: { 'retry-after': new Date(now + 5000).toUTCString() } });
      pool.intercept({ path: NOTES }).reply(200, {});
      await client.callEndpoint(ep());
      expect(waits).toEqual([5000]);
    });

    it('does not retry a POST unless the endpoint is idempotent', async () => {
      const a = await setup(transport);
      a.pool.intercept({ path: NOTES, method: 'POST' }).reply(503, envelope(503, ERROR_CODES.INTERNAL, 'boom'));
      const err = await rejection(a.client.callEndpoint(post(false), { body: { title: 'x' } }));
      expect(err).toBeInstanceOf(ApiError);
      expect(err.exitCode).toBe(EXIT.UNAVAILABLE);
      expect(a.waits).toEqual([]);
      expect(a.client.stats.requests).toBe(1);

      const b = await setup(transport);
      b.pool.intercept({ path: NOTES, method: 'POST' }).reply(503, envelope(503, ERROR_CODES.INTERNAL, 'boom'));
      b.pool.intercept({ path: NOTES, method: 'POST' }).reply(201, { id: 1 });
      const res = await b.client.callEndpoint(post(true), { body: { title: 'x' } });
      expect(res).toMatchObject({ status: 201, attempts: 2 });
    });

    it('retries request() by method: GET yes, PATCH no', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(502, 'bad gateway');
      pool.intercept({ path: NOTES }).reply(200, []);
      expect((await client.request('get', 'notes')).attempts).toBe(2);
      pool.intercept({ path: `${NOTES}/n1`, method: 'PATCH' }).reply(502, 'bad gateway');
      expect((await rejection(client.request('PATCH', 'notes/n1', { body: { title: 't' } }))).status).toBe(502);
    });

    it('stops after maxRetries', async () => {
      const { pool, client, waits } = await setup(transport, { maxRetries: 2 });
      pool.intercept({ path: NOTES }).reply(500, envelope(500, ERROR_CODES.INTERNAL, 'down')).times(3);
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 500, errorType: 'internal_error', exitCode: EXIT.UNAVAILABLE });
      expect(waits).toEqual([250, 500]);
      expect(client.stats).toMatchObject({ requests: 3, retries: 2 });
    });

    it('stops early when the next wait would exceed maxTotalWaitMs', async () => {
      const { pool, client, waits } = await setup(transport, { random: () => 1, maxTotalWaitMs: 1600 });
      pool.intercept({ path: NOTES }).reply(504, '').times(3);
      await rejection(client.callEndpoint(ep()));
      expect(waits).toEqual([500, 1000]); // the next, 2000, would make 3500 > 1600
      expect(client.stats.requests).toBe(3);
    });

    it('gives up on a Retry-After beyond the cap: 429 → exit 7', async () => {
      const { pool, client, waits } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(429, envelope(429, ERROR_CODES.RATE_LIMITED, 'slow down'), { headers: { 'retry-after': '120' } });
      const err = await rejection(client.callEndpoint(ep()));
      expect(waits).toEqual([]);
      expect(err).toMatchObject({ status: 429, errorType: 'too_many_requests', retryAfterSeconds: 120, exitCode: EXIT.RATE_LIMITED });
      expect(err.hint).toContain('120s');
    });

    it('429 after every retry → ApiError exit 7', async () => {
      const { pool, client, waits, lines } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(429, envelope(429, ERROR_CODES.RATE_LIMITED, 'slow down'), { headers: { 'retry-after': '1' } }).times(4);
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(ApiError);
      expect(err.exitCode).toBe(EXIT.RATE_LIMITED);
      expect(waits).toEqual([1000, 1000, 1000]);
      expect(lines).toHaveLength(3);
      expect(client.stats.rateLimited).toBe(4);
    });

    it('retries a connection the server closes without answering, then fails with NetworkError exit 8', async () => {
      const { pool, client, lines } = await setup(transport);
      pool.intercept({ path: NOTES }).close().times(4);
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err).toMatchObject({ exitCode: EXIT.UNAVAILABLE, code: 'CONNECTION_CLOSED', timedOut: false });
      expect(err.message).toBe(`cannot reach ${pool.host}: connection closed by the other side (after 4 attempts)`);
      expect(err.hint).not.toMatch(/--timeout/);
      expect(lines).toHaveLength(3);
      expect(lines.every((l) => l.endsWith(': connection closed by the other side'))).toBe(true);
    });

    it('retries a closed connection and then succeeds', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES }).close();
      pool.intercept({ path: NOTES }).reply(200, { ok: 1 });
      expect((await client.callEndpoint(ep())).attempts).toBe(2);
    });

    it('stops waiting between retries when the caller aborts', async () => {
      const ac = new AbortController();
      const { pool, client } = await setup(transport, { sleep: () => new Promise<void>(() => ac.abort()) });
      pool.intercept({ path: NOTES }).reply(503, '');
      const err = await rejection(client.callEndpoint(ep(), { signal: ac.signal }));
      expect(err.name).toBe('AbortError');
      expect(client.stats.requests).toBe(1);
    });

    it('drops a request in flight when the caller aborts, and does not retry it', async () => {
      const { pool, client, waits } = await setup(transport);
      const ac = new AbortController();
      pool.intercept({ path: NOTES }).hang();
      const p = client.callEndpoint(ep(), { signal: ac.signal });
      setTimeout(() => ac.abort(), 50);
      const err = await rejection(p);
      expect(err.name).toBe('AbortError');
      expect(waits).toEqual([]);
      expect(explainError(err)).toMatchObject({ exitCode: EXIT.INTERRUPTED });
    });
  });

  describe('timeouts: every wait is bounded, a stall is a timeout, and a timed-out attempt is not repeated', () => {
    it('no answer: "did not answer within", exit 8, one attempt, a hint to raise --timeout', async () => {
      const { pool, client, lines } = await setup(transport, { timeoutMs: 200 });
      pool.intercept({ path: NOTES }).hang();
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err).toMatchObject({ exitCode: EXIT.UNAVAILABLE, code: 'HEADERS_TIMEOUT', timedOut: true, attempts: 1 });
      expect(err.message).toBe(`timed out: ${pool.host} did not answer within 0.2s`);
      expect(err.hint).toBe('The service is slow or stalled: try again later, or raise --timeout (now 0.2s).');
      expect(lines).toEqual([]); // no retry
      expect(pool.seen).toHaveLength(1);
    });

    it('an answer that stops arriving is a timeout, not "cannot reach"', async () => {
      const { pool, client } = await setup(transport, { timeoutMs: 300 });
      pool.intercept({ path: NOTES }).stall('{"content":[');
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toMatchObject({ exitCode: EXIT.UNAVAILABLE, code: 'BODY_TIMEOUT', attempts: 1, timedOut: true });
      expect(err.message).toBe(`timed out: ${pool.host} did not finish its answer within 0.3s`);
      expect(err.hint).toMatch(/raise --timeout/);
    });

    it('an answer that keeps trickling is bounded by the total per attempt', async () => {
      const { pool, client } = await setup(transport, { timeoutMs: 300 });
      pool.intercept({ path: NOTES }).drip(JSON.stringify({ content: [], filler: 'x'.repeat(100) }), 20);
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toMatchObject({ code: 'BODY_TIMEOUT', exitCode: EXIT.UNAVAILABLE });
      expect(err.message).toBe(`timed out: ${pool.host} did not finish its answer within 0.3s`);
    });

    it('a slow but steady answer within the timeout is fine', async () => {
      const { pool, client } = await setup(transport, { timeoutMs: 2000 });
      pool.intercept({ path: NOTES }).drip('{"content":[]}', 5);
      expect((await client.callEndpoint(ep())).data).toEqual({ content: [] });
    });
  });

  describe('redirects are not followed: the base URL is wrong', () => {
    it('reports the host it points to, exit 2, no retry, the hint names --base-url', async () => {
      const { pool, client, lines } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(301, '<html>Moved</html>', { headers: { location: 'https://api.moved.example/v1/external/notes' } });
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 301, errorType: 'redirect', exitCode: EXIT.USAGE });
      expect(err.message).toBe('the server redirected to https://api.moved.example; check --base-url');
      expect(err.hint).toMatch(/does not follow redirects.*--base-url/);
      expect(explainError(err).hint).not.toMatch(/bug/);
      expect(lines).toEqual([]);
      expect(pool.seen).toHaveLength(1);
    });

    it('names just the host when only the host changes, and copes without a Location', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(308, '', { headers: { location: `http://other.example:${pool.host.split(':')[1]}/v1/x` } });
      expect((await rejection(client.callEndpoint(ep()))).message).toBe(`the server redirected to other.example:${pool.host.split(':')[1]}; check --base-url`);
      pool.intercept({ path: NOTES }).reply(302, '');
      const err = await rejection(client.callEndpoint(ep()));
      expect(err.message).toBe('the server answered 302 Found without saying where to; check --base-url');
      expect(err.exitCode).toBe(EXIT.USAGE);
    });
  });

  describe('errors', () => {
    it('parses the error envelope', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: `${NOTES}/abc` }).reply(404, envelope(404, ERROR_CODES.NOT_FOUND, 'note not found', 'abc'));
      const err = await rejection(client.callEndpoint(ep({ path: `${NOTES}/{noteGuid}` }), { path: { noteGuid: 'abc' } }));
      expect(err).toMatchObject({ status: 404, code: 404000, errorType: 'not_found', apiMessage: 'note not found', detail: 'abc', exitCode: EXIT.NOT_FOUND });
      expect(err.message).toBe('404 not_found, code 404000: note not found (abc)');
      expect(err.hint).toMatch(/Check the id/);
    });

    it('maps the older 401 body to unauthorized', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(401, { error: { code: 'invalid_api_key', message: 'Invalid API key', type: 'authentication_error' } });
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toMatchObject({ status: 401, code: 'invalid_api_key', errorType: 'unauthorized', exitCode: EXIT.UNAUTHENTICATED });
      expect(err.hint).toMatch(/notevox auth login/);
    });

    it('explains a key id sent without its secret', async () => {
      const { pool, client } = await setup(transport, { apiKey: 'kid_only' });
      pool.intercept({ path: NOTES }).reply(401, envelope(401, ERROR_CODES.AUTH_MALFORMED, 'malformed API key', 'only a key id was sent'));
      const err = await rejection(client.callEndpoint(ep()));
      expect(err.hint).toContain('{id}.{secret}');
    });

    it.each([
      [ERROR_CODES.AUTH_LEGACY_EXPIRED, /workspace key or an account key/],
      [ERROR_CODES.AUTH_INACTIVE, /inactive, expired or deleted/],
      [ERROR_CODES.AUTH_UNBOUND_WORKSPACE_KEY, /not bound to a workspace/],
      [ERROR_CODES.KEY_TYPE_FORBIDDEN, /user \(account\) key/],
      [ERROR_CODES.PERMISSION_DENIED, /admin/],
      [ERROR_CODES.VOICE_NOT_ENABLED, /enable voice file jobs/],
      [ERROR_CODES.VOICE_PERMISSION, /voice-file permission/],
      [ERROR_CODES.WIKI_PLAN_REQUIRED, /wiki plan/],
      [ERROR_CODES.WIKI_NOT_ACTIVATED, /activate/],
      [ERROR_CODES.KEYWORD_USER_KEY_ONLY, /notevox notes search/],
      [ERROR_CODES.CONFLICT, /state/],
      [ERROR_CODES.TOO_LARGE, /too large/],
      [ERROR_CODES.UNPROCESSABLE, /impossible/],
    ])('hint for code %i', async (code, hint) => {
      const status = Math.floor(code / 1000);
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES, method: 'POST' }).reply(status, envelope(status, code, 'nope'));
      const err = await rejection(client.callEndpoint(post(false)));
      expect(err.hint).toMatch(hint);
      expect(err.exitCode).toBe(explainError(err).exitCode);
    });

    it('names the key types that may make the call in the 403002 hint when the detail lists them', async () => {
      const { pool, client } = await setup(transport);
      pool
        .intercept({ path: NOTES, method: 'POST' })
        .reply(403, envelope(403, ERROR_CODES.KEY_TYPE_FORBIDDEN, 'a workspace key may not call this', 'key types that may call it: USER, LEGACY_PERSONAL, ORGANIZATION'));
      const err = await rejection(client.callEndpoint(post(false)));
      expect(err.hint).toBe('This key type cannot make this call: use a user (account) key or an organization key (`notevox auth login`, or NOTEVOX_API_KEY).');
    });

    it('names the missing scope from WWW-Authenticate in the 403001 hint', async () => {
      const { pool, client } = await setup(transport);
      pool
        .intercept({ path: NOTES })
        .reply(403, envelope(403, ERROR_CODES.INSUFFICIENT_SCOPE, 'insufficient_scope'), {
          headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="word_memory:read"' },
        });
      const err = await rejection(client.callEndpoint(ep()));
      expect(err.exitCode).toBe(EXIT.FORBIDDEN);
      expect(err.hint).toContain('`word_memory:read` scope');
      expect(err.hint).toMatch(/dashboard/);
    });

    it('names the missing scope from detail when the header is absent', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(403, envelope(403, ERROR_CODES.INSUFFICIENT_SCOPE, 'insufficient_scope', 'insufficient_scope: requires folder:write'));
      expect((await rejection(client.callEndpoint(ep()))).hint).toContain('`folder:write`');
    });

    it('still builds an ApiError from a non-JSON error body', async () => {
      const { pool, client } = await setup(transport, { maxRetries: 0 });
      pool.intercept({ path: NOTES }).reply(502, '<html><body>Bad Gateway</body></html>');
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 502, errorType: 'internal_error', code: undefined, exitCode: EXIT.UNAVAILABLE });
      expect(err.message).toContain('non-JSON response');
      expect(err.message).not.toContain('\n');
    });

    it('refuses an endpoint that needs a key when none is set: exit 3', async () => {
      const { client } = await setup(transport, { apiKey: undefined });
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(CliError);
      expect(err).toMatchObject({ message: 'not logged in', exitCode: EXIT.UNAUTHENTICATED });
      expect(err.hint).toBe('Run `notevox auth login` or set NOTEVOX_API_KEY.');
    });

    it('connection refused on a loopback URL: asks whether the sandbox runs, and says nothing of --timeout', async () => {
      const { pool, client } = await setup(transport, { maxRetries: 0 });
      await pool.close();
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err).toMatchObject({ exitCode: EXIT.UNAVAILABLE, code: 'ECONNREFUSED', timedOut: false });
      expect(err.message).toBe(`cannot reach ${pool.host}: connection refused`);
      expect(err.hint).toBe('Is `notevox sandbox start` running? Start it, or check the base URL (`notevox auth status`).');
    });
  });

  describe('requests and responses', () => {
    it('sends accept, user-agent, JSON body and the bearer key; 204 gives null', async () => {
      const { pool, client } = await setup(transport, { userAgent: 'notevox-test' });
      let seen: Seen | undefined;
      pool.intercept({ path: `${NOTES}/a%2Fb%20c`, method: 'PUT' }).reply((s) => {
        seen = s;
        return { statusCode: 204 };
      });
      const res = await client.callEndpoint(ep({ method: 'PUT', path: `${NOTES}/{noteGuid}` }), { path: { noteGuid: 'a/b c' }, body: { x: 1 } });
      expect(res).toMatchObject({ status: 204, data: null });
      expect(seen?.headers).toMatchObject({ accept: 'application/json', 'user-agent': 'notevox-test', 'content-type': 'application/json', authorization: `Bearer ${KEY}` });
      expect(seen?.headers['content-length']).toBe('7');
      expect(seen?.body).toBe('{"x":1}');
    });

    it('sends a JsonText body as it is, as text or as its UTF-8 bytes, with its length', async () => {
      const { pool, client } = await setup(transport);
      const bodies: Seen[] = [];
      pool.intercept({ path: NOTES, method: 'POST' }).reply((s) => {
        bodies.push(s);
        return { statusCode: 200, data: {} };
      }).times(2);
      const text = '{"entries":[{"entry":"Café-☕"}]}';
      for (const body of [new JsonText(text), new JsonText(Buffer.from(text))]) await client.callEndpoint(ep({ method: 'POST' }), { body });
      expect(bodies.map((s) => [s.body, s.headers['content-length'], s.headers['content-type']])).toEqual([
        [text, String(Buffer.byteLength(text)), 'application/json'],
        [text, String(Buffer.byteLength(text)), 'application/json'],
      ]);
    });

    it('sends no key to an endpoint without auth, even when one is set', async () => {
      const { pool, client } = await setup(transport);
      let auth: string | undefined = 'unset';
      pool.intercept({ path: '/v1/api-key-scopes' }).reply((s) => {
        auth = s.headers.authorization;
        return { statusCode: 200, data: { content: [] } };
      });
      await client.callEndpoint(ep({ path: '/v1/api-key-scopes', auth: false }));
      expect(auth).toBeUndefined();
    });

    it('reads a UTF-8 answer split anywhere', async () => {
      const { pool, client } = await setup(transport);
      const title = 'Café ☕ 会議 🎙️'.repeat(2000);
      pool.intercept({ path: NOTES }).reply(200, { title });
      expect((await client.callEndpoint(ep())).data).toEqual({ title });
    });

    it('throws a usage error for a missing path parameter', async () => {
      const { client } = await setup(transport);
      const err = await rejection(client.callEndpoint(ep({ path: `${NOTES}/{noteGuid}` }), { path: {} }));
      expect(err).toMatchObject({ exitCode: EXIT.USAGE });
      expect(err.message).toContain('noteGuid');
    });

    it('serialises the query: skips undefined/null, repeats arrays, encodes', async () => {
      expect(buildQuery({ a: 1, b: undefined, c: null, d: ['x', 'y z'], e: true, 'f&': 'g=h' })).toBe('?a=1&d=x&d=y%20z&e=true&f%26=g%3Dh');
      expect(buildQuery({})).toBe('');
      const { pool, client } = await setup(transport);
      pool.intercept({ path: `${NOTES}?folderId=7&keyword=a%20b` }).reply(200, { content: [] });
      await client.callEndpoint(ep(), { query: { folderId: 7, keyword: 'a b', cursor: undefined } });
      expect(pool.seen[0].url).toBe(`${NOTES}?folderId=7&keyword=a%20b`);
    });

    it('accepts unknown response fields and notes a shape mismatch only under debug', async () => {
      const shaped = ep({ response: z.object({ id: z.number() }) });
      const quiet = await setup(transport);
      quiet.pool.intercept({ path: NOTES }).reply(200, { id: 'not-a-number', extra: true });
      expect((await quiet.client.callEndpoint(shaped)).data).toEqual({ id: 'not-a-number', extra: true });
      expect(quiet.lines).toEqual([]);

      const loud = await setup(transport, { debug: true });
      loud.pool.intercept({ path: NOTES }).reply(200, { id: 'not-a-number' });
      await loud.client.callEndpoint(shaped);
      expect(loud.lines.some((l) => /^note: test\.list response differs from the documented shape at id/.test(l))).toBe(true);
    });

    it('request(): prefixes relative paths, keeps absolute ones, returns the raw body, refuses other origins', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: `${NOTES}?size=5&x=1` }).reply(200, '{"content":[]}');
      const res = await client.request('GET', 'notes?size=5', { query: { x: 1 } });
      expect(res).toMatchObject({ status: 200, data: { content: [] }, rawBody: '{"content":[]}' });
      pool.intercept({ path: '/v1/api-key-scopes' }).reply(200, 'plain text');
      expect((await client.request('GET', '/v1/api-key-scopes')).data).toBe('plain text');
      pool.intercept({ path: NOTES }).reply(200, '[]');
      expect((await client.request('GET', `${pool.base}${NOTES}`)).data).toEqual([]);
      const err = await rejection(client.request('GET', 'https://elsewhere.example/v1/external/notes'));
      expect(err).toMatchObject({ exitCode: EXIT.USAGE });
    });

    it('keeps the key out of traces and errors when a server echoes it back', async () => {
      const { pool, client, lines } = await setup(transport, { debug: true });
      const echo = `you sent ${KEY} / Bearer ${KEY}`;
      pool.intercept({ path: NOTES }).reply(401, envelope(401, ERROR_CODES.AUTH_INACTIVE, echo, echo), { headers: { 'www-authenticate': `Bearer realm="${KEY}"`, 'x-request-id': KEY } });
      const err = await rejection(client.callEndpoint(ep()));
      const all = [...lines, err.message, err.hint, JSON.stringify(err.headers), err.rawBody, JSON.stringify(explainError(err))].join('\n');
      expect(all).toContain('401 unauthorized');
      expect(all).not.toContain(KEY.split('.')[1]);
    });

    it('traces requests and responses under debug, headers from the allow-list only', async () => {
      const { pool, client, lines } = await setup(transport, { debug: true });
      pool
        .intercept({ path: `${NOTES}?size=50` })
        .reply(200, { content: [] }, { headers: { 'x-ratelimit-remaining': '599', 'set-cookie': 'session=zzz', 'content-type': 'application/json' } });
      await client.callEndpoint(ep(), { query: { size: 50 } });
      expect(lines[0]).toBe(`> GET ${pool.base}${NOTES}?size=50`);
      expect(lines).toContain('> accept: application/json');
      expect(lines).toContain('> authorization: Bearer ****');
      expect(lines.some((l) => /^< 200 OK \d+ms attempt 1$/.test(l))).toBe(true);
      expect(lines).toContain('< x-ratelimit-remaining: 599');
      expect(lines.join('\n')).not.toContain('session=zzz');
    });
  });

  describe('pagination', () => {
    const paged = ep({ page: PAGE_SIZES.notes });

    it('follows nextCursor until null', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES }).reply(200, { content: [1, 2], nextCursor: 'c1' });
      pool.intercept({ path: NOTES, query: { cursor: 'c1' } }).reply(200, { content: [3], nextCursor: null });
      const pages = [];
      for await (const p of client.paginateEndpoint(paged)) pages.push(p);
      expect(pages).toEqual([
        { items: [1, 2], nextCursor: 'c1' },
        { items: [3], nextCursor: null },
      ]);
    });

    it('stops at the limit, asking only for what is left, and yields the cursor to continue', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES, query: { keyword: 'k', size: '2' } }).reply(200, { content: [1, 2], nextCursor: 'c1' });
      pool.intercept({ path: NOTES, query: { keyword: 'k', size: '2', cursor: 'c1' } }).reply(200, { content: [3, 4], nextCursor: 'c2' });
      // The service ignores the smaller size on the last page: the extra item is cut.
      pool.intercept({ path: NOTES, query: { keyword: 'k', size: '1', cursor: 'c2' } }).reply(200, { content: [5, 6], nextCursor: 'c3' });
      const pages = [];
      for await (const p of client.paginateEndpoint(paged, { query: { keyword: 'k' } }, { pageSize: 2, limit: 5 })) pages.push(p);
      expect(pages.map((p) => p.items)).toEqual([[1, 2], [3, 4], [5]]);
      expect(pages.at(-1)?.nextCursor).toBe('c3');
      expect(client.stats.requests).toBe(3);
    });

    it('starts from a given cursor', async () => {
      const { pool, client } = await setup(transport);
      pool.intercept({ path: NOTES, query: { cursor: 'start' } }).reply(200, { content: ['a'], nextCursor: null });
      const pages = [];
      for await (const p of client.paginateEndpoint(paged, {}, { cursor: 'start' })) pages.push(p);
      expect(pages).toEqual([{ items: ['a'], nextCursor: null }]);
    });
  });

  describe('uploads', () => {
    async function file(name: string, content: Buffer | string) {
      const dir = await mkdtemp(join(tmpdir(), 'notevox-upload-'));
      closeAtEnd(() => rm(dir, { recursive: true, force: true }));
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    }

    it('streams the file with content-length, no Authorization, and reports progress', async () => {
      const payload = Buffer.alloc(2_500_000, 7); // three chunks of up to 1 MiB
      const path = await file('audio.wav', payload);
      const { pool, client } = await setup(transport);
      let got: Seen | undefined;
      pool.intercept({ path: '/upload/job-1?sig=abc', method: 'PUT' }).reply((s) => {
        got = s;
        return { statusCode: 200 };
      });
      const progress: number[] = [];
      const res = await client.upload(`${pool.base}/upload/job-1?sig=abc`, { file: path, size: payload.length, contentType: 'audio/wav', onProgress: (n) => progress.push(n) });
      expect(res.status).toBe(200);
      expect(got?.url).toBe('/upload/job-1?sig=abc');
      expect(got?.body).toBe(payload.toString('utf8'));
      expect(got?.headers['content-length']).toBe(String(payload.length));
      expect(got?.headers['content-type']).toBe('audio/wav');
      expect(got?.headers.authorization).toBeUndefined();
      expect(progress.at(-1)).toBe(payload.length);
      expect(progress.length).toBeGreaterThan(1);
    });

    it('maps an error response to ApiError and refuses a size mismatch', async () => {
      const path = await file('a.mp3', 'abc');
      const { pool, client } = await setup(transport, { apiKey: undefined });
      pool.intercept({ path: '/u?sig=x', method: 'PUT' }).reply(403, envelope(403, ERROR_CODES.UPLOAD_SIGNATURE, 'signature expired'), { headers: { 'content-type': 'application/json' } });
      const err = await rejection(client.upload(`${pool.base}/u?sig=x`, { file: path, size: 3, contentType: 'audio/mpeg' }));
      expect(err).toMatchObject({ status: 403, code: ERROR_CODES.UPLOAD_SIGNATURE, exitCode: EXIT.FORBIDDEN });
      expect(err.hint).toMatch(/expired/);
      expect((await rejection(client.upload(`${pool.base}/u`, { file: path, size: 4, contentType: 'audio/mpeg' }))).exitCode).toBe(EXIT.USAGE);
    });

    it('a file that shrinks while it is sent: a usage error naming it, not a network failure', async () => {
      // Five chunks: node:http may have read up to three ahead of the first one taken, when the file shrinks.
      const size = 5 * 1024 * 1024;
      const path = await file('c.wav', Buffer.alloc(size, 2));
      const { pool, client } = await setup(transport);
      pool.intercept({ path: '/u', method: 'PUT' }).reply(200, '');
      const shrink = () => truncateSync(path, 10);
      const err = await rejection(client.upload(`${pool.base}/u`, { file: path, size, contentType: 'audio/wav', onProgress: shrink }));
      expect(err).toMatchObject({ message: `${path} shrank while it was being uploaded`, exitCode: EXIT.USAGE });
      pool.unmatched.length = 0; // the server may or may not have seen the cut request
    });

    it('has no total timeout, but a server that takes the file and never answers times out', async () => {
      const path = await file('b.wav', Buffer.alloc(100_000, 1));
      const { pool, client } = await setup(transport, { timeoutMs: 300 });
      pool.intercept({ path: '/u', method: 'PUT' }).hang();
      const err = await rejection(client.upload(`${pool.base}/u`, { file: path, size: 100_000, contentType: 'audio/wav' }));
      expect(err).toMatchObject({ code: 'HEADERS_TIMEOUT', exitCode: EXIT.UNAVAILABLE });
      expect(err.message).toBe(`timed out: ${pool.host} did not answer within 0.3s`);
    });
  });
});

describe.concurrent('a server that stops reading an upload', () => {
  it.each(TRANSPORTS)('%s: the upload times out as stalled, not after the whole file', async (transport) => {
    const dir = await mkdtemp(join(tmpdir(), 'notevox-upload-'));
    const size = 64 * 1024 * 1024; // more than the socket buffers hold
    const path = join(dir, 'big.wav');
    await writeFile(path, Buffer.alloc(size));
    const server = createServer((req) => req.pause());
    const host = await listen(server);
    const client = createClient({ baseUrl: `http://${host}`, log: () => {}, env: {}, transport, timeoutMs: 400 });
    try {
      const err = await rejection(client.upload(`http://${host}/u`, { file: path, size, contentType: 'audio/wav' }));
      expect(err).toMatchObject({ code: 'SEND_TIMEOUT', exitCode: EXIT.UNAVAILABLE });
      expect(err.message).toBe(`timed out: ${host} took nothing more of the upload for 0.4s`);
    } finally {
      await client.close();
      await shut(server);
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.concurrent('choosing the transport (auto)', () => {
  const traced = async (run: (c: ApiClient, pool: Scripted) => Promise<unknown>) => {
    const { pool, client, lines } = await setup(undefined as never, { transport: 'auto', debug: true });
    await run(client, pool);
    return { lines: lines.filter((l) => l.startsWith('transport:')), pool };
  };

  it('node:http for requests one at a time, on one kept-alive connection, which close() ends', async () => {
    let client: ApiClient | undefined;
    const { lines, pool } = await traced(async (c, p) => {
      client = c;
      p.intercept({ path: NOTES }).reply(200, { n: 1 }).times(3);
      for (let i = 0; i < 3; i++) await c.callEndpoint(ep());
    });
    expect(lines).toEqual([]);
    expect(pool.seen.map((s) => s.headers.connection)).toEqual(['keep-alive', 'keep-alive', 'keep-alive']);
    expect(new Set(pool.seen.map((s) => s.port)).size).toBe(1);
    const connections = () => new Promise<number>((resolve, reject) => pool.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
    expect(await connections()).toBe(1);
    await client!.close();
    // In a timer that does not keep a process alive (node-transport.ts): a process that goes on sees it closed.
    while ((await connections()) > 0) await new Promise((r) => setTimeout(r, 5));
  });

  it("node:http drops a kept-alive connection before the server's Keep-Alive timeout ends it", async () => {
    const { pool, client } = await setup('node');
    pool.server.keepAliveTimeout = 2000; // announced as `Keep-Alive: timeout=2`
    pool.intercept({ path: NOTES }).reply(200, { n: 1 }).times(3);
    await client.callEndpoint(ep());
    await client.callEndpoint(ep());
    await new Promise((r) => setTimeout(r, 1300)); // past the announced timeout less the agent's 1 s margin
    await client.callEndpoint(ep());
    expect(pool.seen[2].port).not.toBe(pool.seen[1].port);
  });

  it('undici once requests overlap (a pool, as wm import runs them)', async () => {
    const { lines, pool } = await traced(async (c, p) => {
      p.intercept({ path: NOTES }).reply(200, { n: 1 }).times(5);
      await c.callEndpoint(ep());
      await Promise.all([c.callEndpoint(ep()), c.callEndpoint(ep()), c.callEndpoint(ep())]);
      await c.callEndpoint(ep());
    });
    expect(lines).toEqual(['transport: undici (requests in flight at once)']);
    expect(pool.seen).toHaveLength(5);
  });

  it('node:http for an upload, also while other requests are in flight (it reuses its buffers; undici cannot)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'notevox-upload-'));
    try {
      const path = join(dir, 'a.wav');
      await writeFile(path, 'abc');
      const { lines, pool } = await traced(async (c, p) => {
        p.intercept({ path: '/u', method: 'PUT' }).reply(200, '').times(2);
        p.intercept({ path: NOTES }).reply(200, { n: 1 }).times(2);
        await c.upload(`${p.base}/u`, { file: path, size: 3, contentType: 'audio/wav' });
        await Promise.all([c.callEndpoint(ep()), c.upload(`${p.base}/u`, { file: path, size: 3, contentType: 'audio/wav' }), c.callEndpoint(ep())]);
      });
      expect(lines).toEqual(['transport: node:http (an upload)', 'transport: undici (requests in flight at once)']);
      expect(pool.seen.filter((s) => s.method === 'PUT').map((s) => s.body)).toEqual(['abc', 'abc']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('an injected dispatcher (undici MockAgent) serves every request', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get('https://api.test').intercept({ path: NOTES }).reply(200, { mocked: true });
    const client = createClient({ baseUrl: 'https://api.test', apiKey: KEY, log: () => {}, env: {}, dispatcher: agent });
    try {
      expect((await client.callEndpoint(ep())).data).toEqual({ mocked: true });
    } finally {
      await client.close();
      await agent.close();
    }
  });
});

describe('explaining errors', () => {
  it('explainError covers API, CLI and unexpected errors', () => {
    expect(explainError(new CliError('x', { exitCode: EXIT.USAGE, hint: 'y' }))).toEqual({ message: 'x', hint: 'y', exitCode: EXIT.USAGE });
    const api = new ApiError({ status: 409, errorType: 'conflict', code: 409000, apiMessage: 'busy' });
    expect(explainError(api)).toMatchObject({ exitCode: EXIT.REJECTED, errorType: 'conflict', code: 409000 });
    expect(explainError(new TypeError('oops'))).toMatchObject({ message: 'oops', exitCode: EXIT.UNEXPECTED });
  });

  it('every explained error of exit 1, 2, 3 or 8 has a hint, even when the thrower gave none', () => {
    for (const exitCode of [EXIT.UNEXPECTED, EXIT.USAGE, EXIT.UNAUTHENTICATED, EXIT.UNAVAILABLE]) {
      expect(explainError(new CliError('x', { exitCode })).hint, `exit ${exitCode}`).toMatch(/\w/);
    }
    expect(explainError(new CliError('x', { exitCode: EXIT.USAGE, hint: 'mine' })).hint).toBe('mine');
  });

  it('network hints: --timeout only for timeouts, the sandbox only for refused loopback, the proxy when one is in the way', () => {
    const refusedRemote = networkHint({ code: 'ECONNREFUSED', loopback: false, proxied: false });
    expect(refusedRemote).not.toMatch(/--timeout|sandbox/);
    expect(networkHint({ code: 'ECONNREFUSED', loopback: true, proxied: false })).toMatch(/notevox sandbox start/);
    expect(networkHint({ code: 'ECONNREFUSED', loopback: false, proxied: true })).toMatch(/HTTPS_PROXY/);
    for (const code of ['ECONNRESET', 'CONNECTION_CLOSED', 'ENOTFOUND', 'EAI_AGAIN']) expect(networkHint({ code, loopback: false, proxied: false })).not.toMatch(/--timeout/);
    for (const code of ['CONNECT_TIMEOUT', 'PROXY_TIMEOUT', 'HEADERS_TIMEOUT', 'BODY_TIMEOUT', 'SEND_TIMEOUT']) {
      expect(networkHint({ code, loopback: false, proxied: code === 'PROXY_TIMEOUT', timeout: '2s' })).toMatch(/raise --timeout \(now 2s\)/);
    }
  });

  it('parses rate-limit headers', () => {
    expect(parseRateLimit({ 'X-RateLimit-Limit': '600', 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '1767225600' })).toEqual({
      limit: 600,
      remaining: 12,
      resetEpochSeconds: 1767225600,
    });
    expect(parseRateLimit({ 'x-ratelimit-limit': 'many' })).toEqual({});
  });

  it('reads the window of a RateLimit-Policy header (IETF draft: 20;w=10, or "name";q=20;w=10); none without one', () => {
    const w = (policy: string, limit = '20') => parseRateLimit({ 'x-ratelimit-limit': limit, 'RateLimit-Policy': policy }).windowSeconds;
    expect(w('20;w=10')).toBe(10);
    expect(w('"burst";q=20;w=10')).toBe(10);
    expect(w('100;w=3600, 20;w=10')).toBe(10); // the policy whose quota is the limit
    expect(w('100;w=3600, 50;w=60')).toBe(3600); // else the first
    for (const bad of ['20', '20;w=0', '20;w=ten', '20;w=-5', '']) expect(w(bad)).toBeUndefined();
    expect(parseRateLimit({ 'x-ratelimit-limit': '600' }).windowSeconds).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------------------

/** A forward proxy that records what it sees; CONNECT to `name:port` goes to 127.0.0.1:port, or is refused or ignored. */
async function recordingProxy(mode: 'tunnel' | 'silent' | 'refuse' = 'tunnel') {
  const connects: string[] = [];
  const plain: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    plain.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(502).end('this proxy only tunnels');
  });
  server.on('connection', (s: Socket) => sockets.add(s));
  server.on('connect', (req: IncomingMessage, client: Socket) => {
    connects.push(req.url ?? '');
    client.on('error', () => {});
    if (mode === 'silent') return;
    if (mode === 'refuse') return client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="x"\r\n\r\n');
    const port = Number((req.url ?? '').split(':').at(-1));
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
  });
  const host = await listen(server);
  return {
    url: `http://${host}`,
    host,
    connects,
    plain,
    /** Whether the key went through in any form the proxy could read. */
    sawKey: () => JSON.stringify(plain).includes(KEY.split('.')[1]),
    close: async () => {
      for (const s of sockets) s.destroy();
      await shut(server);
    },
  };
}

describe('proxies', () => {
  it('describes the proxy without its credentials', () => {
    expect(proxyFor(new URL('https://api.example.com'), { NO_PROXY: 'localhost' })).toEqual({});
    const url = new URL('https://api.example.com/v1');
    const env = { HTTPS_PROXY: 'http://user:pw@proxy.corp:3128', NO_PROXY: '.internal' };
    expect(describeProxy(url, proxyFor(url, env), env)).toBe('proxy: via proxy.corp:3128 (NO_PROXY=.internal)');
  });

  it('proxyFor: the variable for the scheme, lower case first, NO_PROXY entries, and never loopback', () => {
    const via = (url: string, env: NodeJS.ProcessEnv) => proxyFor(new URL(url), env).proxy?.host;
    expect(via('https://api.example.com', { HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2' })).toBe('b:2');
    expect(via('https://api.example.com', { HTTP_PROXY: 'http://a:1' })).toBe('a:1'); // HTTP_PROXY serves https:// too
    expect(via('http://api.example.com', { HTTPS_PROXY: 'http://a:1' })).toBeUndefined();
    const env = { HTTPS_PROXY: 'http://p:3128', NO_PROXY: 'internal.corp, .example.org,*.example.net , api.test:8443,10.1.2.3' };
    expect(via('https://internal.corp', env)).toBeUndefined();
    expect(via('https://svc.internal.corp', env)).toBeUndefined();
    expect(via('https://notinternal.corp', env)).toBe('p:3128');
    expect(via('https://example.org', env)).toBeUndefined();
    expect(via('https://a.example.net', env)).toBeUndefined();
    expect(via('https://api.test:8443', env)).toBeUndefined();
    expect(via('https://api.test', env)).toBe('p:3128');
    expect(via('https://10.1.2.3', env)).toBeUndefined();
    expect(via('https://anything', { HTTPS_PROXY: 'http://p:3128', no_proxy: '*' })).toBeUndefined();
    for (const loop of ['http://127.0.0.1:4010', 'http://127.8.9.10', 'http://localhost:4010', 'http://LOCALHOST', 'http://[::1]:4010', 'https://127.0.0.1']) {
      expect(proxyFor(new URL(loop), { HTTP_PROXY: 'http://p:3128', HTTPS_PROXY: 'http://p:3128' }), loop).toEqual({ bypass: 'loopback' });
    }
  });

  it('refuses unusable proxy settings without quoting them', async () => {
    const client = createClient({ baseUrl: 'https://api.test', log: () => {}, env: { HTTPS_PROXY: 'http//user:hunter2@@bad', HTTP_PROXY: '::' } });
    const err = await rejection(client.callEndpoint(ep({ auth: false })));
    expect(err).toMatchObject({ exitCode: EXIT.USAGE });
    expect(err.message).not.toContain('hunter2');
  });

  it('a loopback base URL never goes through the proxy: the proxy sees no request and no key', async () => {
    const proxy = await recordingProxy();
    const { pool } = await setup('undici');
    pool.intercept({ path: NOTES }).reply(200, { direct: true }).times(4);
    try {
      for (const host of [pool.host, pool.host.replace('127.0.0.1', 'localhost')]) {
        const lines: string[] = [];
        const client = createClient({ baseUrl: `http://${host}`, apiKey: KEY, debug: true, log: (l) => lines.push(l), env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
        try {
          expect((await client.callEndpoint(ep())).data).toEqual({ direct: true });
          expect(lines[0]).toBe(`proxy: not used for ${host} (loopback)`);
        } finally {
          await client.close();
        }
      }
      expect(proxy.connects).toEqual([]);
      expect(proxy.plain).toEqual([]);
      expect(proxy.sawKey()).toBe(false);
      expect(pool.seen.map((s) => s.headers.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    } finally {
      await proxy.close();
    }
  });

  it('sends other hosts through the proxy in a CONNECT tunnel (the key inside it), and NO_PROXY ones directly', async () => {
    const proxy = await recordingProxy();
    const { pool } = await setup('undici');
    pool.intercept({ path: NOTES }).reply(200, { via: 'tunnel' });
    const port = pool.host.split(':')[1];
    const lines: string[] = [];
    const client = createClient({ baseUrl: `http://api.proxied.test:${port}`, apiKey: KEY, debug: true, log: (l) => lines.push(l), env: { HTTP_PROXY: proxy.url } });
    try {
      expect((await client.callEndpoint(ep())).data).toEqual({ via: 'tunnel' });
      expect(proxy.connects).toEqual([`api.proxied.test:${port}`]);
      expect(proxy.sawKey()).toBe(false);
      expect(lines.slice(0, 2)).toEqual([`proxy: via ${proxy.host}`, 'transport: undici (a proxy)']);
      const direct = createClient({ baseUrl: `http://api.proxied.test:${port}`, apiKey: KEY, log: () => {}, env: { HTTP_PROXY: proxy.url, NO_PROXY: 'proxied.test' } });
      // Directly, the made-up name does not resolve: the point is that the proxy saw nothing new.
      expect((await rejection(direct.callEndpoint(ep()))).exitCode).toBe(EXIT.UNAVAILABLE);
      await direct.close();
      expect(proxy.connects).toHaveLength(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('a proxy that never answers CONNECT: a timeout within --timeout, one attempt, and close() does not wait for it', async () => {
    const proxy = await recordingProxy('silent');
    const client = createClient({ baseUrl: 'https://api.example.test', apiKey: KEY, timeoutMs: 300, log: () => {}, sleep: async () => {}, env: { HTTPS_PROXY: proxy.url } });
    try {
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err).toMatchObject({ code: 'PROXY_TIMEOUT', exitCode: EXIT.UNAVAILABLE, attempts: 1, timedOut: true });
      expect(err.message).toBe(`timed out: the proxy ${proxy.host} opened no connection to api.example.test within 0.3s`);
      expect(err.hint).toMatch(/HTTPS_PROXY.*raise --timeout \(now 0\.3s\)/);
      expect(proxy.connects).toEqual(['api.example.test:443']);
    } finally {
      await client.close(); // would hang if the abandoned CONNECT were waited for
      await proxy.close();
    }
  });

  it('a proxy that refuses the tunnel (407): says so and hints at credentials, no retry', async () => {
    const proxy = await recordingProxy('refuse');
    const client = createClient({ baseUrl: 'https://api.example.test', apiKey: KEY, log: () => {}, sleep: async () => {}, env: { HTTPS_PROXY: proxy.url } });
    try {
      const err = await rejection(client.callEndpoint(ep()));
      expect(err).toMatchObject({ code: 'PROXY_REFUSED', exitCode: EXIT.UNAVAILABLE, attempts: 1 });
      expect(err.message).toBe(`cannot reach api.example.test: the proxy refused the connection (407) (proxy ${proxy.host})`);
      expect(err.hint).toMatch(/407.*user:password/);
    } finally {
      await client.close();
      await proxy.close();
    }
  });
});

describe('start-up cost', () => {
  const major = Number(process.versions.node.split('.')[0]);
  /** Run `body` in a fresh Node (through tsx) and return what it prints as JSON. */
  const inFreshNode = (body: string) => {
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const loaded = () => ({
        undici: Object.keys(require.cache).some((k) => k.includes('/node_modules/undici/')),
        undiciIndex: Object.keys(require.cache).some((k) => k.endsWith('/node_modules/undici/index.js')),
        nodesOwnUndici: process.moduleLoadList.some((m) => m.includes('deps/undici')),
      });
      ${body}`;
    return JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' }));
  };
  const CLIENT = JSON.stringify(new URL('../../src/client/client.ts', import.meta.url).pathname);
  const EP = "{ id: 'x', method: 'GET', path: '/x', summary: '', scope: null, auth: false, keyTypes: [], idempotent: true, successStatus: 200 }";

  it(`one request at a time needs no undici at all, nor Node's own copy (node ${major})`, () => {
    const out = inFreshNode(`
      const { createServer } = process.getBuiltinModule('node:http');
      const server = createServer((req, res) => res.end('{}'));
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      const { createClient } = await import(${CLIENT});
      const client = createClient({ baseUrl: 'http://127.0.0.1:' + server.address().port, log: () => {} });
      await client.callEndpoint(${EP});
      await client.callEndpoint(${EP});
      await client.close();
      server.close();
      console.log(JSON.stringify(loaded()));`);
    expect(out).toEqual({ undici: false, undiciIndex: false, nodesOwnUndici: false });
  });

  it(`undici loads for a proxy, through its public entry point (node ${major})`, () => {
    const out = inFreshNode(`
      const { createClient } = await import(${CLIENT});
      const client = createClient({ baseUrl: 'https://api.example.test', log: () => {}, maxRetries: 0, env: { HTTPS_PROXY: 'http://127.0.0.1:9' } });
      await client.callEndpoint(${EP}).catch(() => {});
      await client.close();
      console.log(JSON.stringify(loaded()));`);
    expect(out).toMatchObject({ undici: true, undiciIndex: true });
  });

  // Why node-transport.ts takes node:http through process.getBuiltinModule: from Node 22 an ES import of node:http
  // reads every export to build the module's named exports, and the `WebSocket` getter among them compiles Node's
  // own copy of undici. On Node 20 the import is as cheap; the test says which case this Node is.
  it(`an ES import of node:http ${major >= 22 ? 'loads' : 'does not load'} Node's own undici on node ${major}; getBuiltinModule never does`, () => {
    const run = (body: string) => execFileSync(process.execPath, ['--input-type=module', '-e', `${body}; console.log(process.moduleLoadList.some((m) => m.includes('deps/undici')))`], { encoding: 'utf8' }).trim();
    expect(run("process.getBuiltinModule('node:http')")).toBe('false');
    expect(run("await import('node:http')")).toBe(major >= 22 ? 'true' : 'false');
  });

  it('the dispatchers undici exports can dispatch, and ProxyAgent can open tunnels', async () => {
    const { Agent, ProxyAgent, Client } = await loadUndici();
    for (const d of [new Agent(), new ProxyAgent({ uri: 'http://127.0.0.1:9' }), new Client('http://127.0.0.1:9')]) {
      expect(typeof d.dispatch).toBe('function');
      expect(typeof d.connect).toBe('function'); // ProxyAgent calls connect() on its Client
      await d.close();
    }
  });
});
