import * as z from 'zod';
import { ENDPOINTS_WITH_SCHEMAS, type EndpointWithSchemas } from '../../contract/endpoint-schemas.js';
import { API_PREFIX, LIMITS } from '../../contract/limits.js';
import * as s from '../../contract/schemas.js';

/**
 * The MCP tools of the API, made from the contract (endpoint table and zod schemas), not written by hand.
 *
 * Grouping (docs/mcp.md, measured by test/bench/mcp.bench.ts): one tool per endpoint made `tools/list` ~106 kB
 * (98 tools, most of it the same response shapes again and again). Endpoints of one resource with the same method
 * and the very same schemas (query, body, response) differ only in where they point (the five word-memory scopes,
 * bulk and single paths, the template lists, the note lists of a key, a workspace, an organization): they become one
 * tool whose `endpoint` argument picks the row, defaulting to the first. Older paths (aliases) and rows that say the
 * same as an earlier one of their group (same summary) are left out: the agent has one way to do each thing.
 */

type Json = Record<string, unknown>;

export interface ApiTool {
  kind: 'api';
  name: string;
  description: string;
  /** The endpoints the tool can call, the default first. */
  endpoints: EndpointWithSchemas[];
  inputSchema: Json;
  outputSchema?: Json;
  annotations: Annotations;
}

export interface Annotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** The page size a list tool asks for when the agent names none: a page an agent can read, with a cursor for more. */
export const TOOL_PAGE_SIZE = 20;

/** What a tool may do: reads need no flag; writes need --allow-writes; destructive writes also --allow-destructive. */
export type Risk = 'read' | 'write' | 'destructive';

export const riskOf = (a: Annotations): Risk => (a.readOnlyHint ? 'read' : a.destructiveHint ? 'destructive' : 'write');

/**
 * An endpoint only reads when it is a GET or, for the POST searches, when its scope is a read scope (decisions.md:
 * search is a read). Deletes are destructive; so is PUT share-link, which replaces the link a note had.
 */
function annotationsOf(ep: EndpointWithSchemas): Annotations {
  const readOnly = ep.method === 'GET' || (ep.scope?.endsWith(':read') ?? false);
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && (ep.method === 'DELETE' || ep.method === 'PUT' && ep.id.startsWith('notes.shareLink')),
    idempotentHint: readOnly || ep.idempotent,
    // The tools act on this one service's own data (notes, folders, …), not on an open world of outside entities.
    openWorldHint: false,
  };
}

/** Path parameter constraints (decisions.md §1.7), as the OpenAPI document states them. */
const PATH_PARAM_FORMATS: Record<string, Json> = {
  noteGuid: { pattern: LIMITS.noteGuidPattern.source },
  workspaceGuid: { pattern: LIMITS.workspaceGuidPattern.source },
  folderId: { pattern: LIMITS.folderIdPattern.source },
  jobId: { pattern: LIMITS.uuidPattern.source.replace('/i', '') },
  locale: { pattern: LIMITS.localePattern.source },
};

/** Timestamps are date-times, text limits are code points (as in the OpenAPI document); safe-integer bounds go. */
function tidy(ctx: { zodSchema: unknown; jsonSchema: Json }): void {
  const json = ctx.jsonSchema;
  if (ctx.zodSchema === s.timestamp) {
    json.format = 'date-time';
    delete json.description;
  }
  const limits = s.CHAR_LIMITS.get(ctx.zodSchema as z.ZodType);
  if (limits) Object.assign(json, { minLength: limits.min, maxLength: limits.max });
  if (json.type === 'integer') {
    if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
    if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
  }
}

/**
 * zod's JSON Schema of a request (`input`) or response (`output`) schema. Responses are read tolerantly
 * (decisions.md: clients read what is there), so they do not forbid fields a newer service may add.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const cache = io === 'input' ? INPUT : OUTPUT;
  const known = cache.get(schema);
  if (known) return known;
  const made = convert(schema, io);
  cache.set(schema, made);
  return made;
}

/** Converted once per schema object: grouping and the tools' own schemas ask for the same ones again. */
const INPUT = new WeakMap<z.ZodType, Json>();
const OUTPUT = new WeakMap<z.ZodType, Json>();

