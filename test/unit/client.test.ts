import { execFileSync } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvHttpProxyAgent, MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { errorEnvelope, ERROR_CODES } from '../../src/contract/errors.js';
import { PAGE_SIZES } from '../../src/contract/limits.js';
import type { EndpointSchemas } from '../../src/contract/endpoint-schemas.js';
import type { Endpoint } from '../../src/contract/types.js';
import { ApiError, buildQuery, createClient, explainError, NetworkError, parseRateLimit, type ClientOptions } from '../../src/client/client.js';
import { createDispatcher, describeProxy, loadDispatchers, proxyConfigured } from '../../src/client/transport.js';
import { CliError, EXIT } from '../../src/errors.js';

const BASE = 'https://api.test';
const KEY = 'kid_123.s3cr3t-value-xyz';
const NOTES = '/v1/external/notes';

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

let agents: MockAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.map((a) => a.close()));
  agents = [];
});

function setup(over: Partial<ClientOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agents.push(agent);
  const lines: string[] = [];
  const waits: number[] = [];
  const client = createClient({
    baseUrl: BASE,
    apiKey: KEY,
    log: (l) => lines.push(l),
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    dispatcher: agent,
    ...over,
  });
  return { pool: agent.get(BASE), client, lines, waits };
}

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const connReset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

