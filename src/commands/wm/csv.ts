import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { parse } from 'csv-parse';
import { UsageError } from '../../errors.js';
import { LIMITS } from '../../contract/limits.js';
import { textProblem } from './rules.js';

/**
 * Reading word memories from CSV, streaming (memory does not grow with the file, apart from 8 bytes per row for
 * the duplicate check): UTF-8 with or without BOM, CRLF, LF or CR-only line ends (the file's first line end
 * decides), quoted fields with commas, quotes and newlines. A record (a line, or several inside quotes) may be at
 * most MAX_RECORD_BYTES long: a longer one stops the reading with its line number, so that a quote that never
 * closes or a file that is not CSV cannot take all the memory. Every row gets the physical line number where its
 * record starts, so problems are reported as `FILE:LINE: reason`.
 *
 * The check pass writes the rows to send to a spool file, one line each holding the row as the JSON item of a
 * request (`{"entry":"…","subEntry":"…"}`: valid entries hold no line break), from which the send pass builds
 * each batch's request body out of the bytes: the CSV is parsed once, and no object per row is made to send it.
 *
 * csv-parse is written to chunk by chunk, and its records and errors are taken through its public callbacks
 * (`on_record`, which keeps nothing for the stream to buffer, and `on_skip`), not read from the stream: both then
 * arrive while `write` runs, in file order, with the parser's byte offset (`info.bytes`) at that point, which is
 * what exact line numbers need (the stream's `skip` events can overtake buffered records).
 */

export interface CsvOptions {
  /** `--columns`: the file's columns in order (entry, subEntry, or - for a column to ignore); the file has no header unless `header`. */
  columns?: string;
  /** `--header`: with --columns, the first row is a header to skip. */
  header?: boolean;
  /** `--delimiter`: the character between fields (default `,`); parseDelimiter reads the flag. */
  delimiter?: string;
}

/** One data row: a reject when `reason` is set. */
export interface CsvItem {
  line: number;
  entry: string;
  subEntry: string | null;
  reason?: string;
  /**
   * The file cannot be read reliably past this row (a quote that never closes, text after a closing quote, a
   * UTF-16 file, a header whose columns cannot be told apart): nothing is sent, whatever the flags.
   */
  fatal?: boolean;
  /** For a fatal problem: how to fix the file. */
  hint?: string;
  /** A reject's fields as read, every one of them (--rejects writes them back, so that the row can be fixed and imported again). */
  cells?: string[];
  /** The names of the file's columns (its header, --columns, or entry,subEntry): the header of a --rejects file. */
  columns?: string[];
}

/**
 * `--delimiter`: one character, `tab` or `\t` for a tab; not a quote, a line end, a letter or a digit.
 */
