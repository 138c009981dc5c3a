import type { ParsedBodyOf, ParsedPathOf, ParsedQueryOf, ResponseOf } from '../contract/api.js';
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

/**
 * What the handler of endpoint `Id` is given, typed from the endpoint's request schemas (api.ts): `params` as the path
 * template names them (integer ones are numbers), `query` and `body` as the schemas parse them. A field the endpoint
 * does not declare does not type-check. For a union of ids (a helper shared by several endpoints) it is the union of
 * their contexts, so only what they all have can be read without narrowing.
 */
export type HandlerContext<Id extends CanonicalEndpointId = CanonicalEndpointId> = Id extends CanonicalEndpointId ? ContextOf<Id> : never;

interface ContextOf<Id extends CanonicalEndpointId> {
  endpoint: Endpoint;
  principal: Principal;
  params: ParsedPathOf<Id>;
  query: ParsedQueryOf<Id>;
  body: ParsedBodyOf<Id>;
  rt: SandboxRuntime;
  req: Request;
  /** For note sub-resources (a `{noteGuid}` path): the note, already checked to be visible to the caller. */
  note: 'noteGuid' extends keyof ParsedPathOf<Id> ? NoteRow : undefined;
  /** Fault injection asked for a degraded answer (deep search). */
  degraded: boolean;
}

export interface HandlerResult {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The body of endpoint `Id`'s success answer: its response schema's type, or nothing for one without (a 204). */
export type SuccessBody<Id extends CanonicalEndpointId> = [ResponseOf<Id>] extends [null] ? undefined : ResponseOf<Id>;

/** `reply(...)`: another status or headers, with the endpoint's own body or none (a 202, a redirect). */
export interface Reply<B> extends HandlerResult {
  readonly [REPLY]: true;
  body?: B;
}

/**
 * What the handler of an endpoint answers: its success body (sent with the endpoint's success status), or
 * `reply(...)` for another status or headers, carrying that body or none. A failure is thrown (ApiFailure, http.ts),
 * which gives it the error envelope. A handler answering another shape does not type-check.
 */
export type Answer<Id extends CanonicalEndpointId> = SuccessBody<Id> | JsonText<SuccessBody<Id>> | Reply<SuccessBody<Id>>;

/**
 * A success body already written as JSON text, sent as it is: for a large answer that a handler builds as one
 * string (a 1000-row word-memory create) rather than as objects for JSON.stringify. `B` is the body it encodes.
 * `text` may be its UTF-8 bytes: sent as they are, with no pass over the text to count its UTF-8 length for
 * Content-Length and another to encode it (a 100 kB answer's count alone was 3 % of a word-memory create's CPU).
 */
export class JsonText<B> {
  declare readonly body?: B;
  constructor(readonly text: string | Uint8Array) {}
}
export type Handler<Id extends CanonicalEndpointId = CanonicalEndpointId> = (ctx: HandlerContext<Id>) => Answer<Id> | Promise<Answer<Id>>;
/** A handler for every endpoint of the contract (aliases are served by the handler of the endpoint they stand for). */
export type Handlers = { [Id in CanonicalEndpointId]: Handler<Id> };

/** Handlers return either a plain body (sent with the endpoint's success status) or `reply(...)`. */
export const REPLY = Symbol('reply');
export function reply<B = undefined>(r: { status?: number; headers?: Record<string, string>; body?: B }): Reply<B> {
  return { ...r, [REPLY]: true };
}
export function isReply(v: unknown): v is HandlerResult {
  return typeof v === 'object' && v !== null && REPLY in v;
}

/** Some endpoints' handlers (one group of them, or a test's). */
export type HandlerMap = Partial<Handlers>;
