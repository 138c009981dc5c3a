import type { Scope } from './scopes.js';
import type { PageSpec } from './limits.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export const KEY_TYPES = ['USER', 'WORKSPACE', 'ORGANIZATION', 'LEGACY_PERSONAL'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/** One row of the API: what the client, the sandbox and the docs need to know about it (its zod schemas: endpoint-schemas.ts). */
export interface Endpoint<Id extends string = string, Path extends string = string> {
  /** Stable identifier, e.g. `notes.get`. */
  id: Id;
  method: HttpMethod;
  /** Path template with `{param}` placeholders, e.g. `/v1/external/notes/{noteGuid}`. */
  path: Path;
  summary: string;
  /** Scope required; null when any key may call it (or, with `auth: false`, no key at all). */
  scope: Scope | null;
  /** Whether a key is needed at all (false only for `api-key-scopes`). */
  auth: boolean;
  /** Key types that may call it; others get 403002 (or 403003 for user roles, decided by the handler). */
  keyTypes: readonly KeyType[];
  /** Safe to repeat on failure (GET/PUT/DELETE are; some POSTs too). */
  idempotent: boolean;
  /** Status code of success. */
  successStatus: number;
  /** Paged list: which parameter carries the page size. Unpaged lists leave this out. */
  page?: PageSpec;
  deprecated?: boolean;
  /**
   * Field-mask endpoints: the fields `updateMask` may name. A mask that is missing, empty or names
   * another field is 400001; a named field missing or null in the body is 400002 (decisions.md §1.3).
   */
  updateMask?: readonly string[];
  /** Request body is raw bytes (the signed upload URL). */
  rawBody?: boolean;
  /**
   * Id of the endpoint this one is an older path of: the same answer, served by that endpoint's handler
   * (decisions.md §2.2: `auth/workspaces…` for `workspaces…`). Clients call the other one.
   */
  aliasOf?: string;
}

export type PathParams = Record<string, string | number>;

/** The `{name}` placeholders of a path template, as a union of names. */
export type ParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamNames<Rest> : never;

/** The path parameters a path template needs: `'/notes/{noteGuid}'` → `{ noteGuid: string | number }`. */
export type PathParamsOf<P extends string> = { [K in ParamNames<P>]: string | number };
