import { UsageError } from '../errors.js';
import { createRequire } from './require.js';
import type { OutputFormat } from './formats.js';
import type { IOStreams } from './iostreams.js';
import { decideOutput, type OutputOptions } from './output.js';
import { formatTable } from './table.js';
import { cellText, isRecord, project, type AnyColumn, type CellMode, type Column } from './values.js';

export { OUTPUT_FORMATS, parseOutputFormat, type OutputFormat } from './formats.js';
export { formatRelativeTime, type Column } from './values.js';
export { decideOutput, type Output, type OutputOptions } from './output.js';

export interface ListWriter<Row extends object = object> {
  write(rows: Row[]): void;
  end(): void;
}

/**
 * csv-stringify and JMESPath are loaded on first use (synchronously: callers do not await rendering), through a
 * require function made then too (JSON output needs neither: see io/text.ts).
 */
let requirePackage: NodeJS.Require | undefined;

const pretty = (v: unknown) => JSON.stringify(v ?? null, null, 2) + '\n';
const compact = (v: unknown) => JSON.stringify(v ?? null) + '\n';

function runQuery(value: unknown, expression: string): unknown {
  if (!requirePackage) requirePackage = createRequire(import.meta.url);
  const { search } = requirePackage('@jmespath-community/jmespath') as typeof import('@jmespath-community/jmespath');
  try {
    return search(value as Parameters<typeof search>[0], expression);
  } catch (e) {
    throw new UsageError(`invalid --query "${expression}": ${(e as Error).message}`, 'See https://jmespath.site for the JMESPath syntax.');
  }
}

/** Columns for rows: --fields (reusing a known column of the same key), else the given ones, else every key seen. */
function chooseColumns(columns: AnyColumn[], fields: string[] | undefined, rows: unknown[]): AnyColumn[] {
  if (fields?.length) return fields.map((f) => columns.find((c) => c.key === f) ?? { key: f, header: f });
  if (columns.length) return columns;
  if (!rows.every(isRecord)) return [{ key: 'value', header: 'value', get: (r) => r }];
  const keys = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r as object)) keys.add(k);
  return [...keys].map((k) => ({ key: k, header: k }));
}

/** Where a dotted path leaves the data: the first object along it without the key (arrays and null end the check). */
function pathKnown(item: unknown, path: string): boolean {
  let cur = item;
  for (const seg of path.split('.')) {
    if (!isRecord(cur)) return true;
    if (!(seg in cur)) return false;
    cur = cur[seg];
  }
  return true;
}

/**
 * --fields names only fields the items have (or the command's own columns): a misspelt name is a usage error listing
 * the valid ones, as `gh --json` does, not an empty column. Without items there is nothing to check against.
 */
function checkFields(fields: string[] | undefined, columns: AnyColumn[], items: unknown[]): void {
  const records = items.filter(isRecord);
  if (!fields?.length || !records.length) return;
  const unknown = fields.filter((f) => !columns.some((c) => c.key === f) && !records.some((r) => pathKnown(r, f)));
  if (!unknown.length) return;
  const valid = new Set(columns.map((c) => c.key));
  for (const r of records) for (const k of Object.keys(r)) valid.add(k);
  const names = unknown.map((f) => `"${f}"`).join(', ');
  throw new UsageError(
    `unknown field${unknown.length > 1 ? 's' : ''} ${names} in --fields`,
    `Valid fields: ${[...valid].join(', ')} (dotted paths such as template.title reach inside objects).`,
  );
}

const itemsOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

function csvLines(rows: string[][]): string {
  if (!requirePackage) requirePackage = createRequire(import.meta.url);
  const { stringify } = requirePackage('csv-stringify/sync') as typeof import('csv-stringify/sync');
  return rows.length ? stringify(rows) : '';
}

const cells = (rows: unknown[], cols: AnyColumn[], mode: CellMode, now: Date) => rows.map((r) => cols.map((c) => cellText(r, c, mode, now)));
/** Table cells, masked before they are cut to width (a key cut short by `…` would no longer match the mask). */
const tableCells = (io: IOStreams, rows: unknown[], cols: AnyColumn[]) => cells(rows, cols, 'table', new Date()).map((r) => r.map(io.mask));

/** Rows as tsv (no header) or csv (header of column keys when `header`). */
function delimited(rows: unknown[], cols: AnyColumn[], format: 'csv' | 'tsv', header: boolean): string {
  const body = cells(rows, cols, format, new Date());
  if (format === 'tsv') return body.map((r) => r.join('\t') + '\n').join('');
  return csvLines(header ? [cols.map((c) => c.key), ...body] : body);
}

function listTable(io: IOStreams, rows: unknown[], cols: AnyColumn[]): string {
  return formatTable({
    headers: cols.map((c) => c.header),
    rows: tableCells(io, rows, cols),
    rightAlign: cols.map((c) => c.kind === 'number'),
    maxWidths: cols.map((c) => c.maxWidth),
    whole: cols.map((c) => c.whole === true),
    columns: io.columns,
    color: io.color,
  });
}

/** Rows in a non-JSON format (all rows at hand). */
function emitRows(io: IOStreams, rows: unknown[], cols: AnyColumn[], format: Exclude<OutputFormat, 'json' | 'ndjson'>): void {
  if (format !== 'table') io.out(delimited(rows, cols, format, true));
  else if (rows.length) io.out(listTable(io, rows, cols));
  else io.info('No results.');
}

