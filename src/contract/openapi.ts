import { STATUS_CODES } from 'node:http';
import * as z from 'zod';
// The registry class by name: `z.core.…` would keep all of zod's core namespace (every locale) in the bundle.
import { $ZodRegistry, type $ZodType } from 'zod/v4/core';
import { DEFAULT_BASE_URL, DEFAULT_SANDBOX_URL } from '../config/defaults.js';
import { VERSION } from '../version.js';
import { ENDPOINTS_WITH_SCHEMAS, type EndpointWithSchemas } from './endpoint-schemas.js';
import { ERROR_CODES, errorTypeForStatus, statusOfCode } from './errors.js';
import { LIMITS } from './limits.js';
import * as s from './schemas.js';
import { SCOPES } from './scopes.js';
import { KEY_TYPES } from './types.js';

/**
 * The contract as an OpenAPI 3.1 document: a pure function of the endpoint table, its zod schemas (through zod's
 * JSON Schema output), the scopes, the error codes and the limits. `npm run docs` writes it to docs/openapi.json,
 * the sandbox serves it at `GET /openapi.json` and `notevox api spec` prints it; nothing here restates a path or a
 * shape. What OpenAPI has no field for is carried in `x-` extensions: `x-scope`, `x-key-types`, `x-idempotent`,
 * `x-page`, `x-update-mask` on operations, `x-scopes` and `x-error-codes` on the document.
 */

export type Json = { [key: string]: unknown };

const SECURITY_SCHEME = 'apiKey';
const JSON_MEDIA = 'application/json';

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * Response shapes become components named after their export in schemas.ts (`note` → `Note`,
 * `errorEnvelopeSchema` → `ErrorEnvelope`); a shape built for one endpoint (a page of notes, say) stays inline.
 */
const COMPONENT_NAMES = new Map<unknown, string>(
  Object.entries(s)
    .filter(([, value]) => value instanceof z.ZodObject)
    .map(([name, value]) => [value, pascal(name.replace(/Schema$/, ''))]),
);

/** zod's metadata (descriptions) plus the component name of a named shape, which zod extracts into `$defs`. */
class NamedShapes extends $ZodRegistry<Record<string, unknown>> {
  constructor(readonly names: ReadonlyMap<unknown, string>) {
    super();
  }
  override get<S extends $ZodType>(schema: S): Record<string, unknown> | undefined {
    const meta = z.globalRegistry.get(schema);
    const id = this.names.get(schema);
    return id ? { ...meta, id } : meta;
  }
}
const NAMED = new NamedShapes(COMPONENT_NAMES);

/** Tidy zod's output: timestamps are date-times; integers lose zod's safe-integer bounds. */
function tidy(ctx: { zodSchema: unknown; jsonSchema: Json }): void {
  const json = ctx.jsonSchema;
  if (ctx.zodSchema === s.timestamp) json.format = 'date-time';
  const limits = s.CHAR_LIMITS.get(ctx.zodSchema as z.ZodType);
  if (limits) Object.assign(json, { minLength: limits.min, maxLength: limits.max });
  if (json.type === 'integer') {
    if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
    if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  }
}

const COMPONENT_REF = '#/components/schemas/';

/** `#/$defs/X` (zod's) → `#/components/schemas/X`, everywhere in a value. */
function relink<T>(value: T): T {
  if (Array.isArray(value)) return value.map(relink) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, COMPONENT_REF) : relink(v);
  return out as T;
}

/** Collects the named shapes the operations use. */
export class Components {
  readonly schemas: Record<string, Json> = {};
  private readonly named: NamedShapes;

  /** `more`: shapes of another document to name as components too (the control API's). */
  constructor(more?: ReadonlyMap<unknown, string>) {
    this.named = more ? new NamedShapes(new Map([...COMPONENT_NAMES, ...more])) : NAMED;
  }

  /** A request (`input`) or response (`output`) schema; responses reference named shapes. */
  schema(schema: z.ZodType, io: 'input' | 'output'): Json {
    const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', metadata: io === 'output' ? this.named : undefined, override: tidy }) as Json;
    const { $schema: _dialect, $defs, ...rest } = json;
    for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, Json>)) {
      if (![...this.named.names.values()].includes(name)) throw new Error(`openapi: zod made an unnamed definition ${name}`);
      const linked = relink(def);
      const known = this.schemas[name];
      if (known && JSON.stringify(known) !== JSON.stringify(linked)) throw new Error(`openapi: two different shapes are named ${name}`);
      this.schemas[name] = linked;
    }
    return relink(rest);
  }

  ref(schema: z.ZodType): Json {
    const out = this.schema(schema, 'output');
    if (typeof out.$ref !== 'string') throw new Error('openapi: expected a named shape');
    return out;
  }
}

