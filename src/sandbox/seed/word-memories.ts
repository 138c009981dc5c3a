import { rmSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { buildImage, type Db } from '../db.js';
import { scanWordMemories, type ScanPart, type Scanned } from './scan-word-memories.js';
import { phase } from './phases.js';
import { parseWordMemories, type Seed } from './schema.js';

/**
 * The word memories of a big seed, built on the other core while the start loads the rest of the seed.
 *
 * They are most of a big seed (1M of its 1.4M rows, 60 of its 78 MB) and what costs most to insert (the rows, then
 * their two indexes: the paging index updated as the rows go in, the unique key built after them with the sorter).
 * So the seed file's text is split where its top-level `wordMemories` array lies (splitWordMemories): the start
 * parses and loads the rest while a worker thread checks and inserts the word memories (straight from their text,
 * scan-word-memories.ts, or else parsed) into a database file of their own, with the same schema; the start then
 * copies its other tables (the smaller part) into that file, which becomes the seed's database (load.ts,
 * loadSplitSeed): `INSERT INTO … SELECT * FROM …` per table, which SQLite does by copying each table's and index's
 * records in order (its transfer optimization), not by inserting row by row.
 *
 * Nothing of this decides what a seed means or which problems it has: the worker vouches only for an array whose
 * every item the seed schema accepts, whose ids are unique (the table's primary key) and whose entries are unique
 * in their scope (its UNIQUE index); the start checks that each scope names a known user, workspace or
 * organization. For anything else (a split that does not parse, any problem, a worker that fails), the seed is
 * parsed and loaded whole as before (load.ts), which reports every problem as it always did.
 */

/** A seed whose wordMemories array is at least this long (bytes of its UTF-8) is split (below that the worker costs more than it saves). */
export const SPLIT_MIN_CHARS = 1 << 20;

export interface SplitSeed {
  /** The seed's text with its top-level wordMemories array replaced by `0`. */
  head: string;
  /** Where the array's text lies in the file's bytes: from its `[` to after its `]`. */
  start: number;
  end: number;
}

/** The value the array is replaced with in `head`: a seed never has it there, so finding it shows the split was at the top level. */
export const SPLIT_MARK = 0;

/**
 * Split a seed file's bytes (UTF-8) at its wordMemories array, or undefined (no such array, or a small one). The
 * split is a guess, made without parsing: the last `"wordMemories": [` to the first `]` after it that a top-level
 * key (`, "letters":`) or the end of the object follows. A wrong guess does not parse: a cut inside a string leaves
 * the array's text unterminated, one at a nested array's end leaves its brackets unbalanced, one past the array's
 * end leaves text after it; and a key found elsewhere than at the top level leaves `head` without the mark at its
 * top-level key. Done on the bytes (the characters looked for are ASCII, which UTF-8 never uses within another
 * character): only `head` is decoded here, the array's text by the thread that builds it.
 */
export function splitWordMemories(bytes: Buffer, minBytes = SPLIT_MIN_CHARS): SplitSeed | undefined {
  let key = bytes.lastIndexOf('"wordMemories"');
  let start = -1;
  while (key >= 0 && start < 0) {
    let i = skipSpace(bytes, key + 14);
    if (bytes[i] === 0x3a) {
      i = skipSpace(bytes, i + 1);
      if (bytes[i] === 0x5b) start = i;
    }
    if (start < 0) key = key > 0 ? bytes.lastIndexOf('"wordMemories"', key - 1) : -1;
  }
  if (start < 0) return undefined;
  let end = bytes.indexOf(0x5d, start);
  while (end >= 0 && !endsArray(bytes, end + 1)) end = bytes.indexOf(0x5d, end + 1);
  if (end < 0 || end + 1 - start < minBytes) return undefined;
  return { head: `${bytes.toString('utf8', 0, start)}${SPLIT_MARK}${bytes.toString('utf8', end + 1)}`, start, end: end + 1 };
}

/** What follows a `]` at `i` that ends a top-level array: `, "key":` or the object's `}` and the end. */
function endsArray(bytes: Buffer, i: number): boolean {
  i = skipSpace(bytes, i);
  if (bytes[i] === 0x7d) return skipSpace(bytes, i + 1) === bytes.length;
  if (bytes[i] !== 0x2c) return false;
  i = skipSpace(bytes, i + 1);
  if (bytes[i] !== 0x22) return false;
  const from = ++i;
  for (let c = bytes[i]; (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a); c = bytes[++i]);
  return i > from && bytes[i] === 0x22 && bytes[skipSpace(bytes, i + 1)] === 0x3a;
}

function skipSpace(bytes: Buffer, i: number): number {
  for (let c = bytes[i]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = bytes[++i]);
  return i;
}

/** What the build of the word memories found. */
export type WordMemoriesResult =
  | {
      ok: true;
      file: string;
      count: number;
      scopes: Array<{ scope: string; id: string }>;
      /** Inserted from the text (scanWordMemories), not parsed. */
      scanned: boolean;
      /** Its tail (buildTail) was copied in from the start's file, not inserted by the build. */
      tailCopied?: boolean;
    }
  /** Not vouched for: the seed is to be loaded whole (which names the problem, if it has one). */
  | { ok: false; why: string };

export interface WordMemoriesBuild {
  /**
   * The word memories: `bytes[start, end)`, the seed file's wordMemories array (splitWordMemories). `tailShare`: the
   * share of its bytes to cut off for the start's thread to build (buildTail), instead of tailShare()'s.
   */
  input(bytes: Uint8Array, start: number, end: number, tailShare?: number): void;
  /** The instant of the word memories without createdAt (the seed's `now`, known once the rest is parsed). */
  start(now: string): void;
  /**
   * On the start's thread, after start(): build the tail of the array that input() cut off (if it did) into a file of
   * its own, and hand it to the build, which copies it in; when that fails, the build inserts the tail itself.
   */
  buildTail(): Promise<void>;
  result(): Promise<WordMemoriesResult>;
  /** Stop the build (if it runs) and remove its file. */
  cancel(): Promise<void>;
}

const WORKER_KIND = 'notevox-seed-word-memories';

interface WorkerInput {
  kind: typeof WORKER_KIND;
  file: string;
}

/** The first message to the worker; the second is `now`, the third the tail's TailResult (when `cut` >= 0). */
interface WorkerText {
  /** The seed file's bytes (shared with the worker when they are in a SharedArrayBuffer: not copied). */
  bytes: Uint8Array;
  start: number;
  end: number;
  /** The comma after which the tail (built by the start's thread) begins; -1: no tail, the build does the whole array. */
  cut: number;
}

/** The tail built by the start's thread (buildTail), for the build to copy in. */
type TailResult = { ok: true; file: string; firstId: number; scanned: Scanned } | { ok: false; why: string };

/** The text of bytes[start, end) (UTF-8). */
const decode = (bytes: Uint8Array, start: number, end: number) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', start, end);

/**
 * Check and insert word memories (given later: input()) into a new database file `file`, in a worker thread where
 * this module runs as a file of the bundle; from the sources (tests), in this thread when `result()` is asked for.
 * The worker starts at once and makes the file with its schema meanwhile: a start makes it before it reads the
 * seed file (when the file is big enough to be split), so that this is done by the time the split is.
 */
export function buildWordMemories(file: string): WordMemoriesBuild {
  const url = new URL(import.meta.url);
  if (!url.pathname.endsWith('.js')) return inThisThread(file);
  let worker: Worker;
  try {
    worker = new Worker(url, { workerData: { kind: WORKER_KIND, file } satisfies WorkerInput, stdout: false, stderr: false });
  } catch (e) {
    return inThisThread(file, `no worker thread: ${(e as Error).message}`);
  }
  const done = new Promise<WordMemoriesResult>((resolve) => {
    worker.once('message', (r: WordMemoriesResult) => resolve(r));
    worker.once('error', (e: unknown) => resolve({ ok: false, why: `the worker failed: ${e instanceof Error ? e.message : String(e)}` }));
    worker.once('exit', (code) => resolve({ ok: false, why: `the worker exited with ${code}` }));
  });
  const tail = tailBuilder(file, (r) => worker.postMessage(r));
  return {
    input: (bytes, start, end, share) => worker.postMessage(tail.input(bytes, start, end, share)),
    start: (now) => worker.postMessage(tail.now(now)),
    buildTail: tail.build,
    result: () => done,
    async cancel() {
      await worker.terminate();
      tail.remove();
      rmSync(file, { force: true });
    },
  };
}

function inThisThread(file: string, unavailable?: string): WordMemoriesBuild {
  let text: WorkerText | undefined;
  let now: string | undefined;
  let tailResult: (r: TailResult) => void;
  const tailDone = new Promise<TailResult>((resolve) => (tailResult = resolve));
  const tail = tailBuilder(file, (r) => tailResult(r));
  let done: Promise<WordMemoriesResult> | undefined;
  return {
    input: (bytes, start, end, share) => (text = tail.input(bytes, start, end, share)),
    start: (n) => (now = tail.now(n)),
    // no build to copy it in: the seed is loaded whole (result)
    buildTail: unavailable ? async () => {} : tail.build,
    result: () => (done ??= unavailable ? Promise.resolve({ ok: false, why: unavailable }) : build(text!, file, now!, tailDone)),
    async cancel() {
      tail.remove();
      rmSync(file, { force: true });
    },
  };
}

/**
 * The tail of a big array, built on the start's thread while the build (the worker) does the rest. Without it, on the
 * bench's seed (1M word memories, 18 MB of other data; 2 cores), the start's thread was done with the rest of the
 * seed at about 1.6 s and idle until the worker was done with its rows (2.2 s) and the unique index (2.6 s), then
 * copied the rest in (ready at 2.8 s). The tail is built first, before the rest of the seed: the worker copies it in
 * once its own rows are done (SQLite's transfer of the table's records and of its paging index's into a table that is
 * not empty, which it does as the table has an INTEGER PRIMARY KEY and no unique index yet: about 0.8 µs a row, where
 * inserting it costs the worker 1.8 µs), then builds the unique index over the whole table while the start's thread
 * loads the rest. Measured in the same bench window: both threads done at 2.33–2.37 s, ready at 2.6 s (2.84 s
 * without). It costs CPU: the copy (0.23–0.26 s) and the start's rows (2.0 µs each): 0.3–0.5 s more in all, which a
 * machine busy with other work pays in time. Not built: the tail taken after the start's own part (the unique index
 * then waits for it instead of being built beside the start's work: about 0.1 s later by these costs, not measured).
 * Measured and rejected: CHECK constraints ignored while word memories go in (no difference).
 */
function tailBuilder(file: string, send: (r: TailResult) => void) {
  const tailFile = `${file}-tail`;
  let text: WorkerText | undefined;
  let now: string | undefined;
  return {
    input(bytes: Uint8Array, start: number, end: number, share?: number): WorkerText {
      const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const cut = tailCut(b, start, end, share ?? tailShare(b.length - (end - start), end - start));
      return (text = { bytes, start, end, cut });
    },
    now: (n: string) => (now = n),
    async build(): Promise<void> {
      if (!text || text.cut < 0) return;
      let r: TailResult;
      try {
        r = await buildTailFile(text, now!, tailFile);
      } catch (e) {
        r = { ok: false, why: (e as Error).message };
      }
      phase('built the tail of the word memories');
      send(r);
    },
    remove: () => rmSync(tailFile, { force: true }),
  };
}

/**
 * The share of the array's bytes the start's thread takes, so that both threads are done at about the same time:
 * it loads the rest of the seed (about 67 ns of CPU per byte of it: checks, rows, indexes, quick_check) and the tail
 * (38 ns a byte of word memories, with counting the items before it); the worker the other word memories (33 ns a
 * byte), then copies the tail in (13.5 ns a byte) and builds the unique index (4.5 ns a byte of all of them).
 * Measured on the bench's seed (phases: NOTEVOX_DEBUG=seed); a guess elsewhere, which can make the start slower,
 * never different. None below TAIL_MIN_BYTES: a file of its own costs more than that.
 */
export function tailShare(restBytes: number, arrayBytes: number): number {
  const share = Math.min(0.6, (37.5 * arrayBytes - 67 * restBytes) / (57.5 * arrayBytes));
  return share * arrayBytes >= TAIL_MIN_BYTES ? share : 0;
}

/** A tail's own file and its copy cost about 10 ms; its rows, 2 µs each (about 50 bytes). */
const TAIL_MIN_BYTES = 512 << 10;

/**
 * Where to cut the array `bytes[start, end)` so that about `share` of it is after the cut: the first comma there
 * between two items (`}` `,` `{"` and a letter, spaces between: in JSON without escapes, nothing else; with escapes,
 * neither part is scanned, and the whole array is parsed as before), or -1.
 */
export function tailCut(bytes: Buffer, start: number, end: number, share: number): number {
  if (!(share > 0)) return -1;
  const space = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
  for (let c = bytes.indexOf(0x2c, Math.max(start, Math.floor(end - (end - start) * share))); c >= 0 && c < end; c = bytes.indexOf(0x2c, c + 1)) {
    let a = c - 1;
    while (space(bytes[a])) a--;
    if (bytes[a] !== 0x7d) continue;
    let z = skipSpace(bytes, c + 1);
    if (bytes[z] !== 0x7b) continue;
    z = skipSpace(bytes, z + 1);
    const letter = bytes[z + 1] | 0x20;
    if (bytes[z] === 0x22 && letter >= 0x61 && letter <= 0x7a) return c;
  }
  return -1;
}

/**
 * Build the tail `bytes[cut, end)` into `file` (as the build its part): its items numbered after those before it
 * when they have no ids (counted by their `{`: should one be in a string, the build finds the numbers differ, and
 * inserts the tail itself). Only the paging index: the unique one is built over the whole table once it is in.
 */
async function buildTailFile(text: WorkerText, now: string, file: string): Promise<TailResult> {
  const { bytes, start, end, cut } = text;
  // An escape anywhere in the array: the build parses it whole (build), the tail would be for nothing.
  const escape = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0x5c, start);
  if (escape >= 0 && escape < end) return { ok: false, why: 'an escape in the text: parsed' };
  const firstId = 1 + countBraces(bytes, start, cut);
  const words = decode(bytes, cut, end);
  let scanned: Scanned | undefined;
  rmSync(file, { force: true });
  await buildImage(file, (db) => {
    deferIndexes(db);
    scanned = db.bulk((prepare) => scanWordMemories(words, now, prepare, { tail: true, firstId }), KEPT_INDEXES);
    if (!scanned) throw new NotScanned();
  });
  return { ok: true, file, firstId, scanned: scanned! };
}

