import { folderNoteResourceId, resourceTypeOf, type EventResourceType, type EventType } from '../../contract/events.js';
import { getFolder, getNote, type NoteRow } from '../access.js';
import type { Db } from '../db.js';
import { documentListJson, documents, summaries, summaryJson } from '../note-content.js';
import { ApiFailure } from '../http.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { noteJson } from '../serialize.js';

/** What an event is about: the resource, named by the ids of the API (decisions.md §6.1). */
export interface EventRef {
  noteGuid?: string;
  documentId?: number;
  summaryId?: number;
  /** With noteGuid, for folder.note.*: the folder (default: the note's own folder). */
  folderId?: number;
}

/** An event's resource as the envelope carries it, with where it happened. */
export interface ResolvedResource {
  resourceType: EventResourceType;
  resourceId: string;
  resource: unknown;
  workspaceGuid: string | null;
  organizationId: string | null;
  noteGuid: string;
}

const missing = (what: string, detail: string) => new ApiFailure(ERROR_CODES.NOT_FOUND, `${what} not found`, detail);

function organizationOf(db: Db, n: NoteRow): string | null {
  const row = n.workspace_guid
    ? db.get<{ id: string }>('SELECT organization_id AS id FROM workspaces WHERE guid = ?', [n.workspace_guid])
    : db.get<{ id: string }>('SELECT organization_id AS id FROM users WHERE id = ?', [n.owner_user_id]);
  return row?.id ?? null;
}

function noteOf(db: Db, guid: string | undefined, field: string): NoteRow {
  if (guid === undefined) throw new ApiFailure(ERROR_CODES.MALFORMED, `${field} is required`, `${field}: name the note the event is about`);
  const n = getNote(db, guid);
  if (!n) throw missing('note', `${field}: no note ${guid}`);
  return n;
}

function place(db: Db, n: NoteRow) {
  return { workspaceGuid: n.workspace_guid, organizationId: organizationOf(db, n), noteGuid: n.guid };
}

/**
 * The resource of an event of `type` in its current state. A deleted note still resolves (note.deleted carries the
 * note as it was). Throws a 404/400 ApiFailure when the resource does not exist.
 */
export function resolveResource(db: Db, type: EventType, ref: EventRef): ResolvedResource {
  const resourceType = resourceTypeOf(type);
  if (resourceType === 'Note') {
    const n = noteOf(db, ref.noteGuid, 'noteGuid');
    return { resourceType, resourceId: n.guid, resource: noteJson(db, n), ...place(db, n) };
  }
  if (resourceType === 'NoteDocument') {
    if (ref.documentId === undefined) throw new ApiFailure(ERROR_CODES.MALFORMED, 'documentId is required', 'documentId: name the document the event is about');
    const row = db.get<{ note_guid: string }>('SELECT note_guid FROM documents WHERE id = ?', [ref.documentId]);
    const d = row && documents(db, row.note_guid).find((x) => x.id === ref.documentId);
    if (!d) throw missing('document', `documentId: no document ${ref.documentId}`);
    const n = getNote(db, d.note_guid)!;
    return { resourceType, resourceId: String(d.id), resource: documentListJson(d), ...place(db, n) };
  }
  if (resourceType === 'NoteSummary') {
    if (ref.summaryId === undefined) throw new ApiFailure(ERROR_CODES.MALFORMED, 'summaryId is required', 'summaryId: name the summary the event is about');
    const row = db.get<{ note_guid: string }>('SELECT note_guid FROM summaries WHERE id = ?', [ref.summaryId]);
    const s = row && summaries(db, row.note_guid, ref.summaryId)[0];
    if (!s) throw missing('summary', `summaryId: no summary ${ref.summaryId}`);
    const n = getNote(db, s.note_guid)!;
    return { resourceType, resourceId: String(s.id), resource: summaryJson(s), ...place(db, n) };
  }
  const n = noteOf(db, ref.noteGuid, 'noteGuid');
  const folderId = ref.folderId ?? n.folder_id;
  if (folderId === null || folderId === undefined) throw new ApiFailure(ERROR_CODES.MALFORMED, 'folderId is required', `folderId: note ${n.guid} is in no folder, so name one`);
  const f = getFolder(db, folderId);
  if (!f) throw missing('folder', `folderId: no folder ${folderId}`);
  const resource = { folder: { id: String(f.id), title: f.title, isTeamFolder: f.sharing_type !== 'PRIVATE' }, noteGuid: n.guid };
  const organizationId = db.get<{ id: string }>('SELECT organization_id AS id FROM workspaces WHERE guid = ?', [f.workspace_guid])?.id ?? null;
  return { resourceType, resourceId: folderNoteResourceId(f.id, n.guid), resource, workspaceGuid: f.workspace_guid, organizationId, noteGuid: n.guid };
}

/** For a test event that names no resource: the most recently changed one of the type's kind. */
export function newestRef(db: Db, type: EventType): EventRef {
  const resourceType = resourceTypeOf(type);
  const none = (what: string) => new ApiFailure(ERROR_CODES.NOT_FOUND, `no ${what} to make a ${type} event about`, `create one first, or name one (noteGuid, documentId, summaryId, folderId)`);
  if (resourceType === 'NoteDocument') {
    const d = db.get<{ id: number }>('SELECT id FROM documents ORDER BY updated_at DESC, id DESC LIMIT 1');
    if (!d) throw none('document');
    return { documentId: d.id };
  }
  if (resourceType === 'NoteSummary') {
    const s = db.get<{ id: number }>('SELECT id FROM summaries ORDER BY updated_at DESC, id DESC LIMIT 1');
    if (!s) throw none('summary');
    return { summaryId: s.id };
  }
  const inFolder = resourceType === 'FolderNoteRelation' ? 'AND folder_id IS NOT NULL' : '';
  const n = db.get<{ guid: string }>(`SELECT guid FROM notes WHERE deleted = 0 ${inFolder} ORDER BY updated_at DESC, id DESC LIMIT 1`);
  if (!n) throw none(inFolder ? 'note in a folder' : 'note');
  return { noteGuid: n.guid };
}
