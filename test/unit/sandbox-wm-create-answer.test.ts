import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { wmCreateBody } from '../../src/contract/schemas.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import { formatPath } from '../../src/sandbox/seed/schema.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

/**
 * The answer to a word-memory create, byte for byte: for generated bodies (new, existing and repeated entries,
 * texts that JSON escapes, with and without subEntry, 1 to 1000 items, invalid ones), the status, the content type and
 * the body text are those of the rows as stored, serialized the way every other answer is (JSON.stringify of
 * `{content: [{id, entry, subEntry, createdAt}]}`), and a refused body answers zod's first issue.
 */

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;
let sb: Sandbox;
beforeAll(async () => {
  sb = await inProcessSandbox();
});
afterAll(async () => {
  await sb.close();
});

const PATH = '/v1/external/users/me/word-memories';
const KEY = 'nvk_user_admin';

/** Texts that JSON escapes or that are otherwise awkward (all valid word-memory texts). */
const ODD = ['q"uote', 'back\\slash', 'nul\u0000in', 'ctl\u0001x', 'emoji\u{1F600}', 'é', '</script>', 'zero\u200bwidth', '\u007f', 'x'.repeat(LIMITS.wordMemoryText.max - 10), '\\u0000'];
/** Values that are not valid texts. */
const BAD = ['', 'two words', 'x'.repeat(LIMITS.wordMemoryText.max + 1), 7, null, ['a'], {}];

function generator(seed: number) {
  const rand = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  let fresh = 0;
  const made: string[] = [];
  const text = (): string => {
    const r = rand();
    if (r < 0.1 && made.length) return pick(made); // an entry that exists (or one made earlier in this request)
    if (r < 0.25) return `${pick(ODD)}-${seed}-${fresh++}`;
    return `Term-${seed}-${fresh++}`;
  };
  return (opts: { n: number; subs: 'none' | 'null' | 'mixed'; repeats: boolean; bad: boolean }) => {
    const entries: Array<Record<string, unknown>> = [];
    for (let i = 0; i < opts.n; i++) {
      const entry = opts.repeats && i > 0 && rand() < 0.05 ? (entries[Math.floor(rand() * i)].entry as string) : text();
      const item: Record<string, unknown> = { entry };
      if (opts.subs === 'null') item.subEntry = null;
      else if (opts.subs === 'mixed') {
        const r = rand();
        if (r < 0.3) item.subEntry = null;
        else if (r < 0.6) item.subEntry = rand() < 0.3 ? `${pick(ODD)}-s${i}` : `alt-${i}`;
      }
      if (rand() < 0.02) item.extra = 'dropped';
      entries.push(item);
    }
    if (opts.bad) {
      const at = Math.floor(rand() * opts.n);
      entries[at] = rand() < 0.5 ? { ...entries[at], entry: pick(BAD) } : { ...entries[at], subEntry: pick(BAD.filter((b) => b !== null)) };
    }
    if (!opts.bad) for (const e of entries) made.push(e.entry as string);
    return { entries };
  };
}

interface Row {
  id: number;
  entry: string;
  sub_entry: string | null;
  created_at: string;
}

const maxId = () => sb.db.get<{ m: number | null }>('SELECT max(id) AS m FROM word_memories')!.m ?? 0;
/** The rows made after `after` in the caller's scope, as a read gives them, in id order. */
const rowsAfter = (after: number) => sb.db.all<Row>("SELECT id, entry, sub_entry, created_at FROM word_memories WHERE scope_type = 'user' AND id > ? ORDER BY id", [after]);

describe('word-memory create: the answer byte for byte', () => {
  it('is the rows as stored, serialized as JSON.stringify serializes them, for generated bodies', async () => {
    const body = generator(24);
    const sizes = [1, 2, 3, 17, 200, 999, LIMITS.wordMemoryBulkMax];
    let made = 0;
    let refused = 0;
    for (let round = 0; round < 3; round++)
      for (const n of sizes)
        for (const subs of ['none', 'null', 'mixed'] as const)
          for (const repeats of [false, true])
            for (const bad of [false, true]) {
              const b = body({ n, subs, repeats, bad: bad && round === 0 });
              const before = maxId();
              const r = await sb.call('POST', PATH, { key: KEY, body: b });
              const z = wmCreateBody.safeParse(b);
              if (!z.success) {
                const issue = z.error.issues[0];
                expect(r.status).toBe(400);
                expect(r.json.error.detail).toBe(`${issue.path.length ? formatPath(issue.path) : 'body'}: ${issue.message}`);
                expect(maxId()).toBe(before);
                refused++;
                continue;
              }
              expect(r.status, r.text.slice(0, 300)).toBe(200);
              expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
              const rows = rowsAfter(before);
              const expected = JSON.stringify({ content: rows.map((w) => ({ id: w.id, entry: w.entry, subEntry: w.sub_entry, createdAt: w.created_at })) });
              expect(r.text).toBe(expected);
              made += rows.length;
            }
    expect(made).toBeGreaterThan(5000);
    expect(refused).toBeGreaterThan(10);
  });

  it('answers the entries in the request’s order with consecutive ids', async () => {
    const entries = Array.from({ length: LIMITS.wordMemoryBulkMax }, (_, i) => ({ entry: `order-${(i * 7919) % 1000}-${i}` }));
    const before = maxId();
    const r = await sb.call('POST', PATH, { key: KEY, body: { entries } });
    expect(r.json.content.map((w: { entry: string }) => w.entry)).toEqual(entries.map((e) => e.entry));
    const ids: number[] = r.json.content.map((w: { id: number }) => w.id);
    expect(ids[0]).toBeGreaterThan(before);
    expect(ids).toEqual(entries.map((_, i) => ids[0] + i));
  });
});
