import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { errorEnvelope, ERROR_CODES } from '../../src/contract/errors.js';
import type { Endpoint } from '../../src/contract/types.js';
import { createClient, explainError } from '../../src/client/client.js';
import { redact, safeUrl, traceHeaderLines } from '../../src/client/redact.js';

const ID = 'key_live_4f2a';
const SECRET = 'Zq9xS3cretValue_do-not-leak';
const KEY = `${ID}.${SECRET}`;
const BASE = 'https://api.test';
const PATH = '/v1/external/notes';

const ep: Endpoint = {
  id: 'test.list',
  method: 'GET',
  path: PATH,
  summary: 'test endpoint',
  scope: null,
  auth: true,
  keyTypes: ['USER'],
  idempotent: true,
  successStatus: 200,
};

describe('redact()', () => {
  it('masks the whole key and its secret part', () => {
    expect(redact(`sent ${KEY} and ${SECRET}`, KEY)).toBe('sent **** and ****');
  });
  it('masks any bearer credential, even without knowing the key', () => {
    expect(redact('Authorization: Bearer abc.def+/=')).toBe('Authorization: Bearer ****');
    expect(redact('{"authorization":"bearer xyz.123"}')).toBe('{"authorization":"bearer ****"}');
  });
  it('leaves prose after "bearer" alone: a credential has a digit or a joiner inside, or is long', () => {
    // The sandbox's own message for a key sent without its secret (src/sandbox/auth.ts).
    const msg = 'only a key id was sent: the bearer value is the whole key {id}.{secret}, dot included';
    expect(redact(msg, KEY)).toBe(msg);
    expect(redact('the bearer value.')).toBe('the bearer value.');
    expect(redact('Bearer key_live_4f2a')).toBe('Bearer ****');
    expect(redact('Bearer abcdefghijklmnopqrstuvwxyzABCD')).toBe('Bearer ****');
    expect(redact('Bearer a-b c')).toBe('Bearer **** c');
  });
  it('leaves WWW-Authenticate parameters readable', () => {
    const h = 'Bearer error="insufficient_scope", scope="note:read"';
    expect(redact(h, KEY)).toBe(h);
  });
  it('masks a key without a dot as a whole', () => {
    expect(redact('id=justanid123', 'justanid123')).toBe('id=****');
  });
  it('never prints the Authorization header in traces', () => {
    const lines = traceHeaderLines('>', { Authorization: `Bearer ${KEY}`, accept: 'application/json', cookie: 'c=1' });
    expect(lines).toEqual(['> accept: application/json', '> authorization: Bearer ****']);
  });
  it('strips URL credentials and can hide a signed query', () => {
    expect(safeUrl(new URL('https://u:p@h.test/a?sig=1'))).toBe('https://h.test/a?sig=1');
    expect(safeUrl(new URL('https://h.test/a?sig=1'), true)).toBe('https://h.test/a?…');
  });
});

describe('the key never leaks from the client', () => {
  let agent: MockAgent;
  afterEach(() => agent.close());

  it('keeps the key out of every log line, error message, stack and serialised error', async () => {
    agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(BASE);
    const echo = `key ${KEY} / Bearer ${KEY} / secret ${SECRET}`;
    const echoed = (status: number, code: number) => JSON.stringify(errorEnvelope(status, code, echo, echo));

    // 1. A request that fails outright, with a server echoing the key everywhere it can.
    pool.intercept({ path: PATH }).reply(401, echoed(401, ERROR_CODES.AUTH_UNKNOWN), {
      headers: { 'www-authenticate': `Bearer realm="${KEY}"`, 'x-request-id': SECRET, 'x-echo': KEY },
    });
    // 2. A request that retries: 503 echoing the key, a connection error whose message carries the header, then success.
    pool.intercept({ path: PATH }).reply(503, echoed(503, ERROR_CODES.INTERNAL), { headers: { 'retry-after': '1' } });
    pool.intercept({ path: PATH }).replyWithError(Object.assign(new Error(`socket hang up; sent authorization: Bearer ${KEY}`), { code: 'ECONNRESET' }));
    pool.intercept({ path: PATH }).reply(200, { content: [] });
    // 3. An unexpected (unclassified) transport error quoting the key.
    pool.intercept({ path: PATH }).replyWithError(new Error(`invalid header value ${KEY}`));
    // 4. Connection errors until the retries run out.
    pool.intercept({ path: PATH }).replyWithError(Object.assign(new Error(`reset while sending ${KEY}`), { code: 'ECONNRESET' })).times(4);
    // 5. The key in a query string traced under debug, and a 429 giving up.
    pool.intercept({ path: `${PATH}?echo=${KEY}` }).reply(429, echoed(429, ERROR_CODES.RATE_LIMITED), { headers: { 'retry-after': '999' } });

    const lines: string[] = [];
    const client = createClient({
      baseUrl: BASE,
      apiKey: KEY,
      debug: true,
      log: (l) => lines.push(l),
      sleep: async () => {},
      random: () => 0.5,
      dispatcher: agent,
    });
    const errors: unknown[] = [];
    const attempt = async (fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        errors.push(err);
      }
    };
    await attempt(() => client.callEndpoint(ep));
    await attempt(() => client.callEndpoint(ep));
    await attempt(() => client.callEndpoint(ep));
    await attempt(() => client.callEndpoint(ep));
    await attempt(() => client.request('GET', `notes?echo=${KEY}`));

    expect(errors).toHaveLength(4); // the second call succeeded after its retries
    expect(lines.some((l) => l.startsWith('retrying GET'))).toBe(true);
    expect(lines).toContain('> authorization: Bearer ****');

    const texts = [...lines];
    for (const err of errors) {
      const e = err as Error & { hint?: string };
      texts.push(e.message, e.stack ?? '', e.hint ?? '', JSON.stringify(err), inspect(err, { depth: 10 }), JSON.stringify(explainError(err)));
    }
    const all = texts.join('\n');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(KEY);
    // The errors are still informative.
    expect(all).toContain('401 unauthorized');
    expect(all).toContain('connection reset');
  });
});
