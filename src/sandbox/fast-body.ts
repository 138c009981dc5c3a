import type { z } from 'zod';
import { charCount, LIMITS } from '../contract/limits.js';
import { wmCreateBody } from '../contract/schemas.js';
import { isRecord } from '../io/values.js';

/**
 * Hand-written checks of the request bodies that come in bulk (a 1000-item word-memory create), which zod takes
 * milliseconds to parse. A check accepts only bodies its schema accepts and returns what the schema's parse would
 * (the same fields, unknown ones dropped); for anything else it returns undefined and the schema parses as before,
 * so every error (status, message, detail) still comes from zod.
 */
export type FastBody = (raw: unknown) => unknown;

const WM_TEXT = LIMITS.wordMemoryText;
const NO_WHITESPACE = /^\S+$/;

/**
 * Whether `v` is non-empty and every character is printable ASCII other than the space (U+0021–U+007E): none is
 * whitespace, so the regex need not run (a loop over the characters costs half of NO_WHITESPACE.test; others still go to it).
 */
function isPrintableAscii(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return v.length > 0;
}

/**
 * What the contract's wmText accepts: a string of 1–63 code points without whitespace. A string of `length` UTF-16
 * units has from half of that (all surrogate pairs) to `length` code points, so most need no counting.
 */
export function isWordMemoryText(v: unknown): v is string {
  if (typeof v !== 'string' || !(isPrintableAscii(v) || NO_WHITESPACE.test(v))) return false;
  if (v.length <= WM_TEXT.max && Math.ceil(v.length / 2) >= WM_TEXT.min) return true;
  const n = charCount(v);
  return n >= WM_TEXT.min && n <= WM_TEXT.max;
}

/** wmCreateBody: `{entries: [{entry, subEntry?}]}`, 1 to wordMemoryBulkMax items. */
function wmCreate(raw: unknown): z.infer<typeof wmCreateBody> | undefined {
  if (!isRecord(raw)) return undefined;
  const entries = raw.entries;
  if (!Array.isArray(entries) || entries.length < 1 || entries.length > LIMITS.wordMemoryBulkMax) return undefined;
  const out: Array<{ entry: string; subEntry?: string | null }> = new Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const e: unknown = entries[i];
    if (!isRecord(e) || !isWordMemoryText(e.entry)) return undefined;
    const sub = e.subEntry;
    // JSON has no undefined: an absent subEntry stays absent, as zod leaves it.
    if (sub === undefined) out[i] = { entry: e.entry };
    else if (sub === null || isWordMemoryText(sub)) out[i] = { entry: e.entry, subEntry: sub };
    else return undefined;
  }
  return { entries: out };
}

/** The fast check of each schema that has one. */
export const FAST_BODIES = new Map<z.ZodType, FastBody>([[wmCreateBody, wmCreate]]);