/**
 * The `{` in bytes[from, to), four bytes at a time (a third of the CPU of a byte loop: 12–24 ms against 36–55 for the
 * 40 MB before the bench seed's tail): each byte of a word XORed with `{` is zero where it was one, and the bit
 * trick below sets the top bit of exactly those bytes.
 */
export function countBraces(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  let i = from;
  for (; i < to && (bytes.byteOffset + i) % 4 !== 0; i++) if (bytes[i] === 0x7b) n++;
  const words = Math.max(0, Math.floor((to - i) / 4));
  const w = words > 0 ? new Int32Array(bytes.buffer, bytes.byteOffset + i, words) : new Int32Array(0);
  for (let k = 0; k < words; k++) {
    const x = w[k] ^ 0x7b7b7b7b;
    const zero = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
    if (zero !== 0) n += Math.imul((zero >>> 7) & 0x01010101, 0x01010101) >>> 24;
  }
  for (i += words * 4; i < to; i++) if (bytes[i] === 0x7b) n++;
  return n;
}

/** Drop the indexes of word_memories that a bulk load builds after its rows (not KEPT_INDEXES); their SQL, to build them. */
const deferIndexes = (db: Db): string[] => db.dropIndexes(KEPT_INDEXES, 'word_memories');

type Parsed = { items: Seed['wordMemories']; firstId: number } | { why: string };

