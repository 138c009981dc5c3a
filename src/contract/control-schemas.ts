import * as z from 'zod';
import { CONTROL_ENDPOINTS, type ControlEndpoint, type ControlEndpointOf, type ControlId } from './control.js';
import { LIMITS } from './limits.js';
import * as s from './schemas.js';
import type { ParamNames } from './types.js';

/**
 * The zod schemas of the control API (control.ts), by id: path, query, body and response. The sandbox parses
 * requests with them; the types of `callControl` (client/control.ts) and of the sandbox's control handlers are
 * inferred from them, and docs/sandbox-control.openapi.json is generated from them. Nothing here is restated
 * elsewhere.
 */

/** Where a webhook endpoint came from: the seed, `--webhook`, or this API. */
export const WEBHOOK_ENDPOINT_SOURCES = ['seed', 'flag', 'control'] as const;
/** What made an event: a call of the API, a live note, or a test (`sandbox trigger`). */
export const EVENT_ORIGINS = ['api', 'live', 'test'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

const positiveId = z.union([z.number().int().positive(), z.string().regex(/^[1-9]\d*$/, 'must be a positive integer').transform(Number)]);

export const webhookEndpoint = z.object({
  id: z.string(),
  /** Shown without credentials or query (displayUrl). */
  url: z.string(),
  eventTypes: z.array(z.string()),
  organizationId: z.string().nullable(),
  workspaceGuids: z.array(z.string()),
  source: z.enum(WEBHOOK_ENDPOINT_SOURCES),
  createdAt: s.timestamp,
  pendingDeliveries: z.number().int(),
});

export const deliveryAttempt = z.object({
  attempt: z.number().int(),
  at: s.timestamp,
  /** The receiver's HTTP status; null when it did not answer. */
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number(),
  nextRetryAt: s.timestamp.nullable(),
});

export const delivery = z.object({
  endpointId: z.string(),
  url: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  createdAt: s.timestamp,
  nextAttemptAt: s.timestamp.nullable(),
  finishedAt: s.timestamp.nullable(),
  attempts: z.array(deliveryAttempt),
});

export const loggedEvent = z.object({
  id: z.string(),
  type: z.string(),
  createdAt: s.timestamp,
  workspaceGuid: z.string().nullable(),
  resourceType: z.string(),
  resourceId: z.string(),
  origin: z.enum(EVENT_ORIGINS),
  /** The event as delivered (docs/events.md). */
  envelope: z.unknown(),
  deliveries: z.array(delivery),
});

const eventPage = z.object({ content: z.array(loggedEvent), nextCursor: z.string().nullable() });

const paragraphInput = z.union([
  z.string().min(1),
  z.strictObject({ speaker: z.string().nullish(), text: z.string().min(1), durationSeconds: z.number().positive().optional() }),
]);

/** The schemas of one control endpoint (path parameters are strings: ids such as `we_…` and `evt_…`). */
export interface ControlSchemas {
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
}

/** Every control endpoint's schemas, by id; the object's own type is what the typed calls and handlers read. */
export const CONTROL_ENTRIES = {
  'control.webhookEndpoints.list': { response: z.object({ content: z.array(webhookEndpoint), nextCursor: z.null() }) },
  'control.webhookEndpoints.create': {
    body: z.strictObject({
      id: z.string().optional(),
      url: z.string(),
      secret: z.string().optional(),
      eventTypes: z.array(z.string()).optional(),
      organizationId: z.string().nullish(),
      workspaceGuids: z.array(z.string()).optional(),
    }),
    // With the secret only when the sandbox generated it.
    response: webhookEndpoint.extend({ secret: z.string().optional() }),
  },
  'control.webhookEndpoints.delete': {},
  'control.events.list': {
    // Checked by the handler (a bad page size is 400003, as in the service): strings here.
    query: z.object({
      type: z.string().optional().describe('comma-separated event types'),
      since: z.string().optional().describe('an event id (evt_…): the events after it; or an ISO 8601 instant: those at or after it'),
      limit: z.string().optional().describe('page size, 1 to 1000 (default 100)'),
      tail: z.string().optional().describe('the newest N events instead (1 to 1000)'),
    }),
    response: eventPage,
  },
  'control.events.get': { response: loggedEvent },
  'control.events.trigger': {
    body: z.strictObject({
      type: z.string(),
      noteGuid: z.string().optional(),
      documentId: positiveId.optional(),
      summaryId: positiveId.optional(),
      folderId: positiveId.optional(),
    }),
    response: loggedEvent,
  },
  'control.events.redeliver': { body: z.strictObject({ endpointId: z.string().optional() }).nullish(), response: loggedEvent },
  'control.liveNotes.create': {
    body: z.strictObject({
      workspaceGuid: z.string().regex(LIMITS.workspaceGuidPattern, 'must be 16 letters or digits'),
      folderId: positiveId.nullish(),
      title: z
        .string()
        .min(LIMITS.noteTitle.min)
        .max(LIMITS.noteTitle.max)
        .refine((t) => t.trim().length > 0, 'must not be blank')
        .optional(),
      ownerUserId: z.number().int().positive().optional(),
      paragraphs: z.array(paragraphInput).optional(),
      count: z.number().int().positive().optional(),
      paragraphIntervalSeconds: z.number().optional(),
      stops: z.array(z.number().int()).optional(),
    }),
    response: s.note,
  },
  'control.openapi': { response: z.record(z.string(), z.unknown()).describe('an OpenAPI 3.1 document') },
} as const satisfies Record<ControlId, ControlSchemas>;

type Entries = typeof CONTROL_ENTRIES;
type Schema<Id extends ControlId, K extends string> = Entries[Id] extends { [P in K]: infer S extends z.ZodType } ? S : undefined;

/** The parsed answer of a control endpoint (null for those that answer 204). */
export type ControlResponseOf<Id extends ControlId> = Schema<Id, 'response'> extends infer S extends z.ZodType ? z.output<S> : null;
/** The body a control endpoint takes. */
export type ControlBodyOf<Id extends ControlId> = Schema<Id, 'body'> extends infer S extends z.ZodType ? z.input<S> : undefined;
/** The query a control endpoint takes. */
export type ControlQueryOf<Id extends ControlId> = Schema<Id, 'query'> extends infer S extends z.ZodType ? z.input<S> : undefined;
/** The body and query a handler sees, after the schema's coercions. */
export type ControlParsedBodyOf<Id extends ControlId> = Schema<Id, 'body'> extends infer S extends z.ZodType ? z.output<S> : undefined;
export type ControlParsedQueryOf<Id extends ControlId> = Schema<Id, 'query'> extends infer S extends z.ZodType ? z.output<S> : Record<never, never>;
/** The path parameters of a control endpoint. */
export type ControlPathOf<Id extends ControlId> = { [K in ParamNames<ControlEndpointOf<Id>['path']>]: string };

/** One endpoint of the control table with its schemas (for the sandbox's routes and the OpenAPI document). */
export type ControlEndpointWithSchemas = ControlEndpoint & ControlSchemas & { params: z.ZodObject };

const paramsOf = (path: string) => z.object(Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name, z.string()])));

export const CONTROL_WITH_SCHEMAS: readonly ControlEndpointWithSchemas[] = CONTROL_ENDPOINTS.map((ep) => ({
  ...ep,
  params: paramsOf(ep.path),
  ...(CONTROL_ENTRIES as Record<string, ControlSchemas>)[ep.id],
}));
