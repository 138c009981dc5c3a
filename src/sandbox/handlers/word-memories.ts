import type { Shape } from '../../contract/api.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import { isUserKey, reachesWorkspace } from '../access.js';
import { hasPlainTexts } from '../plain-texts.js';
import { conflict, forbidden, keysetPage, notFound } from '../http.js';
import { WM_OPS, type CanonicalEndpointId, type WordMemoryOp, type WordMemoryScopeKey } from '../../contract/endpoints.js';
import { JsonText, type Answer, type Handler, type HandlerContext } from '../types.js';

/**
 * Word memories in the user, workspace and organization scopes (decisions.md §3.7). The pipeline has already
 * checked scope, key type and the body (1–63 characters, no whitespace, at most 1000 items; the detail of a 400
 * names the first bad item's index); this file resolves whose word memories a call addresses and changes them,
 * each request in one transaction.
 */

/** The word-memory endpoints of an operation, in every scope (they share its schemas). */
type WmId<Op extends WordMemoryOp = WordMemoryOp> = Extract<CanonicalEndpointId, `wm.${WordMemoryScopeKey}.${Op}`>;

type ScopeType = 'user' | 'workspace' | 'organization';
interface Scope {
  type: ScopeType;
  id: string;
}

interface WordMemoryRow {
  id: number;
  entry: string;
  sub_entry: string | null;
  created_at: string;
}

const COLUMNS = 'id, entry, sub_entry, created_at';

const toJson = (r: WordMemoryRow): Shape<'wordMemory'> => ({ id: r.id, entry: r.entry, subEntry: r.sub_entry, createdAt: r.created_at });

/** The scope a route addresses for the caller; 404 for a workspace the key does not reach, 403003 for non-admin users on the organization. */
function scopeOf(ctx: Pick<HandlerContext<WmId>, 'principal' | 'rt'> & { params: object }, kind: WordMemoryScopeKey): Scope {
  const { principal: p, rt } = ctx;
  switch (kind) {
    case 'user':
      return { type: 'user', id: String(p.userId) };
    case 'workspace': {
      const ws = String('workspaceGuid' in ctx.params ? ctx.params.workspaceGuid : undefined);
      if (!reachesWorkspace(rt.db, p, ws)) throw notFound('workspace');
      return { type: 'workspace', id: ws };
    }
    case 'workspaceMe':
    case 'teamMe':
      if (!p.workspaceGuid) throw notFound('workspace');
      return { type: 'workspace', id: p.workspaceGuid };
    case 'organization':
      if (isUserKey(p) && !p.orgAdmin) throw forbidden('organization admin permission required', 'the organization word memories need an organization admin or an organization key');
      return { type: 'organization', id: p.organizationId };
  }
}

function findRow(ctx: HandlerContext<WmId<'get'>>, s: Scope, id: number): WordMemoryRow | undefined {
  return ctx.rt.db.get<WordMemoryRow>(`SELECT ${COLUMNS} FROM word_memories WHERE scope_type = ? AND scope_id = ? AND id = ?`, [s.type, s.id, id]);
}

function list(ctx: HandlerContext<WmId<'list'>>, s: Scope) {
  const page = keysetPage<WordMemoryRow>({
    cursor: ctx.query.cursor,
    size: ctx.query.size ?? PAGE_SIZES.wordMemories.default,
    keyOf: (r) => r.id,
    fetch: (after, limit) =>
      ctx.rt.db.all<WordMemoryRow>(`SELECT ${COLUMNS} FROM word_memories WHERE scope_type = ? AND scope_id = ? AND id > ? ORDER BY id LIMIT ?`, [
        s.type,
        s.id,
        Number.isFinite(after) ? after : 0,
        limit,
      ]),
  });
  return { content: page.rows.map(toJson), nextCursor: page.nextCursor };
}

function get(ctx: HandlerContext<WmId<'get'>>, s: Scope) {
  const row = findRow(ctx, s, ctx.params.id);
  if (!row) throw notFound('word memory');
  return toJson(row);
}

