import type { HttpMethod } from './types.js';

/**
 * The sandbox's control API under `/_sandbox/` (docs/sandbox.md, docs/events.md) as data, like the service's
 * endpoints (endpoints.ts): webhook endpoints, the event log with every delivery attempt, test events, redelivery and
 * live notes. The service has none of it; only a `notevox sandbox` answers. The sandbox registers its routes from
 * this table, `notevox sandbox trigger|events|live-note` call it through `callControl` (client/control.ts), and
 * docs/sandbox-control.openapi.json is generated from it and its zod schemas (control-schemas.ts). Like endpoints.ts
 * it loads no schema library.
 */

export const CONTROL_PREFIX = '/_sandbox';

export interface ControlEndpoint<Id extends string = string, Path extends string = string> {
  id: Id;
  method: HttpMethod;
  /** Path template under CONTROL_PREFIX with `{param}` placeholders. */
  path: Path;
  summary: string;
  /** Status code of success. */
  successStatus: number;
  /** Safe to repeat on failure. */
  idempotent: boolean;
}

function row<const Id extends string, const P extends string>(r: { id: Id; method: HttpMethod; path: P; summary: string; successStatus?: number }): ControlEndpoint<Id, `${typeof CONTROL_PREFIX}${P}`> {
  return {
    id: r.id,
    method: r.method,
    path: `${CONTROL_PREFIX}${r.path}`,
    summary: r.summary,
    successStatus: r.successStatus ?? (r.method === 'DELETE' ? 204 : r.method === 'POST' ? 201 : 200),
    idempotent: r.method === 'GET' || r.method === 'DELETE',
  };
}

export const CONTROL_ENDPOINTS = [
  row({ id: 'control.webhookEndpoints.list', method: 'GET', path: '/webhook-endpoints', summary: 'The webhook endpoints the sandbox delivers events to (never a secret)' }),
  row({
    id: 'control.webhookEndpoints.create',
    method: 'POST',
    path: '/webhook-endpoints',
    summary: 'Register a webhook endpoint; a generated secret is answered this once (a given one never)',
  }),
  row({ id: 'control.webhookEndpoints.delete', method: 'DELETE', path: '/webhook-endpoints/{id}', summary: 'Remove a webhook endpoint; its pending deliveries are cancelled' }),
  row({
    id: 'control.events.list',
    method: 'GET',
    path: '/events',
    summary: 'The event log, oldest first, with every delivery attempt: after `since` (an event id, or at or after an ISO instant), `limit` at a time; or the newest `tail`',
  }),
  row({ id: 'control.events.get', method: 'GET', path: '/events/{id}', summary: 'One event of the log with its deliveries' }),
  row({ id: 'control.events.trigger', method: 'POST', path: '/events', summary: 'Fire a test event of any type, for the named resource or the newest one of its kind' }),
  row({
    id: 'control.events.redeliver',
    method: 'POST',
    path: '/events/{id}/redeliver',
    summary: 'Deliver an event again, to every endpoint that receives it or to the one named',
    successStatus: 202,
  }),
  row({ id: 'control.liveNotes.create', method: 'POST', path: '/live-notes', summary: 'Start a live note: its paragraphs appear over time, then it ends (note.ended)' }),
  row({ id: 'control.openapi', method: 'GET', path: '/openapi.json', summary: 'This document' }),
] as const;

export type AnyControlEndpoint = (typeof CONTROL_ENDPOINTS)[number];
export type ControlId = AnyControlEndpoint['id'];
export type ControlEndpointOf<Id extends ControlId> = Extract<AnyControlEndpoint, { id: Id }>;

const BY_ID = new Map<string, AnyControlEndpoint>(CONTROL_ENDPOINTS.map((e) => [e.id, e]));

export function controlEndpoint<Id extends ControlId>(id: Id): ControlEndpointOf<Id> {
  const ep = BY_ID.get(id);
  if (!ep) throw new Error(`unknown control endpoint id ${id}`);
  return ep as ControlEndpointOf<Id>;
}
