import { LIMITS } from '../../contract/limits.js';
import { isWordMemoryText } from '../fast-body.js';
import { WORD_MEMORY_SCOPES } from '../schema.sql.js';
import { isInstant } from './schema.js';

/**
 * A seed's word memories inserted straight from their JSON text, without JSON.parse: a million of them cost about
 * 1.1 s of CPU to parse into objects and check (and then to collect), and scanning the text is a third of that
 * (measured on the bench's seed, 60 MB of word memories). The scan takes only the shape the seed format's items have
 * when written by a program (docs/sandbox-seed.md): objects of the known keys, each at most once, with strings
 * without escapes, whole numbers as digits and null; and only items the seed schema accepts as they are, given the
 * same values it would give. Anything else (an escape, another number form, a key it does not know, an item the
 * schema refuses, text that is not JSON) stops it: the caller then parses the text as JSON and checks it with the
 * schema, which decides and names any problem, so the scan never vouches for what JSON.parse or the schema refuse.
 *
 * Ids: when the first item has none, no item may have one, and the ids are left to the table (AUTOINCREMENT on an
 * empty table: 1, 2, … in order, which is what the seed format gives items without an id when none has one). When it
 * has, every item must have one (a mix is left to the parse, which numbers the rest after the largest).
 */

export interface Scanned {
  count: number;
  /** The items have ids (else they were numbered: by the table, or from `firstId`). */
  withIds: boolean;
  /** Every scope (type and id as stored) the items name, once. */
  scopes: Array<{ scope: string; id: string }>;
}

/** Rows per INSERT statement (each with 5 or 6 values; SQLite allows 32766). */
const ROWS = 64;
const SLUG = /^[A-Za-z0-9_-]{1,64}$/;
const WM_TEXT = LIMITS.wordMemoryText;

/** The keys of an item (bits of a mask of those seen). */
const Key = { None: 0, Scope: 1, ScopeId: 2, Entry: 3, SubEntry: 4, Id: 5, CreatedAt: 6 } as const;
type Key = (typeof Key)[keyof typeof Key];

/**
 * The array scanned in two parts (word-memories.ts: its tail is built on the start's thread). `head`: the text is its
 * first part, `[` and items each followed by its comma (it ends after the comma where the array was cut); `tail`: the
 * rest, that comma, items and `]`. `withIds`: whether the items must have ids (as the first part's decided);
 * `firstId`: the id of the first item when they have none (the table's numbering starts again at 1 in a file of its
 * own).
 */
export interface ScanPart {
  head?: boolean;
  tail?: boolean;
  withIds?: boolean;
  firstId?: number;
}

/**
 * Insert the word memories of `text` (the seed's wordMemories array) with `prepare` (Db.bulk's); `now` is the
 * createdAt of those without one. Returns undefined as soon as the text is not of the shape scanned (the rows
 * inserted until then are to be discarded with the database).
 */
