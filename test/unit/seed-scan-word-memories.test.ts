import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/sandbox/db.js';
import { scanWordMemories } from '../../src/sandbox/seed/scan-word-memories.js';
import { parseWordMemories } from '../../src/sandbox/seed/schema.js';
import { firstFreeId, insertWordMemories, KEPT_INDEXES } from '../../src/sandbox/seed/word-memories.js';

/**
 * A big seed's word memories are inserted straight from their JSON text (scan-word-memories.ts). The scan may
 * decline any text (it is then parsed as JSON and checked by the schema), but what it takes must be exactly what
 * JSON.parse, the seed schema and insertWordMemories make of it: the same rows, ids and counters; and it must never
 * take text that JSON.parse or the schema refuse.
 */

const NOW = '2026-06-01T00:00:00.000Z';

/** The rows and counters a load leaves, or its error. */
async function load(fill: (prepare: (sql: string) => (values: readonly unknown[]) => void) => unknown) {
  const db = await openDatabase();
  try {
    let result: unknown;
    try {
      result = db.bulk(fill, KEPT_INDEXES);
    } catch (e) {
      return { error: (e as Error).message };
    }
    return {
      result,
      rows: db.all('SELECT * FROM word_memories ORDER BY id'),
      sequence: db.all("SELECT seq FROM sqlite_sequence WHERE name = 'word_memories'"),
      scopes: db.all('SELECT DISTINCT scope_type AS scope, scope_id AS id FROM word_memories ORDER BY 1, 2'),
    };
  } finally {
    await db.close();
  }
}

/** What parsing the text as JSON and checking it with the schema loads; undefined when either refuses it. */
async function parsed(text: string) {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return undefined;
  }
  const items = parseWordMemories(input);
  return items && (await load((prepare) => insertWordMemories(prepare, items, firstFreeId(items), NOW)));
}

/** What the scan loads; undefined when it declines the text. */
async function scanned(text: string) {
  let declined = false;
  const got = await load((prepare) => {
    const r = scanWordMemories(text, NOW, prepare);
    if (!r) declined = true;
    return r && { count: r.count, scopes: [...r.scopes].sort((a, b) => (a.scope + a.id < b.scope + b.id ? -1 : 1)) };
  });
  return declined ? undefined : got;
}

/** The scan takes `text` (when `taken`), and then loads what the parse loads; otherwise it declines it. */
async function check(text: string, taken: boolean) {
  const scan = await scanned(text);
  if (!taken) {
    expect(scan, text).toBeUndefined();
    return;
  }
  const parse = await parsed(text);
  expect(scan, text).toBeDefined();
  expect(parse, text).toBeDefined();
  if ('error' in parse!) {
    expect(scan).toEqual(parse);
    return;
  }
  const { result, ...rows } = scan as { result: { count: number; scopes: unknown[] } };
  expect(rows, text).toEqual({ rows: parse!.rows, sequence: parse!.sequence, scopes: parse!.scopes });
  expect(result).toEqual({ count: parse!.rows!.length, scopes: parse!.scopes });
}

const item = (j: number) => ({ scope: ['user', 'workspace', 'organization'][j % 3], scopeId: j % 3 === 0 ? j + 1 : j % 3 === 1 ? 'wsScanTest000001' : 'org-1', entry: `e${j}` });