/**
 * A bulk create is one prepared statement whatever its size: the entries go in as one JSON array, in the
 * request's order, and rows that exist are skipped (`ON CONFLICT DO NOTHING`, also for an entry repeated within
 * the request: its first occurrence is created). Ids come from AUTOINCREMENT, so each new row's id is larger than
 * any id the table had before (`BASE_SQL`) and than the rows inserted before it in the statement.
 * The order is `ORDER BY e.rowid`: json_each numbers its rows in array order and tells the planner its scan
 * comes in that order, so no sort is made (`ORDER BY e.key` sorted the 1000 rows in a temporary b-tree: a tenth of
 * the statement's CPU). `WHERE true` keeps the parser from reading ON CONFLICT as a join's ON.
 */
const CREATE_ENTRIES_SQL = `INSERT INTO word_memories (scope_type, scope_id, entry, sub_entry, created_at)
  SELECT ?1, ?2, e.value, NULL, ?3 FROM json_each(?4) e WHERE true ORDER BY e.rowid
  ON CONFLICT (scope_type, scope_id, entry) DO NOTHING`;
/**
 * The same for a request with subEntries: the items are one JSON object, each entry a key and its subEntry (or null)
 * its value, `{"entry": "subEntry", "other": null, …}`, in the request's order; json_each walks an object's members
 * in their order, a repeated key included, and gives each key and value as they are. (Items as pairs
 * `[entry, subEntry]` cost 0.25 ms of CPU per 1000 rows more with a third of them pairs: json_each writes a pair out
 * as JSON text, which `->>` parsed again, twice.)
 */
const CREATE_MIXED_SQL = `INSERT INTO word_memories (scope_type, scope_id, entry, sub_entry, created_at)
  SELECT ?1, ?2, e.key, e.value, ?3 FROM json_each(?4) e WHERE true ORDER BY e.rowid
  ON CONFLICT (scope_type, scope_id, entry) DO NOTHING`;
/** The largest id the table has had: the AUTOINCREMENT counter, or the largest id if a row was written past it. */
const BASE_SQL = `SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'word_memories'), 0), coalesce((SELECT max(id) FROM word_memories), 0)) AS base`;
/** The rows made after `base`: those of this transaction's insert, in id order. */
const MADE_SQL = `SELECT ${COLUMNS} FROM word_memories WHERE id > ? ORDER BY id`;

/**
 * Measured for a 1000-row create of the `wm` bench's rows (callgrind over the sandbox, 2 requests in flight): about 17 M
 * instructions, 69 % of them SQLite's (the b-tree seek of the unique index, the three b-tree inserts and their page
 * splits; the commit's page writes are system time beside them). These statements alone, in process on the demo
 * image's private copy, cost 1.30–1.37 ms of CPU per create over a 1M-row import. Tried and left: the insert outside a
 * transaction (no statement journal: 1 % of the SQL's instructions, for the read of BASE_SQL and the insert no longer
 * being one transaction); the private copy in memory instead of a file (its commit cost as much); the request's own
 * text bound as is and read with jsonb_each and `->>` (0.13 ms more SQL per create than the text built here).
 */