export function parseDelimiter(value: string | undefined): string {
  if (value === undefined) return ',';
  const d = value === 'tab' || value === '\\t' ? '\t' : value;
  if ([...d].length !== 1 || /["\r\n\p{L}\p{N}]/u.test(d))
    throw new UsageError(`--delimiter "${value}" is not a field separator`, "Pass one character that is not a quote, letter or digit, e.g. --delimiter ';' or --delimiter tab.");
  return d;
}

/** Separators a header may have been written with when it reads as one column with the file's delimiter. */
const OTHER_DELIMITERS = [';', '\t', '|', ','];
const describeDelimiter = (d: string) => (d === '\t' ? 'tab' : `'${d}'`);

interface Layout {
  entry: number;
  subEntry: number;
  /** Required number of fields; undefined: 1 or 2 (a file without header). */
  width?: number;
}

const ENTRY_NAME = /^entry$/i;
const SUB_ENTRY_NAME = /^sub_?entry$/i;
const IGNORED_NAME = /^(-|_|)$/;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16_BOMS = [Buffer.from([0xff, 0xfe]), Buffer.from([0xfe, 0xff])];
const QUOTING_HINT = 'Quote a field that contains a quote, comma or line break as a whole, and double the quotes inside it: "say ""hi""".';
const CHUNK_BYTES = 64 * 1024;
/** The longest record read (docs/word-memories.md): far above any valid row, with room for ignored columns. */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** Errors after which csv-parse stays inside a quoted field: nothing after them can be trusted. */
const FATAL_CSV_ERRORS = new Set(['CSV_QUOTE_NOT_CLOSED', 'CSV_INVALID_CLOSING_QUOTE', 'CSV_MAX_RECORD_SIZE']);
/** Thrown from csv-parse's on_skip to stop it at once (a record over the limit would otherwise keep growing). */
const STOP = new Error('stop');
const RECORD_SIZE_HINT = `A record is a line, or several lines inside quotes: a quote that never closes makes the rest of the file one record. Records are limited to ${MAX_RECORD_BYTES / 1024 / 1024} MiB; check the quoting, or remove the long columns.`;
/** 1048576 → "1,048,576" (as toLocaleString('en-US') writes it, without loading the ICU data, about 8 MB of memory). */
const groupDigits = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const CSV_ERROR_WORDS: Record<string, string> = {
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field',
  CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_MAX_RECORD_SIZE: `a record longer than ${groupDigits(MAX_RECORD_BYTES)} bytes starts here`,
};

/** The byte that ends a line: LF (also in CRLF files), or CR in files that use CR alone (classic Mac OS). */
type LineEnd = 10 | 13;

/**
 * The file's line ends, from its first one: CR alone means CR-only; LF or CRLF means LF. Undefined while `buf` is
 * not enough to tell (no line end yet, or a CR as its last byte) and more is coming.
 */
function lineEndOf(buf: Buffer, atEnd: boolean): LineEnd | undefined {
  const lf = buf.indexOf(10);
  const cr = buf.indexOf(13);
  if (cr < 0 || (lf >= 0 && lf < cr)) return lf >= 0 || atEnd ? 10 : undefined;
  if (cr + 1 < buf.length) return buf[cr + 1] === 10 ? 10 : 13;
  return atEnd ? 13 : undefined;
}

/** `--columns entry,subEntry` → layout; exactly one entry column, at most one subEntry column. */
export function parseColumns(spec: string): Layout {
  const names = spec.split(',').map((s) => s.trim());
  const entry = names.findIndex((n) => ENTRY_NAME.test(n));
  const subEntry = names.findIndex((n) => SUB_ENTRY_NAME.test(n));
  const unknown = names.filter((n) => !ENTRY_NAME.test(n) && !SUB_ENTRY_NAME.test(n) && !IGNORED_NAME.test(n));
  const hint = 'Name the columns in order: entry, subEntry, or - for a column to ignore, e.g. --columns entry,-,subEntry.';
  if (unknown.length) throw new UsageError(`--columns "${spec}": unknown column ${unknown.map((u) => `"${u}"`).join(', ')}`, hint);
  if (entry < 0) throw new UsageError(`--columns "${spec}" has no entry column`, hint);
  if (names.filter((n) => ENTRY_NAME.test(n)).length > 1 || names.filter((n) => SUB_ENTRY_NAME.test(n)).length > 1)
    throw new UsageError(`--columns "${spec}" names a column twice`, hint);
  return { entry, subEntry, width: names.length };
}

function headerLayout(cells: string[]): Layout | undefined {
  const names = cells.map((c) => c.trim());
  const entry = names.findIndex((n) => ENTRY_NAME.test(n));
  if (entry < 0) return undefined;
  return { entry, subEntry: names.findIndex((n) => SUB_ENTRY_NAME.test(n)), width: cells.length };
}

/**
 * Line numbers from byte offsets: the positions of the line-end byte in the chunks that records can still refer to.
 * `linesBefore(x)` counts the line ends before absolute offset x.
 */
class LineIndex {
  private chunks: Array<{ start: number; end: number; before: number; newlines: Uint32Array }> = [];
  private total = 0;
  private lines = 0;

  constructor(private readonly eol: LineEnd) {}

  add(buf: Buffer): void {
    const found: number[] = [];
    for (let i = buf.indexOf(this.eol); i !== -1; i = buf.indexOf(this.eol, i + 1)) found.push(i);
    this.chunks.push({ start: this.total, end: this.total + buf.length, before: this.lines, newlines: Uint32Array.from(found) });
    this.total += buf.length;
    this.lines += found.length;
  }

  linesBefore(x: number): number {
    for (let c = this.chunks.length - 1; c >= 0; c--) {
      const ch = this.chunks[c];
      if (x < ch.start && c > 0) continue;
      const rel = x - ch.start;
      let lo = 0;
      let hi = ch.newlines.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ch.newlines[mid] < rel) lo = mid + 1;
        else hi = mid;
      }
      return ch.before + lo;
    }
    return 0;
  }

  /** `bytes` more bytes holding `lines` line ends, whose positions are not needed (read by the fast lane). */
  skip(bytes: number, lines: number): void {
    this.chunks = [];
    this.total += bytes;
    this.lines += lines;
  }

  /** Chunks wholly before `x` are no longer needed. */
  forgetBefore(x: number): void {
    while (this.chunks.length > 1 && this.chunks[0].end < x) this.chunks.shift();
  }
}

const countNewlines = (cells: string[], eol: string) => {
  let n = 0;
  for (const c of cells) for (let i = c.indexOf(eol); i !== -1; i = c.indexOf(eol, i + 1)) n++;
  return n;
};

/** A 52-bit hash of an entry, to find duplicate candidates in 8 bytes per row (exact comparison happens on a second pass). */
export function entryHash(s: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x100000 + (b >>> 12);
}

/** entryHash of the ASCII text in `buf[from, to)` (its bytes are its characters), without making the string. */
function entryHashOf(buf: Buffer, from: number, to: number): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = from; i < to; i++) {
    const c = buf[i];
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x100000 + (b >>> 12);
}

export interface ScanOptions extends CsvOptions {
  /** Hashes of entries that occur more than once: those rows are compared exactly and later copies rejected. */
  duplicateHashes?: ReadonlySet<number>;
  /** Every valid row's entry hash (the first pass collects them). */
  onEntryHash?: (hash: number) => void;
  /** Every valid row, duplicates left out as far as `duplicateHashes` tells them (the check spools them for the send pass). */
  onValidRow?: (entry: string, subEntry: string | null) => void;
  /** Every chunk of the file as read (for the content hash). */
  onBytes?: (chunk: Buffer) => void;
  /** Under --columns without --header, the first row reads `entry` in the entry column: a header taken for data. */
  onHeaderLike?: (line: number) => void;
  /** A header row was read (and skipped). */
  onHeader?: () => void;
  /** false: every byte through csv-parse, no fast lane (tests compare the two). */
  fastLane?: boolean;
  /**
   * Valid rows of plain printable ASCII (no quote, no backslash) read by the fast lane, as the byte ranges of their
   * entry and subEntry in `buf` (`ss === se`: no subEntry), valid until the call returns. They are neither yielded
   * nor given to onValidRow: the caller counts them. Without it every row is yielded.
   */
  onAsciiRow?: (buf: Buffer, es: number, ee: number, ss: number, se: number) => void;
}