describe('scanWordMemories', () => {
  it('takes the common shapes and loads what parsing them loads', async () => {
    const items = Array.from({ length: 150 }, (_, j) => ({ ...item(j), ...(j % 4 === 0 ? { subEntry: j % 8 ? `s${j}` : null } : {}) }));
    for (const text of [JSON.stringify(items), JSON.stringify(items, null, 2), JSON.stringify(items, null, '\t').replaceAll('\n', '\r\n'), ` ${JSON.stringify(items)}\n`]) await check(text, true);
    await check('[]', true);
    await check(' [ ] ', true);
    // every item with an id, in any order; times, given in any offset, shared or not
    await check(JSON.stringify(items.map((w, j) => ({ id: 1000 - j * 3, ...w }))), true);
    await check(JSON.stringify(items.map((w, j) => ({ ...w, createdAt: j % 3 ? '2026-02-03T04:05:06.123456+01:00' : `2026-01-0${1 + (j % 9)}T00:00:00Z` }))), true);
    // keys in any order; unicode; the longest text; a user id as text or number; the largest id
    await check(JSON.stringify([{ entry: 'ünï-😀-日本', scopeId: '7', subEntry: 'x'.repeat(63), scope: 'user' }, { scopeId: 7, scope: 'user', entry: 'b' }]), true);
    await check(JSON.stringify([{ id: Number.MAX_SAFE_INTEGER % 1e15, scope: 'user', scopeId: 1, entry: 'a' }]), true);
    await check(JSON.stringify([{ scope: 'user', scopeId: 1, entry: 'id', subEntry: 'id' }, { scope: 'user', scopeId: 1, entry: 'createdAt' }]), true); // keys as values
  });

  it('loads what a load does when the table refuses a row (a duplicate entry or id)', async () => {
    await check(JSON.stringify([item(0), item(3), { ...item(0) }]), true);
    await check(JSON.stringify([{ id: 5, ...item(0) }, { id: 5, ...item(1) }]), true);
  });

  it('declines what it does not know, and never takes what JSON.parse or the schema refuse', async () => {
    const ok = JSON.stringify([item(1), item(2)]);
    const cases = [
      // valid, but for the parse to decide
      JSON.stringify([item(1), { ...item(2), entry: 'q"uote' }]), // an escape
      JSON.stringify([{ id: 3, ...item(1) }, item(2)]), // ids on some items only
      JSON.stringify([item(1), { id: 3, ...item(2) }]),
      ok.replace('"scopeId":"org-1"', '"scopeId":1.0'), // another number form
      ok.replace('"scopeId":"org-1"', '"scopeId":1e0'),
      ok.replace('"entry":"e1"', '"entry":"e1","entry":"e2"'), // a key twice (JSON.parse keeps the last)
      // refused by JSON.parse
      ok.replace('"entry":"e1"', '"entry":"e\u00011"'), // a control character in a string
      ok.replace('"entry":"e1"', '"entry":"e\t1"'),
      ok.replace('"scopeId":"org-1"', '"scopeId":01'),
      ok.replace('"scopeId":"org-1"', '"scopeId":-1'),
      ok.replace('"scopeId":"org-1"', '"scopeId":1x'),
      ok.replace('"scopeId":"org-1"', '"scopeId":nul'),
      ok.replace('"scopeId":"org-1"', '"scopeId":"org-1'),
      ok.replace('},{', '}{'),
      ok.replace('},{', '},,{'),
      ok.replace(']', ',]'),
      ok.replace('"entry":"e1"', '"entry":"e1",'),
      ok.replace('"entry"', 'entry'),
      ok.replace('"entry":', '"entry"'),
      ok.slice(0, -1),
      `${ok}]`,
      `${ok} x`,
      `[${ok}]`,
      '{}',
      '',
      // refused by the schema
      JSON.stringify([item(1), { ...item(2), extra: 1 }]),
      JSON.stringify([item(1), { ...item(2), scope: 'team' }]),
      JSON.stringify([item(1), { ...item(2), scopeId: 'not a slug' }]),
      JSON.stringify([item(1), { ...item(2), scopeId: 0 }]),
      JSON.stringify([item(1), { ...item(2), scopeId: true }]),
      JSON.stringify([item(1), { ...item(2), scopeId: null }]),
      JSON.stringify([item(1), { ...item(2), entry: '' }]),
      JSON.stringify([item(1), { ...item(2), entry: 'two words' }]),
      JSON.stringify([item(1), { ...item(2), entry: 'x'.repeat(64) }]),
      JSON.stringify([item(1), { ...item(2), entry: 5 }]),
      JSON.stringify([item(1), { ...item(2), subEntry: '' }]),
      JSON.stringify([item(1), { ...item(2), subEntry: ['x'] }]),
      JSON.stringify([item(1), { ...item(2), createdAt: '' }]),
      JSON.stringify([item(1), { ...item(2), createdAt: null }]),
      JSON.stringify([item(1), { ...item(2), createdAt: '2026-02-30T00:00:00Z' }]),
      JSON.stringify([item(1), { ...item(2), createdAt: '2026-02-03T04:05:06' }]),
      JSON.stringify([{ id: 0, ...item(1) }]),
      JSON.stringify([{ id: 1234567890123456, ...item(1) }]),
      JSON.stringify([{ scope: 'user', entry: 'x' }]),
      JSON.stringify([item(1), 5]),
      JSON.stringify([item(1), [item(2)]]),
      JSON.stringify([item(1), {}]),
    ];
    for (const text of cases) await check(text, false);
  });
});