describe('retries', () => {
  it('retries a 503 and then succeeds', async () => {
    const { pool, client, lines, waits } = setup();
    pool.intercept({ path: NOTES }).reply(503, envelope(503, ERROR_CODES.INTERNAL, 'boom'));
    pool.intercept({ path: NOTES }).reply(200, { ok: true });
    const res = await client.call(ep());
    expect(res).toMatchObject({ status: 200, data: { ok: true }, attempts: 2 });
    expect(waits).toEqual([250]); // 0.5 × 500 ms × 2^0
    expect(client.stats).toEqual({ requests: 2, retries: 1, rateLimited: 0 });
    expect(lines).toEqual([`retrying GET ${NOTES} in 0.3s (attempt 2/4): 503 internal_error`]);
  });

  it('honours Retry-After in seconds and counts rate limiting', async () => {
    const retries: number[] = [];
    const { pool, client, lines, waits } = setup({ onRetry: (e) => retries.push(e.attempt) });
    pool.intercept({ path: NOTES }).reply(429, envelope(429, ERROR_CODES.RATE_LIMITED, 'slow down'), { headers: { 'retry-after': '3' } });
    pool.intercept({ path: NOTES }).reply(200, {});
    await client.call(ep());
    expect(waits).toEqual([3000]);
    expect(retries).toEqual([2]);
    expect(client.stats.rateLimited).toBe(1);
    expect(lines[0]).toMatch(/in 3s \(attempt 2\/4\): 429 rate limited \(Retry-After 3s\)$/);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    const { pool, client, waits } = setup({ now: () => now });
    pool.intercept({ path: NOTES }).reply(503, 'busy', { headers: { 'retry-after': new Date(now + 5000).toUTCString() } });
    pool.intercept({ path: NOTES }).reply(200, {});
    await client.call(ep());
    expect(waits).toEqual([5000]);
  });

  it('does not retry a POST unless the endpoint is idempotent', async () => {
    const a = setup();
    a.pool.intercept({ path: NOTES, method: 'POST' }).reply(503, envelope(503, ERROR_CODES.INTERNAL, 'boom'));
    const err = await rejection(a.client.call(post(false), { body: { title: 'x' } }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.exitCode).toBe(EXIT.UNAVAILABLE);
    expect(a.waits).toEqual([]);
    expect(a.client.stats.requests).toBe(1);

    const b = setup();
    b.pool.intercept({ path: NOTES, method: 'POST' }).reply(503, envelope(503, ERROR_CODES.INTERNAL, 'boom'));
    b.pool.intercept({ path: NOTES, method: 'POST' }).reply(201, { id: 1 });
    const res = await b.client.call(post(true), { body: { title: 'x' } });
    expect(res).toMatchObject({ status: 201, attempts: 2 });
  });

  it('retries request() by method: GET yes, PATCH no', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: NOTES }).reply(502, 'bad gateway');
    pool.intercept({ path: NOTES }).reply(200, []);
    expect((await client.request('get', 'notes')).attempts).toBe(2);
    pool.intercept({ path: `${NOTES}/n1`, method: 'PATCH' }).reply(502, 'bad gateway');
    expect((await rejection(client.request('PATCH', 'notes/n1', { body: { title: 't' } }))).status).toBe(502);
  });

  it('stops after maxRetries', async () => {
    const { pool, client, waits } = setup({ maxRetries: 2 });
    pool.intercept({ path: NOTES }).reply(500, envelope(500, ERROR_CODES.INTERNAL, 'down')).times(3);
    const err = await rejection(client.call(ep()));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 500, errorType: 'internal_error', exitCode: EXIT.UNAVAILABLE });
    expect(waits).toEqual([250, 500]);
    expect(client.stats).toMatchObject({ requests: 3, retries: 2 });
  });

  it('stops early when the next wait would exceed maxTotalWaitMs', async () => {
    const { pool, client, waits } = setup({ random: () => 1, maxTotalWaitMs: 1600 });
    pool.intercept({ path: NOTES }).reply(504, '').times(3);
    await rejection(client.call(ep()));
    expect(waits).toEqual([500, 1000]); // the next, 2000, would make 3500 > 1600
    expect(client.stats.requests).toBe(3);
  });

  it('gives up on a Retry-After beyond the cap: 429 → exit 7', async () => {
    const { pool, client, waits } = setup();
    pool.intercept({ path: NOTES }).reply(429, envelope(429, ERROR_CODES.RATE_LIMITED, 'slow down'), { headers: { 'retry-after': '120' } });
    const err = await rejection(client.call(ep()));
    expect(waits).toEqual([]);
    expect(err).toMatchObject({ status: 429, errorType: 'too_many_requests', retryAfterSeconds: 120, exitCode: EXIT.RATE_LIMITED });
    expect(err.hint).toContain('120s');
  });

  it('429 after every retry → ApiError exit 7', async () => {
    const { pool, client, waits, lines } = setup();
    pool.intercept({ path: NOTES }).reply(429, envelope(429, ERROR_CODES.RATE_LIMITED, 'slow down'), { headers: { 'retry-after': '1' } }).times(4);
    const err = await rejection(client.call(ep()));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.exitCode).toBe(EXIT.RATE_LIMITED);
    expect(waits).toEqual([1000, 1000, 1000]);
    expect(lines).toHaveLength(3);
    expect(client.stats.rateLimited).toBe(4);
  });

  it('retries connection errors, then fails with NetworkError exit 8', async () => {
    const { pool, client, lines } = setup();
    pool.intercept({ path: NOTES }).replyWithError(connReset()).times(4);
    const err = await rejection(client.call(ep()));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.exitCode).toBe(EXIT.UNAVAILABLE);
    expect(err.message).toBe('cannot reach api.test: connection reset (after 4 attempts)');
    expect(err.hint).toMatch(/--timeout/);
    expect(lines.every((l) => l.endsWith(': connection reset'))).toBe(true);
    expect(lines).toHaveLength(3);
  });

  it("retries 'other side closed' and then succeeds", async () => {
    const { pool, client } = setup();
    pool.intercept({ path: NOTES }).replyWithError(new Error('other side closed'));
    pool.intercept({ path: NOTES }).reply(200, { ok: 1 });
    expect((await client.call(ep())).attempts).toBe(2);
  });

  it('stops waiting between retries when the caller aborts', async () => {
    const ac = new AbortController();
    const { pool, client } = setup({ sleep: () => new Promise<void>(() => ac.abort()) });
    pool.intercept({ path: NOTES }).reply(503, '');
    const err = await rejection(client.call(ep(), { signal: ac.signal }));
    expect(err.name).toBe('AbortError');
    expect(client.stats.requests).toBe(1);
  });

  it('does not retry after the caller aborts', async () => {
    const { pool, client, waits } = setup();
    const ac = new AbortController();
    pool.intercept({ path: NOTES }).reply(503, '');
    const p = client.call(ep(), { signal: ac.signal });
    ac.abort();
    const err = await rejection(p);
    expect(err.name).toBe('AbortError');
    expect(waits).toEqual([]);
    expect(explainError(err)).toMatchObject({ exitCode: EXIT.INTERRUPTED });
  });
});

