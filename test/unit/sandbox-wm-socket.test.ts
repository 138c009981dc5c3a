import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';
import { startTestSandbox } from '../helpers/sandbox.js';

/**
 * A word-memory create through a real socket (Node's HTTP server and @hono/node-server, which the in-process tests
 * skip): the answer is sent as UTF-8 bytes the handler wrote (not a string for the server to encode), and the body is
 * read from Node's request through its events. Both must be what they were: the same bytes, a body in many pieces
 * read whole, a client that goes away mid-body changing nothing.
 */

type Live = Awaited<ReturnType<typeof startTestSandbox>>;
let live: Live;
beforeAll(async () => {
  live = await startTestSandbox();
});
afterAll(async () => {
  await live?.close();
});

const PATH = '/v1/external/users/me/word-memories';
const headers = (length: number) => ({ authorization: `Bearer ${DEMO_KEYS.admin.token}`, 'content-type': 'application/json', 'content-length': String(length) });

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** POST `pieces` (the body, written one after the other with a pause between) and the raw answer. */
function post(pieces: Buffer[], pauseMs = 0): Promise<Raw> {
  const length = pieces.reduce((n, p) => n + p.length, 0);
  const url = new URL(PATH, live.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: headers(length) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    void (async () => {
      for (const p of pieces) {
        req.write(p);
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
      req.end();
    })();
  });
}

/** The rows of the admin's user scope whose entry starts with `prefix`, as the API writes them. */
function storedJson(prefix: string): string {
  const rows = live.db.all<{ id: number; entry: string; sub_entry: string | null; created_at: string }>(
    "SELECT id, entry, sub_entry, created_at FROM word_memories WHERE scope_type = 'user' AND substr(entry, 1, length(?1)) = ?1 ORDER BY id",
    [prefix],
  );
  return JSON.stringify({ content: rows.map((r) => ({ id: r.id, entry: r.entry, subEntry: r.sub_entry, createdAt: r.created_at })) });
}

describe('word-memory create over a socket', () => {
  it('answers the UTF-8 bytes of the rows made, with their byte length as Content-Length (ASCII, non-ASCII, escaped texts)', async () => {
    for (const [prefix, odd] of [
      ['SockAscii', ['plain', 'x-y']],
      ['SockUtf8', ['é', 'emoji\u{1F600}', 'zero\u200bwidth', 'q"uote', 'back\\slash']],
    ] as const) {
      const entries = Array.from({ length: 300 }, (_, i) => ({ entry: `${prefix}-${odd[i % odd.length]}-${i}`, ...(i % 3 === 0 ? { subEntry: `alt-${odd[i % odd.length]}-${i}` } : {}) }));
      const res = await post([Buffer.from(JSON.stringify({ entries }))]);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(res.headers['content-length'])).toBe(res.bytes.length);
      expect(res.bytes.equals(Buffer.from(storedJson(prefix)))).toBe(true);
    }
  });

  it('reads a body that arrives in many pieces whole, also when a piece splits a UTF-8 character', async () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({ entry: `SockPieces-é-${i}` }));
    const body = Buffer.from(JSON.stringify({ entries }));
    const pieces: Buffer[] = [];
    // Pieces of about 4 kB, each ending inside the two bytes of an é (after its first byte, 0xc3).
    for (let at = 0; at < body.length; ) {
      const split = body.indexOf(0xc3, at + 4000);
      const end = split < 0 ? body.length : split + 1;
      pieces.push(body.subarray(at, end));
      at = end;
    }
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.some((p) => p[p.length - 1] === 0xc3)).toBe(true);
    const res = await post(pieces, 2);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.bytes.toString('utf8')).content).toHaveLength(1000);
    expect(res.bytes.equals(Buffer.from(storedJson('SockPieces-')))).toBe(true);
  });

  it('answers an empty body (Content-Length: 0) with the schema error, as before', async () => {
    const res = await post([]);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.bytes.toString('utf8')).error).toMatchObject({ code: 400000, message: 'invalid body', detail: expect.stringMatching(/^body: /) });
  });

  it('changes nothing when the client goes away before its body is complete, and answers the next request', async () => {
    const body = Buffer.from(JSON.stringify({ entries: [{ entry: 'SockGone-1' }, { entry: 'SockGone-2' }] }));
    const url = new URL(PATH, live.baseUrl);
    await new Promise<void>((resolve) => {
      const req = request(url, { method: 'POST', headers: headers(body.length) });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(body.subarray(0, 20), () => setTimeout(() => req.destroy(), 50));
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(storedJson('SockGone-')).toBe('{"content":[]}');
    const res = await post([body]);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.bytes.toString('utf8')).content.map((r: { entry: string }) => r.entry)).toEqual(['SockGone-1', 'SockGone-2']);
  });
});