function convert(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { io, target: 'draft-2020-12', override: tidy, unrepresentable: 'any' }) as Json;
  delete json.$schema;
  return compact(json, io === 'output');
}

/**
 * Smaller, same meaning: `anyOf: [X, {type: null}]` (zod's nullable) becomes X with `null` among its types. With
 * `loose` (answers), objects neither forbid other fields nor require any: answers are read tolerantly (decisions.md,
 * contract/api.ts Tolerant), a newer service may add fields and an older one leave some out.
 */
function compact<T>(value: T, loose: boolean): T {
  if (Array.isArray(value)) return value.map((v) => compact(v, loose)) as T;
  if (value === null || typeof value !== 'object') return value;
  let out: Json = {};
  for (const [k, v] of Object.entries(value)) if (!(loose && ((k === 'additionalProperties' && v === false) || k === 'required'))) out[k] = compact(v, loose);
  const any = out.anyOf as Json[] | undefined;
  if (Array.isArray(any) && any.length === 2 && Object.keys(out).length === 1) {
    const nul = any.findIndex((b) => b.type === 'null' && Object.keys(b).length === 1);
    const other = any[1 - nul];
    if (nul >= 0 && other && typeof other.type === 'string' && other.enum === undefined && other.const === undefined) out = { ...other, type: [other.type, 'null'] };
  }
  return out as T;
}

/** The body, unwrapped from `.nullish()`, and whether it may be left out. */
function bodyOf(body: z.ZodType): { schema: z.ZodType; required: boolean } {
  const required = !body.safeParse(undefined).success;
  let inner: z.ZodType = body;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
  return { schema: inner, required };
}

/** Tool names: `notes.shareLink.get` → `notes_shareLink_get` (the characters every MCP client accepts). */
export const toolName = (id: string) => id.replace(/[^A-Za-z0-9_-]/g, '_');

/** Endpoints that are one tool: same resource and method, and the same schemas (as JSON Schema: zod makes a new object per use). */
function groupKey(ep: EndpointWithSchemas): string {
  const json = (x: z.ZodType | undefined, io: 'input' | 'output') => (x === undefined ? '-' : JSON.stringify(jsonSchema(x, io)));
  return [ep.id.split('.')[0], ep.method, json(ep.query, 'input'), json(ep.body, 'input'), json(ep.response, 'output'), ep.page?.param ?? '-'].join('|');
}

/** `list` from `listTeam`, `listWorkspace`: the words members share; else the first member's own name. */
function groupName(members: EndpointWithSchemas[]): string {
  const first = members[0]!.id.split('.');
  if (members.length === 1) return toolName(members[0]!.id);
  const verbs = members.map((m) => m.id.split('.').at(-1)!);
  let common = verbs[0]!;
  for (const v of verbs) while (!v.startsWith(common)) common = common.slice(0, -1);
  const verb = /^[a-z]+/.exec(common)?.[0] || verbs[0]!;
  return toolName(`${first[0]}.${verb}`);
}

/**
 * What the model reads of a tool besides its schemas. Said once: a grouped tool's endpoints and their paths are in
 * its `endpoint` argument (inputSchemaOf), the page size in its size argument. Annotations go to the client, not
 * always to the model, so a change is said in words too; which flag allows it is not (a listed tool is allowed).
 */
