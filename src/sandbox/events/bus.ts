import type { EventEnvelope, EventType } from '../../contract/events.js';
import type { Db } from '../db.js';
import { randomAlnum } from '../ids.js';
import type { EVENT_ORIGINS } from '../schema.sql.js';
import type { Clock } from '../types.js';
import { matchingEndpoints } from './endpoints.js';
import { resolveResource, type EventRef } from './resources.js';

/**
 * The event bus (decisions.md §6.1): a state change becomes an event in the `events` table, built from the contract's
 * types and the resource's current state, with one pending delivery per endpoint that wants it. Everything is rows of
 * the sandbox's database, in the caller's transaction, so an event exists exactly when its change does and pending
 * deliveries persist with `--state`. Sending is the delivery worker's job, off the request path.
 */

export type EventOrigin = (typeof EVENT_ORIGINS)[number];

export interface EmittedEvent {
  seq: number;
  id: string;
  envelope: EventEnvelope;
  /** Endpoints it will be delivered to. */
  endpointIds: string[];
}

/** What handlers call where state changes: `rt.emit('note.user_content.updated', { noteGuid })`. */
export type Emit = (type: EventType, ref: EventRef, origin?: EventOrigin) => EmittedEvent;

/** Events kept in the log: older ones whose deliveries are all finished are pruned every PRUNE_EVERY events. */
export const EVENT_LOG_KEEP = 10_000;
const PRUNE_EVERY = 1000;

export const newEventId = () => `evt_${randomAlnum(26)}`;

export class EventBus {
  private wakeQueued = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Called (once per tick, after the caller's synchronous work) when new deliveries may be due. */
    private readonly onDeliveries: () => void,
  ) {}

  readonly emit: Emit = (type, ref, origin = 'api') => {
    const r = resolveResource(this.db, type, ref);
    const id = newEventId();
    const createdAt = this.clock.now().toISOString();
    const envelope: EventEnvelope = {
      id,
      type,
      createdAt,
      workspaceGuid: r.workspaceGuid,
      data: { resourceType: r.resourceType, resourceId: r.resourceId, resource: r.resource },
    };
    const endpoints = matchingEndpoints(this.db, type, r.workspaceGuid, r.organizationId);
    const seq = this.db.tx(() => {
      const { lastInsertRowid } = this.db.run(
        `INSERT INTO events (id, type, created_at, workspace_guid, organization_id, resource_type, resource_id, envelope, origin)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, type, createdAt, r.workspaceGuid, r.organizationId, r.resourceType, r.resourceId, envelope, origin],
      );
      for (const ep of endpoints) this.enqueue(lastInsertRowid, ep, createdAt);
      if (lastInsertRowid % PRUNE_EVERY === 0) this.prune(lastInsertRowid);
      return lastInsertRowid;
    });
    if (endpoints.length) this.wake();
    return { seq, id, envelope, endpointIds: endpoints.map((e) => e.id) };
  };

  /** Deliver a logged event again (same id: receivers that deduplicate drop it), to the endpoints given or those that want it now. */
  redeliver(seq: number, endpointIds?: string[]): string[] {
    const e = this.db.get<{ type: EventType; workspace_guid: string | null; organization_id: string | null }>(
      'SELECT type, workspace_guid, organization_id FROM events WHERE seq = ?',
      [seq],
    )!;
    const all = matchingEndpoints(this.db, e.type, e.workspace_guid, e.organization_id, endpointIds !== undefined);
    const endpoints = endpointIds ? all.filter((x) => endpointIds.includes(x.id)) : all;
    const now = this.clock.now().toISOString();
    this.db.tx(() => {
      for (const ep of endpoints) this.enqueue(seq, ep, now);
    });
    if (endpoints.length) this.wake();
    return endpoints.map((x) => x.id);
  }

  private enqueue(seq: number, ep: { id: string; url: string }, at: string) {
    this.db.run(`INSERT INTO webhook_deliveries (event_seq, endpoint_id, endpoint_url, status, next_attempt_at, created_at) VALUES (?, ?, ?, 'pending', ?, ?)`, [
      seq, ep.id, ep.url, at, at,
    ]);
  }

  /** Keep the log bounded: events beyond the newest EVENT_LOG_KEEP whose deliveries are all finished. */
  private prune(seq: number) {
    this.db.run(
      `DELETE FROM events WHERE seq <= ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = events.seq AND d.status = 'pending')`,
      [seq - EVENT_LOG_KEEP],
    );
  }

  /** After the caller's transaction (and the rest of its tick): a rolled-back emit leaves no row for the worker to find. */
  private wake() {
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.onDeliveries();
    });
  }
}