function create(ctx: HandlerContext<WmId<'create' | 'createBulk'>>, s: Scope) {
  const entries = ctx.body.entries;
  const db = ctx.rt.db;
  const now = ctx.rt.clock.now().toISOString();
  const n = entries.length;
  const texts = new Array<string>(n);
  const subs = new Array<string | null>(n);
  let anySub = false;
  for (let i = 0; i < n; i++) {
    texts[i] = entries[i].entry;
    const sub = entries[i].subEntry ?? null;
    subs[i] = sub;
    if (sub !== null) anySub = true;
  }
  // Plain texts (the body's text was checked as such: fast-body.ts) need no escaping and hold no NUL.
  const plain = hasPlainTexts(ctx.body);
  const json = anySub ? membersText(texts, subs, plain) : plain ? `["${texts.join('","')}"]` : JSON.stringify(texts);
  return db.tx(() => {
    const base = db.get<{ base: number }>(BASE_SQL)!.base;
    const r = db.run(anySub ? CREATE_MIXED_SQL : CREATE_ENTRIES_SQL, [s.type, s.id, now, json]);
    // Every entry made, the last one with id base + n: their ids are base + 1 … base + n in the request's order
    // (increasing, all above base), so the answer is what was sent. Otherwise (entries that existed or repeat)
    // the new rows are read back, as they are when a text holds a NUL: Node 22's node:sqlite reads a text only up
    // to its first NUL, so the answer is what a read of the row returns on every Node line (JSON escapes NUL as
    // \u0000; an escaped backslash before "u0000" only costs the read-back).
    if (r.changes !== n || r.lastInsertRowid !== base + n || (!plain && json.includes('\\u0000'))) return { content: db.all<WordMemoryRow>(MADE_SQL, [base]).map(toJson) };
    // JSON has a backslash for every character it escapes: with none in `json`, no text needs escaping.
    return new JsonText<Shape<'wmCreateResponse'>>(utf8(createdText(base, now, texts, subs, plain || !json.includes('\\'))));
  });
}

/**
 * The JSON object of CREATE_MIXED_SQL: `{"entry":"subEntry","other":null,…}`. Unless the texts are known `plain`, they
 * and the subEntries go through JSON.stringify once, together; when none needs escaping (no backslash in that), each
 * is its characters in quotes.
 */
function membersText(texts: readonly string[], subs: ReadonlyArray<string | null>, plain: boolean): string {
  const quote = !plain && JSON.stringify([texts, subs]).includes('\\') ? (t: string) => JSON.stringify(t) : (t: string) => `"${t}"`;
  let out = '{';
  for (let i = 0; i < texts.length; i++) {
    const sub = subs[i];
    out += (i === 0 ? '' : ',') + quote(texts[i]) + (sub === null ? ':null' : ':' + quote(sub));
  }
  return out + '}';
}

/** Room for the UTF-8 of an answer, kept between requests (grown when one needs more). */
let scratch = Buffer.allocUnsafe(0);

/**
 * The UTF-8 bytes of `text`, in a buffer of their own. Written into `scratch` first, which has room for the longest
 * encoding (3 bytes per UTF-16 unit), then copied: Buffer.from(text) would first count the bytes (Buffer.byteLength),
 * a pass over the whole text as long as the encoding itself.
 */
function utf8(text: string): Buffer {
  if (scratch.length < text.length * 3) scratch = Buffer.allocUnsafe(text.length * 3 + 65536);
  const n = scratch.write(text, 0);
  return Buffer.from(scratch.subarray(0, n));
}

/**
 * The answer to a create whose entries were all made, ids base + 1 … in the request's order: the text
 * JSON.stringify gives for `{content: rows.map(toJson)}`, written directly (1000 objects and their stringify took
 * twice the CPU). `plain`: no text needs escaping, so each is its characters in quotes. One string grown piece by
 * piece (V8 joins the pieces once, when the answer is written); the common item in four joins.
 */
function createdText(base: number, now: string, texts: readonly string[], subs: ReadonlyArray<string | null>, plain: boolean): string {
  const createdAt = `,"createdAt":${JSON.stringify(now)}}`;
  const noSub = `,"subEntry":null${createdAt}`;
  const closeNoSub = `"${noSub}`;
  const quote = (t: string) => (plain ? `"${t}"` : JSON.stringify(t));
  let out = '{"content":[';
  for (let i = 0; i < texts.length; i++) {
    const sub = subs[i];
    const head = (i === 0 ? '{"id":' : ',{"id":') + (base + 1 + i);
    // The common item (plain text, no subEntry) in four joins: the entry's closing quote starts its tail.
    if (plain && sub === null) out += head + ',"entry":"' + texts[i] + closeNoSub;
    else out += head + ',"entry":' + quote(texts[i]) + (sub === null ? noSub : ',"subEntry":' + quote(sub) + createdAt);
  }
  return out + ']}';
}