function parse(text: string): Parsed {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (e) {
    return { why: `not JSON: ${(e as Error).message}` };
  }
  const items = parseWordMemories(input);
  return items ? { items, firstId: firstFreeId(items) } : { why: 'an item the schema refuses' };
}

/** Give items without an id the next ids after the largest explicit one (as load.ts does). */
export function assignIds<T extends { id?: number }>(items: T[]): number[] {
  let next = firstFreeId(items);
  return items.map((i) => i.id ?? next++);
}

/** The id after the largest explicit one (1 when none has one): the first id assignIds gives. */
export function firstFreeId(items: ReadonlyArray<{ id?: number }>): number {
  // A loop, not Math.max(...ids): a million arguments overflow the stack.
  let next = 1;
  for (const i of items) if (i.id !== undefined && i.id >= next) next = i.id + 1;
  return next;
}

/**
 * Build the word memories of `text` into the new database file `file` once `now` is known (the schema is made
 * meanwhile): straight from the text when it has the shape a seed's word memories usually have (scanWordMemories),
 * else parsed as JSON and checked by the seed schema, as before.
 */
async function build(input: WorkerText | Promise<WorkerText>, file: string, now: string | Promise<string>, tail: Promise<TailResult>): Promise<WordMemoriesResult> {
  let scanned: Scanned | undefined;
  let text: WorkerText | undefined;
  let tailCopied = false;
  try {
    await buildImage(file, async (db) => {
      phase('made the file; waiting for the word memories');
      text = await input;
      const { bytes, start, end, cut } = text;
      const words = decode(bytes, start, cut < 0 ? end : cut + 1);
      phase('decoded the word memories; waiting for now');
      const at = await now;
      phase('got now');
      // The indexes built after the rows are sorted with a helper thread too: the start waits for this by then.
      db.run(`PRAGMA threads = ${SORT_THREADS}`);
      const later = deferIndexes(db);
      let done = db.bulk((prepare) => scanOrThrow(words, at, prepare, { head: cut >= 0 }), KEPT_INDEXES);
      phase('scanned and inserted the rows');
      if (cut >= 0) {
        const t = await tail;
        tailCopied = copiesTail(t, done);
        done = addTail(db, done, t, text, at, tailCopied);
      }
      for (const sql of later) db.run(sql);
      phase('built the unique index');
      scanned = done;
    });
    phase('closed the file');
  } catch (e) {
    // a duplicate id or entry (the table's constraints), or the file system: the whole seed is loaded again
    if (!(e instanceof NotScanned)) return { ok: false, why: (e as Error).message };
  }
  if (scanned) return { ok: true, file, count: scanned.count, scopes: scanned.scopes, scanned: true, tailCopied };
  phase('not scanned: parsing');
  return buildParsed(parse(decode(text!.bytes, text!.start, text!.end)), file, await now);
}

