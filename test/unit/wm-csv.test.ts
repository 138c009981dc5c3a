import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bodyBatches, checkCsv, entryHash, MAX_RECORD_BYTES, parseColumns, readChunks, repeated, scanCsv, validRows, type BodyBatch, type CsvItem, type CsvOptions, type ScanOptions } from '../../src/commands/wm/csv.js';
import { UsageError } from '../../src/errors.js';
import { LIMITS } from '../../src/contract/limits.js';
import { textProblem } from '../../src/commands/wm/rules.js';

const dir = mkdtempSync(join(tmpdir(), 'notevox-wm-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/**
 * Check a CSV text: rejects as `LINE: reason`, valid rows as [line, entry, subEntry]. Every case also checks that the
 * send pass reads the same rows from the check's spool as from the CSV itself.
 */
async function scan(content: string | Buffer, opts: CsvOptions = {}) {
  const file = join(dir, `f${n++}.csv`);
  writeFileSync(file, content);
  const rejects: string[] = [];
  const check = await checkCsv(file, opts, (r) => rejects.push(`${r.line}: ${r.reason}`));
  const rows: Array<[number, string, string | null]> = [];
  for await (const items of validRows(file, opts, { duplicateHashes: check.duplicateHashes })) for (const r of items) rows.push([r.line!, r.entry, r.subEntry]);
  // The fast lane reads every file as csv-parse alone does.
  expect(await scanned(file, { ...opts, duplicateHashes: check.duplicateHashes })).toEqual(await scanned(file, { ...opts, duplicateHashes: check.duplicateHashes, fastLane: false }));
  const spoolDir = mkdtempSync(join(dir, 'spool-'));
  const spooled = await checkCsv(file, opts, () => {}, spoolDir);
  expect(spooled.spool).toBeDefined();
  // The check's fast lane (rows read as bytes) counts, rejects and spools as csv-parse alone does.
  expect(await checkedBoth(file, opts)).toBe(true);
  const fromSpool: Array<[string, string | null]> = [];
  for await (const items of validRows(file, opts, spooled)) for (const r of items) fromSpool.push([r.entry, r.subEntry]);
  expect(fromSpool).toEqual(rows.map(([, e, s]) => [e, s]));
  // The request bodies, in batches of 3 (and of 1000 for large files), from the spool and from the CSV: the same
  // text, each body valid JSON listing the batch's rows as the create request's items.
  const items = rows.map(([, entry, subEntry]) => (subEntry === null ? { entry } : { entry, subEntry }));
  for (const size of [3, 1000]) {
    const bodies = await batchTexts(bodyBatches(file, opts, spooled, size));
    expect(await batchTexts(bodyBatches(file, opts, check, size))).toEqual(bodies);
    expect(bodies.map((b) => b.rows)).toEqual(Array.from({ length: Math.ceil(items.length / size) }, (_, i) => Math.min(size, items.length - i * size)));
    expect(bodies.flatMap((b) => (JSON.parse(b.body!.toString('utf8')) as { entries: unknown[] }).entries)).toEqual(items);
  }
  return { file, check, rejects, rows };
}

/**
 * checkCsv with its fast lanes and with csv-parse alone: the same result (counts, duplicates, hash), the same
 * rejects (line, reason, fields) in the same order, and the same spooled bytes.
 */
async function checkedBoth(file: string, opts: CsvOptions): Promise<boolean> {
  const run = async (fastLane: boolean) => {
    const rejects: CsvItem[] = [];
    const spoolDir = mkdtempSync(join(dir, 'spool-'));
    const check = await checkCsv(file, { ...opts, fastLane }, (r) => rejects.push(r), spoolDir);
    const spool = check.spool ? readFileSync(check.spool, 'utf8') : undefined;
    return { check: { ...check, spool: undefined, duplicateHashes: [...check.duplicateHashes].sort() }, rejects, spool };
  };
  const fast = await run(true);
  expect(fast).toEqual(await run(false));
  return true;
}

/** Every row scanCsv reads, rejects included. */
async function scanned(file: string, opts: ScanOptions): Promise<CsvItem[]> {
  const out: CsvItem[] = [];
  for await (const chunk of scanCsv(file, opts)) out.push(...chunk);
  return out;
}

async function batchTexts(source: AsyncIterable<BodyBatch>): Promise<BodyBatch[]> {
  const out: BodyBatch[] = [];
  // The batch as data (its release function left out: a new one per batch).
  for await (const { index, rows, body } of source) out.push({ index, rows, body });
  expect(out.map((b) => b.index)).toEqual(out.map((_, i) => i));
  return out;
}

describe('wm CSV reading', () => {
  it('reads a header, quotes, embedded commas and quotes, LF', async () => {
    const { rows, rejects, check } = await scan('entry,subEntry\nAcme,ACME\n"Smith,Jones",SJ\n"say""hi""",\nplain,\n');
    expect(rejects).toEqual([]);
    expect(rows).toEqual([
      [2, 'Acme', 'ACME'],
      [3, 'Smith,Jones', 'SJ'],
      [4, 'say"hi"', null],
      [5, 'plain', null],
    ]);
    expect(check).toMatchObject({ rows: 4, valid: 4, rejected: 0, fatal: false });
  });

  it('counts physical lines across CRLF, a BOM, empty lines and quoted line breaks', async () => {
    const text = '\uFEFFentry,subEntry\r\nA1,x\r\n\r\n"two\r\nlines",y\r\nB2,"sub\nwith\nbreaks"\r\n\r\n\r\nC3,z\r\nD4,\r\n';
    const { rows, rejects } = await scan(text);
    expect(rejects).toEqual(['4: entry contains whitespace', '6: subEntry contains whitespace']);
    expect(rows).toEqual([
      [2, 'A1', 'x'],
      [11, 'C3', 'z'],
      [12, 'D4', null],
    ]);
  });

  it('reports every kind of bad row with its line', async () => {
    const text = [
      'Entry,Sub_Entry', // 1: header, any case
      'ok1,a', // 2
      ' spaced,b', // 3
      'in side,c', // 4
      'x'.repeat(64) + ',d', // 5
      'y'.repeat(63) + ',e', // 6: 63 is fine
      'three,fields,here', // 7
      'lonely', // 8: one field under a two-column header
      'ok1,dup', // 9: duplicate of line 2
      ',f', // 10: empty entry
      'subtoolong,' + 'z'.repeat(64), // 11
      'bad"quote,g', // 12: malformed, reading goes on
      'ok2,h', // 13
      '',
    ].join('\n');
    const { rows, rejects } = await scan(text);
    expect(rejects).toEqual([
      '3: entry contains whitespace',
      '4: entry contains whitespace',
      '5: entry is 64 characters long (at most 63)',
      '7: has 3 fields, expected 2',
      '8: has 1 fields, expected 2',
      '9: duplicate entry "ok1" (first on line 2)',
      '10: entry is empty',
      '11: subEntry is 64 characters long (at most 63)',
      '12: malformed CSV: a quote inside an unquoted field',
    ]);
    expect(rows.map((r) => r[0])).toEqual([2, 6, 13]);
  });

  it('rejects bytes that are not UTF-8', async () => {
    const text = Buffer.concat([Buffer.from('good,1\nbad'), Buffer.from([0xff, 0xfe]), Buffer.from(',2\nüber,3\n')]);
    const { rows, rejects } = await scan(text);
    expect(rejects).toEqual(['2: entry is not valid UTF-8']);
    expect(rows).toEqual([
      [1, 'good', '1'],
      [3, 'über', '3'],
    ]);
  });

  it('refuses a UTF-16 file, and rejects the NUL bytes of one without byte-order mark', async () => {
    const utf16 = (text: string, bom: number[]) => Buffer.concat([Buffer.from(bom), Buffer.from(text, 'utf16le')]);
    const le = await scan(utf16('entry\nfoo\nbar\n', [0xff, 0xfe]));
    expect(le.rejects).toEqual(['1: the file is UTF-16 (it starts with a UTF-16 byte-order mark); the file was not read']);
    expect(le.check.fatal).toBe(true);
    expect(le.rows).toEqual([]);
    expect((await scan(Buffer.from([0xfe, 0xff, 0, 0x61, 0, 0x0a]))).check.fatal).toBe(true);
    const noBom = await scan(Buffer.from('foo\nbar\n', 'utf16le'));
    expect(noBom.rows).toEqual([]);
    expect(noBom.rejects[0]).toBe('1: entry contains the control character U+0000 (is the file UTF-16? save it as UTF-8)');
    const escape = await scan('ok\nbell\u0007,x\nsub,a\u001bb\n');
    expect(escape.rejects).toEqual(['2: entry contains the control character U+0007', '3: subEntry contains the control character U+001B']);
    expect(escape.rows.map((r) => r[1])).toEqual(['ok']);
  });

  it('refuses a header that names subEntry but no entry column (the columns cannot be told apart)', async () => {
    const { check, rejects, rows } = await scan('term,SubEntry\nAcme,ACME\n');
    expect(rejects).toEqual(['1: the header names a subEntry column but no entry column; the file was not read further']);
    expect(check.fatal).toBe(true);
    expect(rows).toEqual([]);
    // with --columns the same file is fine
    expect((await scan('term,SubEntry\nAcme,ACME\n', { columns: 'entry,subEntry', header: true })).rows).toEqual([[2, 'Acme', 'ACME']]);
  });

  it('without a header: entry[,subEntry] by position, 1 or 2 fields', async () => {
    const { rows, rejects } = await scan('Alpha\nBeta,B\nGamma,G,extra\n');
    expect(rows).toEqual([
      [1, 'Alpha', null],
      [2, 'Beta', 'B'],
    ]);
    expect(rejects).toEqual(['3: has 3 fields, expected 1 or 2 (entry,subEntry)']);
  });

  it('--columns names the columns (and --header skips a header row)', async () => {
    const noHeader = await scan('1,Alpha,A\n2,Beta,\n', { columns: '-,entry,subEntry' });
    expect(noHeader.rows).toEqual([
      [1, 'Alpha', 'A'],
      [2, 'Beta', null],
    ]);
    const withHeader = await scan('term,id,alt\nAlpha,1,A\n', { columns: 'entry,-,subEntry', header: true });
    expect(withHeader.rows).toEqual([[2, 'Alpha', 'A']]);
    // a first row that looks like a header is data under --columns, and the check says so
    const literal = await scan('\nentry\nBeta\n', { columns: 'entry' });
    expect(literal.rows.map((r) => r[1])).toEqual(['entry', 'Beta']);
    expect(literal.check.headerLike).toBe(2);
    expect((await scan('Entry,x\n', { columns: '-,entry' })).check.headerLike).toBeUndefined();
    expect((await scan('x,ENTRY\n', { columns: '-,entry' })).check.headerLike).toBe(1);
    expect(withHeader.check.headerLike).toBeUndefined();
    expect(noHeader.check.headerLike).toBeUndefined();
    expect(() => parseColumns('subEntry')).toThrow(UsageError);
    expect(() => parseColumns('entry,entry')).toThrow(/twice/);
    expect(() => parseColumns('entry,notes')).toThrow(/unknown column "notes"/);
  });

  it('stops at a quote that never closes: the rest cannot be read reliably', async () => {
    const { check, rejects, rows } = await scan('a,1\nb,2\n"open,3\nc,4\nd,5\n');
    expect(rejects).toEqual(['3: malformed CSV: a quoted field is never closed; the rest of the file was not read']);
    expect(check.fatal).toBe(true);
    expect(rows.map((r) => r[1])).toEqual(['a', 'b']);
    const after = await scan('a,1\n"x" y,2\nb,3\n');
    expect(after.rejects).toEqual(['2: malformed CSV: text after a closing quote; the rest of the file was not read']);
  });

  it('keeps exact line numbers for quoted line breaks across read chunks', async () => {
    const lines: string[] = ['entry,subEntry'];
    let length = lines[0].length;
    while (length < 64 * 1024 - 22) {
      lines.push(`row${lines.length},s`);
      length += 2 + lines[lines.length - 1].length;
    }
    const offset = length + 2;
    lines.push('"spans\n\n\nthe\nboundary",x'); // starts in the first 64 KiB chunk, ends in the second
    expect(offset).toBeLessThan(64 * 1024);
    expect(offset + 25).toBeGreaterThan(64 * 1024);
    const startOfSpan = lines.length;
    for (let i = 0; i < 5000; i++) lines.push(`late${i},`);
    lines.push('bad entry,');
    const { rejects, rows, check } = await scan(lines.join('\r\n') + '\r\n');
    const lastLine = startOfSpan + 4 + 5000 + 1;
    expect(rejects).toEqual([`${startOfSpan}: entry contains whitespace`, `${lastLine}: entry contains whitespace`]);
    expect(rows.at(-1)).toEqual([lastLine - 1, 'late4999', null]);
    expect(check.rows).toBe(lines.length - 1);
  });

  it('hashes the content, and finds duplicates without keeping every entry', async () => {
    const text = 'entry\n' + Array.from({ length: 3000 }, (_, i) => `term${i % 2500}`).join('\n') + '\n';
    const { file, check, rejects } = await scan(text);
    expect(check.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(check).toMatchObject({ rows: 3000, valid: 2500, rejected: 500 });
    expect(rejects[0]).toBe('2502: duplicate entry "term0" (first on line 2)');
    expect(check.duplicateHashes.size).toBe(500);
    expect(file).toMatch(/\.csv$/);
    expect(entryHash('abc')).toBe(entryHash('abc'));
    expect(entryHash('abc')).not.toBe(entryHash('abd'));
    expect(Number.isSafeInteger(entryHash('x'.repeat(63)))).toBe(true);
  });

  it('accepts an empty file and a header alone', async () => {
    expect((await scan('')).check).toMatchObject({ rows: 0, valid: 0 });
    expect((await scan('entry,subEntry\r\n')).check).toMatchObject({ rows: 0, valid: 0 });
  });

  it('reads CR-only line ends (classic Mac OS) as line ends, with their line numbers', async () => {
    const { rows, rejects, check } = await scan('entry,subEntry\rAcme,ACME\r\r"two\rlines",x\rbad entry,\rlast,\r');
    expect(rows).toEqual([
      [2, 'Acme', 'ACME'],
      [7, 'last', null],
    ]);
    expect(rejects).toEqual(['4: entry contains whitespace', '6: entry contains whitespace']);
    expect(check).toMatchObject({ rows: 4, valid: 2 });
    // The first line end decides: a CR at the end of a read chunk waits for the next byte.
    const head = 'x'.repeat(64 * 1024 - 1);
    const split = await scan(`${head}\rsecond\r`);
    expect(split.rows).toEqual([[2, 'second', null]]);
    expect(split.rejects).toEqual(['1: entry is 65535 characters long (at most 63)']);
    // CRLF and LF files are read as before, a lone CR inside them being data.
    expect((await scan('a\r\nb\r\n')).rows).toEqual([
      [1, 'a', null],
      [2, 'b', null],
    ]);
    expect((await scan('a\nb\rc\n')).rejects).toEqual(['2: entry contains whitespace']);
  });

  it('refuses a record over the size limit with its line number, and memory stays flat', async () => {
    // 40 MB on one line after two good rows: read past the limit, it would take hundreds of MB.
    const file = join(dir, 'huge.csv');
    const big = Buffer.alloc(40 * 1024 * 1024, 'a');
    writeFileSync(file, Buffer.concat([Buffer.from('entry\nok1\nok2\n'), big, Buffer.from('\nok3\n')]));
    let peak = 0;
    const before = process.memoryUsage().rss;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - before)), 1);
    const rejects: string[] = [];
    let check;
    try {
      check = await checkCsv(file, {}, (r) => rejects.push(`${r.line}: ${r.reason}`));
    } finally {
      clearInterval(sample);
    }
    expect(rejects).toEqual([`4: malformed CSV: a record longer than ${MAX_RECORD_BYTES.toLocaleString('en-US')} bytes starts here; the rest of the file was not read`]);
    expect(check.fatal).toBe(true);
    expect(peak).toBeLessThan(64 * 1024 * 1024);
    // A quote that never closes, with more than the limit after it, ends the same way, at the line where it opened.
    const quoted = join(dir, 'quoted-huge.csv');
    writeFileSync(quoted, 'entry\nok\n"starts here\n' + 'more text, in quotes\n'.repeat(80_000) + '"\nafter\n');
    const r2: string[] = [];
    await checkCsv(quoted, {}, (r) => r2.push(`${r.line}: ${r.reason}`));
    expect(r2[0]).toMatch(/^3: malformed CSV: a record longer than/);
  });

  it('sends from the CSV itself when the spool cannot be written', async () => {
    const file = join(dir, 'nospool.csv');
    writeFileSync(file, 'entry\nA\nB\n');
    const check = await checkCsv(file, {}, () => {}, join(dir, 'no-such-dir'));
    expect(check.spool).toBeUndefined();
    const rows: string[] = [];
    for await (const items of validRows(file, {}, check)) rows.push(...items.map((r) => r.entry));
    expect(rows).toEqual(['A', 'B']);
  });

  it('reads generated files with quotes, line ends, bad bytes and long lines through the fast lane as csv-parse alone does', async () => {
    // A seeded generator (mulberry32): pieces that matter to CSV, in files small and larger than a read chunk.
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pieces = ['a', 'Term', 'é', '€', '𝄞', ',', ',', '\n', '\n', '\r\n', '\r', '"', '""', '"q,"', ' ', '\t', '\u0000', 'entry', 'subEntry', '-', 'x'.repeat(70), '\\', 'y'.repeat(30), ';'];
    const bad = [Buffer.from([0xff]), Buffer.from([0xe2, 0x82]), Buffer.from([0xc3])];
    for (let f = 0; f < 60; f++) {
      const target = f % 10 === 9 ? 150_000 : 1 + Math.floor(random() * 400);
      // Most files have no quote before their last part, so the fast lane hands over to csv-parse at many places.
      const quoteFrom = random() < 0.5 ? target : Math.floor(random() * target);
      const parts: Buffer[] = [];
      let size = 0;
      while (size < target) {
        let piece: Buffer;
        if (random() < 0.02) piece = bad[Math.floor(random() * bad.length)];
        else if (random() < 0.4) piece = Buffer.from(`row${size},s${size}\n`);
        else {
          const p = pieces[Math.floor(random() * pieces.length)];
          piece = Buffer.from(size < quoteFrom ? p.replace(/"/g, '') : p);
        }
        parts.push(piece);
        size += piece.length;
      }
      const file = join(dir, `gen${f}.csv`);
      writeFileSync(file, Buffer.concat(parts));
      for (const opts of [{}, { columns: 'entry,-,subEntry' }] as ScanOptions[]) {
        expect(await scanned(file, opts), `${file} ${JSON.stringify(opts)}`).toEqual(await scanned(file, { ...opts, fastLane: false }));
        expect(await checkedBoth(file, opts)).toBe(true);
      }
    }
  });

  it('finds the repeated hashes as a plain sort does, in buckets small and large', () => {
    const naive = (hashes: Float64Array) => {
      const s = Float64Array.from(hashes).sort();
      const out = new Set<number>();
      for (let i = 1; i < s.length; i++) if (s[i] === s[i - 1]) out.add(s[i]);
      return out;
    };
    const terms = Array.from({ length: 50_000 }, (_, i) => `t${i % 45_000}-${(i * 7919) % 1000}`);
    const cases = [
      new Float64Array(0),
      Float64Array.of(entryHash('a')),
      Float64Array.from(terms, entryHash),
      // one bucket holding many: hashes that differ only in their low bits, some repeated, in any order
      Float64Array.from({ length: 500 }, (_, i) => 2 ** 51 + ((i * 37) % 200)),
      Float64Array.of(0, 2 ** 52 - 1, 0, 2 ** 52 - 1, 2 ** 36, 2 ** 36 - 1, 2 ** 36),
    ];
    for (const hashes of cases) expect([...repeated(Float64Array.from(hashes))].sort()).toEqual([...naive(hashes)].sort());
    expect(repeated(Float64Array.from(terms, entryHash)).size).toBeGreaterThan(0);
  });

  it('tells plain ASCII texts at the length limits and every ASCII character as the full rules do', () => {
    const max = LIMITS.wordMemoryText.max;
    expect(textProblem('entry', 'x'.repeat(max))).toBeUndefined();
    expect(textProblem('entry', 'x'.repeat(max + 1))).toBe(`entry is ${max + 1} characters long (at most ${max})`);
    expect(textProblem('entry', '')).toBe('entry is empty');
    for (let c = 0; c < 128; c++) {
      const problem = textProblem('entry', `a${String.fromCharCode(c)}b`);
      if (c > 0x20 && c < 0x7f) expect(problem).toBeUndefined();
      else expect(problem).toMatch(c === 0x20 || (c >= 9 && c <= 13) ? /contains whitespace/ : /contains the control character/);
    }
  });

  it('builds each batch body from the spool across its read chunks, leaving out the bodies of skipped batches', async () => {
    // ~1.2 MB of spool: lines cross the 256 KiB reads, entries need JSON escapes, multi-byte UTF-8 is cut anywhere.
    const entry = (i: number) => `t${i}"\\é€𝄞`;
    const text = 'entry,subEntry\n' + Array.from({ length: 25_000 }, (_, i) => `"${entry(i).replace(/"/g, '""')}",${i % 2 ? `s${i}` : ''}`).join('\n') + '\n';
    const file = join(dir, 'big.csv');
    writeFileSync(file, text);
    const check = await checkCsv(file, {}, () => {}, mkdtempSync(join(dir, 'spool-')));
    expect(check.spool).toBeDefined();
    const skip = (i: number) => i % 3 === 1;
    const batches = await batchTexts(bodyBatches(file, {}, check, 1000, skip));
    expect(batches).toHaveLength(25);
    for (const b of batches) {
      expect(b.rows).toBe(1000);
      if (skip(b.index)) {
        expect(b.body).toBeUndefined();
        continue;
      }
      const got = (JSON.parse(b.body!.toString('utf8')) as { entries: Array<{ entry: string; subEntry?: string }> }).entries;
      const first = b.index * 1000;
      expect(got).toEqual(Array.from({ length: 1000 }, (_, k) => (((first + k) % 2) ? { entry: entry(first + k), subEntry: `s${first + k}` } : { entry: entry(first + k) })));
    }
    expect(await batchTexts(bodyBatches(file, {}, { duplicateHashes: check.duplicateHashes }, 1000, skip))).toEqual(batches);
  });

  it("reuses a released body's memory for a later batch, with the same bytes as without reuse", async () => {
    const text = 'entry,subEntry\n' + Array.from({ length: 10_500 }, (_, i) => `Reuse-${i},${i % 3 ? '' : `s${i}`}`).join('\n') + '\n';
    const file = join(dir, 'reuse.csv');
    writeFileSync(file, text);
    const check = await checkCsv(file, {}, () => {}, mkdtempSync(join(dir, 'spool-')));
    const plain: string[] = [];
    for await (const b of bodyBatches(file, {}, check, 1000)) plain.push(b.body!.toString('utf8'));
    const reused: string[] = [];
    const memory: ArrayBufferLike[] = [];
    for await (const b of bodyBatches(file, {}, check, 1000)) {
      reused.push(b.body!.toString('utf8'));
      memory.push(b.body!.buffer);
      b.release!();
      b.release!(); // twice is once
    }
    expect(reused).toEqual(plain);
    expect(reused).toHaveLength(11);
    // The next batch's body is begun before a batch is handed out: the one after it takes the released memory.
    expect(memory[2]).toBe(memory[0]);
    // Two buffers in turn for all eleven, on every Node version (not slices of Buffer's pool, whose size varies), though
    // the bodies grow a little as the entries lengthen (Reuse-999 to Reuse-1000 and Reuse-10000).
    expect(new Set(memory).size).toBe(2);
  });
});

describe('reading a file in chunks', () => {
  it('gives its bytes in order, and lets the event loop turn between chunks (a timer, Ctrl-C) though the reads are synchronous', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-chunks-'));
    try {
      const file = join(dir, 'f.bin');
      const bytes = Buffer.from(Array.from({ length: 100_000 }, (_, i) => i % 251));
      writeFileSync(file, bytes);
      let turns = 0;
      const tick = setInterval(() => turns++, 0);
      const parts: Buffer[] = [];
      const seenTurns: number[] = [];
      try {
        // A consumer that awaits nothing of its own, as the CSV scan's fast lane.
        for await (const chunk of readChunks(file, 4096)) {
          parts.push(Buffer.from(chunk));
          seenTurns.push(turns);
          const until = Date.now() + 2;
          while (Date.now() < until); // work on the chunk long enough for the timer to be due
        }
      } finally {
        clearInterval(tick);
      }
      expect(Buffer.concat(parts).equals(bytes)).toBe(true);
      expect(parts.length).toBe(Math.ceil(bytes.length / 4096));
      // The timer ran while the file was being read, not only after.
      expect(seenTurns.at(-1)).toBeGreaterThan(parts.length / 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
