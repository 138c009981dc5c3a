import type { Shape } from '../contract/api.js';
import { COLLABORATOR_ROLES, FOLDER_MEMBER_ROLES, SOURCE_TYPES } from '../contract/enums.js';
import type { Db } from './db.js';
import { folderVisible, found, getFolder, type FolderRow, type NoteRead, type NoteRow, type Visibility } from './access.js';
import type { Principal } from './types.js';

/** Row → API shape conversions shared by the handlers: each returns the shape of schemas.ts that the answer declares. */

/**
 * A column's text as one of the contract's values for it. The database's CHECK constraints (schema.sql.ts) keep other
 * values out, so one here is a sandbox bug: it fails the request (500) rather than answer outside the contract.
 */
export function oneOf<const V extends string>(values: readonly V[], value: string, column: string): V {
  const known = (v: string): v is V => (values as readonly string[]).includes(v);
  if (!known(value)) throw new Error(`${column} holds "${value}", which is not one of ${values.join(', ')}`);
  return value;
}

export interface WorkspaceRow {
  guid: string;
  organization_id: string;
  name: string;
  created_at: string;
  voice_file_enabled: number;
  wiki_plan: number;
  wiki_enabled: number;
  monthly_minutes: number | null;
  used_minutes: number;
}

export function workspaceJson(w: WorkspaceRow): Shape<'workspace'> {
  return {
    guid: w.guid,
    name: w.name,
    organizationId: w.organization_id,
    createdAt: w.created_at,
    wikiPlan: Boolean(w.wiki_plan),
    isWikiEnabled: Boolean(w.wiki_enabled),
    voiceFileEnabled: Boolean(w.voice_file_enabled),
    quota: { monthlyMinutes: w.monthly_minutes, usedMinutes: w.used_minutes },
  };
}

export const WEB_APP_URL = 'https://app.notevox.example';

/** A note in the API's shape. A row read with NOTE_COLUMNS carries its participants and collaborators; for another, they are read here. */
export function noteJson(db: Db, n: NoteRow | NoteRead): Shape<'note'> {
  const read = 'participants_json' in n;
  const participants: Array<{ name: string; email: string | null }> = read
    ? JSON.parse(n.participants_json)
    : db.all('SELECT name, email FROM note_participants WHERE note_guid = ? ORDER BY position', [n.guid]);
  const collaborators: Array<{ userId: number; guid: string | null; name: string; email: string | null; role: string }> = read
    ? JSON.parse(n.collaborators_json)
    : db.all('SELECT c.user_id AS userId, u.guid, u.name, u.email, c.role FROM note_collaborators c JOIN users u ON u.id = c.user_id WHERE c.note_guid = ? ORDER BY c.user_id', [n.guid]);
  return {
    guid: n.guid,
    title: n.title,
    createdAt: n.created_at,
    updatedAt: n.updated_at,
    sourceType: oneOf(SOURCE_TYPES, n.source_type, 'notes.source_type'),
    recordingStartAt: n.recording_start_at,
    recordingEndAt: n.recording_end_at,
    recordingDurationSeconds: n.recording_duration_seconds,
    transcribeLocale: n.transcribe_locale,
    translateLocale: n.translate_locale,
    webUrl: `${WEB_APP_URL}/notes/${n.guid}`,
    // A user's seeded guid, else `user-<id>` (docs/sandbox-seed.md).
    collaborators: collaborators.map((c) => ({ guid: c.guid ?? `user-${c.userId}`, name: c.name, email: c.email, role: oneOf(COLLABORATOR_ROLES, c.role, 'note_collaborators.role') })),
    participants: participants.map((p) => ({ name: p.name, email: p.email })),
    workspaceGuid: n.workspace_guid,
  };
}

/** Extra columns of a folder list (FOLDER_LIST_COLUMNS): what folderJson would otherwise look up per folder. */
export interface FolderListRow extends FolderRow {
  visible_parent_id: number | null;
  members_json: string;
}

/** The columns of a folder `f` for folderJson in one query: the parent if the caller sees it, and the LIMITED members. */
export function folderListColumns(v: Visibility): string {
  return `f.*, CASE WHEN ${found(`SELECT 1 FROM folders pf WHERE pf.id = f.parent_id AND ${v.folder('pf')}`)} THEN f.parent_id END AS visible_parent_id,
    (SELECT json_group_array(json_object('userId', fm.user_id, 'role', fm.role) ORDER BY fm.user_id) FROM folder_members fm WHERE fm.folder_id = f.id) AS members_json`;
}