/** Constraints of path parameters (decisions.md §1.7); their types come from the endpoint's path schema. */
const PATH_PARAM_FORMATS: Record<string, Json> = {
  noteGuid: { pattern: LIMITS.noteGuidPattern.source },
  workspaceGuid: { pattern: LIMITS.workspaceGuidPattern.source },
  folderId: { pattern: LIMITS.folderIdPattern.source },
  jobId: { format: 'uuid' },
  locale: { pattern: LIMITS.localePattern.source },
};

const objectProperties = (json: Json) => ({
  properties: (json.properties ?? {}) as Record<string, Json>,
  required: new Set((json.required ?? []) as string[]),
});

function parameters(ep: EndpointWithSchemas, c: Components): Json[] {
  const out: Json[] = [];
  const path = objectProperties(c.schema(ep.params, 'output'));
  for (const [name, schema] of Object.entries(path.properties)) out.push({ name, in: 'path', required: true, schema: { ...schema, ...PATH_PARAM_FORMATS[name] } });
  if (ep.query) {
    const query = objectProperties(c.schema(ep.query, 'input'));
    for (const [name, schema] of Object.entries(query.properties)) {
      const p: Json = { name, in: 'query', required: query.required.has(name), schema };
      if (ep.page?.param === name) p.schema = { ...schema, default: ep.page.default };
      if (name === 'updateMask' && ep.updateMask) {
        // Optional in the zod schema only so that a missing mask is 400001 rather than a schema violation.
        p.required = true;
        p.description = `Comma-separated fields to change: ${ep.updateMask.join(', ')}`;
      }
      out.push(p);
    }
  }
  return out;
}

/** The body, unwrapped from `.nullish()`: a body that may be left out is not required. */
export function requestBody(body: z.ZodType, c: Components): Json {
  const required = !body.safeParse(undefined).success;
  let inner: z.ZodType = body;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
  return { required, content: { [JSON_MEDIA]: { schema: c.schema(inner, 'input') } } };
}

// ---- errors: one envelope, a response per status that the contract's codes use ----

const CODES_BY_STATUS = new Map<number, Array<{ code: number; name: string }>>();
for (const [name, code] of Object.entries(ERROR_CODES)) {
  const status = statusOfCode(code);
  CODES_BY_STATUS.set(status, [...(CODES_BY_STATUS.get(status) ?? []), { code, name }]);
}

export const responseName = (status: number) => errorTypeForStatus(status).split('_').map(pascal).join('');

const ERROR_NOTES: Record<number, string> = {
  401: 'Clients also accept the older body of decisions.md §1.4, components.schemas.LegacyAuthError.',
  413: `A JSON body over ${LIMITS.jsonBodyMaxBytes} bytes.`,
  429: `Over ${LIMITS.rateLimit.requests} requests in ${LIMITS.rateLimit.windowSeconds} s by one key; Retry-After says when to try again.`,
};

export function errorResponses(c: Components): Record<string, Json> {
  const envelope = { [JSON_MEDIA]: { schema: c.ref(s.errorEnvelopeSchema) } };
  const out: Record<string, Json> = {};
  for (const [status, codes] of [...CODES_BY_STATUS].sort(([a], [b]) => a - b)) {
    if (status >= 500) continue;
    const note = ERROR_NOTES[status] ? ` ${ERROR_NOTES[status]}` : '';
    out[responseName(status)] = {
      description: `${STATUS_CODES[status]}, errorType ${errorTypeForStatus(status)}: code ${codes.map((x) => x.code).join(', ')}.${note}`,
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } } : {}),
      content: envelope,
      'x-error-codes': codes,
    };
  }
  out.Error = {
    description: 'Any error answers the same envelope; `error.code` is six digits whose first three are the HTTP status.',
    content: envelope,
    'x-error-codes': [...CODES_BY_STATUS.values()].flat(),
  };
  c.ref(s.legacyAuthErrorSchema);
  return out;
}

