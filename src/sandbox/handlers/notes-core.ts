import { ERROR_CODES } from '../../contract/errors.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import { isUserKey, NOTE_COLUMNS, noteEditable, reachesWorkspace, visibility, type NoteRead, type NoteRow } from '../access.js';
import type { Db } from '../db.js';
import { ApiFailure, decodeCursor, encodeCursor, forbidden, notFound } from '../http.js';
import { noteJson } from '../serialize.js';
import { JsonText, type HandlerContext, type HandlerMap, type Principal } from '../types.js';

/** Notes: the lists, get and rename (service-interface.md; decisions.md §1.1, §3.1). */

/** notes.get's answer of each note row, as JSON text (rows are shared and never changed: access.ts visibleNote), so it is serialised once. */
const noteAnswers = new WeakMap<NoteRow, JsonText<ReturnType<typeof noteJson>>>();

/** Ids of a folder and every folder below it. */
export function folderSubtree(db: Db, rootId: number): number[] {
  const rows = db.all<{ id: number }>(`WITH RECURSIVE ${SUBTREE_CTE('?')} SELECT id FROM sub`, [rootId]);
  return rows.map((r) => r.id);
}

/** The recursive part of a folder subtree query: `sub(id)` holds the folder `root` and every folder below it. */
const SUBTREE_CTE = (root: string) => `sub(id) AS (SELECT ${root} UNION ALL SELECT c.id FROM folders c JOIN sub ON c.parent_id = sub.id)`;

/** Which notes a list covers: every note the key reads, those of one workspace, or those of the key's organization. */
export type NoteListScope = { kind: 'all' } | { kind: 'workspace'; guid: string } | { kind: 'organization' };

export interface NoteQuery {
  scope: NoteListScope;
  /** Only notes of this folder and its sub-folders (404 when the caller cannot see the folder). */
  folderId?: string;
  /** Relevance order (a user-key filter): only notes that mention the keyword, best first. */
  keyword?: string;
  /** Keyset paging, newest first: notes strictly after this one in the order. */
  after?: { createdAt: string; id: number };
  /** Only notes created at or after / at or before these instants (epoch milliseconds). */
  createdFrom?: number;
  createdTo?: number;
  limit: number;
}

/**
 * Notes the caller can read, newest first (`created_at`, then id), as one query: the visibility rules are
 * conditions (access.ts), the page is cut by keyset on an index, and only the rows of the page are
 * serialised (NOTE_COLUMNS). With a keyword, relevance first.
 */
export function queryNotes(db: Db, p: Principal, q: NoteQuery): NoteRead[] {
  const v = visibility(p);
  const params: Record<string, unknown> = { ...v.params, $limit: q.limit };
  const where = [v.note];
  if (q.scope.kind === 'all') {
    // A note without a workspace is listed for its owner only (collaborators read it, but do not list it).
    // (`+`: an OR of indexed columns would make SQLite re-plan the page badly.)
    where.push('(+n.workspace_guid IS NOT NULL OR +n.owner_user_id = $uid)');
  } else if (q.scope.kind === 'workspace') {
    where.push('n.workspace_guid = $list');
    params.$list = q.scope.guid;
  } else {
    where.push('+n.workspace_guid IN (SELECT guid FROM workspaces WHERE organization_id = $org)');
  }
  const ctes: string[] = [];
  let folderFilter = false;
  if (q.folderId !== undefined) {
    const folder = /^\d+$/.test(q.folderId)
      ? db.get<{ id: number }>(`SELECT f.id FROM folders f WHERE f.id = $folder AND ${v.folder('f')}`, { ...v.params, $folder: Number(q.folderId) })
      : undefined;
    if (!folder) throw notFound('folder');
    ctes.push(SUBTREE_CTE('$folder'));
    params.$folder = folder.id;
    folderFilter = true;
  }
  if (q.createdFrom !== undefined) {
    where.push('n.created_at >= $createdFrom');
    params.$createdFrom = instantText(q.createdFrom);
  }
  if (q.createdTo !== undefined) {
    where.push('n.created_at <= $createdTo');
    params.$createdTo = instantText(q.createdTo);
  }
  if (q.after) {
    where.push('(n.created_at, n.id) < ($afterAt, $afterId)');
    params.$afterAt = q.after.createdAt;
    params.$afterId = q.after.id;
  }
  const order = 'n.created_at DESC, n.id DESC';
  const from = 'notes n';
  if (q.keyword !== undefined) {
    params.$keyword = q.keyword.toLowerCase();
    if (folderFilter) where.push('n.folder_id IN (SELECT id FROM sub)');
    const score = `nvx_occurrences(n.title, $keyword) * 10 + coalesce((SELECT sum(nvx_occurrences(pa.content, $keyword)) FROM paragraphs pa WHERE pa.note_guid = n.guid), 0)`;
    ctes.push(`page AS MATERIALIZED (SELECT rid, score FROM (SELECT n.rowid AS rid, n.created_at, n.id, ${score} AS score FROM ${from} WHERE ${where.join(' AND ')})
      WHERE score > 0 ORDER BY score DESC, created_at DESC, id DESC LIMIT $limit)`);
    return db.all<NoteRead>(`WITH RECURSIVE ${ctes.join(', ')} SELECT ${NOTE_COLUMNS} FROM page JOIN notes n ON n.rowid = page.rid ORDER BY page.score DESC, ${order}`, params);
  }
  if (folderFilter) {
    // Per folder of the subtree, its first page in order (the folder index), merged: no sort of whole folders.
    ctes.push(`page AS MATERIALIZED (SELECT x.rowid AS rid FROM sub JOIN notes x ON x.rowid IN
      (SELECT n.rowid FROM ${from} WHERE n.folder_id = sub.id AND ${where.join(' AND ')} ORDER BY ${order} LIMIT $limit)
      ORDER BY x.created_at DESC, x.id DESC LIMIT $limit)`);
  } else {
    ctes.push(`page AS MATERIALIZED (SELECT n.rowid AS rid FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $limit)`);
  }
  return db.all<NoteRead>(`WITH RECURSIVE ${ctes.join(', ')} SELECT ${NOTE_COLUMNS} FROM page JOIN notes n ON n.rowid = page.rid ORDER BY ${order}`, params);
}