describe('scanWordMemories in two parts (the tail built apart, word-memories.ts)', () => {
  /** The head `text[0, cut]` and the tail `text[cut, end)` (the comma in both) scanned one after the other into one table. */
  const parts = (text: string, cut: number, firstId?: number) =>
    load((prepare) => {
      const head = scanWordMemories(text.slice(0, cut + 1), NOW, prepare, { head: true });
      const tail = head && scanWordMemories(text.slice(cut), NOW, prepare, { tail: true, withIds: head.withIds, firstId });
      return head && tail ? { count: head.count + tail.count, withIds: [head.withIds, tail.withIds] } : 'declined';
    });
  const commas = (text: string) => [...text.matchAll(/\},\s*\{/g)].map((m) => m.index + 1);

  it('loads what the whole array loads, for a cut between any two items, the tail numbered by the table or from firstId', async () => {
    const items = Array.from({ length: 9 }, (_, j) => ({ ...item(j), ...(j % 4 === 0 ? { subEntry: `s${j}` } : {}) }));
    for (const text of [JSON.stringify(items), JSON.stringify(items, null, 2), JSON.stringify(items.map((w, j) => ({ id: 100 - j, ...w })))]) {
      const { result: _, ...whole } = await load((prepare) => scanWordMemories(text, NOW, prepare)?.count);
      for (const cut of commas(text)) {
        const head = text.slice(0, cut).split('"entry"').length - 1;
        for (const firstId of text.includes('"id"') ? [undefined] : [undefined, head + 1]) {
          const { result, ...rows } = await parts(text, cut, firstId);
          expect(result).toMatchObject({ count: items.length });
          expect(rows).toEqual(whole); // the same rows, ids, counter and scopes
        }
      }
    }
  });

  it('declines a head that does not end after a comma between items, a tail that does not start with one, and ids in one part only', async () => {
    const text = JSON.stringify([item(1), item(2), item(3)]);
    const cut = commas(text)[0];
    for (const [head, tail] of [
      [text.slice(0, cut), text.slice(cut)], // the head without its comma
      [`${text.slice(0, cut)}]`, text.slice(cut)],
      [text.slice(0, cut + 1), text.slice(cut + 1)], // the tail without it
      [text.slice(0, cut + 1), `[${text.slice(cut + 1)}`],
      [text.slice(0, cut + 1), text.slice(cut, -1)], // no end
    ])
      expect((await load((prepare) => (scanWordMemories(head, NOW, prepare, { head: true }) && scanWordMemories(tail, NOW, prepare, { tail: true })) ?? 'declined')).result, `${head} | ${tail}`).toBe('declined');
    const mixed = JSON.stringify([item(1), { id: 7, ...item(2) }]);
    expect((await parts(mixed, commas(mixed)[0])).result).toBe('declined');
  });
});
