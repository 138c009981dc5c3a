import type { z } from 'zod';
import type { ENTRIES } from './endpoint-schemas.js';
import type * as schemas from './schemas.js';
import type { AnyEndpoint, EndpointId, EndpointOf, TargetOf } from './endpoints.js';
import type { ParamNames, PathParamsOf } from './types.js';

/**
 * The request and response types of every endpoint, inferred from its zod schemas (endpoint-schemas.ts): nothing
 * here is written by hand, so a type cannot drift from the schema the sandbox validates with. Types only: importing
 * this module loads neither zod nor the schemas.
 */

type Entries = typeof ENTRIES;
type Schema<Id extends EndpointId, K extends string> = Entries[TargetOf<Id>] extends { [P in K]: infer S extends z.ZodType } ? S : undefined;

/** The parsed answer of an endpoint (null for those that answer 204). */
export type ResponseOf<Id extends EndpointId> = Schema<Id, 'response'> extends infer S extends z.ZodType ? z.output<S> : null;
/** The body an endpoint takes (what the schema accepts). */
export type BodyOf<Id extends EndpointId> = Schema<Id, 'body'> extends infer S extends z.ZodType ? z.input<S> : undefined;
/** The query an endpoint takes. */
export type QueryOf<Id extends EndpointId> = Schema<Id, 'query'> extends infer S extends z.ZodType ? z.input<S> : undefined;
/** The path parameters of an endpoint, read off its path template. */
export type PathOf<Id extends EndpointId> = PathParamsOf<EndpointOf<Id>['path']>;
/**
 * The query and body a handler sees: after the schema's coercions and defaults. An endpoint without a query schema
 * declares no query field, so its handler reads none.
 */
export type ParsedQueryOf<Id extends EndpointId> = Schema<Id, 'query'> extends infer S extends z.ZodType ? z.output<S> : Record<never, never>;
export type ParsedBodyOf<Id extends EndpointId> = Schema<Id, 'body'> extends infer S extends z.ZodType ? z.output<S> : undefined;
/** The path parameter names of every endpoint, read off the path templates once (not per use, as PathOf does). */
type ParamNamesById = { [E in AnyEndpoint as E['id']]: ParamNames<E['path']> };
/** Path parameters as a handler sees them (integer ones are numbers). */
export type ParsedPathOf<Id extends EndpointId> = { [K in ParamNamesById[Id]]: K extends 'documentId' | 'summaryId' | 'templateId' | 'id' ? number : string };

/** The resource shapes of schemas.ts by name (`note`, `folder`, …): what a sandbox serializer returns. */
export type ShapeName = { [K in keyof typeof schemas]: (typeof schemas)[K] extends z.ZodType ? K : never }[keyof typeof schemas];
export type Shape<Name extends ShapeName> = z.output<(typeof schemas)[Name]>;

/**
 * A shape read tolerantly (decisions.md: clients read what is there): every field, at every depth, may be missing.
 * For fields an older or other service version may leave out; the schema says what a current one sends.
 */
export type Tolerant<T> = T extends Array<infer U> ? Array<Tolerant<U>> : T extends object ? { [K in keyof T]?: Tolerant<T[K]> } : T;

/** Endpoints that answer a `{content: [...]}` list, which `paginate` follows. */
export type ListEndpointId = { [Id in EndpointId]: ResponseOf<Id> extends { content: unknown[] } ? Id : never }[EndpointId];
/** One item of a list endpoint's `content`. */
export type ItemOf<Id extends ListEndpointId> = ResponseOf<Id> extends { content: Array<infer T> } ? T : never;