export function scanWordMemories(text: string, now: string, prepare: (sql: string) => (values: readonly unknown[]) => void, part: ScanPart = {}): Scanned | undefined {
  if (text.includes('\\')) return undefined;
  /** The next id to give an item without one, when they are numbered here (not by the table). */
  let nextId = part.firstId ?? 0;
  /** Items have ids (decided by the first one), the statements with their columns (prepared at the first item). */
  let withIds = false;
  let width = 0;
  let insert: (rows: number) => (values: readonly unknown[]) => void = () => () => {};
  let batch: (values: readonly unknown[]) => void = () => {};
  let values: unknown[] = [];
  let filled = 0;
  /** Each scope id given (a checked one), with the scopes (bits of WORD_MEMORY_SCOPES' indexes) it was given with. */
  const scopes = new Map<string, number>();
  /** The last createdAt given (checked) and its ISO form: items often share one. */
  let lastCreated: string | undefined;
  let lastCreatedIso = '';
  let count = 0;

  let i = skip(text, 0);
  if (text.charCodeAt(i) !== (part.tail ? 0x2c : 0x5b)) return undefined; // [ (or the comma before the tail)
  i = skip(text, i + 1);
  if (text.charCodeAt(i) === 0x5d && !part.head && !part.tail) i++; // ]: no items
  else
    for (;;) {
      if (text.charCodeAt(i) !== 0x7b) return undefined; // {
      i = skip(text, i + 1);
      let id = 0;
      let scope = -1;
      let scopeId: string | undefined;
      let entry: string | undefined;
      let subEntry: string | null = null;
      let createdAt: string | undefined;
      let keys = 0;
      for (;;) {
        // a key
        if (text.charCodeAt(i) !== 0x22) return undefined;
        const keyEnd = text.indexOf('"', i + 1);
        const key = keyOf(text, i + 1, keyEnd - i - 1);
        if (key === Key.None || keys & (1 << key)) return undefined;
        keys |= 1 << key;
        i = skip(text, keyEnd + 1);
        if (text.charCodeAt(i) !== 0x3a) return undefined; // :
        i = skip(text, i + 1);
        // its value: a string, digits or null
        const c = text.charCodeAt(i);
        let str: string | undefined;
        let num = 0;
        let isNull = false;
        if (c === 0x22) {
          const end = text.indexOf('"', i + 1);
          if (end < 0) return undefined;
          str = text.slice(i + 1, end);
          i = end + 1;
        } else if (c >= 0x31 && c <= 0x39) {
          // 1 to 15 digits, no leading zero: a positive safe integer, as JSON.parse reads it
          const from = i;
          num = c - 0x30;
          for (let d = text.charCodeAt(++i); d >= 0x30 && d <= 0x39; d = text.charCodeAt(++i)) num = num * 10 + (d - 0x30);
          if (i - from > 15) return undefined;
        } else if (c === 0x6e && text.startsWith('null', i)) {
          isNull = true;
          i += 4;
        } else return undefined;
        switch (key) {
          case Key.Scope:
            scope = str === undefined ? -1 : (WORD_MEMORY_SCOPES as readonly string[]).indexOf(str);
            if (scope < 0) return undefined;
            break;
          case Key.ScopeId:
            if (str !== undefined) {
              if (!scopes.has(str) && !SLUG.test(str)) return undefined;
              scopeId = str;
            } else if (num > 0) scopeId = String(num);
            else return undefined;
            break;
          case Key.Entry:
            if (str === undefined || !isEntryText(str)) return undefined;
            entry = str;
            break;
          case Key.SubEntry:
            if (str !== undefined && isEntryText(str)) subEntry = str;
            else if (!isNull) return undefined;
            break;
          case Key.Id:
            if (num > 0) id = num;
            else return undefined;
            break;
          case Key.CreatedAt:
            if (str === undefined || (str !== lastCreated && !isInstant(str))) return undefined;
            createdAt = str;
            break;
        }
        i = skip(text, i);
        const next = text.charCodeAt(i);
        i = skip(text, i + 1);
        if (next === 0x7d) break; // }
        if (next !== 0x2c) return undefined; // ,
      }
      if (scope < 0 || scopeId === undefined || entry === undefined) return undefined;
      if (count === 0) {
        withIds = id > 0;
        if (part.withIds !== undefined && part.withIds !== withIds) return undefined;
        const columns = [...(withIds || nextId > 0 ? ['id'] : []), 'scope_type', 'scope_id', 'entry', 'sub_entry', 'created_at'];
        const tuple = `(${columns.map(() => '?').join(', ')})`;
        width = columns.length;
        insert = (rows) => prepare(`INSERT INTO word_memories (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`);
        batch = insert(ROWS);
        values = new Array<unknown>(ROWS * width);
      }
      if (withIds !== id > 0) return undefined;
      if (withIds) values[filled++] = id;
      else if (nextId > 0) values[filled++] = nextId++;
      values[filled++] = WORD_MEMORY_SCOPES[scope];
      values[filled++] = scopeId;
      values[filled++] = entry;
      values[filled++] = subEntry;
      if (createdAt === undefined) values[filled++] = now;
      else {
        if (createdAt !== lastCreated) {
          lastCreated = createdAt;
          lastCreatedIso = new Date(createdAt).toISOString();
        }
        values[filled++] = lastCreatedIso;
      }
      if (filled === values.length) {
        batch(values);
        filled = 0;
      }
      const given = scopes.get(scopeId) ?? 0;
      if ((given & (1 << scope)) === 0) scopes.set(scopeId, given | (1 << scope));
      count++;
      const next = text.charCodeAt(i);
      i = skip(text, i + 1);
      if (next === 0x5d && !part.head) break; // ]
      if (next !== 0x2c) return undefined; // ,
      if (part.head && i === text.length) break; // the end of the first part
    }
  if (skip(text, i) !== text.length) return undefined;
  if (filled > 0) {
    const one = insert(1);
    for (let at = 0; at < filled; at += width) one(values.slice(at, at + width));
  }
  return { count, withIds, scopes: [...scopes].flatMap(([id, given]) => WORD_MEMORY_SCOPES.filter((_, s) => given & (1 << s)).map((scope) => ({ scope, id }))) };
}

/** The index of the first character at or after `i` that is not JSON whitespace. */
function skip(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09); c = text.charCodeAt(++i));
  return i;
}

function keyOf(text: string, at: number, length: number): Key {
  switch (length) {
    case 5:
      return text.startsWith('scope', at) ? Key.Scope : text.startsWith('entry', at) ? Key.Entry : Key.None;
    case 7:
      return text.startsWith('scopeId', at) ? Key.ScopeId : Key.None;
    case 8:
      return text.startsWith('subEntry', at) ? Key.SubEntry : Key.None;
    case 2:
      return text.startsWith('id', at) ? Key.Id : Key.None;
    case 9:
      return text.startsWith('createdAt', at) ? Key.CreatedAt : Key.None;
    default:
      return Key.None;
  }
}

/**
 * What the seed schema accepts as an entry or sub-entry (wmText: 1 to 63 code points, no whitespace), and JSON
 * unescaped in a string (no U+0000–U+001F). Printable ASCII but the space, the common case, has as many code points
 * as characters and no whitespace; anything else goes to the contract's own check.
 */
function isEntryText(s: string): boolean {
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c <= 0x20 || c >= 0x7f) {
      for (let j = k; j < s.length; j++) if (s.charCodeAt(j) < 0x20) return false;
      return isWordMemoryText(s);
    }
  }
  return s.length >= WM_TEXT.min && s.length <= WM_TEXT.max;
}
