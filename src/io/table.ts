import { createRequire } from 'node:module';
import { displayWidth, paint, truncate } from './text.js';

/** cli-table3 is CommonJS; loaded on first use, synchronously. */
const load = createRequire(import.meta.url);
type TableCtor = typeof import('cli-table3');

const GAP = 2;
/** Columns are never shrunk below this (or their natural width, when smaller). */
const MIN_WIDTH = 5;
const NO_BORDERS = Object.fromEntries(
  ['top', 'top-mid', 'top-left', 'top-right', 'bottom', 'bottom-mid', 'bottom-left', 'bottom-right', 'left', 'left-mid', 'mid', 'mid-mid', 'right', 'right-mid', 'middle'].map((c) => [c, '']),
);

/** Widths that fit `available` columns (gaps included), taking a column at a time off the widest ones. */
export function fitWidths(natural: number[], available: number): number[] {
  const widths = [...natural];
  const min = natural.map((w) => Math.min(w, MIN_WIDTH));
  const budget = available - GAP * Math.max(0, widths.length - 1);
  let excess = widths.reduce((a, b) => a + b, 0) - budget;
  while (excess > 0) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (w > min[i] && (widest < 0 || w > widths[widest])) widest = i;
    });
    if (widest < 0) break;
    widths[widest]--;
    excess--;
  }
  return widths;
}

export interface TableSpec {
  /** Omitted for a key/value table. */
  headers?: string[];
  rows: string[][];
  rightAlign?: boolean[];
  /** Per column cap before fitting. */
  maxWidths?: Array<number | undefined>;
  /** Style of the first column (key/value tables: the keys). */
  firstColumnStyle?: 'bold' | 'dim';
  columns: number;
  color: boolean;
}

/** Trailing spaces off, also when they sit inside a closing style sequence. */
// eslint-disable-next-line no-control-regex -- matching ANSI style sequences is the point
const trimEnd = (line: string) => line.replace(/\s+((?:\u001b\[\d+m)*)$/, '$1');

/** A borderless table (columns separated by two spaces) that fits the terminal; no trailing spaces. */
export function formatTable(spec: TableSpec): string {
  const n = spec.headers?.length ?? spec.rows[0]?.length ?? 0;
  if (n === 0) return '';
  const capped = spec.rows.map((r) => r.map((c, i) => (spec.maxWidths?.[i] ? truncate(c, spec.maxWidths[i]!) : c)));
  const natural = Array.from({ length: n }, (_, i) => Math.max(displayWidth(spec.headers?.[i] ?? ''), ...capped.map((r) => displayWidth(r[i] ?? ''))));
  const widths = fitWidths(natural, spec.columns);
  const fit = (row: string[]) => row.map((c, i) => truncate(c ?? '', widths[i]));

  const Table: TableCtor = load('cli-table3');
  const table = new Table({
    // Headers are painted here, not through cli-table3's style (its colour library decides from process.stdout).
    ...(spec.headers ? { head: fit(spec.headers).map((h) => paint(spec.color, 'bold', h)) } : {}),
    chars: NO_BORDERS,
    style: { 'padding-left': 0, 'padding-right': GAP, head: [], border: [], compact: true },
    colAligns: Array.from({ length: n }, (_, i) => (spec.rightAlign?.[i] ? 'right' : 'left')),
    wordWrap: false,
  });
  for (const row of capped) {
    const cells = fit(row);
    if (spec.firstColumnStyle) cells[0] = paint(spec.color, spec.firstColumnStyle, cells[0]);
    table.push(cells);
  }
  return (
    table
      .toString()
      .split('\n')
      .map(trimEnd)
      .join('\n') + '\n'
  );
}