/** The data rows of a CSV file in order, a chunk's worth at a time; rejects carry their reason. */
export async function* scanCsv(file: string, opts: ScanOptions = {}): AsyncGenerator<CsvItem[]> {
  let layout: Layout | undefined = opts.columns !== undefined ? parseColumns(opts.columns) : undefined;
  const delimiter = parseDelimiter(opts.delimiter);
  /** The names of the columns, for a --rejects file: the header, --columns, or entry,subEntry. */
  let columnNames: string[] = opts.columns !== undefined ? opts.columns.split(',').map((c) => c.trim()) : ['entry', 'subEntry'];
  /** Another delimiter with which a first row that is no header splits into one (`entry;subEntry`), if any. */
  const splitsOtherwise = (cells: string[]): string | undefined => {
    if (cells.length !== 1) return undefined;
    return OTHER_DELIMITERS.find((d) => d !== delimiter && cells[0].includes(d) && headerLayout(cells[0].split(d)) !== undefined);
  };
  let skipHeader = layout !== undefined && Boolean(opts.header);
  let firstRow = true;
  const firstSeen = new Map<string, number>();
  let out: CsvItem[] = [];
  let fatal = false;
  let lastErrorOffset = -1;
  let lastErrorLine = -1;
  // Set once the file's line ends are known (the first line end decides, see lineEndOf).
  let eol: LineEnd = 10;
  let index = new LineIndex(eol);
  let parser: ReturnType<typeof parse> | undefined;

  const start = (lineEnd: LineEnd) => {
    eol = lineEnd;
    index = new LineIndex(eol);
    parser = parse({
      encoding: 'utf8',
      bom: false,
      delimiter,
      relax_column_count: true,
      skip_empty_lines: false,
      skip_records_with_error: true,
      record_delimiter: eol === 13 ? ['\r'] : ['\r\n', '\n'],
      max_record_size: MAX_RECORD_BYTES,
      // Every record handled here, as csv-parse reads it; none is kept for the stream's readers.
      on_record: (cells: string[]) => {
        onRecord(cells);
        return null;
      },
      on_skip: (err: Error | undefined) => {
        const e = err as (Error & { code?: string }) | undefined;
        const offset = csvOffset();
        const line = index.linesBefore(offset) + 1;
        // Several errors in one record (`a"b"c,d"e` has two): report the first only.
        if (offset === lastErrorOffset || line === lastErrorLine || fatal) return;
        lastErrorOffset = offset;
        lastErrorLine = line;
        const code = e?.code ?? '';
        fatal = FATAL_CSV_ERRORS.has(code);
        const words = CSV_ERROR_WORDS[code] ?? e?.message ?? 'unreadable record';
        const reason = `malformed CSV: ${words}` + (fatal ? '; the rest of the file was not read' : '');
        const hint = code === 'CSV_MAX_RECORD_SIZE' ? RECORD_SIZE_HINT : QUOTING_HINT;
        out.push({ line, entry: '', subEntry: null, reason, fatal, ...(fatal ? { hint } : {}), columns: columnNames });
        // Past the size limit csv-parse would go on filling the record: stop it here, memory stays flat.
        if (code === 'CSV_MAX_RECORD_SIZE') throw STOP;
      },
    });
    // Errors come back through write's and end's callbacks (csvFeed); the event would otherwise be unhandled.
    parser.on('error', () => {});
  };

  /** A record from csv-parse: its line from its end's byte offset in the file, less the line ends inside it. */
  const onRecord = (cells: string[]) => {
    if (fatal) return;
    const end = csvOffset();
    const terminated = index.linesBefore(end) - index.linesBefore(end - 1) === 1;
    const line = index.linesBefore(end) - countNewlines(cells, eol === 13 ? '\r' : '\n') - (terminated ? 1 : 0) + 1;
    index.forgetBefore(end - 1);
    record(cells, line);
  };

  const record = (cells: string[], line: number) => {
    if (cells.every((c) => c === '')) return; // an empty line
    if (!layout) {
      layout = headerLayout(cells);
      if (layout) {
        opts.onHeader?.();
        columnNames = cells;
        return;
      }
      const other = splitsOtherwise(cells);
      if (other) {
        // `entry;subEntry` read with commas: one column whose name holds the header. Every row would be one entry.
        fatal = true;
        out.push({
          line,
          entry: '',
          subEntry: null,
          reason: `the header "${cells[0]}" is one column with ${describeDelimiter(delimiter)} between fields, but entry and subEntry with ${describeDelimiter(other)}; the file was not read further`,
          fatal,
          hint: `Pass --delimiter ${other === '\t' ? 'tab' : `'${other}'`} (spreadsheets write ';' between fields in many locales).`,
        });
        return;
      }
      if (cells.some((c) => SUB_ENTRY_NAME.test(c.trim()))) {
        // A header after all, but which column is the entry? Guessing could swap entry and subEntry on every row.
        fatal = true;
        out.push({
          line,
          entry: '',
          subEntry: null,
          reason: 'the header names a subEntry column but no entry column; the file was not read further',
          fatal,
          hint: 'Name the entry column "entry" in the header, or give the columns with --columns (e.g. --columns entry,subEntry --header).',
        });
        return;
      }
      layout = { entry: 0, subEntry: 1 };
    } else if (skipHeader) {
      skipHeader = false;
      opts.onHeader?.();
      columnNames = cells;
      return;
    } else if (firstRow && opts.columns !== undefined && ENTRY_NAME.test((cells[layout.entry] ?? '').trim())) {
      opts.onHeaderLike?.(line);
    }
    firstRow = false;
    out.push(classify(cells, line, layout));
  };

  const classify = (cells: string[], line: number, l: Layout): CsvItem => {
    const entry = cells[l.entry] ?? '';
    const sub = l.subEntry >= 0 ? (cells[l.subEntry] ?? '') : '';
    const item: CsvItem = { line, entry, subEntry: sub === '' ? null : sub };
    const expected = l.width ?? (cells.length <= 2 ? cells.length : 2);
    if (cells.length !== expected) item.reason = `has ${cells.length} fields, expected ${l.width ?? '1 or 2 (entry,subEntry)'}`;
    else item.reason = textProblem('entry', entry) ?? (sub !== '' ? textProblem('subEntry', sub) : undefined);
    if (item.reason) return Object.assign(item, { cells, columns: columnNames });
    const h = entryHash(entry);
    opts.onEntryHash?.(h);
    if (opts.duplicateHashes?.has(h)) {
      const first = firstSeen.get(entry);
      if (first !== undefined) item.reason = `duplicate entry "${entry}" (first on line ${first})`;
      else firstSeen.set(entry, line);
    }
    if (!item.reason) opts.onValidRow?.(entry, item.subEntry);
    return item;
  };

  /**
   * The fast lane: while no quote has been seen, a line is a record and its fields are the bytes between commas,
   * as csv-parse would read them (a CR before the LF belongs to the line end; each field decoded as UTF-8 on its
   * own), without csv-parse's per-character work. From the line holding the first quote on, or a line longer than
   * a read chunk, every byte goes to csv-parse, started there as if the file began at that line (csvBase).
   */
  let fast = opts.fastLane !== false;
  /** Bytes of a line the fast lane has not seen the end of yet. */
  let carry: Buffer | undefined;
  /** The lines and bytes the fast lane took: csv-parse's offsets count from there. */
  let fastLines = 0;
  let csvBase = 0;
  const csvOffset = () => csvBase + parser!.info.bytes;

  /**
   * The complete lines of `buf[0, end)` (each ends in an eol byte), numbered from line `fastLines + 1`. Decoding
   * them as one text is decoding each field alone: line ends and commas are ASCII, never part of a bad sequence.
   */
  const fastRecords = (buf: Buffer, end: number) => {
    for (let from = 0; from < end && !fatal; ) {
      ++fastLines;
      if (onAscii && layout && !skipHeader && !firstRow) {
        const next = asciiRow(buf, from, end, layout, onAscii);
        if (next >= 0) {
          from = next;
          continue;
        }
      }
      const eolAt = buf.indexOf(eol, from);
      const to = eol === 10 && eolAt > from && buf[eolAt - 1] === 13 ? eolAt - 1 : eolAt;
      record(buf.toString('utf8', from, to).split(delimiter), fastLines);
      from = eolAt + 1;
    }
  };

  /** The byte lane (when the caller takes rows as bytes): the delimiter as one byte, else none. */
  const onAscii = opts.onAsciiRow && delimiter.charCodeAt(0) < 0x80 ? opts.onAsciiRow : undefined;
  /** Per byte: 1 a byte of a plain text (printable ASCII, not a quote or backslash), 2 the delimiter, 0 anything else. */
  const byteKind = new Uint8Array(256);
  for (let c = 0x21; c < 0x7f; c++) byteKind[c] = c === 0x22 || c === 0x5c ? 0 : 1;
  byteKind[delimiter.charCodeAt(0) & 0xff] = 2;
  const { min: minText, max: maxText } = LIMITS.wordMemoryText;

  /**
   * The line at `from` (it ends before `end`) read without making a string: when each of its fields is printable
   * ASCII without quote or backslash (the JSON of such a text is the text in quotes), in the layout's number of
   * fields, with an entry and subEntry the rules accept and an entry not among the duplicate candidates, the row is
   * valid as `classify` would find it: it goes to `onAsciiRow` as byte ranges, and the offset after its line end is
   * returned. Anything else returns -1 before any side effect, and the line takes the string path.
   */
  const asciiRow = (buf: Buffer, from: number, end: number, l: Layout, take: NonNullable<ScanOptions['onAsciiRow']>): number => {
    let field = 0;
    let start = from;
    let es = -1;
    let ee = -1;
    let ss = 0;
    let se = 0;
    let i = from;
    let next = -1;
    for (; i < end; i++) {
      const c = buf[i];
      const k = byteKind[c];
      if (k === 1) continue;
      if (k === 0) {
        // The line end (a CR before the LF belongs to it), or a byte the string path must judge.
        if (c === eol) next = i + 1;
        else if (c === 13 && eol === 10 && buf[i + 1] === 10) next = i + 2;
        else return -1;
      }
      if (field === l.entry) {
        es = start;
        ee = i;
      } else if (field === l.subEntry) {
        ss = start;
        se = i;
      }
      field++;
      start = i + 1;
      if (next >= 0) break;
    }
    if (next < 0) return -1;
    if (field !== (l.width ?? (field <= 2 ? field : 2))) return -1;
    if (es < 0 || ee - es < minText || ee - es > maxText || se - ss > maxText) return -1;
    const h = entryHashOf(buf, es, ee);
    // A duplicate candidate is compared exactly on the string path (which then reports the hash itself).
    if (opts.duplicateHashes?.has(h)) return -1;
    opts.onEntryHash?.(h);
    take(buf, es, ee, ss, se);
    return next;
  };

  /** A chunk to csv-parse (undefined: the end of the file); its records and errors are handled when this resolves. */
  const csvFeed = async (chunk: Buffer | undefined) => {
    if (chunk) index.add(chunk);
    const p = parser!;
    // A copy: csv-parse keeps the end of a chunk it has not finished with, and the chunk's bytes are read over.
    const err = await new Promise<Error | null | undefined>((resolve) => (chunk ? p.write(Buffer.from(chunk), resolve) : p.end(resolve)));
    if (err && err !== STOP) throw new UsageError(`cannot read ${file} as CSV: ${err.message}`);
  };

  /** Hand the rest of the file, from `buf`, to csv-parse. */
  const toCsv = (buf: Buffer) => {
    fast = false;
    carry = undefined;
    index.skip(csvBase, fastLines);
    return csvFeed(buf);
  };

  /** `carry` then `chunk` in one buffer, kept for the next chunk's (the chunks themselves are read into one buffer). */
  let joinBuf: Buffer | undefined;
  const joined = (head: Buffer, chunk: Buffer): Buffer => {
    const length = head.length + chunk.length;
    if (!joinBuf || joinBuf.length < length) joinBuf = Buffer.allocUnsafe(Math.max(length, 2 * CHUNK_BYTES));
    head.copy(joinBuf, 0);
    chunk.copy(joinBuf, head.length);
    return joinBuf.subarray(0, length);
  };

  const feed = async (chunk: Buffer | undefined): Promise<void> => {
    if (!fast) return csvFeed(chunk);
    if (chunk === undefined) {
      // The last line has no line end: a record all the same, unless it holds a quote.
      const last = carry;
      carry = undefined;
      if (!last?.length) return;
      // csv-parse keeps a CR at the very end as text (it is no line end without its LF).
      if (last.includes(34) || last[last.length - 1] === 13) {
        await toCsv(last);
        return csvFeed(undefined);
      }
      const withEnd = Buffer.concat([last, Buffer.from([eol])]);
      fastRecords(withEnd, withEnd.length);
      return;
    }
    const buf = carry ? joined(carry, chunk) : chunk;
    const quote = buf.indexOf(34);
    // The complete lines before the first quote (if any) are the fast lane's.
    const end = buf.lastIndexOf(eol, quote === -1 ? buf.length - 1 : quote) + 1;
    if (end === 0 && (quote !== -1 || buf.length > CHUNK_BYTES)) return toCsv(buf);
    fastRecords(buf, end);
    csvBase += end;
    if (fatal) return;
    if (quote !== -1) return toCsv(buf.subarray(end));
    carry = end < buf.length ? Buffer.from(buf.subarray(end)) : undefined;
  };

  let first = true;
  /** The start of the file, held until its first line end says how lines end. */
  let head: Buffer[] = [];
  let headBytes = 0;
  for await (const raw of readChunks(file, CHUNK_BYTES)) {
    let chunk = raw;
    opts.onBytes?.(chunk);
    if (first && UTF16_BOMS.some((b) => chunk.subarray(0, 2).equals(b))) {
      const reason = 'the file is UTF-16 (it starts with a UTF-16 byte-order mark); the file was not read';
      yield [{ line: 1, entry: '', subEntry: null, reason, fatal: true, hint: 'Save the file as UTF-8, e.g. iconv -f UTF-16 -t UTF-8 terms.csv > terms-utf8.csv.' }];
      return;
    }
    if (first && chunk.subarray(0, 3).equals(BOM)) chunk = chunk.subarray(3);
    first = false;
    if (!parser) {
      head.push(Buffer.from(chunk));
      headBytes += chunk.length;
      chunk = head.length === 1 ? chunk : Buffer.concat(head);
      const found = lineEndOf(chunk, false);
      // No line end in the first MAX_RECORD_BYTES: read as LF, and the record-size limit says the rest.
      if (found === undefined && headBytes <= MAX_RECORD_BYTES) continue;
      start(found ?? 10);
      head = [];
    }
    await feed(chunk);
    if (out.length) {
      yield out;
      out = [];
    }
    if (fatal) return;
  }
  if (!parser) {
    const rest = Buffer.concat(head);
    start(lineEndOf(rest, true) ?? 10);
    await feed(rest);
  }
  if (!fatal) await feed(undefined);
  if (out.length) yield out;
}

