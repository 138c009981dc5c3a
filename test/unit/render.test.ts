import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { createMemoryIO } from '../../src/io/memory.js';
import { createListWriter, decideOutput, formatRelativeTime, parseOutputFormat, renderList, renderObject, renderValue, type Column } from '../../src/io/render.js';
import { displayWidth } from '../../src/io/text.js';

const ROWS = [
  {
    guid: 'n1',
    title: 'Quarterly planning with a title long enough that it has to be cut somewhere',
    createdAt: '2026-03-01T10:00:00Z',
    template: { id: 7, title: 'One-pager' },
    recordingDurationSeconds: 125,
    participants: [{ name: 'Ann' }],
  },
  { guid: 'n2', title: 'Line one\nline\ttwo', createdAt: '2026-03-02T11:30:00Z', template: { id: 8, title: 'Minutes, "draft"' }, recordingDurationSeconds: 0, participants: [] },
];
const COLUMNS: Column[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'title', header: 'TITLE' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
  { key: 'recordingDurationSeconds', header: 'SECONDS', kind: 'number' },
];

const terminal = (columns = 200) => createMemoryIO({ stdoutTTY: true, stderrTTY: true, columns, noColor: true });
const piped = () => createMemoryIO();

describe('list formats', () => {
  it('json: the raw objects unchanged, 2-space indent, trailing newline, whatever the terminal', () => {
    for (const m of [terminal(), piped()]) {
      renderList(m.io, ROWS, COLUMNS, { format: 'json' });
      expect(m.stdout()).toBe(JSON.stringify(ROWS, null, 2) + '\n');
    }
  });

  it('ndjson: one compact object per line', () => {
    const m = piped();
    renderList(m.io, ROWS, COLUMNS, { format: 'ndjson' });
    const lines = m.stdout().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(lines.slice(0, 2).map((l) => JSON.parse(l))).toEqual(ROWS);
  });

  it('csv: a header of keys and RFC 4180 quoting', () => {
    const m = piped();
    renderList(m.io, ROWS, [...COLUMNS, { key: 'template.title', header: 'TEMPLATE' }], { format: 'csv' });
    expect(m.stdout()).toBe(
      'guid,title,createdAt,recordingDurationSeconds,template.title\n' +
        'n1,Quarterly planning with a title long enough that it has to be cut somewhere,2026-03-01T10:00:00Z,125,One-pager\n' +
        'n2,"Line one\nline\ttwo",2026-03-02T11:30:00Z,0,"Minutes, ""draft"""\n',
    );
  });

  it('piped default is TSV without a header, ISO times and escaped tabs/newlines; -o tsv is the same on a terminal', () => {
    const expected = 'n1\tQuarterly planning with a title long enough that it has to be cut somewhere\t2026-03-01T10:00:00Z\t125\n' + 'n2\tLine one\\nline\\ttwo\t2026-03-02T11:30:00Z\t0\n';
    const p = piped();
    renderList(p.io, ROWS, COLUMNS, {});
    expect(p.stdout()).toBe(expected);
    const t = terminal();
    renderList(t.io, ROWS, COLUMNS, { format: 'tsv' });
    expect(t.stdout()).toBe(expected);
  });

  it('table on a terminal: headers, relative times, right-aligned numbers, nothing on stderr', () => {
    const m = terminal();
    renderList(m.io, ROWS, COLUMNS, {});
    const lines = m.stdout().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^GUID\s+TITLE\s+CREATED\s+SECONDS$/);
    expect(lines[1]).toMatch(/^n1\s+Quarterly planning .* ago\s+125$/);
    expect(lines[2]).toMatch(/^n2\s+Line one line two\s+.* ago\s+0$/);
    expect(m.stdout()).not.toContain('2026-03-01');
    expect(m.stderr()).toBe('');
  });

  it.each([40, 60, 80])('table truncates with … to fit %i columns, shrinking the widest column first', (width) => {
    const m = terminal(width);
    renderList(m.io, ROWS, COLUMNS, {});
    const lines = m.stdout().trimEnd().split('\n');
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(width);
    expect(lines[1]).toContain('…');
    expect(lines[1].startsWith('n1 ')).toBe(true);
    // The short columns keep their full text; the long title took the cut.
    expect(lines[0]).toContain('GUID');
    expect(lines[1]).toMatch(/125$/);
  });

  it('table honours maxWidth and counts wide characters double', () => {
    const m = terminal(60);
    renderList(m.io, [{ t: '회의록 한국어 제목입니다 아주 길게 길게 길게 길게', n: 1 }], [{ key: 't', header: 'T', maxWidth: 12 }, { key: 'n', header: 'N' }], {});
    const row = m.stdout().split('\n')[1];
    expect(row).toContain('…');
    expect(displayWidth(row.split('  ')[0])).toBeLessThanOrEqual(12);
  });

  it('aligns emoji and CJK by display width: every column starts at the same terminal column (issue 13 item 3)', () => {
    const m = terminal(80);
    // Display widths known by hand: an emoji or a CJK character takes 2 columns, a ZWJ family or a flag is one emoji.
    const names = [['🚀 launch', 9], ['日本語', 6], ['✅ done', 7], ['👨‍👩‍👧 family', 9], ['🇰🇷 Seoul', 8], ['plain', 5]] as const;
    renderList(m.io, names.map(([name], i) => ({ name, n: i })), [{ key: 'name', header: 'NAME' }, { key: 'n', header: 'N' }], {});
    const lines = m.stdout().trimEnd().split('\n');
    expect(lines[0]).toBe('NAME       N');
    names.forEach(([name, width], i) => expect(lines[i + 1]).toBe(`${name}${' '.repeat(9 - width + 2)}${i}`));
  });

  it('fits emoji to the terminal by their real width (🚀 takes 2 columns)', () => {
    const m = terminal(12);
    renderList(m.io, [{ name: '🚀🚀🚀🚀🚀🚀', n: 1 }], [{ key: 'name', header: 'NAME' }, { key: 'n', header: 'N' }], {});
    expect(m.stdout().split('\n')[1]).toBe('🚀🚀🚀🚀…  1');
  });

  it('truncates between user-perceived characters, never inside an emoji sequence', () => {
    const m = terminal(80);
    renderList(m.io, [{ t: '👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧 and more', n: 1 }], [{ key: 't', header: 'T', maxWidth: 5 }, { key: 'n', header: 'N' }], {});
    expect(m.stdout().split('\n')[1]).toBe('👨‍👩‍👧👨‍👩‍👧…  1');
  });

  it.each(['table', 'json', 'ndjson', 'csv', 'tsv'] as const)('--fields with an unknown name is a usage error listing the valid fields (%s), before any output (issue 13 item 10)', (format) => {
    const m = terminal(80);
    let err: unknown;
    try {
      const w = createListWriter(m.io, COLUMNS, { format, fields: ['guid', 'titel'] });
      w.write(ROWS);
      w.end();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('unknown field "titel" in --fields');
    expect((err as UsageError).hint).toMatch(/^Valid fields: .*\bguid\b.*\btitle\b.*\bcreatedAt\b/);
    expect(m.stdout()).toBe('');
    // Known names pass: top-level keys, dotted paths into objects, paths through null, the command's own columns.
    const ok = terminal(80);
    renderList(ok.io, ROWS, COLUMNS, { format: 'json', fields: ['guid', 'template.title', 'template.id'] });
    expect(JSON.parse(ok.stdout())[0]).toEqual({ guid: 'n1', template: { id: 7, title: 'One-pager' } });
    expect(() => renderObject(terminal().io, { a: 1, b: null }, { format: 'json', fields: ['b.c'] })).not.toThrow();
    expect(() => renderObject(terminal().io, { a: 1 }, { format: 'json', fields: ['a', 'c'] })).toThrow(/unknown field "c" in --fields/);
    expect(() => renderList(terminal().io, [], COLUMNS, { format: 'json', fields: ['whatever'] })).not.toThrow();
  });

  it('colours only when colour is on', () => {
    const plain = terminal();
    renderList(plain.io, ROWS, COLUMNS, {});
    expect(plain.stdout()).not.toContain('\u001b[');
    const coloured = createMemoryIO({ stdoutTTY: true, stderrTTY: true, columns: 200 });
    renderList(coloured.io, ROWS, COLUMNS, {});
    expect(coloured.stdout()).toContain('\u001b[1m');
  });

  it('an empty table says so on stderr and prints nothing on stdout; an empty json list is []', () => {
    const t = terminal();
    renderList(t.io, [], COLUMNS, {});
    expect(t.stdout()).toBe('');
    expect(t.stderr()).toContain('No results');
    const j = piped();
    renderList(j.io, [], COLUMNS, { format: 'json' });
    expect(j.stdout()).toBe('[]\n');
    const c = piped();
    renderList(c.io, [], COLUMNS, { format: 'csv' });
    expect(c.stdout()).toBe('guid,title,createdAt,recordingDurationSeconds\n');
  });
});