/** One object in a non-JSON format: key/value table, `key\tvalue` lines, or a one-row csv. */
function emitObject(io: IOStreams, obj: object, cols: AnyColumn[], format: Exclude<OutputFormat, 'json' | 'ndjson'>): void {
  if (format === 'csv') return io.out(delimited([obj], cols, 'csv', true));
  const mode: CellMode = format === 'tsv' ? 'tsv' : 'table';
  const pairs = cols.map((c) => [format === 'tsv' ? c.key : c.header, io.mask(cellText(obj, c, mode, new Date()))]);
  if (format === 'tsv') return io.out(pairs.map((p) => p.join('\t') + '\n').join(''));
  io.out(formatTable({ rows: pairs, maxWidths: [undefined, ...cols.map((c) => c.maxWidth)], firstColumnStyle: 'bold', columns: io.columns, color: io.color }));
}

/**
 * Any JSON value. JSON formats print it (projected to --fields) exactly; otherwise an array renders as rows, an object
 * as a key/value view, a string as is and anything else as JSON.
 */
function emitValue(io: IOStreams, value: unknown, format: OutputFormat, columns: AnyColumn[], fields: string[] | undefined): void {
  checkFields(fields, columns, itemsOf(value));
  if (format === 'json') return io.out(pretty(project(value, fields)));
  if (format === 'ndjson') {
    const v = project(value, fields);
    return io.out(Array.isArray(v) ? v.map(compact).join('') : compact(v));
  }
  if (Array.isArray(value)) return emitRows(io, value, chooseColumns(columns, fields, value), format);
  if (isRecord(value)) return emitObject(io, value, chooseColumns(columns, fields, [value]), format);
  io.out(typeof value === 'string' ? value + '\n' : pretty(value));
}

/** --query: fields first, then the expression over the whole JSON value; the result is rendered generically. */
function emitQueried(io: IOStreams, value: unknown, opts: OutputOptions & { query: string }, columns: AnyColumn[] = []): void {
  checkFields(opts.fields, columns, itemsOf(value));
  const result = runQuery(project(value, opts.fields), opts.query);
  // A bare word over a list selects nothing: say how to pick a field, and that --query is not a text search.
  if (result === null && Array.isArray(value) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.query.trim()))
    io.warn(`--query "${opts.query}" selected nothing: the output is a list, so pick a field of each item with "[].${opts.query.trim()}". --query is a JMESPath filter of the output, not a text search.`);
  emitValue(io, result, decideOutput(io, opts).format, [], undefined);
}

/**
 * A list that arrives page by page. ndjson, csv and tsv print each page as it comes (constant memory); json prints
 * one valid array as it goes; table (widths) and --query (whole array) wait for end().
 */
export function createListWriter<Row extends object>(io: IOStreams, columns: Column<Row>[], opts: OutputOptions): ListWriter<Row> {
  const w = listWriter(io, columns, opts);
  let checked = false;
  return {
    write: (rows) => {
      // Checked on the first page that has items, before anything is printed.
      if (!checked && rows.length) {
        checkFields(opts.fields, columns, rows);
        checked = true;
      }
      w.write(rows);
    },
    end: () => w.end(),
  };
}

function listWriter(io: IOStreams, columns: AnyColumn[], opts: OutputOptions): ListWriter {
  const format = decideOutput(io, opts).format;
  const { fields, query } = opts;
  if (query || format === 'table') {
    const all: object[] = [];
    return {
      write: (rows) => {
        for (const r of rows) all.push(r);
      },
      end: () => (query ? emitQueried(io, all, { ...opts, query }, columns) : emitRows(io, all, chooseColumns(columns, fields, all), 'table')),
    };
  }
  if (format === 'json') {
    let count = 0;
    return {
      write: (rows) => {
        for (const r of rows) io.out((count++ ? ',\n' : '[\n') + JSON.stringify(project(r, fields), null, 2).replace(/^/gm, '  '));
      },
      end: () => io.out(count ? '\n]\n' : '[]\n'),
    };
  }
  if (format === 'ndjson') {
    return { write: (rows) => io.out(rows.map((r) => compact(project(r, fields))).join('')), end: () => {} };
  }
  let cols: AnyColumn[] | undefined;
  return {
    write: (rows) => {
      if (!rows.length) return;
      const first = !cols;
      cols ??= chooseColumns(columns, fields, rows);
      io.out(delimited(rows, cols, format, first));
    },
    end: () => {
      // An empty csv still gets its header when the columns are known without rows.
      if (!cols && format === 'csv' && (columns.length || fields?.length)) io.out(delimited([], chooseColumns(columns, fields, []), 'csv', true));
    },
  };
}

export function renderList<Row extends object>(io: IOStreams, rows: Row[], columns: Column<Row>[], opts: OutputOptions): void {
  const w = createListWriter(io, columns, opts);
  w.write(rows);
  w.end();
}

/** One object: JSON exactly (or projected), a key/value table on a terminal, `key\tvalue` lines when piped. */
export function renderObject<Row extends object>(io: IOStreams, obj: Row, opts: OutputOptions, columns?: Column<Row>[]): void {
  renderValue(io, obj, opts, columns);
}

/** Any JSON value (e.g. a raw API response): arrays as lists, objects as key/value, scalars as is. */
export function renderValue(io: IOStreams, value: unknown, opts: OutputOptions, columns: AnyColumn[] = []): void {
  if (opts.query) return emitQueried(io, value, { ...opts, query: opts.query }, columns);
  emitValue(io, value, decideOutput(io, opts).format, columns, opts.fields);
}