/**
 * The bytes of `file` in chunks of at most `size`, each read into the same buffer: a chunk is good until the next one
 * is asked for. (A stream's new buffer per chunk is memory outside the heap that only a garbage collection returns,
 * and reading a file makes little garbage otherwise: tens of MB of them piled up.) Read synchronously: the file is a
 * regular file (standard input is copied to one first), a read of a chunk from the page cache takes tens of µs,
 * and an asynchronous one went to libuv's thread pool and back for each chunk: two thread wake-ups, which on a
 * loaded machine cost milliseconds each (measured: the check of a 28 MB file 0.74–0.80 s of wall time for 0.4 s of
 * CPU, the rest waiting for reads). Before each read the event loop turns once (setImmediate, no thread involved):
 * a consumer that awaits nothing else still lets timers (the spinner) and signals (Ctrl-C) in between chunks.
 */
export async function* readChunks(file: string, size: number): AsyncGenerator<Buffer> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(size);
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const bytesRead = readSync(fd, buf, 0, size, null);
      if (bytesRead === 0) return;
      yield buf.subarray(0, bytesRead);
    }
  } finally {
    closeSync(fd);
  }
}

/** A valid row, as the send pass needs it (the line only when read from the CSV itself). */
export interface ValidRow {
  entry: string;
  subEntry: string | null;
  line?: number;
}