function describe(members: EndpointWithSchemas[], a: Annotations): string {
  const ep = members[0]!;
  const lines = [ep.summary.replace(/ \(deprecated\)$/, '') + '.'];
  if (members.length === 1) lines.push(`${ep.method} ${ep.path.replace(API_PREFIX, '')}${ep.deprecated ? ' (deprecated by the service)' : ''}.`);
  const scopes = [...new Set(members.map((m) => m.scope).filter(Boolean))];
  if (scopes.length) lines.push(`Needs scope ${scopes.join(' or ')}.`);
  if (ep.page) lines.push("Paged: pass the answer's nextCursor as cursor for the next page.");
  if (!a.readOnlyHint) lines.push(a.destructiveHint ? 'Deletes or replaces data.' : 'Changes data.');
  return lines.join(' ');
}

function inputSchemaOf(members: EndpointWithSchemas[]): Json {
  const properties: Record<string, Json> = {};
  const required: string[] = [];
  if (members.length > 1) {
    // The members share their method (groupKey): said once, then each endpoint with its path.
    const paths = members.map((m) => `${m.id} ${m.path.replace(API_PREFIX, '')}${m.deprecated ? ' (deprecated)' : ''}`).join('; ');
    properties.endpoint = { type: 'string', enum: members.map((m) => m.id), default: members[0]!.id, description: `which ${members[0]!.method} to call: ${paths}` };
  }
  const pathParams = new Map<string, { schema: Json; in: string[] }>();
  for (const m of members) {
    const json = jsonSchema(m.params, 'output');
    for (const [name, schema] of Object.entries((json.properties ?? {}) as Record<string, Json>)) {
      const known = pathParams.get(name) ?? { schema: { ...schema, ...PATH_PARAM_FORMATS[name] }, in: [] };
      known.in.push(m.id);
      pathParams.set(name, known);
    }
  }
  for (const [name, p] of pathParams) {
    const everywhere = p.in.length === members.length;
    properties[name] = everywhere ? p.schema : { ...p.schema, description: `needed by ${p.in.join(', ')}` };
    if (everywhere) required.push(name);
  }
  const ep = members[0]!;
  if (ep.query) {
    const q = jsonSchema(ep.query, 'input');
    const qRequired = new Set((q.required ?? []) as string[]);
    for (const [name, schema] of Object.entries((q.properties ?? {}) as Record<string, Json>)) {
      if (name === 'updateMask' && ep.updateMask) {
        properties[name] = { ...schema, description: `comma-separated fields to change (${ep.updateMask.join(', ')}); default: the body's fields` };
        continue;
      }
      properties[name] = ep.page?.param === name ? { ...schema, description: `page size (default ${TOOL_PAGE_SIZE} here)` } : schema;
      if (qRequired.has(name)) required.push(name);
    }
  }
  if (ep.body) {
    const b = bodyOf(ep.body);
    properties.body = jsonSchema(b.schema, 'input');
    if (b.required) required.push('body');
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** Every API tool of the contract. */
export function apiTools(endpoints: readonly EndpointWithSchemas[] = ENDPOINTS_WITH_SCHEMAS): ApiTool[] {
  const groups = new Map<string, EndpointWithSchemas[]>();
  for (const ep of endpoints) {
    if (ep.aliasOf || ep.rawBody) continue;
    const key = groupKey(ep);
    const members = groups.get(key) ?? [];
    if (members.some((m) => m.summary === ep.summary)) continue;
    members.push(ep);
    groups.set(key, members);
  }
  const tools: ApiTool[] = [];
  const names = new Set<string>();
  for (const members of groups.values()) {
    // A group's default is a current endpoint, not a deprecated one.
    members.sort((a, b) => Number(Boolean(a.deprecated)) - Number(Boolean(b.deprecated)));
    const a = annotationsOf(members[0]!);
    let name = groupName(members);
    if (names.has(name)) name = toolName(members[0]!.id);
    if (names.has(name)) throw new Error(`mcp: two tools are named ${name}`);
    names.add(name);
    const ep = members[0]!;
    tools.push({
      kind: 'api',
      name,
      description: describe(members, a),
      endpoints: members,
      inputSchema: inputSchemaOf(members),
      ...(ep.response ? { outputSchema: jsonSchema(ep.response, 'output') } : {}),
      annotations: a,
    });
  }
  return tools;
}