describe('errors', () => {
  it('parses the error envelope', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: `${NOTES}/abc` }).reply(404, envelope(404, ERROR_CODES.NOT_FOUND, 'note not found', 'abc'));
    const err = await rejection(client.call(ep({ path: `${NOTES}/{noteGuid}` }), { params: { noteGuid: 'abc' } }));
    expect(err).toMatchObject({ status: 404, code: 404000, errorType: 'not_found', apiMessage: 'note not found', detail: 'abc', exitCode: EXIT.NOT_FOUND });
    expect(err.message).toBe('404 not_found, code 404000: note not found (abc)');
    expect(err.hint).toMatch(/Check the id/);
  });

  it('maps the older 401 body to unauthorized', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: NOTES }).reply(401, { error: { code: 'invalid_api_key', message: 'Invalid API key', type: 'authentication_error' } });
    const err = await rejection(client.call(ep()));
    expect(err).toMatchObject({ status: 401, code: 'invalid_api_key', errorType: 'unauthorized', exitCode: EXIT.UNAUTHENTICATED });
    expect(err.hint).toMatch(/notevox auth login/);
  });

  it('explains a key id sent without its secret', async () => {
    const { pool, client } = setup({ apiKey: 'kid_only' });
    pool.intercept({ path: NOTES }).reply(401, envelope(401, ERROR_CODES.AUTH_MALFORMED, 'malformed API key', 'only a key id was sent'));
    const err = await rejection(client.call(ep()));
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
    const { pool, client } = setup();
    pool.intercept({ path: NOTES, method: 'POST' }).reply(status, envelope(status, code, 'nope'));
    const err = await rejection(client.call(post(false)));
    expect(err.hint).toMatch(hint);
    expect(err.exitCode).toBe(explainError(err).exitCode);
  });

  it('names the key types that may make the call in the 403002 hint when the detail lists them', async () => {
    const { pool, client } = setup();
    pool
      .intercept({ path: NOTES, method: 'POST' })
      .reply(403, envelope(403, ERROR_CODES.KEY_TYPE_FORBIDDEN, 'a workspace key may not call this', 'key types that may call it: USER, LEGACY_PERSONAL, ORGANIZATION'));
    const err = await rejection(client.call(post(false)));
    expect(err.hint).toBe('This key type cannot make this call: use a user (account) key or an organization key (`notevox auth login`, or NOTEVOX_API_KEY).');
  });

  it('names the missing scope from WWW-Authenticate in the 403001 hint', async () => {
    const { pool, client } = setup();
    pool
      .intercept({ path: NOTES })
      .reply(403, envelope(403, ERROR_CODES.INSUFFICIENT_SCOPE, 'insufficient_scope'), {
        headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="word_memory:read"' },
      });
    const err = await rejection(client.call(ep()));
    expect(err.exitCode).toBe(EXIT.FORBIDDEN);
    expect(err.hint).toContain('`word_memory:read` scope');
    expect(err.hint).toMatch(/dashboard/);
  });

  it('names the missing scope from detail when the header is absent', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: NOTES }).reply(403, envelope(403, ERROR_CODES.INSUFFICIENT_SCOPE, 'insufficient_scope', 'insufficient_scope: requires folder:write'));
    expect((await rejection(client.call(ep()))).hint).toContain('`folder:write`');
  });

  it('still builds an ApiError from a non-JSON error body', async () => {
    const { pool, client } = setup({ maxRetries: 0 });
    pool.intercept({ path: NOTES }).reply(502, '<html><body>Bad Gateway</body></html>');
    const err = await rejection(client.call(ep()));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 502, errorType: 'internal_error', code: undefined, exitCode: EXIT.UNAVAILABLE });
    expect(err.message).toContain('non-JSON response');
    expect(err.message).not.toContain('\n');
  });

  it('refuses an endpoint that needs a key when none is set: exit 3', async () => {
    const { client } = setup({ apiKey: undefined });
    const err = await rejection(client.call(ep()));
    expect(err).toBeInstanceOf(CliError);
    expect(err).toMatchObject({ message: 'not logged in', exitCode: EXIT.UNAUTHENTICATED });
    expect(err.hint).toBe('Run `notevox auth login` or set NOTEVOX_API_KEY.');
  });

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
});

