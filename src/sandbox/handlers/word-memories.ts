import { PAGE_SIZES } from '../../contract/limits.js';
import { isUserKey, reachesWorkspace } from '../access.js';
import { conflict, forbidden, keysetPage, notFound } from '../http.js';
import type { CanonicalEndpointId } from '../../contract/endpoints.js';
import type { Handler, HandlerContext } from '../types.js';

/**
 * Word memories in the user, workspace and organization scopes (decisions.md §3.7). The pipeline has already
 * checked scope, key type and the body (1–63 characters, no whitespace, at most 1000 items; the detail of a 400
 * names the first bad item's index); this file resolves whose word memories a call addresses and changes them,
 * each request in one transaction.
 */

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

const json = (r: WordMemoryRow) => ({ id: r.id, entry: r.entry, subEntry: r.sub_entry, createdAt: r.created_at });

/** The scope a route addresses for the caller; 404 for a workspace the key does not reach, 403003 for non-admin users on the organization. */
function scopeOf(ctx: HandlerContext, kind: string): Scope {
  const { principal: p, rt } = ctx;
  switch (kind) {
    case 'user':
      return { type: 'user', id: String(p.userId) };
    case 'workspace': {
      const ws = String(ctx.params.workspaceGuid);
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
    default:
      throw new Error(`unknown word-memory scope ${kind}`);
  }
}

function findRow(ctx: HandlerContext, s: Scope, id: number): WordMemoryRow | undefined {
  return ctx.rt.db.get<WordMemoryRow>(`SELECT ${COLUMNS} FROM word_memories WHERE scope_type = ? AND scope_id = ? AND id = ?`, [s.type, s.id, id]);
}

function list(ctx: HandlerContext, s: Scope) {
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
  return { content: page.rows.map(json), nextCursor: page.nextCursor };
}

function get(ctx: HandlerContext, s: Scope) {
  const row = findRow(ctx, s, ctx.params.id);
  if (!row) throw notFound('word memory');
  return json(row);
}

/** Rows per INSERT statement: a batch is written with statements of these sizes (few distinct texts, so they stay prepared). */
const INSERT_CHUNKS = [100, 10, 1];

function insertSql(rows: number): string {
  const values = Array.from({ length: rows }, (_, k) => `(?1, ?2, ?${4 + 2 * k}, ?${5 + 2 * k}, ?3)`).join(', ');
  return `INSERT INTO word_memories (scope_type, scope_id, entry, sub_entry, created_at) VALUES ${values} ON CONFLICT (scope_type, scope_id, entry) DO NOTHING`;
}
const INSERT_SQL = new Map(INSERT_CHUNKS.map((n) => [n, insertSql(n)]));

/**
 * Entries already in the scope are skipped; an entry repeated within the request is created once (its first
 * occurrence). Multi-row INSERTs, then the new rows read back as one JSON text: a 1000-item request takes a few ms.
 */
function create(ctx: HandlerContext, s: Scope) {
  const entries: Array<{ entry: string; subEntry?: string | null }> = ctx.body.entries;
  const now = ctx.rt.clock.now().toISOString();
  const db = ctx.rt.db;
  const created = db.tx(() => {
    const before = db.get<{ seq: number }>("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'word_memories'), 0) AS seq")!.seq;
    let i = 0;
    for (const size of INSERT_CHUNKS) {
      for (; entries.length - i >= size; i += size) {
        const params: unknown[] = [s.type, s.id, now];
        for (const e of entries.slice(i, i + size)) params.push(e.entry, e.subEntry ?? null);
        db.run(INSERT_SQL.get(size)!, params);
      }
    }
    const out = db.get<{ rows: string }>(
      `SELECT json_group_array(json_object('id', id, 'entry', entry, 'subEntry', sub_entry, 'createdAt', created_at)) AS rows
       FROM (SELECT ${COLUMNS} FROM word_memories WHERE scope_type = ? AND scope_id = ? AND id > ? ORDER BY id)`,
      [s.type, s.id, before],
    );
    return JSON.parse(out!.rows) as unknown[];
  });
  return { content: created };
}

/** `subEntry: null` clears it, an absent field is left alone; renaming onto another entry of the scope is 409 for the whole request. */
function update(ctx: HandlerContext, s: Scope) {
  const items: Array<{ id: number; entry?: string; subEntry?: string | null }> = ctx.body.entries;
  const db = ctx.rt.db;
  return db.tx(() => {
    const updated = new Map<number, WordMemoryRow>();
    const missing = new Set<number>();
    items.forEach((item, index) => {
      const row = updated.get(item.id) ?? findRow(ctx, s, item.id);
      if (!row) {
        missing.add(item.id);
        return;
      }
      const next = { ...row, entry: item.entry ?? row.entry, sub_entry: item.subEntry === undefined ? row.sub_entry : item.subEntry };
      if (next.entry !== row.entry) {
        const clash = db.get<{ id: number }>('SELECT id FROM word_memories WHERE scope_type = ? AND scope_id = ? AND entry = ? AND id != ?', [s.type, s.id, next.entry, row.id]);
        if (clash) throw conflict(`entries[${index}].entry: "${next.entry}" already exists in this scope (id ${clash.id})`);
      }
      db.run('UPDATE word_memories SET entry = ?, sub_entry = ? WHERE id = ?', [next.entry, next.sub_entry, row.id]);
      updated.set(row.id, next);
    });
    return { content: [...updated.values()].map(json), notFound: [...missing] };
  });
}

function remove(ctx: HandlerContext, s: Scope) {
  const ids = [...new Set<number>(ctx.body.ids)];
  const db = ctx.rt.db;
  return db.tx(() => {
    let deleted = 0;
    const missing: number[] = [];
    for (const id of ids) {
      if (db.run('DELETE FROM word_memories WHERE scope_type = ? AND scope_id = ? AND id = ?', [s.type, s.id, id]).changes > 0) deleted++;
      else missing.push(id);
    }
    return { deleted, notFound: missing };
  });
}

const OPS = { list, get, create, createBulk: create, update, updateBulk: update, delete: remove, deleteBulk: remove };
const KINDS = ['user', 'workspace', 'workspaceMe', 'teamMe', 'organization'] as const;

/** The handlers of every word-memory endpoint: each operation, in each of the five scopes. */
export const wordMemoryHandlers = Object.fromEntries(
  KINDS.flatMap((kind) => Object.entries(OPS).map(([op, fn]) => [`wm.${kind}.${op}`, (ctx: HandlerContext) => fn(ctx, scopeOf(ctx, kind))])),
) as { [Id in Extract<CanonicalEndpointId, `wm.${string}`>]: Handler<Id> };
