import type { Db } from './db.js';
import type { Principal } from './types.js';

/** Who may see and change what (service-interface.md: sharing table, key types, note read scope of system keys). */

export interface FolderRow {
  id: number;
  workspace_guid: string;
  owner_user_id: number | null;
  parent_id: number | null;
  title: string;
  description: string;
  color: string;
  sharing_type: 'PRIVATE' | 'ALL_MEMBER_VIEWER' | 'ALL_MEMBER_EDITOR' | 'LIMITED';
  created_at: string;
  updated_at: string;
}

export interface NoteRow {
  guid: string;
  id: number;
  title: string;
  owner_user_id: number;
  workspace_guid: string | null;
  folder_id: number | null;
  source_type: string;
  created_at: string;
  updated_at: string;
  recording_start_at: string | null;
  recording_end_at: string | null;
  recording_duration_seconds: number;
  transcribe_locale: string | null;
  translate_locale: string | null;
  deleted: number;
}

export const isSystemKey = (p: Principal) => p.keyType === 'WORKSPACE' || p.keyType === 'ORGANIZATION';
export const isUserKey = (p: Principal) => p.keyType === 'USER' || p.keyType === 'LEGACY_PERSONAL';
const SHARED = new Set(['ALL_MEMBER_VIEWER', 'ALL_MEMBER_EDITOR']);

/** Workspaces the key reaches. */
export function reachableWorkspaces(db: Db, p: Principal): string[] {
  if (p.keyType === 'WORKSPACE') return p.workspaceGuid ? [p.workspaceGuid] : [];
  if (p.keyType === 'ORGANIZATION')
    return db.all<{ guid: string }>('SELECT guid FROM workspaces WHERE organization_id = ? ORDER BY guid', [p.organizationId]).map((r) => r.guid);
  const rows = db.all<{ workspace_guid: string }>('SELECT workspace_guid FROM memberships WHERE user_id = ? ORDER BY workspace_guid', [p.userId]);
  const all = rows.map((r) => r.workspace_guid);
  return p.workspaceGuid ? all.filter((g) => g === p.workspaceGuid) : all;
}

export function reachesWorkspace(db: Db, p: Principal, guid: string): boolean {
  return reachableWorkspaces(db, p).includes(guid);
}

export function memberRole(db: Db, userId: number | null, workspaceGuid: string): string | undefined {
  if (userId === null) return undefined;
  return db.get<{ role: string }>('SELECT role FROM memberships WHERE user_id = ? AND workspace_guid = ?', [userId, workspaceGuid])?.role;
}

function limitedRole(db: Db, folderId: number, userId: number | null): string | undefined {
  if (userId === null) return undefined;
  return db.get<{ role: string }>('SELECT role FROM folder_members WHERE folder_id = ? AND user_id = ?', [folderId, userId])?.role;
}

export function folderVisible(db: Db, p: Principal, f: FolderRow): boolean {
  if (!reachesWorkspace(db, p, f.workspace_guid)) return false;
  if (isSystemKey(p)) return SHARED.has(f.sharing_type);
  if (f.owner_user_id === p.userId) return true;
  if (f.sharing_type === 'PRIVATE') return false;
  if (f.sharing_type === 'LIMITED') return limitedRole(db, f.id, p.userId) !== undefined;
  return true;
}

/** Edit access: only user keys; PRIVATE owner only, ALL_MEMBER_EDITOR any member, LIMITED owner or EDITOR members. */
export function folderEditable(db: Db, p: Principal, f: FolderRow): boolean {
  if (!isUserKey(p) || !folderVisible(db, p, f)) return false;
  if (f.owner_user_id === p.userId) return true;
  if (f.sharing_type === 'ALL_MEMBER_EDITOR') return true;
  if (f.sharing_type === 'LIMITED') return limitedRole(db, f.id, p.userId) === 'EDITOR';
  const role = memberRole(db, p.userId, f.workspace_guid);
  return role === 'OWNER' || role === 'ADMIN';
}

export function getFolder(db: Db, id: number | string): FolderRow | undefined {
  if (!/^\d+$/.test(String(id))) return undefined;
  return db.get<FolderRow>('SELECT * FROM folders WHERE id = ?', [Number(id)]);
}

function collaboratorRole(db: Db, noteGuid: string, userId: number | null): string | undefined {
  if (userId === null) return undefined;
  return db.get<{ role: string }>('SELECT role FROM note_collaborators WHERE note_guid = ? AND user_id = ?', [noteGuid, userId])?.role;
}

/** The note read scope: who may read a note at all (deleted notes are read by nobody). */
export function noteVisible(db: Db, p: Principal, n: NoteRow): boolean {
  if (n.deleted) return false;
  if (n.workspace_guid !== null && !reachesWorkspace(db, p, n.workspace_guid)) return false;
  if (n.workspace_guid === null && (isSystemKey(p) || p.workspaceGuid !== null)) return false;
  if (p.keyType === 'WORKSPACE' && p.legacyScope) return true;
  const folder = n.folder_id !== null ? getFolder(db, n.folder_id) : undefined;
  if (isSystemKey(p)) return folder !== undefined && SHARED.has(folder.sharing_type);
  if (n.owner_user_id === p.userId || collaboratorRole(db, n.guid, p.userId) !== undefined) return true;
  return folder !== undefined && folderVisible(db, p, folder);
}

/** UPDATE_CONTENT permission: owner, OWNER/EDITOR collaborators, editors of the note's folder. */
export function noteEditable(db: Db, p: Principal, n: NoteRow): boolean {
  if (!noteVisible(db, p, n)) return false;
  if (isSystemKey(p)) return true; // the key-type rules decide what a system key may write
  if (n.owner_user_id === p.userId) return true;
  const role = collaboratorRole(db, n.guid, p.userId);
  if (role === 'OWNER' || role === 'EDITOR') return true;
  const folder = n.folder_id !== null ? getFolder(db, n.folder_id) : undefined;
  return folder !== undefined && folderEditable(db, p, folder);
}

export function getNote(db: Db, guid: string): NoteRow | undefined {
  return db.get<NoteRow>('SELECT * FROM notes WHERE guid = ?', [guid]);
}