describe('requests and responses', () => {
  it('sends accept, user-agent, JSON body and the bearer key; 204 gives null', async () => {
    const { pool, client } = setup({ userAgent: 'notevox-test' });
    let seen: Record<string, string> = {};
    let body: unknown;
    pool.intercept({ path: `${NOTES}/a%2Fb%20c`, method: 'PUT' }).reply((o) => {
      seen = o.headers as Record<string, string>;
      body = o.body;
      return { statusCode: 204, data: '' };
    });
    const res = await client.call(ep({ method: 'PUT', path: `${NOTES}/{noteGuid}` }), { params: { noteGuid: 'a/b c' }, body: { x: 1 } });
    expect(res).toMatchObject({ status: 204, data: null });
    expect(seen).toMatchObject({ accept: 'application/json', 'user-agent': 'notevox-test', 'content-type': 'application/json', authorization: `Bearer ${KEY}` });
    expect(body).toBe('{"x":1}');
  });

  it('sends no key to an endpoint without auth, even when one is set', async () => {
    const { pool, client } = setup();
    let auth: string | undefined = 'unset';
    pool.intercept({ path: '/v1/api-key-scopes' }).reply((o) => {
      auth = (o.headers as Record<string, string>).authorization;
      return { statusCode: 200, data: { content: [] } };
    });
    await client.call(ep({ path: '/v1/api-key-scopes', auth: false }));
    expect(auth).toBeUndefined();
  });

  it('throws a usage error for a missing path parameter', async () => {
    const { client } = setup();
    const err = await rejection(client.call(ep({ path: `${NOTES}/{noteGuid}` }), { params: {} }));
    expect(err).toMatchObject({ exitCode: EXIT.USAGE });
    expect(err.message).toContain('noteGuid');
  });

  it('serialises the query: skips undefined/null, repeats arrays, encodes', async () => {
    expect(buildQuery({ a: 1, b: undefined, c: null, d: ['x', 'y z'], e: true, 'f&': 'g=h' })).toBe('?a=1&d=x&d=y%20z&e=true&f%26=g%3Dh');
    expect(buildQuery({})).toBe('');
    const { pool, client } = setup();
    pool.intercept({ path: `${NOTES}?folderId=7&keyword=a%20b` }).reply(200, { content: [] });
    await client.call(ep(), { query: { folderId: 7, keyword: 'a b', cursor: undefined } });
  });

  it('accepts unknown response fields and notes a shape mismatch only under debug', async () => {
    const shaped = ep({ response: z.object({ id: z.number() }) });
    const quiet = setup();
    quiet.pool.intercept({ path: NOTES }).reply(200, { id: 'not-a-number', extra: true });
    expect((await quiet.client.call(shaped)).data).toEqual({ id: 'not-a-number', extra: true });
    expect(quiet.lines).toEqual([]);

    const loud = setup({ debug: true });
    loud.pool.intercept({ path: NOTES }).reply(200, { id: 'not-a-number' });
    await loud.client.call(shaped);
    expect(loud.lines.some((l) => /^note: test\.list response differs from the documented shape at id/.test(l))).toBe(true);
  });

  it('request(): prefixes relative paths, keeps absolute ones, returns the raw body, refuses other origins', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: `${NOTES}?size=5&x=1` }).reply(200, '{"content":[]}');
    const res = await client.request('GET', 'notes?size=5', { query: { x: 1 } });
    expect(res).toMatchObject({ status: 200, data: { content: [] }, rawBody: '{"content":[]}' });
    pool.intercept({ path: '/v1/api-key-scopes' }).reply(200, 'plain text');
    expect((await client.request('GET', '/v1/api-key-scopes')).data).toBe('plain text');
    pool.intercept({ path: NOTES }).reply(200, '[]');
    expect((await client.request('GET', `${BASE}${NOTES}`)).data).toEqual([]);
    const err = await rejection(client.request('GET', 'https://elsewhere.example/v1/external/notes'));
    expect(err).toMatchObject({ exitCode: EXIT.USAGE });
  });

  it('traces requests and responses under debug, headers from the allow-list only', async () => {
    const { pool, client, lines } = setup({ debug: true });
    pool
      .intercept({ path: `${NOTES}?size=50` })
      .reply(200, { content: [] }, { headers: { 'x-ratelimit-remaining': '599', 'set-cookie': 'session=zzz', 'content-type': 'application/json' } });
    await client.call(ep(), { query: { size: 50 } });
    expect(lines[0]).toBe(`> GET ${BASE}${NOTES}?size=50`);
    expect(lines).toContain('> accept: application/json');
    expect(lines).toContain('> authorization: Bearer ****');
    expect(lines.some((l) => /^< 200 OK \d+ms attempt 1$/.test(l))).toBe(true);
    expect(lines).toContain('< x-ratelimit-remaining: 599');
    expect(lines.join('\n')).not.toContain('session=zzz');
  });

  it('parses rate-limit headers', () => {
    expect(parseRateLimit({ 'X-RateLimit-Limit': '600', 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '1767225600' })).toEqual({
      limit: 600,
      remaining: 12,
      resetEpochSeconds: 1767225600,
    });
    expect(parseRateLimit({ 'x-ratelimit-limit': 'many' })).toEqual({});
  });
});

