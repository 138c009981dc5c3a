import type * as z from 'zod';
import { schemasOf } from '../../src/contract/endpoint-schemas.js';
import type { Endpoint } from '../../src/contract/types.js';

/**
 * The answer check as src/contract/answers.ts did it with zod until issue 11 (moved here; the zod part is zodSchemaProblem): the reference
 * that src/contract/response-check.ts, which reads docs/openapi.json instead, must agree with verdict for verdict
 * and message for message (test/unit/answers-differential.test.ts).
 */

/** zod issue codes that say "a value this CLI does not know", not "another shape". */
export const TOLERATED = new Set(['invalid_value', 'invalid_format', 'too_big', 'too_small', 'not_multiple_of', 'custom', 'unrecognized_keys']);
const SNIPPET = 60;

/** `content[0].entry` */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET ? `${flat.slice(0, SNIPPET - 1)}…` : flat;
}

/** What is wrong with `data` (the parsed body: null when empty, the text itself when not JSON), or undefined when it fits. */
export function zodAnswerProblem(ep: Endpoint, data: unknown): string | undefined {
  if (typeof data === 'string') return `the body is not JSON ("${snippet(data)}")`;
  const schema = schemasOf(ep.id)?.response;
  if (!schema) return undefined; // no documented body (a 204): nothing to check beyond JSON
  if (data === null || data === undefined) return 'the body is empty';
  return zodSchemaProblem(schema, data);
}

/** The first issue of `schema.safeParse(data)` whose code is not tolerated, as `path: message`. */
export function zodSchemaProblem(schema: z.ZodType, data: unknown): string | undefined {
  const r = schema.safeParse(data);
  if (r.success) return undefined;
  const issue = r.error.issues.find((i) => !TOLERATED.has(i.code));
  if (!issue) return undefined;
  return `${formatPath(issue.path)}: ${issue.message}`;
}
