import { LIMITS } from '../../contract/limits.js';
import { folderEditable, folderVisible, getFolder, reachesWorkspace, visibility, type FolderRow } from '../access.js';
import type { Db } from '../db.js';
import { badRequest, forbidden, notFound, unprocessable } from '../http.js';
import { folderCreatedJson, folderJson, folderListColumns, type FolderListRow } from '../serialize.js';
import type { HandlerContext, HandlerMap, Principal } from '../types.js';
import { folderSubtree } from './notes-core.js';

/** Folders: lists, get, create, update, delete, move (service-interface.md Folder; decisions.md §3.6, §5.1, §5.3). */

type SharingType = FolderRow['sharing_type'];
interface Member {
  userId: number;
  role: 'VIEWER' | 'EDITOR';
}

/** Depth of a folder: 1 for a root-level folder, one more per ancestor. */
export function folderDepth(db: Db, id: number): number {
  const row = db.get<{ n: number }>(
    `WITH RECURSIVE up(id, parent_id) AS (SELECT id, parent_id FROM folders WHERE id = ? UNION ALL SELECT f.id, f.parent_id FROM folders f JOIN up ON f.id = up.parent_id) SELECT COUNT(*) AS n FROM up`,
    [id],
  );
  return row?.n ?? 0;
}

/** Levels of the subtree rooted at a folder: 1 for a folder without sub-folders. */
export function subtreeHeight(db: Db, id: number): number {
  const row = db.get<{ h: number }>(
    `WITH RECURSIVE sub(id, lvl) AS (SELECT ?, 1 UNION ALL SELECT f.id, sub.lvl + 1 FROM folders f JOIN sub ON f.parent_id = sub.id) SELECT MAX(lvl) AS h FROM sub`,
    [id],
  );
  return row?.h ?? 1;
}

function checkDepth(deepest: number): void {
  if (deepest > LIMITS.folderMaxDepth)
    throw unprocessable('folders nest too deep', `the result would reach depth ${deepest}; folders nest at most ${LIMITS.folderMaxDepth} deep (a root-level folder is depth 1)`);
}

/** A folder the caller can see (404 otherwise, as for a missing one). */
function visibleFolder(db: Db, p: Principal, id: string | number, what = 'folder'): FolderRow {
  const f = getFolder(db, id);
  if (!f || !folderVisible(db, p, f)) throw notFound(what);
  return f;
}

/** A folder the caller may change: 404 when it cannot see it, 403003 when it may only view it. */
function editableFolder(db: Db, p: Principal, id: string | number): FolderRow {
  const f = visibleFolder(db, p, id);
  if (!folderEditable(db, p, f, true)) throw forbidden('you may not change this folder', `folder edit permission required on folder ${f.id}`);
  return f;
}

/** The key's bound workspace for `teams/me` paths; 404 for a key bound to no workspace. */
function boundWorkspace(db: Db, p: Principal): string {
  if (p.workspaceGuid === null) throw notFound('workspace');
  return reachableWorkspace(db, p, p.workspaceGuid);
}

/** A workspace the key reaches (for user keys: one the user is a member of); 404 otherwise. */
function reachableWorkspace(db: Db, p: Principal, guid: string): string {
  if (!reachesWorkspace(db, p, guid)) throw notFound('workspace');
  return guid;
}

/** LIMITED members: workspace members, each once; the owner is never listed (it has full access anyway). */
function checkMembers(db: Db, workspaceGuid: string, ownerId: number | null, sharingType: SharingType, members: Member[] | null | undefined): Member[] {
  if (!members || members.length === 0) return [];
  if (sharingType !== 'LIMITED') throw badRequest('members are only for LIMITED folders', `members: only a LIMITED folder has members (sharingType is ${sharingType})`);
  const seen = new Set<number>();
  members.forEach((m, i) => {
    if (seen.has(m.userId)) throw badRequest('a member is listed twice', `members[${i}].userId: user ${m.userId} is listed twice`);
    seen.add(m.userId);
    const inWorkspace = db.get('SELECT 1 AS x FROM memberships WHERE user_id = ? AND workspace_guid = ?', [m.userId, workspaceGuid]);
    if (!inWorkspace) throw unprocessable('a member is not in the workspace', `members[${i}].userId: user ${m.userId} is not a member of workspace ${workspaceGuid}`);
  });
  return members.filter((m) => m.userId !== ownerId);
}