/** A row as the JSON item of a create request: the spool's line, and what a batch body lists. */
export function rowJson(entry: string, subEntry: string | null): string {
  return subEntry === null ? `{"entry":${JSON.stringify(entry)}}` : `{"entry":${JSON.stringify(entry)},"subEntry":${JSON.stringify(subEntry)}}`;
}

/**
 * The valid rows only, in file order, after a check: from the check's spool when it has one (no second CSV parse),
 * else from the file again. Later copies of a duplicate entry are left out, as the check reported them.
 */
export async function* validRows(file: string, opts: CsvOptions, check: Pick<CsvCheck, 'duplicateHashes' | 'spool'>): AsyncGenerator<ValidRow[]> {
  if (check.spool) {
    yield* spooledRows(check.spool);
    return;
  }
  for await (const items of scanCsv(file, { ...opts, duplicateHashes: check.duplicateHashes })) {
    const ok = items.filter((i) => !i.reason);
    if (ok.length) yield ok;
  }
}

/** A batch of a create request: its rows and the request body as the bytes of its JSON text (`{"entries":[…]}`). */
export interface BodyBatch {
  /** From 0, in file order. */
  index: number;
  rows: number;
  /** Undefined for a batch `skip` left out. */
  body?: Buffer;
  /**
   * The body's memory may be used for a later batch's body: call it once the request is over and answered (its
   * bytes were read by the service), and no more attempt of it will be made. Not calling it is always safe.
   */
  release?: () => void;
}

