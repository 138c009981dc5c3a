/**
 * Events (webhooks) of the service as data (decisions.md §6): the event types with the resource each carries, the
 * envelope, and the delivery schedule. Free of any schema library, so commands can list the types cheaply; the zod
 * schemas of each type's envelope are in event-schemas.ts.
 */

/** The resource an event carries in `data.resource` (decisions.md §6.1). */
export const EVENT_RESOURCE_TYPES = ['Note', 'NoteDocument', 'NoteSummary', 'FolderNoteRelation'] as const;
export type EventResourceType = (typeof EVENT_RESOURCE_TYPES)[number];

export interface EventTypeInfo {
  type: string;
  resourceType: EventResourceType;
  /** When the service sends it. */
  description: string;
}

/** The 14 event types (decisions.md §6.1), in the order the docs list them. */
export const EVENT_TYPES = [
  { type: 'note.created', resourceType: 'Note', description: 'a note was created (a live note: when its recording starts)' },
  { type: 'note.deleted', resourceType: 'Note', description: 'a note was deleted; the resource is the note as it was' },
  { type: 'note.user_content.updated', resourceType: 'Note', description: "a note's title changed" },
  { type: 'note.recording.completed', resourceType: 'Note', description: 'a recording of the note stopped (may fire several times per live note)' },
  { type: 'note.ended', resourceType: 'Note', description: 'all processing of the note is done (exactly once per note)' },
  { type: 'note.participants.updated', resourceType: 'Note', description: "the note's participants changed" },
  { type: 'note_document.generated', resourceType: 'NoteDocument', description: 'a document was generated from a template' },
  { type: 'note_document.updated', resourceType: 'NoteDocument', description: 'a document changed' },
  { type: 'note_document.deleted', resourceType: 'NoteDocument', description: 'a document was deleted; the resource is the document as it was' },
  { type: 'note_summary.generated', resourceType: 'NoteSummary', description: 'a summary was generated' },
  { type: 'note_summary.updated', resourceType: 'NoteSummary', description: 'a summary changed' },
  { type: 'note_summary.deleted', resourceType: 'NoteSummary', description: 'a summary was deleted; the resource is the summary as it was' },
  { type: 'folder.note.added', resourceType: 'FolderNoteRelation', description: 'a note was put in a folder' },
  { type: 'folder.note.removed', resourceType: 'FolderNoteRelation', description: 'a note left a folder (also when the folder was deleted)' },
] as const satisfies readonly EventTypeInfo[];

export type EventType = (typeof EVENT_TYPES)[number]['type'];
export const EVENT_TYPE_NAMES: readonly EventType[] = EVENT_TYPES.map((t) => t.type);

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPE_NAMES as readonly string[]).includes(value);
}

export function resourceTypeOf(type: EventType): EventResourceType {
  return EVENT_TYPES.find((t) => t.type === type)!.resourceType;
}

/** `evt_` and 26 letters and digits. */
export const EVENT_ID_PATTERN = /^evt_[A-Za-z0-9]{26}$/;

/** `resourceId` of a FolderNoteRelation. */
export const folderNoteResourceId = (folderId: string | number, noteGuid: string) => `folder_${folderId}:note_${noteGuid}`;

/**
 * The envelope POSTed to an endpoint (decisions.md §6.1). `resourceId` is always a string: a note guid, a document
 * or summary id in decimal, or `folder_{folderId}:note_{noteGuid}`. `workspaceGuid` is null only for a note that
 * belongs to no workspace.
 */
export interface EventEnvelope<R = unknown> {
  id: string;
  type: EventType;
  createdAt: string;
  workspaceGuid: string | null;
  data: { resourceType: EventResourceType; resourceId: string; resource: R };
}

/** Delivery (decisions.md §6.2–§6.3): Bearer secret, 60 s timeout, retried after these delays (6 attempts in all). */
export const WEBHOOK_DELIVERY = {
  timeoutSeconds: 60,
  retryDelaysSeconds: [15, 30, 300, 1800, 7200],
  /** The sandbox's extra header: the attempt number, 1-based. */
  attemptHeader: 'X-Notevox-Delivery-Attempt',
} as const;
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_DELIVERY.retryDelaysSeconds.length + 1;