/** scanWordMemories, or NotScanned: rows of it may be in, the file is removed (buildImage) and built again from the parsed text. */
function scanOrThrow(words: string, now: string, prepare: (sql: string) => (values: readonly unknown[]) => void, part: ScanPart): Scanned {
  const done = scanWordMemories(words, now, prepare, part);
  if (!done) throw new NotScanned();
  return done;
}

/** The tail's file continues `head`: its items have ids as the head's do, or are numbered after them. */
const copiesTail = (tail: TailResult, head: Scanned) => tail.ok && tail.scanned.withIds === head.withIds && (head.withIds || tail.firstId === head.count + 1);

/**
 * Add the tail of the array (after `text.cut`) to the rows of its head (`head`): the file the start's thread built
 * (buildTail), copied in with SQLite's transfer of records when its items are numbered as the head's continue (the
 * table has an INTEGER PRIMARY KEY and no unique index yet: it need not be empty), else scanned and inserted here.
 */
function addTail(db: Db, head: Scanned, tail: TailResult, text: WorkerText, now: string, copy: boolean): Scanned {
  let more: Scanned;
  if (copy && tail.ok) {
    db.run('ATTACH DATABASE ? AS nvx_seed_tail', [tail.file]);
    try {
      db.tx(() => db.run('INSERT INTO main.word_memories SELECT * FROM nvx_seed_tail.word_memories'));
    } finally {
      db.run('DETACH DATABASE nvx_seed_tail');
    }
    more = tail.scanned;
    phase('copied in the tail built by the start');
  } else {
    const words = decode(text.bytes, text.cut, text.end);
    more = db.bulk((prepare) => scanOrThrow(words, now, prepare, { tail: true, withIds: head.withIds }), KEPT_INDEXES);
    phase(`scanned and inserted the tail (${tail.ok ? 'numbered otherwise' : tail.why})`);
  }
  const seen = new Set(head.scopes.map((s) => `${s.scope}:${s.id}`));
  return { count: head.count + more.count, withIds: head.withIds, scopes: [...head.scopes, ...more.scopes.filter((s) => !seen.has(`${s.scope}:${s.id}`))] };
}