describe('pagination', () => {
  const paged = ep({ page: PAGE_SIZES.notes });

  it('follows nextCursor until null', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: NOTES }).reply(200, { content: [1, 2], nextCursor: 'c1' });
    pool.intercept({ path: NOTES, query: { cursor: 'c1' } }).reply(200, { content: [3], nextCursor: null });
    const pages = [];
    for await (const p of client.paginate<number>(paged)) pages.push(p);
    expect(pages).toEqual([
      { items: [1, 2], nextCursor: 'c1' },
      { items: [3], nextCursor: null },
    ]);
  });

  it('stops at the limit, asking only for what is left, and yields the cursor to continue', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: NOTES, query: { keyword: 'k', size: '2' } }).reply(200, { content: [1, 2], nextCursor: 'c1' });
    pool.intercept({ path: NOTES, query: { keyword: 'k', size: '2', cursor: 'c1' } }).reply(200, { content: [3, 4], nextCursor: 'c2' });
    // The service ignores the smaller size on the last page: the extra item is cut.
    pool.intercept({ path: NOTES, query: { keyword: 'k', size: '1', cursor: 'c2' } }).reply(200, { content: [5, 6], nextCursor: 'c3' });
    const pages = [];
    for await (const p of client.paginate<number>(paged, { query: { keyword: 'k' } }, { pageSize: 2, limit: 5 })) pages.push(p);
    expect(pages.map((p) => p.items)).toEqual([[1, 2], [3, 4], [5]]);
    expect(pages.at(-1)?.nextCursor).toBe('c3');
    expect(client.stats.requests).toBe(3);
  });

  it('starts from a given cursor', async () => {
    const { pool, client } = setup();
    pool.intercept({ path: NOTES, query: { cursor: 'start' } }).reply(200, { content: ['a'], nextCursor: null });
    const pages = [];
    for await (const p of client.paginate<string>(paged, {}, { cursor: 'start' })) pages.push(p);
    expect(pages).toEqual([{ items: ['a'], nextCursor: null }]);
  });
});