const BODY_HEAD = Buffer.from('{"entries":[');
/** Released body buffers kept for reuse (more than the requests in flight are never waiting). */
const MAX_FREE_BODIES = 16;
/** The bytes of a spool line besides its texts' (`{"entry":"`, `","subEntry":"`, `"}` and the line end). */
const ASCII_LINE_EXTRA = '{"entry":"","subEntry":""}\n'.length;
const ENTRY_OPEN = Buffer.from('{"entry":"');
const SUB_OPEN = Buffer.from('","subEntry":"');
const BODY_TAIL = Buffer.from(']}');

/**
 * The rows to send in batches of `size`, each with its request body; the bodies of batches for which `skip` says so
 * are not built. From the check's spool, a body is the bytes of its lines with the line ends turned into commas;
 * without a spool, the rows are read from the CSV again and each is written as the spool would hold it.
 */
export async function* bodyBatches(file: string, opts: CsvOptions, check: Pick<CsvCheck, 'duplicateHashes' | 'spool'>, size: number, skip: (index: number) => boolean = () => false): AsyncGenerator<BodyBatch> {
  if (check.spool) {
    yield* spooledBatches(check.spool, size, skip);
    return;
  }
  let index = 0;
  let lines: string[] = [];
  let rows = 0;
  for await (const items of validRows(file, opts, check)) {
    for (const r of items) {
      if (!skip(index)) lines.push(rowJson(r.entry, r.subEntry));
      if (++rows === size) {
        yield { index, rows, body: skip(index) ? undefined : Buffer.from(`{"entries":[${lines.join(',')}]}`) };
        index++;
        rows = 0;
        lines = [];
      }
    }
  }
  if (rows) yield { index, rows, body: skip(index) ? undefined : Buffer.from(`{"entries":[${lines.join(',')}]}`) };
}

/**
 * The spool's lines in batches of `size`: each body is made from the lines' bytes, without a string per row. The
 * spool is read into one buffer, over and over (fresh memory per read is memory outside the heap that only a garbage
 * collection returns); each line is copied once, into its batch's body, its line end turned into the comma between
 * items (the last one's into the `]`). The line ends are found by one scan of each chunk, counting rows as it goes.
 */
async function* spooledBatches(path: string, size: number, skip: (index: number) => boolean): AsyncGenerator<BodyBatch> {
  let index = 0;
  let rows = 0;
  /** The body being made (undefined while the batch is skipped), and how much of it is written. */
  let out: Buffer | undefined;
  let at = 0;
  /**
   * The room a body starts with: the longest one so far, and 1/16 more (a body is a view of its buffer, which stays
   * allocated with it until the request is over: no more room than bodies need).
   */
  let expected = 16 * 1024;
  /**
   * Buffers of bodies whose requests are over (release), made again into later bodies: a new one per batch was tens
   * of MB of memory outside the heap over an import, returned only once a garbage collection found its Buffer, and
   * which the allocator then kept (measured at the end of a 1M-row import: malloc's heap 8–10 MB, 13–22 MB before).
   * Only a batch that was answered is released (import.ts): the service has read its bytes.
   */
  const free: Buffer[] = [];
  /**
   * A body's buffer: a released one with room for `expected`, or a new one with 1/8 more (`expected` creeps up as
   * texts lengthen, and a buffer made at exactly the last size would be too small for the next, dropped, and made
   * again). Its own memory (allocUnsafeSlow): not a slice of Buffer's shared pool, whose size varies with the Node
   * version (8 kB on 22, 64 kB on 24), so that which buffers are reused does not depend on it.
   */
  const take = () => {
    for (let b = free.pop(); b; b = free.pop()) if (b.length >= expected) return b;
    return Buffer.allocUnsafeSlow(expected + (expected >> 3));
  };
  const begin = () => {
    at = 0;
    out = skip(index) ? undefined : take();
    if (out) at = BODY_HEAD.copy(out, 0);
  };
  /** `chunk[from, to)` appended to the body being made. */
  const append = (chunk: Buffer, from: number, to: number) => {
    if (!out || to <= from) return;
    if (at + to - from + BODY_TAIL.length > out.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(2 * out.length, at + to - from + BODY_TAIL.length));
      out.copy(bigger, 0, 0, at);
      out = bigger;
    }
    at += chunk.copy(out, at, from, to);
  };
  const emit = (): BodyBatch => {
    let body: Buffer | undefined;
    let release: (() => void) | undefined;
    if (out) {
      // The last line's end (a comma now) becomes the `]`.
      at += BODY_TAIL.copy(out, at - 1) - 1;
      body = out.subarray(0, at);
      expected = Math.max(expected, at + (at >> 4));
      const buffer = out;
      let released = false;
      release = () => {
        if (released) return;
        released = true;
        if (free.length < MAX_FREE_BODIES) free.push(buffer);
      };
    }
    const b = { index, rows, body, release };
    index++;
    rows = 0;
    begin();
    return b;
  };
  begin();
  for await (const chunk of readChunks(path, 4 * CHUNK_BYTES)) {
    for (let from = 0; ; ) {
      const want = size - rows;
      const end = linesToCommas(chunk, from, want);
      if (end < 0) {
        // A batch not complete yet, or an incomplete line: copied before the buffer is read over.
        rows += -end - 1;
        append(chunk, from, chunk.length);
        break;
      }
      rows += want;
      append(chunk, from, end);
      from = end;
      yield emit();
    }
  }
  if (rows) yield emit();
}