class NotScanned extends Error {}

/**
 * The secondary index of word memories that a bulk load keeps and updates row by row instead of building it after
 * the rows: the paging index (scope_type, scope_id, id). Rows go in by id, so its entries arrive in one ascending run
 * per scope, each added where the last one of its scope went (a page in cache); sorting it afterwards costs more,
 * as the sorter's comparisons of a million keys with long equal prefixes (a handful of scopes) each read whole
 * records. Measured on the 1M word memories of the bench's seed: about 0.4 s less CPU than building it after the
 * rows. Measured again with the tail (node:sqlite, Node 24): built after the rows, the rows cost 0.83 s less CPU
 * (both threads' inserts and the tail's copy) and the index 0.93 s more, on the worker alone at the end, when the
 * start has nothing left to overlap it with: the first start went from 2.38–2.43 s to 2.50–2.70 s. The unique index
 * on entries, whose keys come in no order, is still built after them.
 */
export const KEPT_INDEXES: readonly string[] = ['word_memories_page'];

async function buildParsed(parsed: Parsed, file: string, now: string): Promise<WordMemoriesResult> {
  if ('why' in parsed) return { ok: false, why: parsed.why };
  let scopes: Array<{ scope: string; id: string }> = [];
  try {
    await buildImage(file, (db) => {
      db.run(`PRAGMA threads = ${SORT_THREADS}`);
      db.bulk((prepare) => insertWordMemories(prepare, parsed.items, parsed.firstId, now), KEPT_INDEXES);
      scopes = db.all<{ scope: string; id: string }>('SELECT DISTINCT scope_type AS scope, scope_id AS id FROM word_memories');
    });
  } catch (e) {
    // a duplicate id or entry (the table's constraints), or the file system: the whole seed is loaded again
    return { ok: false, why: (e as Error).message };
  }
  return { ok: true, file, count: parsed.items.length, scopes, scanned: false };
}

