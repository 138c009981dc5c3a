import type { Db } from './db.js';
import { StateCache } from './state-cache.js';
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

// ---------------------------------------------------------------- the rules as SQL

const SHARED = `('ALL_MEMBER_VIEWER', 'ALL_MEMBER_EDITOR')`;

/**
 * The visibility rules of one caller as SQL conditions, so that a list is one query that filters and pages
 * in SQLite. Conditions use the named parameters in `params` (`$uid`, `$ws`, `$org`); their text depends only
 * on the kind of key, so the statements built from them stay prepared. Lookups are scalar subqueries on
 * keys: in SQLite (measured in sql.js, SQLite 3.54) a join or an EXISTS costs several times as much per execution.
 */
export interface Visibility {
  /** `x` is a workspace the key reaches. */
  reaches(x: string): string;
  /** The note `n` is readable. */
  note: string;
  /** The folder `alias` is visible. */
  folder(alias: string): string;
  params: { $uid: number | null; $ws: string | null; $org: string };
}

type VisibilityText = Omit<Visibility, 'params'>;

/** `select` (one column) finds a row. */
export const found = (select: string) => `(${select}) IS NOT NULL`;

/** A user (or legacy personal) key reads what its user may: own and shared notes, and notes in folders the user sees. */
const USER_RULES: VisibilityText = (() => {
  const reaches = (x: string) => found(`SELECT 1 FROM memberships m WHERE m.user_id = $uid AND m.workspace_guid = ${x} AND ($ws IS NULL OR m.workspace_guid = $ws)`);
  const folder = (a: string) =>
    `(${reaches(`${a}.workspace_guid`)} AND (${a}.owner_user_id = $uid OR ${a}.sharing_type IN ${SHARED} OR ` +
    `(${a}.sharing_type = 'LIMITED' AND ${found(`SELECT 1 FROM folder_members fm WHERE fm.folder_id = ${a}.id AND fm.user_id = $uid`)})))`;
  // A note without a workspace belongs to its owner and collaborators, for keys not bound to a workspace.
  const note =
    `(n.deleted = 0 AND (CASE WHEN n.workspace_guid IS NULL THEN $ws IS NULL ELSE ${reaches('n.workspace_guid')} END) AND ` +
    `(n.owner_user_id = $uid OR ${found('SELECT 1 FROM note_collaborators nc WHERE nc.note_guid = n.guid AND nc.user_id = $uid')} OR ` +
    `${found(`SELECT 1 FROM folders f WHERE f.id = n.folder_id AND ${folder('f')}`)}))`;
  return { reaches, folder, note };
})();

/** System keys read notes whose own folder is shared with all members (decisions.md §5.2), in the workspaces they reach. */
function systemRules(reaches: (x: string) => string, legacyScope: boolean): VisibilityText {
  const folder = (a: string) => `(${reaches(`${a}.workspace_guid`)} AND ${a}.sharing_type IN ${SHARED})`;
  const shared = legacyScope ? '' : ` AND (SELECT f.sharing_type FROM folders f WHERE f.id = n.folder_id) IN ${SHARED}`;
  return { reaches, folder, note: `(n.deleted = 0 AND ${reaches('n.workspace_guid')}${shared})` };
}
const WORKSPACE_RULES = systemRules((x) => `${x} = $ws`, false);
const LEGACY_WORKSPACE_RULES = systemRules((x) => `${x} = $ws`, true);
const ORGANIZATION_RULES = systemRules((x) => found(`SELECT 1 FROM workspaces w WHERE w.guid = ${x} AND w.organization_id = $org`), false);

const rulesOf = (p: Principal): VisibilityText =>
  p.keyType === 'WORKSPACE' ? (p.legacyScope ? LEGACY_WORKSPACE_RULES : WORKSPACE_RULES) : p.keyType === 'ORGANIZATION' ? ORGANIZATION_RULES : USER_RULES;

const paramsOf = (p: Principal): Visibility['params'] => ({ $uid: p.userId, $ws: p.workspaceGuid, $org: p.organizationId });

