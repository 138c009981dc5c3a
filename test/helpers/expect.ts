import { expect } from 'vitest';
import { errorTypeForStatus } from '../../src/contract/errors.js';
import { errorEnvelopeSchema } from '../../src/contract/schemas.js';
import { DEMO_KEYS } from '../../src/sandbox/demo-seed.js';

/** What the test files share: the demo keys by name, and the check of an error answer. */

export type KeyName = keyof typeof DEMO_KEYS;
/** The demo seed's keys (`id.secret`), by name: K.admin, K.orgKey, … */
export const K = Object.fromEntries(Object.entries(DEMO_KEYS).map(([name, k]) => [name, k.token])) as Record<KeyName, string>;

const SECRETS = Object.values(DEMO_KEYS).map((k) => k.secret);
/** None of the texts (a command's output) holds the secret of a demo key. */
export function expectNoSecrets(...texts: string[]): void {
  for (const t of texts) for (const s of SECRETS) expect(t).not.toContain(s);
}

/** An error answer: the status, the envelope (decisions.md §1.4), its code, and the errorType of the status. */
export function expectError(res: { status: number; json: any }, status: number, code: number): void {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(errorEnvelopeSchema.safeParse(res.json).success, JSON.stringify(res.json)).toBe(true);
  expect(res.json.error.code).toBe(code);
  expect(res.json.error.errorType).toBe(errorTypeForStatus(status));
}