describe('real sockets', () => {
  let server: Server | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('upload streams the file with content-length, no Authorization, and reports progress', async () => {
    dir = await mkdtemp(join(tmpdir(), 'notevox-upload-'));
    const file = join(dir, 'audio.wav');
    const payload = Buffer.alloc(300_000, 7);
    await writeFile(file, payload);
    let got: { headers: IncomingHttpHeaders; body: Buffer; url: string } | undefined;
    const base = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got = { headers: req.headers, body: Buffer.concat(chunks), url: req.url ?? '' };
        res.writeHead(200).end();
      });
    });
    const progress: number[] = [];
    const client = createClient({ baseUrl: base, apiKey: KEY, log: () => {}, env: {} });
    try {
      const res = await client.upload(`${base}/upload/job-1?sig=abc`, { file, size: payload.length, contentType: 'audio/wav', onProgress: (n) => progress.push(n) });
      expect(res.status).toBe(200);
    } finally {
      await client.close();
    }
    expect(got?.url).toBe('/upload/job-1?sig=abc');
    expect(got?.body.equals(payload)).toBe(true);
    expect(got?.headers['content-length']).toBe(String(payload.length));
    expect(got?.headers['content-type']).toBe('audio/wav');
    expect(got?.headers.authorization).toBeUndefined();
    expect(progress.at(-1)).toBe(payload.length);
    expect(progress.length).toBeGreaterThan(1);
  });

  it('upload maps an error response to ApiError and refuses a size mismatch', async () => {
    dir = await mkdtemp(join(tmpdir(), 'notevox-upload-'));
    const file = join(dir, 'a.mp3');
    await writeFile(file, 'abc');
    const base = await listen((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(403, { 'content-type': 'application/json' }).end(envelope(403, ERROR_CODES.UPLOAD_SIGNATURE, 'signature expired')));
    });
    const client = createClient({ baseUrl: base, log: () => {}, env: {} });
    try {
      const err = await rejection(client.upload(`${base}/u?sig=x`, { file, size: 3, contentType: 'audio/mpeg' }));
      expect(err).toMatchObject({ status: 403, code: ERROR_CODES.UPLOAD_SIGNATURE, exitCode: EXIT.FORBIDDEN });
      expect(err.hint).toMatch(/expired/);
      expect((await rejection(client.upload(`${base}/u`, { file, size: 4, contentType: 'audio/mpeg' }))).exitCode).toBe(EXIT.USAGE);
    } finally {
      await client.close();
    }
  });

  it('times out an attempt that gets no answer: NetworkError after the retries', async () => {
    const base = await listen(() => {
      /* never answer */
    });
    const lines: string[] = [];
    const client = createClient({ baseUrl: base, apiKey: KEY, timeoutMs: 100, maxRetries: 1, log: (l) => lines.push(l), sleep: async () => {}, env: {} });
    try {
      const err = await rejection(client.call(ep()));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toMatch(/timed out after 0\.1s \(after 2 attempts\)$/);
      expect(lines).toHaveLength(1);
    } finally {
      await client.close();
      server?.closeAllConnections();
    }
  });

  it('connection refused is a NetworkError with exit 8', async () => {
    const base = await listen(() => {});
    await new Promise((r) => server!.close(r));
    server = undefined;
    const client = createClient({ baseUrl: base, apiKey: KEY, maxRetries: 0, log: () => {}, env: {} });
    try {
      const err = await rejection(client.call(ep()));
      expect(err).toMatchObject({ exitCode: EXIT.UNAVAILABLE, code: 'ECONNREFUSED' });
    } finally {
      await client.close();
    }
  });
});