describe('--fields', () => {
  const fields = ['guid', 'template.title'];
  it('keeps only the listed (dotted) keys in JSON', () => {
    const m = piped();
    renderList(m.io, ROWS, COLUMNS, { format: 'json', fields });
    expect(JSON.parse(m.stdout())).toEqual([
      { guid: 'n1', template: { title: 'One-pager' } },
      { guid: 'n2', template: { title: 'Minutes, "draft"' } },
    ]);
  });

  it('chooses the columns of tsv, csv and table, even paths outside the default columns', () => {
    const t = piped();
    renderList(t.io, ROWS, COLUMNS, { fields });
    expect(t.stdout()).toBe('n1\tOne-pager\nn2\tMinutes, "draft"\n');
    const c = piped();
    renderList(c.io, ROWS, COLUMNS, { format: 'csv', fields: ['participants.0.name', 'guid'] });
    expect(c.stdout()).toBe('participants.0.name,guid\nAnn,n1\n,n2\n');
    const tab = terminal();
    renderList(tab.io, ROWS, COLUMNS, { fields: ['createdAt', 'template.id'] });
    expect(tab.stdout().split('\n')[0]).toMatch(/^CREATED\s+template\.id$/);
    expect(tab.stdout()).toContain('ago');
  });
});

describe('--query', () => {
  it('applies JMESPath to the whole JSON value and prints JSON', () => {
    const m = piped();
    renderList(m.io, ROWS, COLUMNS, { format: 'json', query: '[?recordingDurationSeconds > `0`].guid' });
    expect(m.stdout()).toBe('[\n  "n1"\n]\n');
  });

  it('warns when a bare word selects nothing from a list (a field needs [].name; --query is no text search)', () => {
    const m = piped();
    renderList(m.io, ROWS, COLUMNS, { format: 'json', query: 'harbor' });
    expect(m.stdout()).toBe('null\n');
    expect(m.stderr()).toContain('--query "harbor" selected nothing');
    expect(m.stderr()).toContain('"[].harbor"');
    const ok = piped();
    renderList(ok.io, ROWS, COLUMNS, { format: 'json', query: '[].guid' });
    expect(ok.stderr()).toBe('');
  });

  it('renders an array of objects generically in table and tsv', () => {
    const q = '[].{id: guid, tpl: template.title}';
    const t = terminal();
    renderList(t.io, ROWS, COLUMNS, { query: q });
    expect(t.stdout().split('\n')[0]).toMatch(/^id\s+tpl$/);
    expect(t.stdout()).toMatch(/n2\s+Minutes, "draft"/);
    const p = piped();
    renderList(p.io, ROWS, COLUMNS, { query: q });
    expect(p.stdout()).toBe('n1\tOne-pager\nn2\tMinutes, "draft"\n');
  });

  it('runs over every page of a streamed list', () => {
    const m = piped();
    const w = createListWriter(m.io, COLUMNS, { format: 'json', query: 'length(@)' });
    w.write([ROWS[0]]);
    w.write([ROWS[1]]);
    expect(m.stdout()).toBe('');
    w.end();
    expect(m.stdout()).toBe('2\n');
  });

  it('an invalid expression is a usage error naming it', () => {
    const m = piped();
    let err: unknown;
    try {
      renderList(m.io, ROWS, COLUMNS, { query: '[.guid' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toContain('[.guid');
  });
});

describe('streaming list writer', () => {
  const pages = [ROWS.slice(0, 1), [], ROWS.slice(1)];
  const stream = (format: 'json' | 'ndjson' | 'tsv' | 'csv') => {
    const m = piped();
    const w = createListWriter(m.io, COLUMNS, { format });
    const seen: string[] = [];
    for (const p of pages) {
      w.write(p);
      seen.push(m.stdout());
    }
    w.end();
    return { out: m.stdout(), seen };
  };

  it('json: one valid array, byte-identical to the non-streamed output, written as pages arrive', () => {
    const { out, seen } = stream('json');
    expect(JSON.parse(out)).toEqual(ROWS);
    expect(out).toBe(JSON.stringify(ROWS, null, 2) + '\n');
    expect(seen[0]).toContain('"n1"');
  });

  it('ndjson, tsv and csv print each page as it comes, one line per row', () => {
    const nd = stream('ndjson');
    expect(nd.seen[0].split('\n').filter(Boolean)).toHaveLength(1);
    expect(nd.out.split('\n').filter(Boolean).map((l) => JSON.parse(l).guid)).toEqual(['n1', 'n2']);
    const tsv = stream('tsv');
    expect(tsv.seen[0]).toMatch(/^n1\t/);
    expect(tsv.out.split('\n').filter(Boolean)).toHaveLength(2);
    const csv = stream('csv');
    expect(csv.out.split('\n')[0]).toBe('guid,title,createdAt,recordingDurationSeconds');
    expect(csv.out.match(/^guid,/gm)).toHaveLength(1);
  });

  it('without columns, derives them from the first page', () => {
    const m = piped();
    const w = createListWriter(m.io, [], { format: 'csv' });
    w.write([{ a: 1, b: 'x' }]);
    w.write([{ a: 2, b: 'y', c: true }]);
    w.end();
    expect(m.stdout()).toBe('a,b\n1,x\n2,y\n');
  });
});

describe('objects and values', () => {
  const obj = { guid: 'n1', title: 'Hello\tworld', createdAt: '2026-03-01T10:00:00Z', template: { title: 'One-pager' } };
  const cols: Column[] = [
    { key: 'guid', header: 'GUID' },
    { key: 'title', header: 'Title' },
    { key: 'template.title', header: 'Template' },
  ];

  it('table: a two-column key/value view on a terminal', () => {
    const m = terminal();
    renderObject(m.io, obj, {}, cols);
    expect(m.stdout().split('\n')).toEqual(['GUID      n1', 'Title     Hello world', 'Template  One-pager', '']);
  });

  it('piped: key<TAB>value lines', () => {
    const m = piped();
    renderObject(m.io, obj, {}, cols);
    expect(m.stdout()).toBe('guid\tn1\ntitle\tHello\\tworld\ntemplate.title\tOne-pager\n');
  });

  it('json is the object exactly; ndjson one line', () => {
    const j = terminal();
    renderObject(j.io, obj, { format: 'json' }, cols);
    expect(j.stdout()).toBe(JSON.stringify(obj, null, 2) + '\n');
    const n = piped();
    renderObject(n.io, obj, { format: 'ndjson' }, cols);
    expect(n.stdout()).toBe(JSON.stringify(obj) + '\n');
  });

  it('renderValue: query results that are strings print raw outside JSON formats', () => {
    const m = piped();
    renderValue(m.io, obj, { query: 'template.title' });
    expect(m.stdout()).toBe('One-pager\n');
    const j = piped();
    renderValue(j.io, obj, { query: 'template.title', format: 'json' });
    expect(j.stdout()).toBe('"One-pager"\n');
  });
});

describe('helpers', () => {
  const now = new Date('2026-06-15T12:00:00Z');
  it.each([
    ['2026-06-15T11:57:00Z', '3 minutes ago'],
    ['2026-06-17T12:00:00Z', 'in 2 days'],
    ['2026-04-15T12:00:00Z', '2 months ago'],
    ['2026-06-15T11:59:50Z', 'just now'],
    ['2026-06-15T09:00:00Z', '3 hours ago'],
    ['2024-06-15T12:00:00Z', '2 years ago'],
    ['not a date', 'not a date'],
  ])('formatRelativeTime(%s) = %s', (iso, expected) => {
    expect(formatRelativeTime(iso, now)).toBe(expected);
  });

  it('parseOutputFormat lists the valid values', () => {
    expect(parseOutputFormat('ndjson')).toBe('ndjson');
    expect(() => parseOutputFormat('yaml')).toThrow(/table, json, ndjson, csv, tsv/);
  });
});

describe('the output decision (decideOutput): taken once, read by renderers and commands', () => {
  const tty = { isStdoutTTY: true };
  const pipe = { isStdoutTTY: false };
  it.each([
    ['nothing asked, terminal', tty, {}, { format: 'table', chosen: false, json: false, human: true }],
    ['nothing asked, piped', pipe, {}, { format: 'tsv', chosen: false, json: false, human: true }],
    ['-o table in a pipe', pipe, { format: 'table' }, { format: 'table', chosen: true, json: false, human: true }],
    ['-o json', tty, { format: 'json' }, { format: 'json', chosen: true, json: true, human: false }],
    ['-o ndjson', pipe, { format: 'ndjson' }, { format: 'ndjson', chosen: true, json: true, human: false }],
    ['-o csv', tty, { format: 'csv' }, { format: 'csv', chosen: true, json: false, human: false }],
    ['-o tsv on a terminal', tty, { format: 'tsv' }, { format: 'tsv', chosen: true, json: false, human: false }],
    ['--query alone', tty, { query: '[].guid' }, { format: 'table', chosen: false, json: true, human: false }],
    ['--fields alone', tty, { fields: ['guid'] }, { format: 'table', chosen: false, json: false, human: false }],
  ] as const)('%s', (_name, io, opts, expected) => {
    expect(decideOutput(io, { ...opts, fields: 'fields' in opts ? [...opts.fields] : undefined })).toMatchObject(expected);
  });

  it('a decision passed again stays as it was taken (renderers do not decide a second time)', () => {
    const decided = decideOutput(tty, {});
    expect(decideOutput(pipe, decided)).toBe(decided);
    // A command's override of the format is kept.
    expect(decideOutput(pipe, { ...decided, format: 'json' }).format).toBe('json');
  });
});
