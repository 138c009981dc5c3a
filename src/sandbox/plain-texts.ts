/**
 * The request bodies whose every text is plain: printable ASCII without `"` or `\`, which JSON writes as it is (a
 * body checked on its text, fast-body.ts). A module of its own, without the contract's schemas: the word-memory
 * handler asks it on every create, and the handlers are loaded at the sandbox's start, when the schemas are not
 * (validation-load.ts: building them cost ~35 ms of every `sandbox start`).
 */
const PLAIN_TEXTS = new WeakSet<object>();

/** Record that every text of `body` is plain. */
export function markPlainTexts<T extends object>(body: T): T {
  PLAIN_TEXTS.add(body);
  return body;
}

/** Whether every text of `body` is plain (it was checked as such on its text): JSON writes each as its characters in quotes. */
export const hasPlainTexts = (body: object): boolean => PLAIN_TEXTS.has(body);