describe('proxies', () => {
  it('detects proxy variables and describes them without credentials', async () => {
    expect(proxyConfigured({})).toBe(false);
    expect(proxyConfigured({ NO_PROXY: 'localhost' })).toBe(false);
    expect(proxyConfigured({ https_proxy: 'http://p:3128' })).toBe(true);
    expect(describeProxy({ HTTPS_PROXY: 'http://user:pw@proxy.corp:3128', NO_PROXY: '.internal' })).toBe('proxy: via proxy.corp:3128 (NO_PROXY=.internal)');
    const d = await createDispatcher({ timeoutMs: 1000, connectTimeoutMs: 1000 }, { HTTP_PROXY: 'http://proxy.corp:3128' });
    expect(d).toBeInstanceOf(EnvHttpProxyAgent);
    await d.close();
  });

  it('refuses unusable proxy settings without quoting them', async () => {
    const client = createClient({ baseUrl: BASE, log: () => {}, env: { HTTPS_PROXY: 'http//user:hunter2@@bad', HTTP_PROXY: '::' } });
    const err = await rejection(client.call(ep({ auth: false })));
    expect(err).toMatchObject({ exitCode: EXIT.USAGE });
    expect(err.message).not.toContain('hunter2');
  });

  it('sends requests through the proxy named in the environment', async () => {
    const target = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"via":"target"}'));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const tunnels: string[] = [];
    const proxy = createServer();
    proxy.on('connect', (req, client) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const lines: string[] = [];
    const client = createClient({ baseUrl: targetUrl, apiKey: KEY, debug: true, log: (l) => lines.push(l), env: { HTTP_PROXY: proxyUrl } });
    try {
      const res = await client.call(ep());
      expect(res.data).toEqual({ via: 'target' });
      expect(tunnels).toEqual([targetUrl.slice('http://'.length)]);
      expect(lines[0]).toBe(`proxy: via ${proxyUrl.slice('http://'.length)}`);
      // NO_PROXY sends the same request directly.
      const direct = createClient({ baseUrl: targetUrl, apiKey: KEY, log: () => {}, env: { HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
      expect((await direct.call(ep())).data).toEqual({ via: 'target' });
      await direct.close();
      expect(tunnels).toHaveLength(1);
    } finally {
      await client.close();
      proxy.closeAllConnections();
      target.closeAllConnections();
      await Promise.all([new Promise((r) => proxy.close(r)), new Promise((r) => target.close(r))]);
    }
  });
});

describe('startup cost', () => {
  it('loads undici only when the first request is made', () => {
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const undiciLoaded = () => Object.keys(require.cache).some((k) => k.includes('/node_modules/undici/'));
      const undiciIndexLoaded = () => Object.keys(require.cache).some((k) => k.endsWith('/node_modules/undici/index.js'));
      const { createClient } = await import(${JSON.stringify(new URL('../../src/client/client.ts', import.meta.url).pathname)});
      const before = undiciLoaded();
      const client = createClient({ baseUrl: 'http://127.0.0.1:9', log: () => {}, maxRetries: 0 });
      await client.call({ id: 'x', method: 'GET', path: '/x', summary: '', scope: null, auth: false, keyTypes: [], idempotent: true, successStatus: 200 }).catch(() => {});
      await client.close();
      console.log(JSON.stringify({ before, after: undiciLoaded(), index: undiciIndexLoaded(), fetchHeaders: process.moduleLoadList.some((m) => m.includes('deps/undici')) }));`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    // Only the dispatchers: not undici's index (fetch, WebSocket, caches), nor Node's own copy of undici.
    expect(JSON.parse(out)).toEqual({ before: false, after: true, index: false, fetchHeaders: false });
  });

  it('the dispatchers loaded without the index of undici still have the request API', async () => {
    const { Agent, EnvHttpProxyAgent } = await loadDispatchers();
    for (const d of [new Agent(), new EnvHttpProxyAgent({ httpProxy: 'http://127.0.0.1:9', httpsProxy: '', noProxy: '' })]) {
      expect(typeof d.request).toBe('function');
      await d.close();
    }
  });
});
