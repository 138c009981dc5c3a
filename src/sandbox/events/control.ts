import { createHash, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import type * as z from 'zod';
import { CONTROL_ENDPOINTS, CONTROL_PREFIX, type ControlId } from '../../contract/control.js';
import type {
  ControlParsedBodyOf,
  ControlParsedQueryOf,
  ControlPathOf,
  ControlResponseOf,
  DELIVERY_STATUSES,
  EVENT_ORIGINS,
} from '../../contract/control-schemas.js';
import { EVENT_ID_PATTERN, EVENT_TYPE_NAMES, isEventType, type EventType } from '../../contract/events.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { getFolder } from '../access.js';
import { readJsonBody } from '../app.js';
import { loadedValidation, loadValidation } from '../validation-load.js';
import type { Db } from '../db.js';
import { ApiFailure, notFound } from '../http.js';
import type { Clock } from '../types.js';
import type { EventBus } from './bus.js';
import { addEndpoint, checkEndpoint, displayUrl, endpointJson, getEndpoint, listEndpoints, removeEndpoint } from './endpoints.js';
import { newestRef } from './resources.js';
import { DEFAULT_LIVE, generatedParagraphs, liveSpecProblem, spokenSeconds, type LiveNotes, type LiveParagraph } from './live.js';

/**
 * The sandbox control API under `/_sandbox/` (docs/sandbox.md): webhook endpoints, the event log with every delivery
 * attempt, test events, redelivery and live notes. Not part of the service: its own table and schemas are in
 * src/contract/control.ts and control-schemas.ts, which the routes here are registered from (a handler per id, typed
 * from the schemas; docs/sandbox-control.openapi.json describes them). Open on a loopback listener;
 * with a control token (or on another host, where one is required) it needs `Authorization: Bearer <token>`.
 * Errors use the service's envelope.
 */

export interface ControlOptions {
  db: Db;
  clock: Clock;
  bus: EventBus;
  live: LiveNotes;
  /** The token `--control-token-file` / NOTEVOX_SANDBOX_CONTROL_TOKEN gave. */
  token?: string;
  /** The sandbox listens on a loopback address only. */
  loopback: boolean;
  /** `--webhook-allow-host`: hosts beyond loopback that endpoints may deliver to. */
  webhookAllowHosts?: readonly string[];
}

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Constant-time check of `Authorization: Bearer <token>`. */
function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return timingSafeEqual(sha(m?.[1] ?? ''), sha(token)) && m !== null;
}

const bad = (what: string, detail: string) => new ApiFailure(ERROR_CODES.MALFORMED, what, detail);

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw bad(`invalid ${what}`, `${issue.path.length ? loadedValidation().formatPath(issue.path) : what}: ${issue.message}`);
  }
  return r.data;
}

/** The paragraphs of a live spec: given (strings or objects) or `count` generated ones. */
export function liveParagraphs(input: { paragraphs?: Array<string | { speaker?: string | null; text: string; durationSeconds?: number }>; count?: number }): LiveParagraph[] {
  if (input.paragraphs) {
    return input.paragraphs.map((p, i) => {
      const o = typeof p === 'string' ? { text: p } : p;
      return { speaker: o.speaker ?? `Speaker ${(i % 2) + 1}`, text: o.text, durationSeconds: o.durationSeconds ?? spokenSeconds(o.text) };
    });
  }
  return generatedParagraphs(input.count ?? DEFAULT_LIVE.count);
}

interface EventRow {
  seq: number;
  id: string;
  type: string;
  created_at: string;
  workspace_guid: string | null;
  resource_type: string;
  resource_id: string;
  origin: (typeof EVENT_ORIGINS)[number];
  envelope: string;
}

interface DeliveryRow {
  id: number;
  event_seq: number;
  endpoint_id: string;
  endpoint_url: string;
  status: (typeof DELIVERY_STATUSES)[number];
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  finished_at: string | null;
}

interface AttemptRow {
  delivery_id: number;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
}

type LoggedEvent = ControlResponseOf<'control.events.get'>;