/** The error statuses an endpoint's contract makes possible; the `default` answer covers the others (406, 409, 422, 5xx). */
function errorStatuses(ep: EndpointWithSchemas): number[] {
  const hasPathParams = Object.keys(ep.params.shape).length > 0;
  const restricted = ep.scope !== null || ep.keyTypes.length < KEY_TYPES.length;
  const out: number[] = [];
  if (ep.body || ep.query || hasPathParams) out.push(400);
  if (ep.auth) out.push(401);
  if (ep.auth && restricted) out.push(403);
  if (hasPathParams) out.push(404);
  if (ep.body) out.push(413);
  if (ep.auth) out.push(429);
  return out;
}

function operation(ep: EndpointWithSchemas, c: Components): Json {
  const op: Json = { operationId: ep.id, summary: ep.summary, tags: [ep.id.split('.')[0]] };
  const params = parameters(ep, c);
  if (params.length) op.parameters = params;
  if (ep.body) op.requestBody = requestBody(ep.body, c);
  const success: Json = { description: STATUS_CODES[ep.successStatus] ?? 'Success' };
  if (ep.response) success.content = { [JSON_MEDIA]: { schema: c.schema(ep.response, 'output') } };
  else if (ep.successStatus !== 204) throw new Error(`openapi: ${ep.id} answers ${ep.successStatus} without a response schema`);
  const responses: Json = { [ep.successStatus]: success };
  for (const status of errorStatuses(ep)) responses[status] = { $ref: `#/components/responses/${responseName(status)}` };
  responses.default = { $ref: '#/components/responses/Error' };
  op.responses = responses;
  if (ep.deprecated) op.deprecated = true;
  // An older path of another endpoint (decisions.md §2.2): the same answer; clients call the other one.
  if (ep.aliasOf) {
    op.description = `The same answer as \`${ep.aliasOf}\`, kept for clients written against an earlier reading of the interface; call that one.`;
    op['x-alias-of'] = ep.aliasOf;
  }
  // Scopes are not OAuth scopes: OpenAPI 3.1 lets a bearer requirement list them as the roles it needs.
  op.security = ep.auth ? [{ [SECURITY_SCHEME]: ep.scope ? [ep.scope] : [] }] : [];
  op['x-scope'] = ep.scope;
  if (ep.auth) op['x-key-types'] = [...ep.keyTypes];
  op['x-idempotent'] = ep.idempotent;
  if (ep.page) op['x-page'] = { ...ep.page };
  if (ep.updateMask) op['x-update-mask'] = [...ep.updateMask];
  return op;
}

export interface OpenApiDocument extends Json {
  openapi: string;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; responses: Record<string, Json>; securitySchemes: Record<string, Json> };
}

/** Build the document from the contract (a fresh object each call). */
export function buildOpenApi(): OpenApiDocument {
  const c = new Components();
  const paths: Record<string, Record<string, Json>> = {};
  const tags: string[] = [];
  for (const ep of ENDPOINTS_WITH_SCHEMAS) {
    (paths[ep.path] ??= {})[ep.method.toLowerCase()] = operation(ep, c);
    const tag = ep.id.split('.')[0];
    if (!tags.includes(tag)) tags.push(tag);
  }
  const responses = errorResponses(c);
  return {
    openapi: '3.1.1',
    info: {
      title: 'Note and Voice File Service',
      version: VERSION,
      summary: 'Notes, folders, templates, word memories, wiki, workspaces and voice file jobs',
      description:
        'Generated from the contract in src/contract by `npm run docs` (do not edit by hand). Every success and error is JSON; ' +
        'errors use the envelope of components.schemas.ErrorEnvelope. A scope of `x-scope` is needed unless the key has no scopes ' +
        '(then it may call everything); a `write` scope includes the `read` of its resource. `x-key-types` are the key types that may call an operation (others get 403002).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: DEFAULT_BASE_URL, description: 'The service' },
      { url: DEFAULT_SANDBOX_URL, description: 'A local sandbox: notevox sandbox start' },
    ],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(c.schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses,
      securitySchemes: {
        [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: '{id}.{secret}', description: 'An API key: `Authorization: Bearer {id}.{secret}`' },
      },
    },
    'x-scopes': SCOPES.map((x) => ({ ...x })),
  };
}

let text: string | undefined;

/** The document as the JSON text of docs/openapi.json, built once. */
export function openApiText(): string {
  return (text ??= JSON.stringify(buildOpenApi(), null, 2) + '\n');
}
