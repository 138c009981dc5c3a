import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ORGANIZATION, DEMO_USERS, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { tempConfigDir } from '../helpers/cli.js';
import { K } from '../helpers/expect.js';
import { commandSandbox, runCommand, type ExpectedPrompt } from '../helpers/run-command.js';

const { product, sales, support } = DEMO_WORKSPACES;

let sb: Awaited<ReturnType<typeof commandSandbox>>;
let config: ReturnType<typeof tempConfigDir>;
let dir: string;
let cache: string;

beforeAll(async () => {
  sb = await commandSandbox();
  config = tempConfigDir();
  dir = mkdtempSync(join(tmpdir(), 'notevox-wm-e2e-'));
  cache = join(dir, 'cache');
});
afterAll(async () => {
  await sb?.close();
  config?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const wm = (args: string[], o: { key?: string; input?: string } = {}) =>
  runCommand(['wm', ...args], { sandbox: sb, key: o.key ?? K.admin, configDir: config.dir, env: { NOTEVOX_CACHE_DIR: cache }, stdin: o.input });

/** Word-memory writes the sandbox received (its request log), to prove that nothing was sent. */
const writes = () =>
  sb.db.get<{ n: number }>("SELECT count(*) AS n FROM request_log WHERE method IN ('POST', 'PATCH', 'DELETE') AND path LIKE '%/word-memories%'")!.n;
/** Every request the sandbox logged. */
const requests = () => sb.db.get<{ n: number }>('SELECT count(*) AS n FROM request_log')!.n;
const stored = (type: string, id: string | number) =>
  sb.db.all<{ entry: string; sub_entry: string | null }>('SELECT entry, sub_entry FROM word_memories WHERE scope_type = ? AND scope_id = ? ORDER BY id', [type, String(id)]);
const journals = () => {
  try {
    return readdirSync(join(cache, 'wm-journal'));
  } catch {
    return [];
  }
};

/** The JSON a successful command printed (failing with its stderr otherwise). */
function json(r: { exitCode: number; stdout: string; stderr: string }): any {
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const sorted = <T>(items: T[]) => items.map((i) => JSON.stringify(i)).sort();

function file(name: string, text: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

/** `count` distinct rows, every third with a subEntry, with a header and CRLF line ends. */
function bigCsv(name: string, count: number): { path: string; rows: Array<[string, string | null]> } {
  const rows: Array<[string, string | null]> = Array.from({ length: count }, (_, i) => [`Term-${i.toString(36)}-${i}`, i % 3 === 0 ? `alt${i}` : null]);
  const text = 'entry,subEntry\r\n' + rows.map(([e, s]) => `${e},${s ?? ''}`).join('\r\n') + '\r\n';
  return { path: file(name, text), rows };
}

describe('wm: single word memories', () => {
  it('adds, lists, gets, updates and removes', async () => {
    const added = await wm(['add', 'E2E-Term', '--sub', 'e2e', '--json']);
    expect(added.exitCode).toBe(0);
    const item = json(added);
    expect(item).toMatchObject({ entry: 'E2E-Term', subEntry: 'e2e' });
    const again = await wm(['add', 'E2E-Term']);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toMatch(/already in the user word memories/);
    // Issue 13 item 7: a script gets the existing item (exit 0), and a warning when --sub differs from it
    const existing = await wm(['add', 'E2E-Term', '--sub', 'other', '--json']);
    expect(existing.exitCode).toBe(0);
    expect(json(existing)).toEqual(item);
    expect(existing.stderr).toContain(`its subEntry is "e2e", not "other": change it with \`notevox wm update ${item.id} --sub other\``);
    const same = await wm(['add', 'E2E-Term', '--sub', 'e2e', '--json']);
    expect(json(same)).toEqual(item);
    expect(same.stderr).not.toMatch(/subEntry is/);

    const list = await wm(['list', '--all', '-o', 'json']);
    expect(json(list).map((w: any) => w.entry)).toEqual(['Whitfield', 'HFL', 'Lighthouse', 'E2E-Term']);
    expect(json(await wm(['get', String(item.id), '--json']))).toEqual(item);

    expect(json(await wm(['update', String(item.id), '--sub', 'E2E', '--json'])).subEntry).toBe('E2E');
    expect(json(await wm(['update', String(item.id), '--clear-sub', '--json'])).subEntry).toBeNull();
    expect((await wm(['update', '999999', '--sub', 'x'])).exitCode).toBe(5);

    const unconfirmed = await wm(['rm', String(item.id)]);
    expect(unconfirmed.exitCode).toBe(10);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    expect((await wm(['get', String(item.id)])).exitCode).toBe(0);
    const removed = await wm(['rm', String(item.id), '--yes']);
    expect(removed.exitCode).toBe(0);
    expect(removed.stderr).toMatch(/Deleted 1 word memory/);
    expect((await wm(['get', String(item.id)])).exitCode).toBe(5);
    expect((await wm(['rm', String(item.id), '--yes'])).exitCode).toBe(5);
  });

  it('checks input before sending, and resolves the scope flags', async () => {
    const before = writes();
    const bad = await wm(['add', 'two words']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/contains whitespace/);
    expect((await wm(['add', 'x'.repeat(64)])).exitCode).toBe(2);
    expect((await wm(['rm', 'abc', '--yes'])).exitCode).toBe(2);
    expect(writes()).toBe(before);

    const unbound = await wm(['list', '--scope', 'workspace']);
    expect(unbound.exitCode).toBe(2);
    expect(unbound.stderr).toMatch(/--workspace/);
    const bound = await wm(['list', '--scope', 'workspace', '-o', 'json'], { key: K.boundUser });
    expect(json(bound).map((w: any) => w.entry)).toEqual(['Notevox', 'Loomly', 'OfflineSync']);
    const byName = await wm(['list', '--workspace', 'Customer Support', '-o', 'json']);
    expect(json(byName).map((w: any) => w.entry)).toEqual(['Zendesk', 'Android']);
    expect((await wm(['list', '--scope', 'org', '-o', 'json'], { key: K.orgKey })).exitCode).toBe(0);
    expect((await wm(['list', '--scope', 'org'], { key: K.wsAdmin })).exitCode).toBe(4);
    expect((await wm(['list', '--scope', 'user', '--workspace', 'Sales'])).exitCode).toBe(2);
  });
});

describe('wm import', () => {
  it('refuses a file with invalid rows, listing each as FILE:LINE: reason, and sends nothing', async () => {
    const text = ['entry,subEntry', 'Good1,a', 'bad one,b', '', '"multi', 'line",c', 'Good1,dup', 'x'.repeat(64) + ',d', 'Good2,"e,f"', 'tri,ple,fields', ''].join('\n');
    const path = file('invalid.csv', text);
    const before = writes();
    const r = await wm(['import', path]);
    expect(r.exitCode).toBe(2);
    const listed = r.stderr.split('\n').filter((l) => l.startsWith(`${path}:`));
    expect(listed).toEqual([
      `${path}:3: entry contains whitespace`,
      `${path}:5: entry contains whitespace`,
      `${path}:7: duplicate entry "Good1" (first on line 2)`,
      `${path}:8: entry is 64 characters long (at most 63)`,
      `${path}:10: has 3 fields, expected 2`,
    ]);
    expect(r.stderr).toMatch(/5 of 7 rows are invalid .*nothing was sent/);
    expect(r.stderr).toMatch(/--skip-invalid/);
    expect(writes()).toBe(before);

    const rejects = join(dir, 'rejects.csv');
    const dry = await wm(['import', path, '--skip-invalid', '--rejects', rejects, '--dry-run', '-o', 'json', '--scope', 'workspace', '--workspace', product]);
    expect(dry.exitCode).toBe(0);
    expect(json(dry)).toMatchObject({ rows: 7, valid: 2, rejected: 5, batches: 1, rowsToSend: 2 });
    expect(dry.stderr).toMatch(/Dry run: nothing was sent/);
    expect(readFileSync(rejects, 'utf8').split('\n')[0]).toBe('entry,subEntry,line,reason');
    expect(readFileSync(rejects, 'utf8')).toContain('bad one,b,3,entry contains whitespace');
    expect(writes()).toBe(before);

    // the user scope needs no lookup: a dry run makes no request at all
    const everything = requests();
    const userDry = await wm(['import', path, '--skip-invalid', '--dry-run', '--json']);
    expect(json(userDry)).toMatchObject({ target: 'user', valid: 2, rowsToSend: 2 });
    expect(requests()).toBe(everything);

    const sent = await wm(['import', path, '--skip-invalid', '--json', '--workspace', product]);
    expect(sent.exitCode).toBe(0);
    expect(json(sent)).toMatchObject({ created: 2, alreadyPresent: 0, rejected: 5, failed: 0 });
    expect(stored('workspace', product).map((r) => r.entry)).toEqual(expect.arrayContaining(['Good1', 'Good2']));
  });

  it("a ';' file (a spreadsheet's CSV in many locales) is refused with a hint, not imported as one entry per line; --delimiter reads it", async () => {
    const path = file('excel.csv', 'entry;subEntry\r\nKubernetes;k8s\r\nPostgreSQL;Postgres\r\n');
    const before = writes();
    for (const args of [['import', path], ['import', path, '--skip-invalid', '--dry-run'], ['sync', path, '--dry-run']]) {
      const r = await wm(args);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${path}:1: the header "entry;subEntry" is one column with ',' between fields, but entry and subEntry with ';'`);
      expect(r.stderr).toContain("hint: Pass --delimiter ';'");
    }
    expect(writes()).toBe(before);
    const dry = await wm(['import', path, '--delimiter', ';', '--dry-run', '-o', 'json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(json(dry)).toMatchObject({ rows: 2, valid: 2, rejected: 0 });
    const tabs = file('tabs.tsv', 'entry\tsubEntry\nGrafana\tgraf\n"Quoted"\t"q"\n');
    expect(json(await wm(['import', tabs, '--delimiter', 'tab', '--dry-run', '-o', 'json']))).toMatchObject({ rows: 2, valid: 2 });
    expect((await wm(['import', tabs, '--dry-run'])).stderr).toContain("Pass --delimiter tab");
    const bad = await wm(['import', path, '--delimiter', 'ab']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--delimiter "ab" is not a field separator');
  });

  it('--rejects keeps every field of a rejected row (a,b,c keeps c) under the file\'s own columns, so the fixed file imports again', async () => {
    const path = file('wide.csv', 'entry,subEntry\nGood-w1,a\ntri,ple,fields\nbad one,x\n');
    const rejects = join(dir, 'wide-rejects.csv');
    const r = await wm(['import', path, '--skip-invalid', '--rejects', rejects, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(rejects, 'utf8')).toBe('entry,subEntry,line,reason\ntri,ple,fields,3,"has 3 fields, expected 2"\nbad one,x,4,entry contains whitespace\n');
    // With its own delimiter and header names.
    const semi = file('semi.csv', 'Term;Entry;subEntry\nx;Good-s1;a\ny;two words;b;extra\n');
    const semiRejects = join(dir, 'semi-rejects.csv');
    expect((await wm(['import', semi, '--delimiter', ';', '--skip-invalid', '--rejects', semiRejects, '--dry-run'])).exitCode).toBe(0);
    expect(readFileSync(semiRejects, 'utf8')).toBe('Term;Entry;subEntry;line;reason\ny;two words;b;extra;3;has 4 fields, expected 3\n');
  });

  it('an empty file says so (exit 2), a header alone is no rows', async () => {
    for (const [name, text, what] of [['empty.csv', '', 'no bytes'], ['blank.csv', '\n\n\r\n', 'only empty lines']]) {
      const r = await wm(['import', file(name, text), '--dry-run']);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`is empty (${what}): there are no rows to read`);
    }
    expect((await wm(['import', file('header-only.csv', 'entry,subEntry\n'), '--dry-run'])).exitCode).toBe(0);
  });

  it('a binary file, or a record with two quote errors, reports each bad line once (issue 29.3)', async () => {
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919 + 13) % 256));
    for (const [name, content] of [['binary.csv', bytes], ['quotes.csv', 'a"b"c,d"e\nok,1\n']] as const) {
      const r = await wm(['import', file(name, content), '--dry-run']);
      expect(r.exitCode).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.includes(`${name}:`) && /:\d+: /.test(l)).map((l) => l.split(': ')[0]);
      expect(lines.length).toBeGreaterThan(0);
      expect(new Set(lines).size, r.stderr).toBe(lines.length);
    }
  });

  it('refuses a file that is not readable CSV even with --skip-invalid', async () => {
    const path = file('unclosed.csv', 'a,1\n"never closed,2\nb,3\n');
    const before = writes();
    const r = await wm(['import', path, '--skip-invalid']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${path}:2: malformed CSV: a quoted field is never closed`);
    expect(writes()).toBe(before);
  });

  it('imports 25,000 rows into each scope, exactly once', async () => {
    const { path, rows } = bigCsv('25k.csv', 25_000);
    const targets: Array<{ args: string[]; key: string; type: string; id: string | number; seeded: number }> = [
      { args: [], key: K.wsAdmin, type: 'user', id: DEMO_USERS.marco, seeded: 0 },
      { args: ['--workspace', 'Customer Support'], key: K.admin, type: 'workspace', id: support, seeded: 2 },
      { args: ['--scope', 'workspace'], key: K.boundUser, type: 'workspace', id: product, seeded: stored('workspace', product).length },
      { args: ['--scope', 'org'], key: K.orgKey, type: 'organization', id: DEMO_ORGANIZATION, seeded: 3 },
    ];
    for (const t of targets) {
      const r = await wm(['import', path, '--json', ...t.args], { key: t.key });
      expect(r.exitCode, r.stderr).toBe(0);
      const summary = json(r);
      expect(summary).toMatchObject({ rows: 25_000, valid: 25_000, created: 25_000, alreadyPresent: 0, rejected: 0, failed: 0, batches: 25, rateLimited: 0 });
      const inScope = stored(t.type, t.id);
      expect(inScope).toHaveLength(t.seeded + 25_000);
      // batches go concurrently, so ids follow their arrival: compare as sets
      expect(sorted(inScope.slice(t.seeded).map((r) => [r.entry, r.sub_entry]))).toEqual(sorted(rows));
    }
    expect(journals()).toEqual([]); // removed after each complete run
    const again = await wm(['import', path, '--json', '--scope', 'org'], { key: K.orgKey });
    expect(json(again)).toMatchObject({ created: 0, alreadyPresent: 25_000 });
    expect(stored('organization', DEMO_ORGANIZATION)).toHaveLength(25_003);
  });

  it('export then import into an empty scope reproduces it (stdin import)', async () => {
    expect(stored('workspace', sales)).toHaveLength(0);
    const exported = await wm(['export', '--workspace', support]);
    expect(exported.exitCode).toBe(0);
    expect(exported.stdout.split('\n')[0]).toBe('entry,subEntry');
    expect(exported.stdout.trimEnd().split('\n')).toHaveLength(stored('workspace', support).length + 1); // header + rows
    const imported = await wm(['import', '-', '--workspace', 'Sales', '--json'], { input: exported.stdout });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(json(imported)).toMatchObject({ file: 'stdin', created: 25_002 });
    const back = await wm(['export', '--workspace', sales]);
    expect(sorted(back.stdout.split('\n'))).toEqual(sorted(exported.stdout.split('\n')));
    const out = join(dir, 'sales.ndjson');
    const nd = await wm(['export', '--workspace', sales, '-o', 'ndjson', '--out', out]);
    expect(nd.stdout).toBe('');
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(25_002);
    expect(lines[0]).toMatchObject({ entry: 'Zendesk', subEntry: null, id: expect.any(Number) });
  });
});

describe('wm sync', () => {
  it('plans, dry-runs without sending, needs --yes when not interactive, applies, and then has nothing to do', async () => {
    const path = file('sync.csv', 'entry,subEntry\nWhitfield,\nHFL,HFL-Corp\nBrandNew,BN\n');
    const before = writes();
    const plan = await wm(['sync', path, '--dry-run', '--json']);
    expect(plan.exitCode).toBe(0);
    const p = json(plan);
    expect(p).toMatchObject({ create: 1, update: 1, delete: 0, unchanged: 1 });
    expect(p.changes.map((c: any) => [c.action, c.entry, c.subEntry, c.was])).toEqual([
      ['update', 'HFL', 'HFL-Corp', 'Harbor-Freight'],
      ['create', 'BrandNew', 'BN', null],
    ]);
    const pruned = json(await wm(['sync', path, '--dry-run', '--prune', '--json']));
    expect(pruned.changes.filter((c: any) => c.action === 'delete').map((c: any) => c.entry)).toEqual(['Lighthouse']);
    const table = await wm(['sync', path, '--dry-run', '--prune']);
    expect(table.stdout).toMatch(/delete\t\d+\tLighthouse/);
    expect(table.stderr).toMatch(/1 to create, 1 to update, 1 to delete, 1 unchanged/);
    expect(writes()).toBe(before);

    const noYes = await wm(['sync', path, '--prune']);
    expect(noYes.exitCode).toBe(10);
    expect(noYes.stderr).toMatch(/--yes/);
    expect(writes()).toBe(before);

    const applied = await wm(['sync', path, '--prune', '--yes']);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(stored('user', DEMO_USERS.dana).map((r) => [r.entry, r.sub_entry])).toEqual([
      ['Whitfield', null],
      ['HFL', 'HFL-Corp'],
      ['BrandNew', 'BN'],
    ]);
    const after = writes();
    const again = await wm(['sync', path, '--prune', '--yes']);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toMatch(/Nothing to change/);
    expect(writes()).toBe(after);
  });
});

describe('wm sync: rejected rows and prompts', () => {
  const priya = { key: K.member };
  const mine = () => stored('user', DEMO_USERS.priya).map((r) => [r.entry, r.sub_entry]);

  it('--prune leaves entries that rejected rows name; -o json reports the plan and what was applied', async () => {
    const setUp = await wm(['sync', file('p0.csv', 'Alpha\nBravo,B\nCharlie\n'), '--prune', '--yes'], priya);
    expect(setUp.exitCode, setUp.stderr).toBe(0);
    expect(mine()).toEqual([
      ['Alpha', null],
      ['Bravo', 'B'],
      ['Charlie', null],
    ]);
    // Bravo's row is rejected (a space in its subEntry): the file still names Bravo, so it must not be deleted
    const path = file('p1.csv', 'entry,subEntry\nAlpha,A\nBravo,bad sub\n');
    const r = await wm(['sync', path, '--prune', '--skip-invalid', '--yes', '--json'], priya);
    const out = json(r);
    expect(r.stderr).toContain(`${path}:3: subEntry contains whitespace`);
    expect(r.stderr).toMatch(/1 entries of the scope .* named by rejected rows: --prune leaves them/);
    expect(out).toMatchObject({ target: 'user', create: 0, update: 1, delete: 1, unchanged: 0, keptForRejectedRows: 1, applied: { created: 0, updated: 1, deleted: 1, failed: 0 } });
    expect(out.changes.map((c: any) => [c.action, c.entry])).toEqual([
      ['update', 'Alpha'],
      ['delete', 'Charlie'],
    ]);
    expect(mine()).toEqual([
      ['Alpha', 'A'],
      ['Bravo', 'B'],
    ]);
    const nothing = json(await wm(['sync', path, '--prune', '--skip-invalid', '--json'], priya));
    expect(nothing).toMatchObject({ create: 0, update: 0, delete: 0, unchanged: 1, applied: null });
  });

  it('asks on a terminal: declining changes nothing (exit 130), accepting applies', async () => {
    const onTerminal = async (args: string[], prompts: ExpectedPrompt[]) => {
      const r = await runCommand(args, { sandbox: sb, key: K.member, configDir: config.dir, env: { NOTEVOX_CACHE_DIR: cache }, tty: true, prompts });
      return { exitCode: r.exitCode, screen: r.stdout + r.stderr };
    };
    const path = file('p2.csv', 'Alpha,A\nDelta\n');
    const before = writes();
    const no = await onTerminal(['wm', 'sync', path], [{ kind: 'confirm', message: 'Apply these 1 changes to the user word memories?', answer: false }]);
    expect(no.exitCode, no.screen).toBe(130);
    expect(no.screen).toMatch(/create\s+Delta/);
    expect(no.screen).toContain('Cancelled: nothing was changed.');
    expect(writes()).toBe(before);
    const yes = await onTerminal(['wm', 'sync', path], [{ kind: 'confirm', message: 'Apply these 1 changes', answer: true }]);
    expect(yes.exitCode, yes.screen).toBe(0);
    expect(mine().map((r) => r[0])).toEqual(['Alpha', 'Bravo', 'Delta']);

    const delta = json(await wm(['list', '-o', 'json'], priya)).find((w: any) => w.entry === 'Delta');
    const keep = await onTerminal(['wm', 'rm', String(delta.id)], [{ kind: 'confirm', message: /Delete word memory \d+ from the user scope\?/, answer: false }]);
    expect(keep.exitCode, keep.screen).toBe(130);
    const rm = await onTerminal(['wm', 'rm', String(delta.id)], [{ kind: 'confirm', message: 'Delete word memory', answer: true }]);
    expect(rm.exitCode, rm.screen).toBe(0);
    expect(mine().map((r) => r[0])).toEqual(['Alpha', 'Bravo']);
  });

  it('asks with stdout redirected (`wm sync --prune > plan.tsv` on a terminal): the question needs stdin and stderr only', async () => {
    const setUp = await wm(['sync', file('p3-start.csv', 'Alpha,A\nBravo,B\n'), '--prune', '--yes'], priya);
    expect(setUp.exitCode, setUp.stderr).toBe(0);
    const path = file('p3.csv', 'Alpha,A\nEcho\n');
    const base = { sandbox: sb, key: K.member, configDir: config.dir, env: { NOTEVOX_CACHE_DIR: cache }, tty: true, stdoutTty: false };
    const before = writes();
    const no = await runCommand(['wm', 'sync', path, '--prune'], { ...base, prompts: [{ kind: 'confirm', message: 'Apply these 2 changes', answer: false }] });
    expect(no.exitCode, no.stderr).toBe(130);
    // The plan went to the redirected stdout as TSV, the question to the terminal on stderr.
    expect(no.stdout).toMatch(/^create\t\tEcho/m);
    expect(no.stdout).toMatch(/^delete\t\d+\tBravo/m);
    expect(writes()).toBe(before);
    const yes = await runCommand(['wm', 'sync', path, '--prune'], { ...base, prompts: [{ kind: 'confirm', message: 'Apply these 2 changes', answer: true }] });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(mine().map((r) => r[0])).toEqual(['Alpha', 'Echo']);
    // Without a terminal on stderr there is nobody to ask: exit 10 naming --yes, as before.
    const piped = await runCommand(['wm', 'sync', file('p4.csv', 'Alpha,A\n'), '--prune'], { ...base, tty: false });
    expect(piped.exitCode).toBe(10);
    expect(piped.stderr).toMatch(/--yes/);
  });
});

describe('wm export', () => {
  it('fails at once for an --out it cannot write, leaving nothing behind', async () => {
    const before = requests();
    const r = await wm(['export', '--out', join(dir, 'missing', 'terms.csv')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/cannot write --out .*missing\/terms\.csv: ENOENT/);
    expect(requests()).toBe(before);
    const out = join(dir, 'user.csv');
    const ok = await wm(['export', '--out', out]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('entry,subEntry\nWhitfield,\nHFL,HFL-Corp\nBrandNew,BN\n');
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});