/** Events of the log with their deliveries and every attempt: endpoints by id and URL, never a secret. */
export function eventLogJson(db: Db, rows: EventRow[]): LoggedEvent[] {
  if (!rows.length) return [];
  const seqs = rows.map((r) => r.seq);
  const marks = seqs.map(() => '?').join(',');
  const deliveries = db.all<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE event_seq IN (${marks}) ORDER BY id`, seqs);
  const ids = deliveries.map((d) => d.id);
  const attempts = ids.length
    ? db.all<AttemptRow>(`SELECT * FROM webhook_attempts WHERE delivery_id IN (${ids.map(() => '?').join(',')}) ORDER BY delivery_id, attempt`, ids)
    : [];
  return rows.map((e) => ({
    id: e.id,
    type: e.type,
    createdAt: e.created_at,
    workspaceGuid: e.workspace_guid,
    resourceType: e.resource_type,
    resourceId: e.resource_id,
    origin: e.origin,
    envelope: JSON.parse(e.envelope) as unknown,
    deliveries: deliveries
      .filter((d) => d.event_seq === e.seq)
      .map((d) => ({
        endpointId: d.endpoint_id,
        url: displayUrl(d.endpoint_url),
        status: d.status,
        createdAt: d.created_at,
        nextAttemptAt: d.next_attempt_at,
        finishedAt: d.finished_at,
        attempts: attempts
          .filter((a) => a.delivery_id === d.id)
          .map((a) => ({ attempt: a.attempt, at: a.at, status: a.status, error: a.error, durationMs: a.duration_ms, nextRetryAt: a.next_retry_at })),
      })),
  }));
}

const EVENT_COLUMNS = 'seq, id, type, created_at, workspace_guid, resource_type, resource_id, origin, envelope';

function eventBySeq(db: Db, seq: number): LoggedEvent {
  return eventLogJson(db, db.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq = ?`, [seq]))[0];
}

