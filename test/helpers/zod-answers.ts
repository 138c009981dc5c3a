import type * as z from 'zod';
import { bodyProblem } from '../../src/contract/answers.js';
import { schemasOf } from '../../src/contract/endpoint-schemas.js';
import { formatPath } from '../../src/contract/response-check.js';
import type { Endpoint } from '../../src/contract/types.js';

/**
 * The answer check as src/contract/answers.ts did it with zod until issue 11 (the zod part is zodSchemaProblem; the
 * framing around it, not JSON and empty bodies, is answers.ts's own bodyProblem): the reference that
 * src/contract/response-check.ts, which reads docs/openapi.json instead, must agree with verdict for verdict and
 * message for message (test/unit/answers-differential.test.ts).
 */

/** zod issue codes that say "a value this CLI does not know", not "another shape". */
export const TOLERATED = new Set(['invalid_value', 'invalid_format', 'too_big', 'too_small', 'not_multiple_of', 'custom', 'unrecognized_keys']);

/** What is wrong with `data` by zod's check of the endpoint's response schema, or undefined when it fits. */
export function zodAnswerProblem(ep: Endpoint, data: unknown): string | undefined {
  const schema = schemasOf(ep.id)?.response;
  return bodyProblem(data, () => (schema ? (value) => zodSchemaProblem(schema, value) : null));
}

/** The first issue of `schema.safeParse(data)` whose code is not tolerated, as `path: message`. */
export function zodSchemaProblem(schema: z.ZodType, data: unknown): string | undefined {
  const r = schema.safeParse(data);
  if (r.success) return undefined;
  const issue = r.error.issues.find((i) => !TOLERATED.has(i.code));
  if (!issue) return undefined;
  return `${formatPath(issue.path)}: ${issue.message}`;
}
