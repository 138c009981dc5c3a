import * as z from 'zod';
import { EVENT_ID_PATTERN, EVENT_TYPES, type EventResourceType, type EventType } from './events.js';
import * as s from './schemas.js';

/**
 * The zod schemas of the events (decisions.md §6.1): each type's envelope with its resource. Tests and the sandbox
 * check envelopes with them; commands never load this module at start-up.
 */

export const folderNoteRelation = z.object({
  folder: z.object({ id: z.string(), title: z.string(), isTeamFolder: z.boolean() }),
  noteGuid: z.string(),
});

/** Payloads carry metadata (a document without its sections); the full content is fetched through the API. */
export const EVENT_RESOURCE_SCHEMAS = {
  Note: s.note,
  NoteDocument: s.documentListItem,
  NoteSummary: s.summary,
  FolderNoteRelation: folderNoteRelation,
} as const satisfies Record<EventResourceType, z.ZodType>;

type ResourceTypeOf<T extends EventType> = Extract<(typeof EVENT_TYPES)[number], { type: T }>['resourceType'];

function envelopeOf<T extends EventType>(type: T, resourceType: ResourceTypeOf<T>) {
  return z.object({
    id: z.string().regex(EVENT_ID_PATTERN, 'must be evt_ and 26 letters or digits'),
    type: z.literal(type),
    createdAt: s.timestamp,
    workspaceGuid: z.string().nullable(),
    data: z.object({
      resourceType: z.literal(resourceType),
      resourceId: z.string().min(1),
      resource: EVENT_RESOURCE_SCHEMAS[resourceType],
    }),
  });
}

type EnvelopeSchema<T extends EventType> = ReturnType<typeof envelopeOf<T>>;

/** Each event type's envelope schema. */
export const EVENT_SCHEMAS = Object.fromEntries(EVENT_TYPES.map((t) => [t.type, envelopeOf(t.type, t.resourceType as never)])) as { [T in EventType]: EnvelopeSchema<T> };

/** Any event: the envelope of its own type. */
export const eventEnvelopeSchema = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((t) => EVENT_SCHEMAS[t.type]) as unknown as [EnvelopeSchema<EventType>, ...EnvelopeSchema<EventType>[]],
);