function eventById(db: Db, eventId: string): EventRow {
  const row = EVENT_ID_PATTERN.test(eventId) ? db.get<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = ?`, [eventId]) : undefined;
  if (!row) throw notFound('event');
  return row;
}

const EVENTS_PAGE = { default: 100, max: 1000 } as const;

/**
 * GET /_sandbox/events: the log, oldest first, after `since` (an event id, or an ISO instant: at or after it), `limit`
 * at a time (`nextCursor` continues as `since`); or with `tail=N` the newest N.
 */
function listEvents(db: Db, query: ControlParsedQueryOf<'control.events.list'>): ControlResponseOf<'control.events.list'> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (query.type) {
    const types = query.type.split(',').map((t) => t.trim()).filter(Boolean);
    const unknown = types.find((t) => !isEventType(t));
    if (unknown) throw bad('invalid query', `type: "${unknown}" is not an event type; one of ${EVENT_TYPE_NAMES.join(', ')}`);
    clauses.push(`type IN (${types.map(() => '?').join(',')})`);
    params.push(...types);
  }
  if (query.since) {
    if (query.since.startsWith('evt_')) {
      clauses.push('seq > ?');
      params.push(eventById(db, query.since).seq);
    } else {
      const t = Date.parse(query.since);
      if (Number.isNaN(t)) throw bad('invalid query', 'since: an event id (evt_…) or an ISO 8601 instant, e.g. 2026-11-01T09:00:00Z');
      clauses.push('created_at >= ?');
      params.push(new Date(t).toISOString());
    }
  }
  const size = (name: string, raw: string | undefined) => {
    const n = raw === undefined ? EVENTS_PAGE.default : Number(raw);
    if (!Number.isInteger(n) || n < 1 || n > EVENTS_PAGE.max) throw new ApiFailure(ERROR_CODES.PAGE_SIZE, `${name} out of range`, `${name} must be an integer from 1 to ${EVENTS_PAGE.max}`);
    return n;
  };
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  if (query.tail !== undefined) {
    // The newest `tail` events (still oldest first).
    const rows = db.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events ${where} ORDER BY seq DESC LIMIT ?`, [...params, size('tail', query.tail)]).reverse();
    return { content: eventLogJson(db, rows), nextCursor: null };
  }
  const limit = size('limit', query.limit);
  const rows = db.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events ${where} ORDER BY seq LIMIT ?`, [...params, limit + 1]);
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { content: eventLogJson(db, page), nextCursor: more ? page[page.length - 1].id : null };
}

/** The owner of a new live note: the given user (a member of the workspace), else the workspace's first owner or member. */
function liveOwner(db: Db, workspaceGuid: string, userId: number | undefined): number {
  if (userId !== undefined) {
    if (!db.get('SELECT 1 AS x FROM memberships WHERE user_id = ? AND workspace_guid = ?', [userId, workspaceGuid]))
      throw new ApiFailure(ERROR_CODES.UNPROCESSABLE, 'the owner is not a member of the workspace', `ownerUserId: user ${userId} is not a member of workspace ${workspaceGuid}`);
    return userId;
  }
  const m = db.get<{ user_id: number }>(
    `SELECT user_id FROM memberships WHERE workspace_guid = ? ORDER BY CASE role WHEN 'OWNER' THEN 0 WHEN 'ADMIN' THEN 1 ELSE 2 END, user_id LIMIT 1`,
    [workspaceGuid],
  );
  if (!m) throw new ApiFailure(ERROR_CODES.UNPROCESSABLE, 'the workspace has no members', 'a live note needs an owner: add a member to the workspace, or pass ownerUserId');
  return m.user_id;
}

const json = (status: number, body: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' } });

/** What the handler of control endpoint `Id` is given: its path parameters, query and body as its schemas parse them. */
interface ControlRequest<Id extends ControlId> {
  params: ControlPathOf<Id>;
  query: ControlParsedQueryOf<Id>;
  body: ControlParsedBodyOf<Id>;
}
/** A handler answers its endpoint's response shape (sent with the endpoint's success status), or nothing for a 204. */
type ControlHandler<Id extends ControlId> = (r: ControlRequest<Id>) => ControlAnswer<Id> | Promise<ControlAnswer<Id>>;
type ControlAnswer<Id extends ControlId> = [ControlResponseOf<Id>] extends [null] ? undefined : ControlResponseOf<Id>;
type ControlHandlers = { [Id in ControlId]: ControlHandler<Id> };

/** Register the control routes (before the API's and its catch-all). */
export function controlRoutes(o: ControlOptions): (app: Hono) => void {
  const { db, clock, bus, live } = o;
  const handlers: ControlHandlers = {
    'control.webhookEndpoints.list': () => ({ content: listEndpoints(db).map((e) => endpointJson(db, e)), nextCursor: null }),

    'control.webhookEndpoints.create': ({ body }) => {
      checkEndpoint(db, body, o.webhookAllowHosts ?? []);
      const { endpoint, generatedSecret } = db.tx(() => addEndpoint(db, clock, body, 'control'));
      // A generated secret is answered this once (like a share-link password); a given one never.
      return generatedSecret !== undefined ? { ...endpointJson(db, endpoint), secret: generatedSecret } : endpointJson(db, endpoint);
    },

    'control.webhookEndpoints.delete': ({ params }) => {
      if (!removeEndpoint(db, clock, params.id)) throw notFound('webhook endpoint');
      return undefined;
    },

    'control.events.list': ({ query }) => listEvents(db, query),

    'control.events.get': ({ params }) => eventBySeq(db, eventById(db, params.id).seq),

    'control.events.trigger': ({ body }) => {
      if (!isEventType(body.type)) throw bad('invalid body', `type: "${body.type}" is not an event type; one of ${EVENT_TYPE_NAMES.join(', ')}`);
      const named = body.noteGuid !== undefined || body.documentId !== undefined || body.summaryId !== undefined || body.folderId !== undefined;
      const { seq } = bus.emit(body.type as EventType, named ? body : newestRef(db, body.type as EventType), 'test');
      return eventBySeq(db, seq);
    },

    'control.events.redeliver': ({ params, body }) => {
      const e = eventById(db, params.id);
      if (body?.endpointId !== undefined && !getEndpoint(db, body.endpointId)) throw notFound('webhook endpoint');
      const to = bus.redeliver(e.seq, body?.endpointId !== undefined ? [body.endpointId] : undefined);
      if (!to.length) throw new ApiFailure(ERROR_CODES.UNPROCESSABLE, 'no endpoint receives this event', 'register one (POST /_sandbox/webhook-endpoints), or name one with endpointId');
      return eventBySeq(db, e.seq);
    },

    'control.liveNotes.create': ({ body }) => {
      if (!db.get('SELECT 1 AS x FROM workspaces WHERE guid = ?', [body.workspaceGuid])) throw new ApiFailure(ERROR_CODES.NOT_FOUND, 'workspace not found', `workspaceGuid: no workspace ${body.workspaceGuid}`);
      if (body.paragraphs && body.count !== undefined) throw bad('invalid body', 'count: give either paragraphs or count, not both');
      const folderId = body.folderId ?? null;
      if (folderId !== null) {
        const f = getFolder(db, folderId);
        if (!f) throw new ApiFailure(ERROR_CODES.NOT_FOUND, 'folder not found', `folderId: no folder ${folderId}`);
        if (f.workspace_guid !== body.workspaceGuid)
          throw new ApiFailure(ERROR_CODES.UNPROCESSABLE, 'the folder is in another workspace', `folderId: folder ${f.id} is in workspace ${f.workspace_guid}, not ${body.workspaceGuid}`);
      }
      const spec = {
        paragraphs: liveParagraphs(body),
        intervalSeconds: body.paragraphIntervalSeconds ?? DEFAULT_LIVE.intervalSeconds,
        stops: body.stops ?? [],
      };
      const problem = liveSpecProblem(spec);
      if (problem) throw bad('invalid body', problem);
      return live.create({
        workspaceGuid: body.workspaceGuid,
        ownerUserId: liveOwner(db, body.workspaceGuid, body.ownerUserId),
        folderId,
        title: body.title ?? `Live note ${clock.now().toISOString().slice(0, 16).replace('T', ' ')}`,
        spec,
      });
    },

    'control.openapi': async () => JSON.parse((await import('../../contract/control-openapi.js')).controlOpenApiText()) as Record<string, unknown>,
  };

  return (app) => {
    app.use(`${CONTROL_PREFIX}/*`, async (c, next) => {
      if (o.token !== undefined) {
        if (!tokenMatches(c.req.header('authorization'), o.token))
          throw new ApiFailure(ERROR_CODES.AUTH_UNKNOWN, 'control token required', 'send Authorization: Bearer <the --control-token-file token of this sandbox>', {
            'WWW-Authenticate': 'Bearer realm="notevox-sandbox-control"',
          });
      } else if (!o.loopback) {
        throw new ApiFailure(
          ERROR_CODES.PERMISSION_DENIED,
          'the control API is off: this sandbox listens beyond loopback without a control token',
          'restart it with --control-token-file FILE (or NOTEVOX_SANDBOX_CONTROL_TOKEN), and send that token as Bearer value',
        );
      }
      return next();
    });

    // One route per row of the control table: path, query and body parsed with its schemas, answered with its status.
    // (The schemas are loaded with the API's, on the first request that needs them: validation-load.ts.)
    for (const ep of CONTROL_ENDPOINTS) {
      const handler = handlers[ep.id as ControlId] as unknown as (r: { params: Record<string, string>; query: unknown; body: unknown }) => unknown;
      let schemas: ReturnType<Awaited<ReturnType<typeof loadValidation>>['controlSchemas']> | undefined;
      app.on(ep.method, ep.path.replace(/\{(\w+)\}/g, ':$1'), async (c) => {
        schemas ??= (await loadValidation()).controlSchemas(ep.id);
        const params = c.req.param() as Record<string, string>;
        const query = schemas.query ? parse(schemas.query, c.req.query(), 'query') : {};
        const body = schemas.body ? parse(schemas.body, await readJsonBody(c.req.raw), 'body') : undefined;
        return json(ep.successStatus, await handler({ params, query, body }));
      });
    }
  };
}
