import { displayWidth, pad, paint, truncate } from './text.js';

const GAP = 2;
/** Columns are never shrunk below this (or their natural width, when smaller). */
const MIN_WIDTH = 5;

/**
 * Widths that fit `available` columns (gaps included), taking a column at a time off the widest ones; `whole`
 * columns keep their natural width (the line is then longer than the terminal rather than an id cut).
 */
export function fitWidths(natural: number[], available: number, whole: boolean[] = []): number[] {
  const widths = [...natural];
  const min = natural.map((w, i) => (whole[i] ? w : Math.min(w, MIN_WIDTH)));
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
  /** Columns never cut (ids to copy). */
  whole?: boolean[];
  /** Style of the first column (key/value tables: the keys). */
  firstColumnStyle?: 'bold' | 'dim';
  columns: number;
  color: boolean;
}

/**
 * A borderless table (columns separated by two spaces) that fits the terminal; no trailing spaces. Cells are
 * measured and padded by display width (text.ts), so CJK and emoji keep the columns aligned.
 */
export function formatTable(spec: TableSpec): string {
  const n = spec.headers?.length ?? spec.rows[0]?.length ?? 0;
  if (n === 0) return '';
  const capped = spec.rows.map((r) => r.map((c, i) => (spec.maxWidths?.[i] ? truncate(c, spec.maxWidths[i]!) : c)));
  const natural = Array.from({ length: n }, (_, i) => Math.max(displayWidth(spec.headers?.[i] ?? ''), ...capped.map((r) => displayWidth(r[i] ?? ''))));
  const widths = fitWidths(natural, spec.columns, spec.whole);
  const gap = ' '.repeat(GAP);
  const line = (row: string[], style?: (cell: string, i: number) => string) => {
    const cells = widths.map((w, i) => {
      const text = truncate(row[i] ?? '', w);
      // Painted before padding (display width does not count style sequences), so the spaces stay plain.
      return pad(style ? style(text, i) : text, w, spec.rightAlign?.[i] ? 'right' : 'left');
    });
    // Trailing spaces off, also when they sit inside a closing style sequence.
    // eslint-disable-next-line no-control-regex -- matching ANSI style sequences is the point
    return cells.join(gap).replace(/\s+((?:\u001b\[\d+m)*)$/, '$1');
  };
  const lines: string[] = [];
  if (spec.headers) lines.push(line(spec.headers, (c) => paint(spec.color, 'bold', c)));
  const first = spec.firstColumnStyle;
  for (const row of capped) lines.push(line(row, first ? (c, i) => (i === 0 ? paint(spec.color, first, c) : c) : undefined));
  return lines.join('\n') + '\n';
}
