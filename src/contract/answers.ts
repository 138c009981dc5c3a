import { CliError, EXIT } from '../errors.js';
import { responseCheck, type Check } from './response-check.js';
import type { Endpoint } from './types.js';

/**
 * Whether a 2xx answer has the shape the contract documents for its endpoint. The CLI checks every write's answer
 * (and the answers a command cannot do without, such as auth/me) before it reports anything as done: a proxy's
 * login page, a misconfigured server answering `{}` or HTML, must never read as "created" or "already present".
 *
 * Tolerant as decisions.md asks: unknown fields pass, and so do unknown values of known fields (an enum value or a
 * format this notevox does not know yet). What fails is a missing field or a field of another type, a body that is
 * not JSON, or an empty body where the contract promises one. The shape is read from docs/openapi.json without
 * zod (response-check.ts): the verdicts and messages are those of the contract's zod schemas, whose issues of the
 * codes invalid_value, invalid_format, too_big, too_small, not_multiple_of, custom and unrecognized_keys are
 * tolerated (test/helpers/zod-answers.ts keeps that zod check as the reference the tests compare against).
 */

const SNIPPET = 60;

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET ? `${flat.slice(0, SNIPPET - 1)}…` : flat;
}

/** What is wrong with `data` (the parsed body: null when empty, the text itself when not JSON), or undefined when it fits. */
export function answerProblem(ep: Endpoint, data: unknown): string | undefined {
  return bodyProblem(data, () => responseCheck(ep));
}

/**
 * answerProblem around any check of the documented body: `checkOf` gives it, or null when the contract documents
 * no body (a 204). Asked for only once the body is JSON. (The tests put zod's check here, as the reference.)
 */
export function bodyProblem(data: unknown, checkOf: () => Check | null): string | undefined {
  if (typeof data === 'string') return `the body is not JSON ("${snippet(data)}")`;
  const check = checkOf();
  if (!check) return undefined; // no documented body (a 204): nothing to check beyond JSON
  if (data === null || data === undefined) return 'the body is empty';
  return check(data, []);
}

/** The error for an answer that does not fit; `write` says the change may or may not have been made. */
export function unexpectedAnswer(ep: Endpoint, problem: string, write = ep.method !== 'GET'): CliError {
  const what = write ? 'A success answer not in the documented shape: notevox cannot tell whether the change was made.' : 'A success answer not in the documented shape.';
  return new CliError(`unexpected response from ${ep.id}: ${problem}`, {
    exitCode: EXIT.UNEXPECTED,
    hint: `${what} A proxy or login page? Check the base URL (\`notevox auth status\`), or rerun with --debug.`,
  });
}

/** Throw unexpectedAnswer when `data` does not fit the endpoint's documented answer. */
export function assertAnswer(ep: Endpoint, data: unknown): void {
  const problem = answerProblem(ep, data);
  if (problem !== undefined) throw unexpectedAnswer(ep, problem);
}
