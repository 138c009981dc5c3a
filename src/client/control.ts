import { controlEndpoint, type ControlId } from '../contract/control.js';
import type { ControlBodyOf, ControlPathOf, ControlQueryOf, ControlResponseOf } from '../contract/control-schemas.js';
import type { ApiClient, RequestOptions } from './client.js';

/**
 * Typed calls of a sandbox's control API (contract/control.ts): the path, query and body a call takes and the answer
 * it gets are the types of the endpoint's zod schemas (control-schemas.ts, imported for its types only, so that zod
 * is not loaded). The answer is read as the schema says; `--debug` traces it like any other request.
 */

type Empty = Record<never, never>;
type Optional<T> = undefined extends T ? true : Empty extends T ? true : false;

export type ControlRequest<Id extends ControlId> = RequestOptions &
  ([keyof ControlPathOf<Id>] extends [never] ? { path?: undefined } : { path: ControlPathOf<Id> }) &
  (Optional<ControlQueryOf<Id>> extends true ? { query?: ControlQueryOf<Id> } : { query: ControlQueryOf<Id> }) &
  (Optional<ControlBodyOf<Id>> extends true ? { body?: ControlBodyOf<Id> } : { body: ControlBodyOf<Id> });

export type ControlArgs<Id extends ControlId> = Empty extends ControlRequest<Id> ? [req?: ControlRequest<Id>] : [req: ControlRequest<Id>];

/** Call control endpoint `id` of the sandbox the client points at. */
export async function callControl<Id extends ControlId>(client: ApiClient, id: Id, ...[req]: ControlArgs<Id>): Promise<ControlResponseOf<Id>> {
  const ep = controlEndpoint(id);
  const r = (req ?? {}) as { path?: Record<string, string>; query?: Record<string, string | undefined>; body?: unknown } & RequestOptions;
  const path = ep.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = r.path?.[name];
    if (v === undefined || v === '') throw new Error(`missing path parameter ${name} for ${id}`);
    return encodeURIComponent(v);
  });
  const res = await client.request(ep.method, path, { query: r.query, body: r.body, headers: r.headers, signal: r.signal });
  return (ep.successStatus === 204 ? null : res.data) as ControlResponseOf<Id>;
}