const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');

/**
 * An instant as text that compares with stored timestamps (toISOString(), years 0000–9999) as the instants
 * do: beyond that range, a bound before or after every stored one.
 */
function instantText(t: number): string {
  if (t > LAST_INSTANT) return '9999-12-31T23:59:59.999Z~';
  if (t < FIRST_INSTANT) return '';
  return new Date(t).toISOString();
}

const notesCursor = (v: any) => typeof v?.c === 'string' && Number.isInteger(v?.i);

function listNotes(ctx: HandlerContext<'notes.list' | 'notes.listWorkspace' | 'notes.listOrganization'>, scope: NoteListScope) {
  const { principal: p, rt, query } = ctx;
  const size = query.size ?? PAGE_SIZES.notes.default;
  const keyword = query.keyword !== undefined && query.keyword !== '' ? query.keyword : undefined;
  if (keyword !== undefined && !isUserKey(p))
    throw new ApiFailure(ERROR_CODES.KEYWORD_USER_KEY_ONLY, 'keyword filtering on note lists needs a user key', 'use deep search (POST .../notes/search) with a system key');
  if (keyword !== undefined) {
    const rows = queryNotes(rt.db, p, { scope, folderId: query.folderId, keyword, limit: size });
    return { content: rows.map((n) => noteJson(rt.db, n)), nextCursor: null };
  }
  const after = decodeCursor<{ c: string; i: number }>(query.cursor, notesCursor);
  const rows = queryNotes(rt.db, p, { scope, folderId: query.folderId, after: after && { createdAt: after.c, id: after.i }, limit: size + 1 });
  const more = rows.length > size;
  const page = more ? rows.slice(0, size) : rows;
  const last = page[page.length - 1];
  return { content: page.map((n) => noteJson(rt.db, n)), nextCursor: more ? encodeCursor({ c: last.created_at, i: last.id }) : null };
}

export const notesCoreHandlers = {
  'notes.list': (ctx) => listNotes(ctx, { kind: 'all' }),

  'notes.listWorkspace': (ctx) => {
    const ws = ctx.params.workspaceGuid;
    if (!reachesWorkspace(ctx.rt.db, ctx.principal, ws)) throw notFound('workspace');
    return listNotes(ctx, { kind: 'workspace', guid: ws });
  },

  'notes.listOrganization': (ctx) => {
    if (isUserKey(ctx.principal) && !ctx.principal.orgAdmin) throw forbidden('organization admin permission required', 'the organization notes list needs an organization admin or an organization key');
    // An org admin's user key lists the organization's notes it can read (the workspaces it reaches).
    return listNotes(ctx, { kind: 'organization' });
  },

  // The note's answer is built once per row read (visibleNote keeps rows while the state stays the same).
  'notes.get': (ctx) => {
    let json = noteAnswers.get(ctx.note);
    if (!json) noteAnswers.set(ctx.note, (json = new JsonText(JSON.stringify(noteJson(ctx.rt.db, ctx.note)))));
    return json;
  },

  // The app has checked updateMask (400001), the body (400000) and that the masked title is present (400002).
  'notes.update': (ctx) => {
    const { rt, note, body, principal } = ctx;
    if (!noteEditable(rt.db, principal, note)) throw forbidden('you may not change this note', 'UPDATE_CONTENT permission required');
    const { title } = body;
    if (title === undefined || title === null) throw new Error('notes.update reached its handler without a title (the app checks updateMask first)');
    const now = rt.clock.now().toISOString();
    rt.db.tx(() => {
      rt.db.run('UPDATE notes SET title = ?, updated_at = ? WHERE guid = ?', [title, now, note.guid]);
      if (title !== note.title) rt.emit('note.user_content.updated', { noteGuid: note.guid });
    });
    return noteJson(rt.db, { ...note, title, updated_at: now });
  },
} satisfies HandlerMap;