export function visibility(p: Principal): Visibility {
  return { ...rulesOf(p), params: paramsOf(p) };
}

/**
 * The columns of a note read for the API: the row, plus its participants and collaborators as JSON arrays
 * (so that a page of notes is one query). `n` is the note.
 */
export const NOTE_COLUMNS = `n.*,
  (SELECT json_group_array(json_object('name', p.name, 'email', p.email) ORDER BY p.position) FROM note_participants p WHERE p.note_guid = n.guid) AS participants_json,
  (SELECT json_group_array(json_object('userId', c.user_id, 'guid', (SELECT u.guid FROM users u WHERE u.id = c.user_id), 'name', (SELECT u.name FROM users u WHERE u.id = c.user_id),
     'email', (SELECT u.email FROM users u WHERE u.id = c.user_id), 'role', c.role) ORDER BY c.user_id)
     FROM note_collaborators c WHERE c.note_guid = n.guid) AS collaborators_json`;

/** A note row with its participants and collaborators (NOTE_COLUMNS). */
export type NoteRead = NoteRow & { participants_json: string; collaborators_json: string };

/** visibleNote's statement for each kind of key, built once (the same string each time: its hash is kept). */
const VISIBLE_NOTE_SQL = new Map<VisibilityText, string>(
  [USER_RULES, WORKSPACE_RULES, LEGACY_WORKSPACE_RULES, ORGANIZATION_RULES].map((r) => [r, `SELECT ${NOTE_COLUMNS} FROM notes n WHERE n.guid = $guid AND ${r.note}`]),
);

/** visibleNote's answers while the state stays the same, by the rules' inputs and the guid (GET of one note, its sub-resources). */
const visibleNotes = new StateCache<string, NoteRead | undefined>(4096);

/** The note, if it exists, is not deleted and the caller may read it: one query. */
export function visibleNote(db: Db, p: Principal, guid: string): NoteRead | undefined {
  // Everything the statement reads of the caller: its text (the kind of key) and the parameters.
  const key = `${p.keyType}\0${p.legacyScope}\0${p.userId}\0${p.workspaceGuid}\0${p.organizationId}\0${guid}`;
  return visibleNotes.get(db, key, () => {
    const params = paramsOf(p) as Visibility['params'] & { $guid?: string };
    params.$guid = guid;
    return db.get<NoteRead>(VISIBLE_NOTE_SQL.get(rulesOf(p))!, params);
  });
}

// ---------------------------------------------------------------- single checks

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
  if (p.keyType === 'WORKSPACE') return p.workspaceGuid !== null && guid === p.workspaceGuid;
  const v = visibility(p);
  return db.get(`SELECT 1 AS x WHERE ${v.reaches('$guid')}`, { ...v.params, $guid: guid }) !== undefined;
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
  const v = visibility(p);
  return db.get(`SELECT 1 AS x FROM folders f WHERE f.id = $id AND ${v.folder('f')}`, { ...v.params, $id: f.id }) !== undefined;
}

/**
 * Edit access: only user keys; PRIVATE owner only, ALL_MEMBER_EDITOR any member, LIMITED owner or EDITOR members.
 * `seen`: the caller has already checked that `p` sees the folder (no second read).
 */
export function folderEditable(db: Db, p: Principal, f: FolderRow, seen = false): boolean {
  if (!isUserKey(p) || !(seen || folderVisible(db, p, f))) return false;
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
  const v = visibility(p);
  return db.get(`SELECT 1 AS x FROM notes n WHERE n.guid = $guid AND ${v.note}`, { ...v.params, $guid: n.guid }) !== undefined;
}

/**
 * UPDATE_CONTENT permission: owner, OWNER/EDITOR collaborators, editors of the note's folder. For a note the
 * caller reads (the app has checked it for every note route: `ctx.note`).
 */
export function noteEditable(db: Db, p: Principal, n: NoteRow): boolean {
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