/**
 * In `buf` from `from`: each line end turned into a comma, up to and including the `want`-th one, and the offset
 * after it; when the buffer holds fewer, all of them are turned and `-(1 + how many)` is returned.
 */
function linesToCommas(buf: Buffer, from: number, want: number): number {
  let found = 0;
  // indexOf is the C library's search: for lines of a few dozen bytes, cheaper than a loop over every byte.
  for (let i = buf.indexOf(10, from); i !== -1; i = buf.indexOf(10, i + 1)) {
    buf[i] = 44;
    if (++found === want) return i + 1;
  }
  return -1 - found;
}

/**
 * The rows to send, as `{"entry":…,"subEntry":…}` lines (rowJson): written by the check pass, read by the send pass.
 * Writing stops at the first failure (a full temporary directory): the send pass then parses the CSV again.
 */
class RowSpool {
  private fd: number | undefined;
  /** Lines not written yet: one write of about CHUNK_BYTES at a time (a write per row costs more than the row). */
  private pending = Buffer.allocUnsafe(CHUNK_BYTES);
  private at = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'wx', 0o600);
  }
  add(entry: string, subEntry: string | null): void {
    if (this.fd === undefined) return;
    const line = rowJson(entry, subEntry) + '\n';
    const bytes = Buffer.byteLength(line);
    if (this.at + bytes > this.pending.length) this.flush();
    if (bytes > this.pending.length) this.pending = Buffer.allocUnsafe(bytes);
    this.at += this.pending.write(line, this.at);
  }
  /** A row of ASCII text needing no JSON escape (scanCsv's onAsciiRow): its line made from the bytes. */
  addAscii(buf: Buffer, es: number, ee: number, ss: number, se: number): void {
    if (this.fd === undefined) return;
    if (this.at + ee - es + se - ss + ASCII_LINE_EXTRA > this.pending.length) this.flush();
    // Byte by byte: for a few dozen bytes a loop costs less than Buffer's copy and write.
    const out = this.pending;
    let at = this.at;
    for (let i = 0; i < ENTRY_OPEN.length; i++) out[at++] = ENTRY_OPEN[i];
    for (let i = es; i < ee; i++) out[at++] = buf[i];
    if (ss < se) {
      for (let i = 0; i < SUB_OPEN.length; i++) out[at++] = SUB_OPEN[i];
      for (let i = ss; i < se; i++) out[at++] = buf[i];
    }
    out[at++] = 0x22; // "
    out[at++] = 0x7d; // }
    out[at++] = 0x0a;
    this.at = at;
  }
  private flush(): void {
    const bytes = this.pending;
    const length = this.at;
    this.at = 0;
    try {
      for (let at = 0; at < length; ) at += writeSync(this.fd!, bytes, at, length - at);
    } catch {
      this.abandon();
    }
  }
  /** Close it; the path when it holds every row, else undefined (and no file). */
  finish(): string | undefined {
    if (this.fd !== undefined && this.at) this.flush();
    if (this.fd === undefined) return undefined;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
      return this.path;
    } catch {
      rmSync(this.path, { force: true });
      return undefined;
    }
  }
  abandon(): void {
    const fd = this.fd;
    this.fd = undefined;
    this.at = 0;
    try {
      if (fd !== undefined) closeSync(fd);
    } catch {}
    rmSync(this.path, { force: true });
  }
}

async function* spooledRows(path: string): AsyncGenerator<ValidRow[]> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    const text = rest + decoder.write(chunk as Buffer);
    const lines = text.split('\n');
    rest = lines.pop()!;
    const rows: ValidRow[] = [];
    for (const line of lines) {
      const r = JSON.parse(line) as { entry: string; subEntry?: string };
      rows.push({ entry: r.entry, subEntry: r.subEntry ?? null });
    }
    if (rows.length) yield rows;
  }
}

export interface CsvCheck {
  /** Data rows (header and empty lines not counted). */
  rows: number;
  valid: number;
  rejected: number;
  /** A structural error stopped the reading: the rows after it are unknown. */
  fatal: boolean;
  /** sha256 of the file's bytes. */
  sha256: string;
  size: number;
  mtimeMs: number;
  duplicateHashes: ReadonlySet<number>;
  /** The line of a first row that looks like a header but is read as data (--columns without --header). */
  headerLike?: number;
  /** The file has a header row. */
  header: boolean;
  /** The rows to send (RowSpool), for the send pass; absent when they could not be written. */
  spool?: string;
}

/** The CSV flags, and (for tests) whether the fast lane reads the lines it can. */
export type CheckOptions = CsvOptions & Pick<ScanOptions, 'fastLane'>;

/**
 * Hashes that occur more than once. A counting pass on the top 16 of their 52 bits puts equal hashes into one
 * bucket of a copy (a bucket holds ~n/65536 of them), then each bucket is sorted alone: a few times faster than
 * sorting a million numbers as one array.
 */
