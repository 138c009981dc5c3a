import type { CanonicalEndpointId } from '../contract/endpoints.js';
import type { Endpoint, KeyType } from '../contract/types.js';
import type { Db } from './db.js';
import type { NoteRow } from './access.js';
import type { Emit } from './events/bus.js';

/** Who is calling: the authenticated key and the user behind it, if any. */
export interface Principal {
  keyId: string;
  keyType: KeyType;
  scopes: string[];
  /** The user of a user or legacy personal key; null for system keys. */
  userId: number | null;
  /** The bound workspace (workspace keys always; user keys when created for one). */
  workspaceGuid: string | null;
  organizationId: string;
  orgAdmin: boolean;
  /** Workspace keys created before the note read scope keep seeing every note of their workspace. */
  legacyScope: boolean;
  voicePermission: boolean;
  createdAt: string;
  expiresAt: string | null;
}

export interface Clock {
  now(): Date;
}

/** Settings of a running sandbox that handlers may need. */
export interface SandboxRuntime {
  db: Db;
  clock: Clock;
  /** Base URL the sandbox is reachable at (for signed upload URLs and web URLs). */
  baseUrl(): string;
  /** Secret used to sign upload URLs. */
  signingKey: Buffer;
  /** Directory where uploaded audio is stored. */
  uploadDir: string;
  /** Work scheduled by handlers (voice worker), cancelled on shutdown. */
  schedule(fn: () => void | Promise<void>, delayMs: number): void;
  /** Options handed through from the command line for feature handlers (e.g. jobSeconds, transcriberCommand). */
  options: Record<string, unknown>;
  /**
   * Record an event where state changes (decisions.md §6.1): handlers call only this, after the change, inside its
   * transaction when there is one. Delivery happens later, off the request path.
   */
  emit: Emit;
}

export interface HandlerContext {
  endpoint: Endpoint;
  principal: Principal;
  params: Record<string, any>;
  query: Record<string, any>;
  body: any;
  rt: SandboxRuntime;
  req: Request;
  /** For note sub-resources: the note, already checked to be visible to the caller. */
  note?: NoteRow;
  /** Fault injection asked for a degraded answer (deep search). */
  degraded: boolean;
}

export interface HandlerResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * What the handler of an endpoint answers: a body (sent with the endpoint's success status; the app checks it against
 * the response schema in tests), or `reply(...)` for another status, headers or body. `Id` names the endpoint; the
 * answer is not typed by ResponseOf<Id> yet, because the row serializers (serialize.ts) return wider types than the
 * schemas (string for enums, records for folders).
 */
export type Answer<_Id extends CanonicalEndpointId> = unknown;
export type Handler<Id extends CanonicalEndpointId = CanonicalEndpointId> = (ctx: HandlerContext) => Answer<Id> | Promise<Answer<Id>>;
/** A handler for every endpoint of the contract (aliases are served by the handler of the endpoint they stand for). */
export type Handlers = { [Id in CanonicalEndpointId]: Handler<Id> };

/** Handlers return either a plain body (sent with the endpoint's success status) or `reply(...)`. */
export const REPLY = Symbol('reply');
export function reply(r: HandlerResult): HandlerResult & { [REPLY]: true } {
  return { ...r, [REPLY]: true };
}
export function isReply(v: unknown): v is HandlerResult {
  return typeof v === 'object' && v !== null && REPLY in v;
}

/** Some endpoints' handlers (one group of them, or a test's). */
export type HandlerMap = Partial<Handlers>;