function setMembers(db: Db, folderId: number, members: Member[]): void {
  db.run('DELETE FROM folder_members WHERE folder_id = ?', [folderId]);
  for (const m of members) db.run('INSERT INTO folder_members (folder_id, user_id, role) VALUES (?, ?, ?)', [folderId, m.userId, m.role]);
}

function membersOf(db: Db, folderId: number): Member[] {
  return db.all<{ user_id: number; role: Member['role'] }>('SELECT user_id, role FROM folder_members WHERE folder_id = ?', [folderId]).map((m) => ({ userId: m.user_id, role: m.role }));
}

/** The folders of a workspace the caller sees, with what their JSON needs, in one query. */
function listFolders(ctx: HandlerContext<'folders.listTeam' | 'folders.listWorkspace'>, workspaceGuid: string) {
  const { db } = ctx.rt;
  const v = visibility(ctx.principal);
  const rows = db.all<FolderListRow>(`SELECT ${folderListColumns(v)} FROM folders f WHERE f.workspace_guid = $ws_list AND ${v.folder('f')} ORDER BY f.id`, {
    ...v.params,
    $ws_list: workspaceGuid,
  });
  return { content: rows.map((f) => folderJson(db, f, ctx.principal)), nextCursor: null };
}

/** A parent for a new folder: visible (404), same workspace (422), editable by the caller (403003). */
function checkNewParent(db: Db, p: Principal, parentId: string, workspaceGuid: string): FolderRow {
  const parent = visibleFolder(db, p, parentId, 'parent folder');
  if (parent.workspace_guid !== workspaceGuid)
    throw unprocessable('the parent folder is in another workspace', `parentId: folder ${parent.id} is in workspace ${parent.workspace_guid}, not ${workspaceGuid}`);
  if (!folderEditable(db, p, parent, true)) throw forbidden('you may not create folders in this folder', `folder edit permission required on folder ${parent.id}`);
  return parent;
}

function createFolder(ctx: HandlerContext<'folders.createTeam' | 'folders.createWorkspace'>, workspaceGuid: string) {
  const { rt, principal: p, body } = ctx;
  const { db } = rt;
  const parent = body.parentId != null ? checkNewParent(db, p, body.parentId, workspaceGuid) : undefined;
  checkDepth(parent ? folderDepth(db, parent.id) + 1 : 1);
  const sharingType: SharingType = body.sharingType ?? LIMITS.folderDefaultSharing;
  const members = checkMembers(db, workspaceGuid, p.userId, sharingType, body.members);
  const now = rt.clock.now().toISOString();
  const row = db.tx(() => {
    const { lastInsertRowid: id } = db.run(
      'INSERT INTO folders (workspace_guid, owner_user_id, parent_id, title, description, color, sharing_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      [workspaceGuid, p.userId, parent?.id ?? null, body.title, body.description ?? '', body.color ?? LIMITS.folderDefaultColor, sharingType, now, now],
    );
    setMembers(db, id, members);
    return getFolder(db, id)!;
  });
  return folderCreatedJson(row);
}