export function repeated(hashes: Float64Array): Set<number> {
  const out = new Set<number>();
  const n = hashes.length;
  if (n < 2) return out;
  const SHIFT = 2 ** 36; // 52 - 16 bits: the quotient is below 2 ** 16, and `| 0` is its floor
  const starts = new Uint32Array((1 << 16) + 1);
  for (let i = 0; i < n; i++) starts[((hashes[i] / SHIFT) | 0) + 1]++;
  for (let b = 1; b < starts.length; b++) starts[b] += starts[b - 1];
  const next = starts.slice(0, -1);
  const sorted = new Float64Array(n);
  for (let i = 0; i < n; i++) sorted[next[(hashes[i] / SHIFT) | 0]++] = hashes[i];
  for (let b = 0; b < 1 << 16; b++) {
    const from = starts[b];
    const to = starts[b + 1];
    if (to - from < 2) continue;
    if (to - from > 32) sorted.subarray(from, to).sort();
    else
      for (let i = from + 1; i < to; i++) {
        // insertion sort: a bucket holds a handful of hashes
        const h = sorted[i];
        let j = i - 1;
        for (; j >= from && sorted[j] > h; j--) sorted[j + 1] = sorted[j];
        sorted[j + 1] = h;
      }
    for (let i = from + 1; i < to; i++) if (sorted[i] === sorted[i - 1]) out.add(sorted[i]);
  }
  return out;
}

/** A spool in `dir`, or undefined when it cannot be made (the send pass then reads the CSV again). */
function openSpool(dir: string | undefined, name: string): RowSpool | undefined {
  try {
    return dir ? new RowSpool(join(dir, name)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The validation pass: counts, the content hash and the duplicate candidates, and (given `spoolDir`) the rows to
 * send spooled for the send pass; when anything is wrong, a second pass hands every rejected row to `onReject` in
 * file order (and, when entries repeat, spools the rows again without the later copies).
 */
export async function checkCsv(file: string, opts: CheckOptions, onReject: (item: CsvItem) => void, spoolDir?: string): Promise<CsvCheck> {
  const st = await stat(file);
  const spools: RowSpool[] = [];
  const spool = (name: string) => {
    const s = openSpool(spoolDir, name);
    if (s) spools.push(s);
    return s;
  };
  try {
    const { check, spool: last } = await checkPasses(file, opts, onReject, st, spool);
    for (const s of spools) if (s !== last) s.abandon();
    const spooled = last?.finish();
    return spooled ? { ...check, spool: spooled } : check;
  } catch (e) {
    for (const s of spools) s.abandon();
    throw e;
  }
}

async function checkPasses(
  file: string,
  opts: CheckOptions,
  onReject: (item: CsvItem) => void,
  st: { size: number; mtimeMs: number },
  spool: (name: string) => RowSpool | undefined,
): Promise<{ check: CsvCheck; spool: RowSpool | undefined }> {
  const sha = createHash('sha256');
  let hashes = new Float64Array(1 << 16);
  let n = 0;
  let rows = 0;
  let rejected = 0;
  let fatal = false;
  let headerLike: number | undefined;
  let header = false;
  let spooled = spool('rows.jsonl');
  const pass1: ScanOptions = {
    ...opts,
    onHeader: () => (header = true),
    onHeaderLike: (line) => (headerLike = line),
    onBytes: (b) => sha.update(b),
    onValidRow: spooled ? (entry, sub) => spooled!.add(entry, sub) : undefined,
    onAsciiRow: spooled
      ? (buf, es, ee, ss, se) => {
          ascii++;
          spooled!.addAscii(buf, es, ee, ss, se);
        }
      : () => ascii++,
    onEntryHash: (h) => {
      if (n === hashes.length) {
        const bigger = new Float64Array(hashes.length * 2);
        bigger.set(hashes);
        hashes = bigger;
      }
      hashes[n++] = h;
    },
  };
  /** Valid rows read by the byte lane (not yielded as items). */
  let ascii = 0;
  for await (const items of scanCsv(file, pass1)) {
    rows += items.length;
    for (const i of items) if (i.reason) rejected++;
  }
  rows += ascii;
  const duplicateHashes = repeated(hashes.subarray(0, n));
  hashes = new Float64Array(0);
  if (rejected > 0 || duplicateHashes.size > 0) {
    rows = 0;
    rejected = 0;
    // The first pass spooled every copy of a repeated entry: this pass spools the rows again, first copies only.
    if (duplicateHashes.size > 0 && spooled) spooled = spool('rows-unique.jsonl');
    const to = duplicateHashes.size > 0 ? spooled : undefined;
    ascii = 0;
    const onAsciiRow: ScanOptions['onAsciiRow'] = to
      ? (buf, es, ee, ss, se) => {
          ascii++;
          to.addAscii(buf, es, ee, ss, se);
        }
      : () => ascii++;
    for await (const items of scanCsv(file, { ...opts, duplicateHashes, onValidRow: to ? (e, s) => to.add(e, s) : undefined, onAsciiRow })) {
      rows += items.length;
      for (const i of items) {
        if (!i.reason) continue;
        rejected++;
        fatal ||= Boolean(i.fatal);
        onReject(i);
      }
    }
    rows += ascii;
  }
  const check = { rows, valid: rows - rejected, rejected, fatal, header, sha256: sha.digest('hex'), size: st.size, mtimeMs: st.mtimeMs, duplicateHashes, ...(headerLike !== undefined ? { headerLike } : {}) };
  return { check, spool: spooled };
}
