/** Reading values out of API objects and turning them into cell text. */

import { redact } from '../redact.js';

/**
 * A column of rows of type `Row` (a contract item, a command's own object): the renderers take rows and columns of
 * the same type (renderList<Row>, createListWriter<Row>, renderObject<Row>), so `get` reads a typed row.
 */
export interface Column<Row extends object = object> {
  /** Dotted path into the row, e.g. 'template.title' (array elements by index: 'participants.0.name'). */
  key: string;
  header: string;
  kind?: 'text' | 'time' | 'number' | 'bool' | 'list';
  /** Widest the column may be in a table (longer values are cut with '…'). */
  maxWidth?: number;
  /** Never cut in a table (an id a user copies into another command); the other columns give way. */
  whole?: boolean;
  /** Computes the cell from the row instead of reading `key` (tables, TSV and CSV only; JSON is always raw). */
  get?: (row: Row) => unknown;
}

/**
 * A column as the renderers hold it inside, whatever its rows: any Column<Row> is one (a function of a Row takes
 * `never`), and only cellValue calls its `get`, with a row that the public entry checked to be a Row.
 */
export type AnyColumn = Column<never>;

/** table: readable (relative times, one line); tsv: escaped, ISO times; csv: raw (csv-stringify quotes). */
export type CellMode = 'table' | 'tsv' | 'csv';

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * `value` with the API key (and any bearer credential) masked in every string, keys included: what a server sends
 * back is printed as it came, except that a key it echoes (a debugging endpoint, a hostile or broken server) is
 * never shown in clear. Values without the key are returned as they are.
 */
export function redactValue<T>(value: T, key: string | undefined): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, key);
    if (Array.isArray(v)) return v.map(walk);
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k, key), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

export function getPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const seg of path.split('.')) {
    if (Array.isArray(cur) && /^\d+$/.test(seg)) cur = cur[Number(seg)];
    else if (isRecord(cur) && Object.hasOwn(cur, seg)) cur = cur[seg];
    else return undefined;
  }
  return cur;
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const segs = path.split('.');
  if (segs.some((s) => UNSAFE_KEYS.has(s))) return;
  let cur = target;
  for (const seg of segs.slice(0, -1)) {
    if (!isRecord(cur[seg])) cur[seg] = {};
    cur = cur[seg] as Record<string, unknown>;
  }
  cur[segs[segs.length - 1]] = value;
}

/** Keep only the listed (dotted) fields of an object, or of each object of an array; absent fields are left out. */
export function project(value: unknown, fields: string[] | undefined): unknown {
  if (!fields?.length) return value;
  if (Array.isArray(value)) return value.map((v) => project(v, fields));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = getPath(value, f);
    if (v !== undefined) setPath(out, f, v);
  }
  return out;
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365.25 * 86_400],
  ['month', 30.44 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];
// Built on first use: constructing it costs tens of milliseconds, too much for every start-up.
let relative: Intl.RelativeTimeFormat | undefined;

/** "3 minutes ago", "in 2 days", "2 months ago"; "just now" within 45 s; the input unchanged if it is not a date. */
export function formatRelativeTime(iso: string, now: Date): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const seconds = (t - now.getTime()) / 1000;
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  // Round up to the next unit a little early (45 min → "1 hour"), as people say it.
  const [unit, size] = UNITS.find(([, s]) => abs >= s * 0.75 && s > 1) ?? ['second', 1];
  const n = Math.max(1, Math.round(abs / size));
  relative ??= new Intl.RelativeTimeFormat('en', { numeric: 'always' });
  return relative.format(seconds < 0 ? -n : n, unit);
}

function scalarText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** Backslash escapes so that one value is one TSV field on one line. */
export function escapeTsv(text: string): string {
  return text.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!);
}

export function cellValue(row: unknown, col: AnyColumn): unknown {
  // The one place a row meets its column: renderList<Row> and the others took both as Row (see AnyColumn).
  return col.get ? (col.get as (r: unknown) => unknown)(row) : getPath(row, col.key);
}

export function cellText(row: unknown, col: AnyColumn, mode: CellMode, now: Date): string {
  const v = cellValue(row, col);
  let text: string;
  if (mode === 'table' && col.kind === 'time' && typeof v === 'string') text = formatRelativeTime(v, now);
  else if (mode === 'table' && col.kind === 'bool' && typeof v === 'boolean') text = v ? 'yes' : 'no';
  else if (Array.isArray(v)) text = v.map(scalarText).join(', ');
  else text = scalarText(v);
  if (mode === 'tsv') return escapeTsv(text);
  if (mode === 'table') return text.replace(/[\r\n\t]+/g, ' ');
  return text;
}
