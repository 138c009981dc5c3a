import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demoSeed } from '../../src/sandbox/demo-seed.js';
import { prepareSandbox } from '../../src/sandbox/server.js';
import { buildWordMemories, countBraces, SPLIT_MARK, splitWordMemories, tailCut } from '../../src/sandbox/seed/word-memories.js';

/**
 * A big seed is split at its word memories (seed/word-memories.ts): they are built apart (a worker thread in the
 * built CLI, this thread from the sources) and their table copied in. The result, and every error, must be what
 * loading the seed whole gives. `seedSplitMinChars` makes small seeds split here.
 */

let dir: string;
/** What the last start logged (verbose). */
let logged: string[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-seed-split-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const wordMemories = (n: number) =>
  Array.from({ length: n }, (_, j) => ({
    scope: j % 3 === 0 ? 'workspace' : 'user',
    scopeId: j % 3 === 0 ? demoSeed.workspaces![0].guid : demoSeed.users![0].id,
    entry: `entry-${j}-]}`,
    ...(j % 4 === 0 ? { subEntry: `sub"${j}"],"wiki":{` } : {}),
    ...(j % 5 === 0 ? { createdAt: '2026-02-03T04:05:06+01:00' } : {}),
    ...(j % 7 === 0 ? { id: 100_000 + j } : {}),
  }));

/** Start on `seed` (its text: JSON, pretty when `pretty`) with the cache, split or not; the rows, or the error. */
async function rows(seed: unknown, split: boolean, pretty = false, tailShare?: number) {
  const file = join(dir, `seed-${split}.json`);
  writeFileSync(file, typeof seed === 'string' ? seed : JSON.stringify(seed, null, pretty ? 2 : undefined));
  const cache = join(dir, `cache-${split}`);
  logged = [];
  let sb: Awaited<ReturnType<typeof prepareSandbox>>;
  try {
    sb = await prepareSandbox({ seedFile: file, seedCacheDir: cache, seedSplitMinChars: split ? 0 : Number.MAX_SAFE_INTEGER, seedTailShare: tailShare, rateLimit: '0', verbose: true, log: (l) => logged.push(l) });
  } catch (e) {
    // no entry and no temporary file is left by a start that fails
    expect(existsSync(cache) ? readdirSync(cache).filter((f) => f.endsWith('.sqlite') || f.includes('.tmp')) : []).toEqual([]);
    return { error: (e as Error).message.replaceAll(file, 'SEED') };
  }
  try {
    expect(readdirSync(cache).filter((f) => f.includes('.tmp'))).toEqual([]);
    return {
      keys: sb.keys.map((k) => k.id),
      wordMemories: sb.db.all('SELECT * FROM word_memories ORDER BY id'),
      notes: sb.db.all('SELECT * FROM notes ORDER BY rowid'),
      sequence: sb.db.all('SELECT * FROM sqlite_sequence ORDER BY name'),
      indexes: sb.db.all("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'word_memories' ORDER BY name"),
      integrity: sb.db.get('PRAGMA integrity_check'),
      tables: dumpAll(sb.db),
    };
  } finally {
    await sb.shutdown();
  }
}

/**
 * Every table of the database (sqlite_sequence too) with every row and its rowid, and the schema: the whole state
 * a start loaded. Salted hashes (a random salt each load) are only told apart from NULL. The order of the counters
 * in sqlite_sequence (the word memories' come last in a split load, as they always did) means nothing.
 */
function dumpAll(db: Awaited<ReturnType<typeof prepareSandbox>>['db']) {
  const salted: Record<string, string[]> = { api_keys: ['secret_salt', 'secret_hash'], share_links: ['password_salt', 'password_hash'] };
  const schema = db.all<{ type: string; name: string; sql: string | null }>('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name');
  const tables: Record<string, unknown[]> = {};
  for (const { name } of schema.filter((s) => s.type === 'table')) {
    const withoutRowid = name === 'sqlite_sequence' || /WITHOUT ROWID\s*$/i.test(schema.find((s) => s.name === name)!.sql ?? '');
    tables[name] = db.all<Record<string, unknown>>(`SELECT ${withoutRowid ? '' : 'rowid AS nvx_rowid, '}* FROM "${name}" ORDER BY 1`).map((r) => {
      for (const c of salted[name] ?? []) if (r[c] !== null) r[c] = 'salted';
      return r;
    });
  }
  return { schema, tables };
}

/** A seed with what a load must carry over exactly: items with and without ids and times, null and absent sub-entries, unicode and escapes. */
function trickySeed(n: number) {
  const ws = demoSeed.workspaces![0].guid;
  const userId = demoSeed.users![0].id;
  const org = demoSeed.organizations![0].id;
  const items = Array.from({ length: n }, (_, j) => ({
    scope: ['workspace', 'user', 'organization'][j % 3],
    scopeId: j % 3 === 0 ? ws : j % 3 === 1 ? (j % 2 ? userId : String(userId)) : org,
    entry: j % 11 === 0 ? `ünï-${j}-😀` : j % 13 === 0 ? `q"${j}\\x/\u00e9\u0001` : `e${j}`,
    ...(j % 4 === 0 ? { subEntry: j % 8 === 0 ? null : `s${j}-日本` } : {}),
    ...(j % 17 === 0 ? { createdAt: '2026-02-03T04:05:06.123456+01:00' } : {}),
    ...(j % 7 === 0 ? { id: 5_000_000 + j } : {}),
  }));
  const note = demoSeed.notes![0] as { ownerUserId: number; workspaceGuid?: string | null };
  const notes = Array.from({ length: 30 }, (_, i) => ({
    guid: 'zz' + i.toString(36).padStart(11, '0'),
    title: `Nöte ${i} — “quoted” \\ 🎉`,
    ownerUserId: note.ownerUserId,
    workspaceGuid: note.workspaceGuid ?? ws,
    sourceType: i % 2 ? 'text' : 'recording',
    ...(i % 3 ? { createdAt: '2026-03-01T10:00:00Z' } : {}),
    ...(i % 5 === 0 ? { id: 900_000 + i } : {}),
    paragraphs: i % 4 ? [] : [{ text: `Grüße ${i} 😀 "x"` }],
  }));
  return { ...demoSeed, now: '2026-06-01T00:00:00Z', notes: [...demoSeed.notes!, ...notes], wordMemories: items };
}

describe('a seed split at its word memories', () => {
  it('loads every table as loading it whole does, for items with and without ids, times and sub-entries, unicode and escapes', async () => {
    const seed = trickySeed(600);
    const whole = await rows(seed, false);
    expect(whole.error).toBeUndefined();
    expect(whole.wordMemories).toHaveLength(600);
    expect((whole.tables!.tables.notes as unknown[]).length).toBe(demoSeed.notes!.length + 30);
    expect(await rows(seed, true)).toEqual(whole);
    expect(await rows(seed, true, false, 0.5)).toEqual(whole); // a tail cut off: not built (escapes), all parsed by the build
    expect(logged.filter((l) => /loading it whole/.test(l))).toEqual([]);
  });

  it('loads what loading it whole loads: the same rows, ids, times, sequence and indexes', async () => {
    const seed = { ...demoSeed, now: '2026-06-01T00:00:00Z', wordMemories: wordMemories(300) };
    for (const pretty of [false, true]) {
      const whole = await rows(seed, false, pretty);
      expect(whole.error).toBeUndefined();
      expect(whole.wordMemories).toHaveLength(300);
      expect(await rows(seed, true, pretty)).toEqual(whole);
      expect(logged.filter((l) => /loading it whole/.test(l))).toEqual([]); // the split one was not loaded whole
    }
  });

  it('loads what loading it whole loads when its word memories are inserted straight from the text', async () => {
    const userId = demoSeed.users![0].id;
    const plain = Array.from({ length: 400 }, (_, j) => ({
      scope: j % 2 ? 'user' : 'workspace',
      scopeId: j % 2 ? (j % 3 ? userId : String(userId)) : demoSeed.workspaces![0].guid,
      entry: `plain-${j}-ü`,
      ...(j % 4 === 0 ? { subEntry: j % 8 ? `s${j}` : null } : {}),
      ...(j % 5 === 0 ? { createdAt: '2026-02-03T04:05:06+01:00' } : {}),
    }));
    const withIds = plain.map((w, j) => ({ id: 10_000 - j, ...w }));
    const { now: _, ...withoutNow } = demoSeed;
    for (const items of [plain, withIds]) {
      const seed = { ...withoutNow, wordMemories: items }; // no `now`: the time of each start
      const bytes = Buffer.from(`{"wordMemories": ${JSON.stringify(items)}}`);
      const file = join(dir, 'wm.sqlite');
      const build = buildWordMemories(file);
      build.input(bytes, 17, bytes.length - 1);
      build.start('2026-06-01T00:00:00.000Z');
      expect(await build.result()).toMatchObject({ ok: true, count: items.length, scanned: true });
      await build.cancel();
      const whole = await rows(seed, false);
      expect(whole.error).toBeUndefined();
      const split = await rows(seed, true);
      // rows without createdAt have the time of each start
      const timed = new Set(items.filter((w) => w.createdAt).map((w) => w.entry));
      const times = (r: typeof whole) => (r.wordMemories as Array<{ entry: string; created_at: string }>).filter((w) => !timed.has(w.entry)).map((w) => w.created_at);
      expect(new Set(times(whole)).size).toBe(1);
      expect(new Set(times(split)).size).toBe(1);
      const same = (r: typeof whole) => JSON.parse(JSON.stringify(r).replaceAll(times(r)[0], 'NOW'));
      expect(same(split)).toEqual(same(whole));
      expect(logged.filter((l) => /loading it whole/.test(l))).toEqual([]);
    }
  });

  it('reports every problem exactly as loading it whole does', async () => {
    const good = wordMemories(40);
    const userId = demoSeed.users![0].id;
    const cases: unknown[] = [
      { ...demoSeed, wordMemories: [...good, { scope: 'user', scopeId: userId, entry: good[1].entry }] }, // duplicate entry in a scope
      { ...demoSeed, wordMemories: [...good, { id: good[0].id ?? 100_000, scope: 'user', scopeId: userId, entry: 'another' }] }, // duplicate id
      { ...demoSeed, wordMemories: [...good, { scope: 'user', scopeId: 999, entry: 'x' }] }, // unknown user
      { ...demoSeed, wordMemories: [...good, { scope: 'organization', scopeId: 'org_nope', entry: 'x' }] }, // unknown organization
      { ...demoSeed, wordMemories: [...good, { scope: 'team', scopeId: userId, entry: 'x' }] }, // not in the schema
      { ...demoSeed, wordMemories: [...good, { scope: 'user', scopeId: userId, entry: 'x', extra: 1 }] },
      { ...demoSeed, wordMemories: { not: 'an array' } }, // not split
      { ...demoSeed, notes: [{ guid: 'bad' }], wordMemories: [...good, { scope: 'user', scopeId: 999, entry: 'x' }] }, // problems on both sides
      { ...demoSeed, wiki: { pages: [], wordMemories: [] }, wordMemories: good }, // the key found last is not the top-level one: not split
      { ...demoSeed, wordMemories: good, wiki: { wordMemories: [], pages: [] } }, // split there, then found not to be the top-level one
      { ...demoSeed, webhookEndpoints: [{ id: 'e1', url: 'https://203.0.113.9/hook', secret: 'whsec_0123456789abcdef0123' }], wordMemories: good }, // refused by this start
    ];
    for (const seed of cases) {
      const whole = await rows(seed, false);
      expect(whole).toHaveProperty('error');
      expect(await rows(seed, true)).toEqual(whole);
      // loaded whole after the split one was not vouched for; not split, or refused by this start: as ever
      const notSplit = [6, 8, 10].includes(cases.indexOf(seed));
      expect(logged.filter((l) => /loading it whole/.test(l)), `case ${cases.indexOf(seed)}`).toHaveLength(notSplit ? 0 : 1);
    }
    // Text that is not JSON, whether the cut falls in the array or not.
    const text = JSON.stringify({ ...demoSeed, wordMemories: good });
    for (const broken of [text.replace('"entry-3-]}"', '"entry-3-]}'), text.slice(0, -1), text.replace('"organizations"', '"organizations" x')]) {
      const whole = await rows(broken, false);
      expect(whole).toHaveProperty('error');
      expect(await rows(broken, true)).toEqual(whole);
    }
  });
});

describe('a split seed whose tail of word memories is built on the start\'s thread', () => {
  const userId = demoSeed.users![0].id;
  const ws = demoSeed.workspaces![0].guid;
  /** Items of the plain shape that is scanned, without ids or each with one. */
  const plain = (n: number, ids: boolean) =>
    Array.from({ length: n }, (_, j) => ({
      ...(ids ? { id: 50_000 - 3 * j } : {}),
      scope: j % 2 ? 'user' : 'workspace',
      scopeId: j % 2 ? (j % 3 ? userId : String(userId)) : ws,
      entry: `tail-${j}-ü`,
      ...(j % 4 === 0 ? { subEntry: j % 8 ? `s${j}` : null } : {}),
      ...(j % 5 === 0 ? { createdAt: '2026-02-03T04:05:06+01:00' } : {}),
    }));
  /** The word memories' build alone, its tail (`share` of the bytes) built here first. */
  async function built(items: unknown[], share: number) {
    const bytes = Buffer.from(`{"wordMemories": ${JSON.stringify(items, null, 1)}}`);
    const sub = mkdtempSync(join(dir, 'wm-'));
    const build = buildWordMemories(join(sub, 'wm.sqlite'));
    build.input(bytes, 17, bytes.length - 1, share);
    build.start('2026-06-01T00:00:00.000Z');
    await build.buildTail();
    const result = await build.result();
    await build.cancel();
    expect(readdirSync(sub)).toEqual([]); // the tail's file too
    return result;
  }

  it('loads what loading it whole loads, the tail copied in after the rows of the head, for items with and without ids', async () => {
    for (const ids of [false, true]) {
      const items = plain(400, ids);
      for (const share of [0.1, 0.5, 0.95]) expect(await built(items, share)).toMatchObject({ ok: true, count: 400, scanned: true, tailCopied: true });
      const seed = { ...demoSeed, now: '2026-06-01T00:00:00Z', wordMemories: items };
      const whole = await rows(seed, false);
      expect(whole.error).toBeUndefined();
      for (const share of [0.3, 0.7]) {
        for (const pretty of [false, true]) expect(await rows(seed, true, pretty, share)).toEqual(whole);
        expect(logged.filter((l) => /loading it whole/.test(l))).toEqual([]);
      }
    }
  });

  it('inserts the tail itself, the same rows, when the tail was numbered otherwise than its head ends (a `{` in an entry of the head)', async () => {
    const items = plain(400, false).map((w, j) => (j === 3 ? { ...w, entry: 'a{b' } : w));
    expect(await built(items, 0.5)).toMatchObject({ ok: true, count: 400, scanned: true, tailCopied: false });
    const seed = { ...demoSeed, now: '2026-06-01T00:00:00Z', wordMemories: items };
    const whole = await rows(seed, false);
    expect(whole.error).toBeUndefined();
    expect(await rows(seed, true, false, 0.5)).toEqual(whole);
  });

  it('reports a duplicate entry or id across the head and the tail as loading it whole does', async () => {
    const noIds = plain(400, false);
    const withIds = plain(400, true);
    const cases = [
      [...noIds, { scope: 'workspace', scopeId: ws, entry: noIds[2].entry }], // the same entry in the same scope
      [...withIds, { id: withIds[2].id, scope: 'user', scopeId: userId, entry: 'another' }], // the same id
    ];
    for (const items of cases) {
      expect(await built(items, 0.5)).toMatchObject({ ok: false });
      const seed = { ...demoSeed, wordMemories: items };
      const whole = await rows(seed, false);
      expect(whole).toHaveProperty('error');
      expect(await rows(seed, true, false, 0.5)).toEqual(whole);
      expect(logged.filter((l) => /loading it whole/.test(l))).toHaveLength(1);
    }
  });
});

describe('tailCut', () => {
  it('cuts at a comma between two items, never in a string', () => {
    const items = [{ entry: 'a},{' }, { entry: 'b},{"', scope: 'x' }, { entry: 'c' }, { entry: 'd' }];
    const text = JSON.stringify(items);
    const bytes = Buffer.from(text);
    for (let share = 0.05; share < 1; share += 0.05) {
      const cut = tailCut(bytes, 0, bytes.length, share);
      if (cut < 0) continue;
      expect(JSON.parse(`${text.slice(0, cut)}]`).length + JSON.parse(`[${text.slice(cut + 1)}`).length).toBe(items.length);
    }
    expect(tailCut(bytes, 0, bytes.length, 0)).toBe(-1);
    expect(tailCut(Buffer.from('[{"a":1}]'), 0, 9, 0.5)).toBe(-1); // one item: nowhere to cut
  });
});

describe('countBraces', () => {
  it('counts the `{` of any range, at any alignment', () => {
    const bytes = Buffer.from('{a{{b{{{{c{'.repeat(7) + '{ü{😀{');
    for (let from = 0; from < 12; from++)
      for (let to = from; to <= bytes.length; to += 5) {
        let n = 0;
        for (let i = from; i < to; i++) if (bytes[i] === 0x7b) n++;
        expect(countBraces(bytes, from, to), `${from}-${to}`).toBe(n);
        expect(countBraces(bytes.subarray(1), from, Math.min(to, bytes.length - 1))).toBe(countBraces(bytes, from + 1, Math.min(to + 1, bytes.length)));
      }
  });
});

describe('splitWordMemories', () => {
  it('cuts the last top-level wordMemories array out of the text, leaving the mark in its place', () => {
    const seed = { organizations: [{ id: 'o', name: 'Ö 😀' }], wordMemories: wordMemories(5), wiki: { pages: [] } };
    for (const text of [JSON.stringify(seed), JSON.stringify(seed, null, 2), `\uFEFF${JSON.stringify(seed, null, '\t')}\r\n`]) {
      const bytes = Buffer.from(text);
      const split = splitWordMemories(bytes, 0)!;
      expect(JSON.parse(bytes.toString('utf8', split.start, split.end))).toEqual(seed.wordMemories);
      expect(JSON.parse(split.head.replace(/^\uFEFF/, ''))).toEqual({ ...seed, wordMemories: SPLIT_MARK });
    }
  });

  it('leaves small arrays and seeds without one whole', () => {
    const text = JSON.stringify({ organizations: [], wordMemories: wordMemories(5) });
    expect(splitWordMemories(Buffer.from(text), Buffer.byteLength(text))).toBeUndefined();
    expect(splitWordMemories(Buffer.from(JSON.stringify({ organizations: [] })), 0)).toBeUndefined();
    expect(splitWordMemories(Buffer.from('{"wordMemories": 3}'), 0)).toBeUndefined();
    // no top-level key or end after any `]`: no split
    expect(splitWordMemories(Buffer.from('{"wordMemories": [1], "x y": 2}'), 0)).toBeUndefined();
    expect(splitWordMemories(Buffer.from('{"wordMemories": [1]} x'), 0)).toBeUndefined();
  });
});