/** Threads of SQLite's sorter building the word memories' indexes (the start's thread is idle by then). */
const SORT_THREADS = 2;

/** Word memories inserted per statement (6 values each; SQLite allows 32766 parameters). */
const WORD_MEMORY_ROWS = 64;

/**
 * Insert word memories: WORD_MEMORY_ROWS rows per statement (bound from one array), the rest one by one; those
 * without an id get `firstId` and the ids after it, in order (assignIds, without an array of a million ids). Measured
 * (in sql.js, before node:sqlite) on 300k rows: about 15 % less CPU than a statement per row, whose fixed cost
 * (bind, step, reset and SQLite's statement start and AUTOINCREMENT bookkeeping) is then paid once per batch.
 * `now`: the createdAt of those without one.
 */
export function insertWordMemories(prepare: (sql: string) => (values: readonly unknown[]) => void, items: Seed['wordMemories'], firstId: number, now: string): void {
  let next = firstId;
  const columns = ['id', 'scope_type', 'scope_id', 'entry', 'sub_entry', 'created_at'];
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const insert = (rows: number) => prepare(`INSERT INTO word_memories (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`);
  /** Item r's values into `values` from position `at`, in the order of `columns`. */
  const put = (values: unknown[], at: number, r: number) => {
    const w = items[r];
    values[at] = w.id ?? next++;
    values[at + 1] = w.scope;
    values[at + 2] = w.scopeId;
    values[at + 3] = w.entry;
    values[at + 4] = w.subEntry;
    values[at + 5] = w.createdAt ? new Date(w.createdAt).toISOString() : now;
  };
  let i = 0;
  if (items.length >= WORD_MEMORY_ROWS) {
    const batch = insert(WORD_MEMORY_ROWS);
    const values = new Array<unknown>(WORD_MEMORY_ROWS * columns.length);
    for (; i + WORD_MEMORY_ROWS <= items.length; i += WORD_MEMORY_ROWS) {
      for (let r = 0; r < WORD_MEMORY_ROWS; r++) put(values, r * columns.length, i + r);
      batch(values);
    }
  }
  if (i < items.length) {
    const one = insert(1);
    const values = new Array<unknown>(columns.length);
    for (; i < items.length; i++) {
      put(values, 0, i);
      one(values);
    }
  }
}

// In a worker thread started by buildWordMemories: the file and its schema at once, the rows once the start sends the
// word memories and then `now`.
if (!isMainThread && (workerData as Partial<WorkerInput> | undefined)?.kind === WORKER_KIND) {
  const input = workerData as WorkerInput;
  let resolveNow: (now: string) => void;
  let resolveTail: (r: TailResult) => void;
  const now = new Promise<string>((resolve) => (resolveNow = resolve));
  const tail = new Promise<TailResult>((resolve) => (resolveTail = resolve));
  const text = new Promise<WorkerText>((resolve) =>
    parentPort!.once('message', (t: WorkerText) => {
      parentPort!.once('message', (n: string) => {
        parentPort!.once('message', resolveTail);
        resolveNow(n);
      });
      resolve(t);
    }),
  );
  void build(text, input.file, now, tail).then((r) => parentPort!.postMessage(r));
}