export const folderHandlers = {
  'folders.listTeam': (ctx) => listFolders(ctx, boundWorkspace(ctx.rt.db, ctx.principal)),

  'folders.listWorkspace': (ctx) => listFolders(ctx, reachableWorkspace(ctx.rt.db, ctx.principal, ctx.params.workspaceGuid)),

  'folders.get': (ctx) => folderJson(ctx.rt.db, visibleFolder(ctx.rt.db, ctx.principal, ctx.params.folderId), ctx.principal),

  'folders.createTeam': (ctx) => createFolder(ctx, boundWorkspace(ctx.rt.db, ctx.principal)),

  'folders.createWorkspace': (ctx) => createFolder(ctx, reachableWorkspace(ctx.rt.db, ctx.principal, ctx.params.workspaceGuid)),

  'folders.update': (ctx) => {
    const { rt, principal: p, body } = ctx;
    const { db } = rt;
    const fields = (['title', 'description', 'color', 'sharingType', 'members'] as const).filter((k) => body?.[k] !== undefined);
    if (fields.length === 0) throw badRequest('nothing to change', 'body: send at least one of title, description, color, sharingType, members');
    const f = editableFolder(db, p, ctx.params.folderId);
    const sharingType: SharingType = body.sharingType ?? f.sharing_type;
    const members = body.members != null ? checkMembers(db, f.workspace_guid, f.owner_user_id, sharingType, body.members) : undefined;
    const now = rt.clock.now().toISOString();
    db.tx(() => {
      db.run('UPDATE folders SET title = ?, description = ?, color = ?, sharing_type = ?, updated_at = ? WHERE id = ?', [
        body.title ?? f.title,
        body.description === undefined ? f.description : (body.description ?? ''),
        body.color ?? f.color,
        sharingType,
        now,
        f.id,
      ]);
      // Only LIMITED folders keep a member list.
      if (sharingType !== 'LIMITED') setMembers(db, f.id, []);
      else if (members) setMembers(db, f.id, members);
    });
    return folderJson(db, getFolder(db, f.id)!, p);
  },

  'folders.delete': (ctx) => {
    const { db } = ctx.rt;
    const f = editableFolder(db, ctx.principal, ctx.params.folderId);
    const ids = folderSubtree(db, f.id);
    const list = ids.map(() => '?').join(',');
    db.tx(() => {
      // The notes left folder-less leave their folder: one folder.note.removed each, while the folder still exists.
      const notes = db.all<{ guid: string; folder_id: number }>(`SELECT guid, folder_id FROM notes WHERE folder_id IN (${list}) AND deleted = 0 ORDER BY id`, ids);
      for (const n of notes) ctx.rt.emit('folder.note.removed', { noteGuid: n.guid, folderId: n.folder_id });
      db.run(`UPDATE notes SET folder_id = NULL WHERE folder_id IN (${list})`, ids);
      db.run(`DELETE FROM folders WHERE id IN (${list})`, ids);
    });
    return undefined;
  },

  'folders.move': (ctx) => {
    const { rt, principal: p, body } = ctx;
    const { db } = rt;
    const f = editableFolder(db, p, ctx.params.folderId);
    const parentId: string | null = body?.newParentId ?? null;
    const strategy = body?.sharingTypeUpdateStrategy ?? 'KEEP_EXISTING';
    let parent: FolderRow | undefined;
    if (parentId !== null) {
      parent = visibleFolder(db, p, parentId, 'parent folder');
      if (parent.workspace_guid !== f.workspace_guid)
        throw unprocessable('the new parent is in another workspace', `newParentId: folder ${parent.id} is in workspace ${parent.workspace_guid}, not ${f.workspace_guid}`);
      if (folderSubtree(db, f.id).includes(parent.id))
        throw unprocessable('a folder cannot move into itself or its own sub-folders', `newParentId: folder ${parent.id} is inside folder ${f.id}`);
    }
    checkDepth((parent ? folderDepth(db, parent.id) : 0) + subtreeHeight(db, f.id));
    const now = rt.clock.now().toISOString();
    db.tx(() => {
      db.run('UPDATE folders SET parent_id = ?, updated_at = ? WHERE id = ?', [parent?.id ?? null, now, f.id]);
      // At the root there is nothing to inherit: the folder keeps its sharing type.
      if (parent && strategy === 'INHERIT_FROM_PARENT') {
        db.run('UPDATE folders SET sharing_type = ? WHERE id = ?', [parent.sharing_type, f.id]);
        setMembers(db, f.id, membersOf(db, parent.id));
      }
    });
    return folderJson(db, getFolder(db, f.id)!, p);
  },
} satisfies HandlerMap;
