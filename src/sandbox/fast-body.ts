import type { z } from 'zod';
import { charCount, LIMITS } from '../contract/limits.js';
import { wmCreateBody } from '../contract/schemas.js';
import { isRecord } from '../io/values.js';
import { markPlainTexts } from './plain-texts.js';

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

/**
 * A check of a request body on its JSON text, before JSON.parse: for the bodies of one exact form it returns what
 * JSON.parse and the schema's parse would give, without either (JSON.parse of a 1000-item word-memory create and the
 * check after it were a sixth of the sandbox's CPU for that request); for any other text it returns undefined, and the
 * text goes through JSON.parse and the checks as before.
 */
export type FastText = (text: string) => unknown;

/** Whether `t` has `word` at `at` (String#startsWith with a position, which as a builtin call cost half of the scan). */
function has(t: string, at: number, word: string): boolean {
  if (at + word.length > t.length) return false;
  for (let k = 0; k < word.length; k++) if (t.charCodeAt(at + k) !== word.charCodeAt(k)) return false;
  return true;
}

const CREATE_HEAD = '{"entries":[';
const ITEM_HEAD = '{"entry":"';
const SUB_ENTRY = '","subEntry":';

/**
 * Where the plain text starting at `from` ends (its closing quote), or -1: a text of WM_TEXT's length in characters
 * from printable ASCII (U+0021–U+007E, no whitespace) other than `"` and `\` (no escape), then `"`. Such a text is
 * valid for wmText (in ASCII a character is a code point) and JSON.parse gives its characters as they are.
 */
function plainTextEnd(t: string, from: number): number {
  const limit = Math.min(t.length, from + WM_TEXT.max + 1);
  for (let i = from; i < limit; i++) {
    const c = t.charCodeAt(i);
    if (c === 0x22) return i - from >= WM_TEXT.min ? i : -1;
    if (c <= 0x20 || c >= 0x7f || c === 0x5c) return -1;
  }
  return -1;
}

/**
 * wmCreateBody from the text JSON.stringify makes of `{entries: [{entry, subEntry?}]}` (and the CLI sends): no
 * whitespace, the keys in that order, subEntry a string, null or absent, every text plain, 1 to wordMemoryBulkMax
 * items. Anything else (other keys, another order, spaces, escapes, non-ASCII) is left to JSON.parse.
 */
function wmCreateText(t: string): z.infer<typeof wmCreateBody> | undefined {
  if (!has(t, 0, CREATE_HEAD)) return undefined;
  const out: Array<{ entry: string; subEntry?: string | null }> = [];
  let i = CREATE_HEAD.length;
  for (;;) {
    if (!has(t, i, ITEM_HEAD)) return undefined;
    const from = i + ITEM_HEAD.length;
    const end = plainTextEnd(t, from);
    if (end < 0) return undefined;
    const entry = t.slice(from, end);
    if (t.charCodeAt(end + 1) === 0x7d) {
      out.push({ entry });
      i = end + 2;
    } else if (has(t, end, SUB_ENTRY)) {
      i = end + SUB_ENTRY.length;
      if (has(t, i, 'null}')) {
        out.push({ entry, subEntry: null });
        i += 5;
      } else {
        const subEnd = t.charCodeAt(i) === 0x22 ? plainTextEnd(t, i + 1) : -1;
        if (subEnd < 0 || t.charCodeAt(subEnd + 1) !== 0x7d) return undefined;
        out.push({ entry, subEntry: t.slice(i + 1, subEnd) });
        i = subEnd + 2;
      }
    } else return undefined;
    if (out.length > LIMITS.wordMemoryBulkMax) return undefined;
    const c = t.charCodeAt(i);
    if (c === 0x2c) i++;
    else if (c === 0x5d && t.charCodeAt(i + 1) === 0x7d && i + 2 === t.length) break;
    else return undefined;
  }
  return markPlainTexts({ entries: out });
}

/** The text check of each schema that has one. */
export const FAST_TEXTS = new Map<z.ZodType, FastText>([[wmCreateBody, wmCreateText]]);