/** One statement per item, in the request's order (a later item sees what an earlier one renamed). */
const UPDATE_SQL = `UPDATE word_memories SET entry = coalesce(?1, entry), sub_entry = CASE WHEN ?2 THEN ?3 ELSE sub_entry END
  WHERE scope_type = ?4 AND scope_id = ?5 AND id = ?6 RETURNING ${COLUMNS}`;

/** `subEntry: null` clears it, an absent field is left alone; renaming onto another entry of the scope is 409 for the whole request. */
function update(ctx: HandlerContext<WmId<'update' | 'updateBulk'>>, s: Scope) {
  const items = ctx.body.entries;
  const db = ctx.rt.db;
  return db.tx(() => {
    const updated = new Map<number, WordMemoryRow>();
    const missing = new Set<number>();
    items.forEach((item, index) => {
      let row: WordMemoryRow | undefined;
      try {
        row = db.get<WordMemoryRow>(UPDATE_SQL, [item.entry ?? null, item.subEntry !== undefined, item.subEntry ?? null, s.type, s.id, item.id]);
      } catch (e) {
        if (!/UNIQUE constraint failed/.test((e as Error).message)) throw e;
        const clash = db.get<{ id: number }>('SELECT id FROM word_memories WHERE scope_type = ? AND scope_id = ? AND entry = ?', [s.type, s.id, item.entry]);
        throw conflict(`entries[${index}].entry: "${item.entry}" already exists in this scope (id ${clash?.id})`);
      }
      if (!row) missing.add(item.id);
      else updated.set(row.id, row); // an id named twice keeps its first place, with the latest values
    });
    return { content: [...updated.values()].map(toJson), notFound: [...missing] };
  });
}

/** One statement for the whole request; ids not deleted (unknown, of another scope, repeated) are reported once, in order. */
const DELETE_SQL = `DELETE FROM word_memories WHERE scope_type = $type AND scope_id = $id AND id IN (SELECT value FROM json_each($ids)) RETURNING id`;

function remove(ctx: HandlerContext<WmId<'delete' | 'deleteBulk'>>, s: Scope) {
  const ids = [...new Set<number>(ctx.body.ids)];
  const db = ctx.rt.db;
  return db.tx(() => {
    const deleted = new Set(db.all<{ id: number }>(DELETE_SQL, { $type: s.type, $id: s.id, $ids: JSON.stringify(ids) }).map((r) => r.id));
    return { deleted: deleted.size, notFound: ids.filter((id) => !deleted.has(id)) };
  });
}

/** Each operation, answering what its endpoints' response schema says, whatever the scope. */
const OPS: { [Op in WordMemoryOp]: (ctx: HandlerContext<WmId<Op>>, s: Scope) => Answer<WmId<Op>> } = {
  list,
  get,
  create,
  createBulk: create,
  update,
  updateBulk: update,
  delete: remove,
  deleteBulk: remove,
};
const KINDS = ['user', 'workspace', 'workspaceMe', 'teamMe', 'organization'] as const satisfies readonly WordMemoryScopeKey[];

/** The handler of one operation in one scope: the scope resolved for the caller, then the operation. */
function scoped<Op extends WordMemoryOp>(op: Op, kind: WordMemoryScopeKey): Handler<WmId<Op>> {
  const run = OPS[op];
  return (ctx) => run(ctx, scopeOf(ctx, kind));
}

/**
 * The handlers of every word-memory endpoint: each operation, in each of the five scopes. The map is built in a
 * loop, so its keys are asserted: the handler under `wm.<kind>.<op>` is `scoped(op, kind)`, typed for `op` in every scope.
 */
export const wordMemoryHandlers = Object.fromEntries(KINDS.flatMap((kind) => WM_OPS.map((op) => [`wm.${kind}.${op}`, scoped(op, kind)]))) as {
  [Id in WmId]: Handler<Id>;
};