/** The move/list shape; `parentId` is null when the parent is not visible to the caller. */
export function folderJson(db: Db, f: FolderRow | FolderListRow, p: Principal): Shape<'folder'> {
  const listed = 'members_json' in f;
  let parentId: number | null;
  if (listed) parentId = f.visible_parent_id;
  else {
    const parent = f.parent_id !== null ? getFolder(db, f.parent_id) : undefined;
    parentId = parent && folderVisible(db, p, parent) ? parent.id : null;
  }
  const out: Shape<'folder'> = {
    id: String(f.id),
    workspaceGuid: f.workspace_guid,
    title: f.title,
    description: f.description ?? '',
    sharingType: f.sharing_type,
    parentId: parentId !== null ? String(parentId) : null,
    color: f.color,
    isTeamFolder: f.sharing_type !== 'PRIVATE',
    createdAt: f.created_at,
    updatedAt: f.updated_at,
  };
  if (f.sharing_type === 'LIMITED') {
    const members: Array<{ userId: number; role: string }> = listed
      ? JSON.parse(f.members_json)
      : db.all<{ user_id: number; role: string }>('SELECT user_id, role FROM folder_members WHERE folder_id = ? ORDER BY user_id', [f.id]).map((m) => ({ userId: m.user_id, role: m.role }));
    out.members = members.map((m) => ({ userId: m.userId, role: oneOf(FOLDER_MEMBER_ROLES, m.role, 'folder_members.role') }));
  }
  return out;
}

/** The create shape of the spec. */
export function folderCreatedJson(f: FolderRow): Shape<'folderCreated'> {
  return {
    id: String(f.id),
    title: f.title,
    description: f.description ?? '',
    color: f.color,
    isTeamFolder: f.sharing_type !== 'PRIVATE',
    createdAt: f.created_at,
    updatedAt: f.updated_at,
    sharingType: f.sharing_type,
  };
}

// ---- text rendering of stored Markdown (documents, summaries: decisions.md §3.4, §5.4) ----

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function inlineHtml(s: string): string {
  return escapeHtml(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w*])[*_]([^*_]+)[*_](?![\w*])/g, '$1<em>$2</em>')
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>');
}

const LIST_ITEM = /^\s*(?:[-*+]|(\d+)\.)\s+(.*)$/;

/** Markdown (headings, lists, quotes, paragraphs, emphasis, code, links) to simple HTML. */
export function markdownToHtml(md: string): string {
  // Blocks are separated by blank lines; a heading line always ends its block.
  const blocks = md.replace(/\r\n?/g, '\n').replace(/^(#{1,6}\s.*)$/gm, '\n$1\n').split(/\n{2,}/).map((b) => b.trim()).filter(Boolean);
  return blocks
    .map((block) => {
      const lines = block.split('\n');
      const heading = /^(#{1,6})\s+(.*)$/.exec(block);
      if (heading && lines.length === 1) return `<h${heading[1].length}>${inlineHtml(heading[2])}</h${heading[1].length}>`;
      if (lines.every((l) => LIST_ITEM.test(l))) {
        const tag = LIST_ITEM.exec(lines[0])![1] !== undefined ? 'ol' : 'ul';
        return `<${tag}>${lines.map((l) => `<li>${inlineHtml(LIST_ITEM.exec(l)![2])}</li>`).join('')}</${tag}>`;
      }
      if (lines.every((l) => l.startsWith('>'))) return `<blockquote><p>${lines.map((l) => inlineHtml(l.replace(/^>\s?/, ''))).join('<br>')}</p></blockquote>`;
      return `<p>${lines.map(inlineHtml).join('<br>')}</p>`;
    })
    .join('\n');
}

/** Markdown to plain text: heading marks, emphasis, code ticks, quote marks, checkboxes and link targets removed. */
export function markdownToPlain(md: string): string {
  return md
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) =>
      l
        .replace(/^#{1,6}\s+/, '')
        .replace(/^>\s?/, '')
        .replace(/^(\s*[-*+]\s+)\[[ xX]\]\s+/, '$1')
        .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
        .replace(/\*\*([^*]+)\*\*/g, '$1')
        .replace(/(^|[^\w*])[*_]([^*_]+)[*_](?![\w*])/g, '$1$2')
        .replace(/`([^`]+)`/g, '$1'),
    )
    .join('\n');
}

/** Plain text to simple HTML paragraphs. */
export function plainToHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}
