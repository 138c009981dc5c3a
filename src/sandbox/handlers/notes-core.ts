import { ERROR_CODES } from '../../contract/errors.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import { folderVisible, getFolder, isUserKey, noteEditable, noteVisible, reachableWorkspaces, reachesWorkspace, type NoteRow } from '../access.js';
import type { Db } from '../db.js';
import { ApiFailure, forbidden, notFound, offsetPage } from '../http.js';
import { noteJson } from '../serialize.js';
import type { HandlerContext, HandlerMap, Principal } from '../types.js';

/** Notes: the lists, get and rename (service-interface.md; decisions.md §1.1, §3.1). */

/** Ids of a folder and every folder below it. */
export function folderSubtree(db: Db, rootId: number): number[] {
  const rows = db.all<{ id: number }>(
    `WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL SELECT f.id FROM folders f JOIN sub ON f.parent_id = sub.id) SELECT id FROM sub`,
    [rootId],
  );
  return rows.map((r) => r.id);
}

/** Every note the caller can read, optionally limited to workspaces, newest first. */
export function visibleNotes(db: Db, p: Principal, opts: { workspaces?: string[]; folderId?: string } = {}): NoteRow[] {
  const workspaces = opts.workspaces ?? reachableWorkspaces(db, p);
  const clauses: string[] = ['deleted = 0'];
  const params: unknown[] = [];
  const wsList = workspaces.map(() => '?').join(',') || 'NULL';
  // Notes without a workspace belong to their owner only (user keys not bound to a workspace).
  if (isUserKey(p) && p.workspaceGuid === null && opts.workspaces === undefined) {
    clauses.push(`(workspace_guid IN (${wsList}) OR (workspace_guid IS NULL AND owner_user_id = ?))`);
    params.push(...workspaces, p.userId);
  } else {
    clauses.push(`workspace_guid IN (${wsList})`);
    params.push(...workspaces);
  }
  if (opts.folderId !== undefined) {
    const folder = getFolder(db, opts.folderId);
    if (!folder || !folderVisible(db, p, folder)) throw notFound('folder');
    const ids = folderSubtree(db, folder.id);
    clauses.push(`folder_id IN (${ids.map(() => '?').join(',')})`);
    params.push(...ids);
  }
  const rows = db.all<NoteRow>(`SELECT * FROM notes WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC`, params);
  return rows.filter((n) => noteVisible(db, p, n));
}

/** Relevance: occurrences of the keyword in the title (weighted) and the transcript. */
export function relevance(db: Db, n: NoteRow, keyword: string): number {
  const k = keyword.toLowerCase();
  const count = (text: string) => text.toLowerCase().split(k).length - 1;
  const paragraphs = db.all<{ content: string }>('SELECT content FROM paragraphs WHERE note_guid = ?', [n.guid]);
  return count(n.title) * 10 + paragraphs.reduce((sum, r) => sum + count(r.content), 0);
}

function listNotes(ctx: HandlerContext, workspaces?: string[]) {
  const { principal: p, rt, query } = ctx;
  const size = query.size ?? PAGE_SIZES.notes.default;
  const notes = visibleNotes(rt.db, p, { workspaces, folderId: query.folderId });
  if (query.keyword !== undefined && query.keyword !== '') {
    if (!isUserKey(p)) throw new ApiFailure(ERROR_CODES.KEYWORD_USER_KEY_ONLY, 'keyword filtering on note lists needs a user key', 'use deep search (POST .../notes/search) with a system key');
    const scored = notes.map((n) => ({ n, score: relevance(rt.db, n, query.keyword) })).filter((x) => x.score > 0);
    scored.sort((a, b) => b.score - a.score);
    return { content: scored.slice(0, size).map((x) => noteJson(rt.db, x.n)), nextCursor: null };
  }
  const page = offsetPage(notes, query.cursor, size);
  return { content: page.rows.map((n) => noteJson(rt.db, n)), nextCursor: page.nextCursor };
}

export const notesCoreHandlers = {
  'notes.list': (ctx) => listNotes(ctx),

  'notes.listWorkspace': (ctx) => {
    const ws = ctx.params.workspaceGuid;
    if (!reachesWorkspace(ctx.rt.db, ctx.principal, ws)) throw notFound('workspace');
    return listNotes(ctx, [ws]);
  },

  'notes.listOrganization': (ctx) => {
    if (isUserKey(ctx.principal) && !ctx.principal.orgAdmin) throw forbidden('organization admin permission required', 'the organization notes list needs an organization admin or an organization key');
    const all = ctx.rt.db.all<{ guid: string }>('SELECT guid FROM workspaces WHERE organization_id = ? ORDER BY guid', [ctx.principal.organizationId]).map((r) => r.guid);
    const reach = new Set(reachableWorkspaces(ctx.rt.db, ctx.principal));
    // An org admin's user key lists the organization's notes it can read.
    return listNotes(ctx, ctx.principal.keyType === 'ORGANIZATION' ? all : all.filter((g) => reach.has(g)));
  },

  'notes.get': (ctx) => noteJson(ctx.rt.db, ctx.note!),

  // The app has checked updateMask (400001), the body (400000) and that the masked title is present (400002).
  'notes.update': (ctx) => {
    const { rt, note, body, principal } = ctx;
    if (!noteEditable(rt.db, principal, note!)) throw forbidden('you may not change this note', 'UPDATE_CONTENT permission required');
    const now = rt.clock.now().toISOString();
    rt.db.tx(() => {
      rt.db.run('UPDATE notes SET title = ?, updated_at = ? WHERE guid = ?', [body.title, now, note!.guid]);
      if (body.title !== note!.title) rt.emit('note.user_content.updated', { noteGuid: note!.guid });
    });
    return noteJson(rt.db, { ...note!, title: body.title, updated_at: now });
  },
} satisfies HandlerMap;
