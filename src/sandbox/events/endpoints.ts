import { EVENT_TYPE_NAMES, isEventType, type EventType } from '../../contract/events.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { decodeRow, type Db } from '../db.js';
import { ApiFailure } from '../http.js';
import { randomAlnum } from '../ids.js';
import type { WEBHOOK_ENDPOINT_SOURCES } from '../schema.sql.js';
import type { Clock } from '../types.js';

/**
 * Webhook endpoints (decisions.md §6.4): URL, secret, event types (all when empty) and the workspaces or organization
 * whose events they receive. Registered from the seed, `--webhook` or the control API; rows of `webhook_endpoints`.
 * The secret is never answered or logged: endpoints are shown by id and URL only.
 */

export type EndpointSource = (typeof WEBHOOK_ENDPOINT_SOURCES)[number];

export interface EndpointRow {
  id: string;
  url: string;
  secret: string;
  event_types: string[];
  organization_id: string | null;
  workspace_guids: string[];
  source: EndpointSource;
  created_at: string;
}

export interface EndpointInput {
  id?: string;
  url: string;
  secret?: string;
  eventTypes?: string[];
  organizationId?: string | null;
  workspaceGuids?: string[];
}

/** The rules of an endpoint's fields, shared by the seed's checks and the control API. */
export const ENDPOINT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const WEBHOOK_SECRET_PATTERN = /^[\x21-\x7e]{8,256}$/;
export const WEBHOOK_SECRET_RULE = 'must be 8 to 256 printable characters without spaces (it is sent as a Bearer value)';

/** A problem with a webhook URL, or undefined when it is an absolute http(s) URL. */
export function webhookUrlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be an absolute http:// or https:// URL, e.g. http://127.0.0.1:4242/webhooks';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `must use http or https, not ${u.protocol.replace(/:$/, '')}`;
  return undefined;
}

/** Whether a host name or address reaches only this machine (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\./.test(h);
}

/** `--webhook-allow-host` values as compared: lower case, without IPv6 brackets. */
export const normalizeAllowedHost = (host: string) => host.trim().replace(/^\[|\]$/g, '').toLowerCase();

/**
 * The sandbox delivers to loopback only, and to other hosts only when started with `--webhook-allow-host HOST`
 * (so a sandbox reachable by others cannot be made to send requests anywhere a caller asks). A problem naming
 * the flag, or undefined when `url` may be delivered to. `url` is an http(s) URL (webhookUrlProblem said so).
 */
export function webhookHostProblem(url: string, allowedHosts: readonly string[]): string | undefined {
  let host: string;
  try {
    host = normalizeAllowedHost(new URL(url).hostname);
  } catch {
    return undefined;
  }
  if (isLoopbackHost(host) || allowedHosts.some((h) => normalizeAllowedHost(h) === host)) return undefined;
  return `goes to "${host}", beyond loopback: the sandbox delivers webhooks only to localhost, 127.0.0.0/8 and [::1] unless started with --webhook-allow-host ${host.includes(':') ? `[${host}]` : host}`;
}

/** A URL as it may be shown: a password in it is masked. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.href;
  } catch {
    return url;
  }
}

/** A generated endpoint secret, `whsec_` and 32 letters and digits. */
export const newWebhookSecret = () => `whsec_${randomAlnum(32)}`;

export function listEndpoints(db: Db): EndpointRow[] {
  return db.all<EndpointRow>('SELECT * FROM webhook_endpoints ORDER BY created_at, rowid').map((r) => decodeRow('webhook_endpoints', r) as EndpointRow);
}

export function getEndpoint(db: Db, id: string): EndpointRow | undefined {
  const r = db.get<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?', [id]);
  return r ? (decodeRow('webhook_endpoints', r) as EndpointRow) : undefined;
}

/** The endpoint as the control API answers it: never its secret. */
export function endpointJson(db: Db, e: EndpointRow) {
  const pending = db.get<{ n: number }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending'`, [e.id])?.n ?? 0;
  return {
    id: e.id,
    url: displayUrl(e.url),
    eventTypes: e.event_types,
    organizationId: e.organization_id,
    workspaceGuids: e.workspace_guids,
    source: e.source,
    createdAt: e.created_at,
    pendingDeliveries: pending,
  };
}

/** Endpoints that receive an event of `type` that happened in `workspaceGuid` (of `organizationId`); all of them with `any`. */
export function matchingEndpoints(db: Db, type: EventType, workspaceGuid: string | null, organizationId: string | null, any = false): EndpointRow[] {
  return listEndpoints(db).filter((e) => {
    if (any) return true;
    if (e.event_types.length && !e.event_types.includes(type)) return false;
    if (e.organization_id !== null) return organizationId === e.organization_id;
    if (e.workspace_guids.length) return workspaceGuid !== null && e.workspace_guids.includes(workspaceGuid);
    return true;
  });
}

