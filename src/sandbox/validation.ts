import * as z from 'zod';
import { CONTROL_WITH_SCHEMAS, type ControlEndpointWithSchemas } from '../contract/control-schemas.js';
import { schemasOf, type EndpointWithSchemas } from '../contract/endpoint-schemas.js';
import { FAST_BODIES, FAST_TEXTS } from './fast-body.js';
import { formatPath } from './seed/schema.js';

/**
 * What the sandbox validates with zod: the request schemas of the contract's endpoints and of the control API, and
 * the few checks of its own. Loaded on the first request that needs it, or right after the sandbox listens (validation-load.ts),
 * not at start: building the contract's schemas cost ~35 ms of every `sandbox start`.
 */
export { FAST_BODIES, FAST_TEXTS, formatPath };

/** An endpoint's schemas for its route; `plainParams`: every path parameter is a plain string (zod's parse would copy them unchanged). */
export interface RouteSchemas extends EndpointWithSchemas {
  plainParams: boolean;
}

const plain = (params: z.ZodObject) => Object.values(params.shape).every((t) => t instanceof z.ZodString && !t.def.checks?.length);

export function routeSchemas(id: string): RouteSchemas {
  const s = schemasOf(id);
  if (!s) throw new Error(`endpoint-schemas.ts has no entry for ${id}`);
  return { ...s, plainParams: plain(s.params) };
}

const CONTROL_BY_ID = new Map(CONTROL_WITH_SCHEMAS.map((ep) => [ep.id, ep]));

export function controlSchemas(id: string): ControlEndpointWithSchemas {
  const s = CONTROL_BY_ID.get(id);
  if (!s) throw new Error(`control-schemas.ts has no entry for ${id}`);
  return s;
}

const isoInstant = z.iso.datetime({ offset: true });

/** An ISO 8601 timestamp with an offset or Z (the wiki's `since`). */
export const isIsoDateTime = (value: unknown) => isoInstant.safeParse(value).success;