const bad = (detail: string) => new ApiFailure(ERROR_CODES.MALFORMED, 'invalid webhook endpoint', detail);

/** Check an endpoint's fields against the rules and the data (400000 naming the field, 404000 for unknown references). */
export function checkEndpoint(db: Db, input: EndpointInput, allowedHosts: readonly string[] = []): void {
  if (input.id !== undefined && !ENDPOINT_ID_PATTERN.test(input.id)) throw bad('id: must be 1 to 64 letters, digits, _ or -');
  const urlProblem = webhookUrlProblem(input.url) ?? webhookHostProblem(input.url, allowedHosts);
  if (urlProblem) throw bad(`url: ${urlProblem}`);
  if (input.secret !== undefined && !WEBHOOK_SECRET_PATTERN.test(input.secret)) throw bad(`secret: ${WEBHOOK_SECRET_RULE}`);
  (input.eventTypes ?? []).forEach((t, i) => {
    if (!isEventType(t)) throw bad(`eventTypes[${i}]: "${t}" is not an event type; one of ${EVENT_TYPE_NAMES.join(', ')}`);
  });
  const ws = input.workspaceGuids ?? [];
  if (input.organizationId && ws.length) throw bad('workspaceGuids: give either organizationId (every workspace of it) or workspaceGuids, not both');
  if (input.organizationId && !db.get('SELECT 1 AS x FROM organizations WHERE id = ?', [input.organizationId]))
    throw new ApiFailure(ERROR_CODES.NOT_FOUND, 'organization not found', `organizationId: no organization ${input.organizationId}`);
  ws.forEach((g, i) => {
    if (!db.get('SELECT 1 AS x FROM workspaces WHERE guid = ?', [g])) throw new ApiFailure(ERROR_CODES.NOT_FOUND, 'workspace not found', `workspaceGuids[${i}]: no workspace ${g}`);
  });
  if (input.id !== undefined && getEndpoint(db, input.id)) throw new ApiFailure(ERROR_CODES.CONFLICT, `webhook endpoint ${input.id} already exists`, 'id: pick another id, or delete the endpoint first');
}

function freshId(db: Db): string {
  for (;;) {
    const id = `we_${randomAlnum(12)}`;
    if (!getEndpoint(db, id)) return id;
  }
}

/** Add an endpoint (checked by the caller); returns it and the secret when one was generated. */
export function addEndpoint(db: Db, clock: Clock, input: EndpointInput, source: EndpointSource): { endpoint: EndpointRow; generatedSecret?: string } {
  const generatedSecret = input.secret === undefined ? newWebhookSecret() : undefined;
  const id = input.id ?? freshId(db);
  db.run(
    `INSERT INTO webhook_endpoints (id, url, secret, event_types, organization_id, workspace_guids, source, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, input.url, input.secret ?? generatedSecret, [...new Set(input.eventTypes ?? [])], input.organizationId ?? null, input.workspaceGuids ?? [], source, clock.now().toISOString()],
  );
  return { endpoint: getEndpoint(db, id)!, generatedSecret };
}

/** Remove an endpoint; its pending deliveries are cancelled (the log keeps them). */
export function removeEndpoint(db: Db, clock: Clock, id: string): boolean {
  return db.tx(() => {
    const now = clock.now().toISOString();
    db.run(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, finished_at = ? WHERE endpoint_id = ? AND status = 'pending'`, [now, id]);
    return db.run('DELETE FROM webhook_endpoints WHERE id = ?', [id]).changes > 0;
  });
}

export interface FlagEndpoint {
  id: string;
  url: string;
  /** The secret generated in this run (print it once); undefined when it came from the file/env or the state. */
  generatedSecret?: string;
  /** The endpoint was already in the state file and keeps the secret stored there. */
  kept: boolean;
}

/**
 * `--webhook URL` (repeatable): every event of the sandbox, authenticated with `secret` (from --webhook-secret-file or
 * the environment) or one generated secret shared by the URLs of this start. A URL already registered by an earlier
 * start (a reloaded `--state`) keeps its endpoint and pending deliveries; a secret given now replaces the stored one.
 */
export function registerFlagEndpoints(db: Db, clock: Clock, urls: string[], secret: string | undefined): FlagEndpoint[] {
  let generated: string | undefined;
  return db.tx(() =>
    [...new Set(urls)].map((url) => {
      const existing = db.get<{ id: string }>(`SELECT id FROM webhook_endpoints WHERE source = 'flag' AND url = ?`, [url]);
      if (existing) {
        if (secret !== undefined) db.run('UPDATE webhook_endpoints SET secret = ? WHERE id = ?', [secret, existing.id]);
        return { id: existing.id, url, kept: secret === undefined };
      }
      const s = secret ?? (generated ??= newWebhookSecret());
      const { endpoint } = addEndpoint(db, clock, { url, secret: s }, 'flag');
      return { id: endpoint.id, url, generatedSecret: secret === undefined ? s : undefined, kept: false };
    }),
  );
}
