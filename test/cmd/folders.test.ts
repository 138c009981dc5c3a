import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { DEMO_FOLDERS as F, DEMO_KEYS, DEMO_NOTES, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import { tempConfigDir } from '../helpers/cli.js';
import { commandSandbox, MockPrompter, runCommand, type ExpectedPrompt } from '../helpers/run-command.js';

type Sandbox = Awaited<ReturnType<typeof commandSandbox>>;

let sb: Sandbox;
let config: ReturnType<typeof tempConfigDir>;

beforeAll(async () => {
  sb = await commandSandbox();
  config = tempConfigDir();
});
afterAll(async () => {
  await sb?.close();
  config?.cleanup();
});

const cli = (args: string[], key: string = DEMO_KEYS.admin.token) => runCommand(args, { sandbox: sb, key, configDir: config.dir });
const json = (r: { stdout: string }) => JSON.parse(r.stdout);
const requests = () => sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log')!.n;
const folderRow = (id: number | string) => sb.db.get<{ title: string; parent_id: number | null; sharing_type: string }>('SELECT * FROM folders WHERE id = ?', [Number(id)]);

/** Create a folder through the CLI (JSON output) and return it. */
async function createFolder(title: string, extra: string[] = [], key?: string) {
  const r = await cli(['folders', 'create', title, '--workspace', WS.product, '--json', ...extra], key);
  expect(r.exitCode, r.stderr).toBe(0);
  return json(r);
}

/** Run as on a terminal (this file's sandbox user), answering the prompts the test expects and no other. */
const runInPty = (args: string[], prompts: MockPrompter | ExpectedPrompt[], key: string = DEMO_KEYS.admin.token) =>
  runCommand(args, { sandbox: sb, key, configDir: config.dir, tty: true, prompts });

describe('folders list', () => {
  it('--tree draws the hierarchy with the sharing type; folders with a hidden parent are at the top', async () => {
    const archive = await createFolder('Archive', ['--parent', String(F.roadmap)]);
    const r = await cli(['folders', 'list', '--workspace', 'Product Team', '--tree'], DEMO_KEYS.member.token);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'Customer Interviews [18] ALL_MEMBER_VIEWER',
        'Design Reviews [16] ALL_MEMBER_EDITOR',
        'Leadership Sync [19] LIMITED',
        'Roadmap [11] ALL_MEMBER_VIEWER',
        '├─ 2027 Planning [12] ALL_MEMBER_EDITOR',
        '│  └─ Q1 Launch [13] ALL_MEMBER_EDITOR',
        '│     └─ Launch Assets [14] ALL_MEMBER_EDITOR',
        '│        └─ Press Kit [15] ALL_MEMBER_VIEWER',
        `└─ Archive [${archive.id}] ALL_MEMBER_VIEWER`,
        '',
      ].join('\n'),
    );
    // the owner of the private parent sees Customer Interviews under Dana's Drafts
    const owner = await cli(['folders', 'list', '--workspace', WS.product, '--tree']);
    expect(owner.stdout).toContain("Dana's Drafts [17] PRIVATE\n└─ Customer Interviews [18] ALL_MEMBER_VIEWER\n");
  });

  it('lists in table and JSON form', async () => {
    const table = await cli(['folders', 'list', '--workspace', 'Sales', '-o', 'table']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/ID\s+TITLE\s+SHARING\s+PARENT\s+COLOR\s+UPDATED/);
    expect(table.stdout).toContain('Customer Calls');
    expect(table.stdout).toContain('Deal Desk');
    const j = await cli(['folders', 'list', '--workspace', 'Sales', '--json'], DEMO_KEYS.member.token);
    expect(json(j).map((f: any) => f.id)).toEqual([String(F.customerCalls)]);
  });

  it("uses the key's workspace, and names the choices when the key is bound to none", async () => {
    const ws = await cli(['folders', 'list', '--json'], DEMO_KEYS.workspaceKey.token);
    expect(ws.exitCode, ws.stderr).toBe(0);
    expect(json(ws).every((f: any) => f.sharingType.startsWith('ALL_MEMBER_'))).toBe(true);
    const unbound = await cli(['folders', 'list']);
    expect(unbound.exitCode).toBe(2);
    expect(unbound.stderr).toMatch(/not bound to a workspace/);
    expect(unbound.stderr).toMatch(/--workspace/);
    expect(unbound.stderr).toContain(`${WS.sales} (Sales)`);
  });
});

describe('folders get', () => {
  it('shows a folder in table and JSON form', async () => {
    const table = await cli(['folders', 'get', String(F.leadershipSync), '-o', 'table']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/MEMBERS\s+102:EDITOR, 103:VIEWER/);
    const j = json(await cli(['folders', 'get', String(F.customerInterviews), '--json'], DEMO_KEYS.member.token));
    expect(j).toMatchObject({ id: String(F.customerInterviews), parentId: null, sharingType: 'ALL_MEMBER_VIEWER', isTeamFolder: true });
  });

  it('exit 5 for a folder the key cannot see, exit 2 for a non-numeric id', async () => {
    expect((await cli(['folders', 'get', String(F.danasDrafts)], DEMO_KEYS.member.token)).exitCode).toBe(5);
    const bad = await cli(['folders', 'get', 'roadmap']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/"roadmap" is not a folder id/);
  });
});

describe('folders create', () => {
  it('takes the defaults when not interactive (and never prompts)', async () => {
    const f = await createFolder('Defaults');
    expect(f).toMatchObject({ title: 'Defaults', color: LIMITS.folderDefaultColor, sharingType: LIMITS.folderDefaultSharing, description: '' });
    const table = await cli(['folders', 'create', 'Team folder', '--description', 'for the team', '--color', '#112233', '-o', 'table'], DEMO_KEYS.boundUser.token);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stderr).toMatch(/Created folder "Team folder"/);
    expect(table.stdout).toMatch(/COLOR\s+#112233/);
  });

  it('PRIVATE with --workspace, LIMITED with members, inside a parent', async () => {
    const priv = await createFolder('Private one', ['--sharing', 'private']);
    expect(priv).toMatchObject({ sharingType: 'PRIVATE', isTeamFolder: false });
    const limited = await createFolder('Invited', ['--member', '102:EDITOR', '--parent', String(F.designReviews)]);
    expect(limited.sharingType).toBe('LIMITED');
    const got = json(await cli(['folders', 'get', limited.id, '--json'], DEMO_KEYS.wsAdmin.token));
    expect(got).toMatchObject({ parentId: String(F.designReviews), members: [{ userId: 102, role: 'EDITOR' }] });
  });

  it.each<[string, string[], RegExp]>([
    ['a blank title', ['   '], /title ".*" is blank[\s\S]*1 to 50 characters/],
    ['a 51-character title', ['x'.repeat(51)], /is 51 characters long[\s\S]*1 to 50 characters/],
    ['a bad colour', ['ok', '--color', '#12345G'], /--color "#12345G" is not a colour[\s\S]*#RRGGBB/],
    ['an unknown sharing type', ['ok', '--sharing', 'EVERYONE'], /--sharing "EVERYONE" is not one of .*LIMITED/],
    ['PRIVATE without --workspace', ['ok', '--sharing', 'PRIVATE'], /PRIVATE needs --workspace/],
    ['a non-numeric parent', ['ok', '--parent', 'x1'], /--parent "x1" is not a folder id/],
    ['a malformed member', ['ok', '--member', 'marco'], /--member "marco" is not userId:ROLE/],
  ])('exit 2 before any request for %s', async (_what, args, message) => {
    const before = requests();
    const r = await cli(['folders', 'create', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(requests()).toBe(before);
  });

  it('reports the service refusing a too-deep folder (exit 6)', async () => {
    const r = await cli(['folders', 'create', 'Too deep', '--parent', String(F.pressKit), '--workspace', WS.product]);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/422/);
  });

  it('asks for the description, colour and sharing type on a terminal', async () => {
    const prompts = new MockPrompter([
      { kind: 'input', message: 'Description', answer: 'Typed at the prompt' },
      { kind: 'input', message: 'Colour', answer: ['#12', '#00FF00'] },
      { kind: 'select', message: 'Sharing', answer: 'ALL_MEMBER_EDITOR' },
    ]);
    const r = await runInPty(['folders', 'create', 'Asked', '--workspace', 'Product Team'], prompts);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompts.refusals).toEqual([expect.stringMatching(/#RRGGBB, e\.g\. #4A90D9/)]);
    expect(r.stderr).toMatch(/Created folder "Asked" \((\d+)\)/);
    const id = /Created folder "Asked" \((\d+)\)/.exec(r.stderr)![1];
    expect(sb.db.get('SELECT description, color, sharing_type FROM folders WHERE id = ?', [Number(id)])).toEqual({
      description: 'Typed at the prompt',
      color: '#00FF00',
      sharing_type: 'ALL_MEMBER_EDITOR',
    });
  });
});

describe('folders create: the title and LIMITED members', () => {
  it('without a title and without a terminal: exit 10 naming the argument, nothing sent', async () => {
    const before = requests();
    const r = await cli(['folders', 'create', '--workspace', WS.product]);
    expect(r.exitCode).toBe(10);
    expect(r.stderr).toMatch(/a folder title is required and prompting is not allowed/);
    expect(r.stderr).toMatch(/Pass the title as the argument/);
    expect(requests()).toBe(before);
  });

  it('on a terminal asks for the title (checked as typed) and, for LIMITED, for the members', async () => {
    const prompts = new MockPrompter([
      { kind: 'input', message: 'Title (1–50 characters)', answer: ['   ', 'Offsite planning'] },
      { kind: 'select', message: 'Sharing', answer: 'LIMITED' },
      { kind: 'input', message: 'Members (USER_ID:VIEWER', answer: ['102:EDITOR, marco', '102:EDITOR, 103:viewer'] },
    ]);
    const r = await runInPty(['folders', 'create', '--workspace', 'Product Team', '--description', '', '--color', '#123456'], prompts);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(prompts.refusals).toEqual([expect.stringMatching(/is blank/), expect.stringMatching(/Write each member as USER_ID:VIEWER/)]);
    const id = /Created folder "Offsite planning" \((\d+)\)/.exec(r.stderr)?.[1];
    expect(id, r.stderr).toBeDefined();
    expect(folderRow(id!)).toMatchObject({ title: 'Offsite planning', sharing_type: 'LIMITED', parent_id: null });
    expect(sb.db.all('SELECT user_id, role FROM folder_members WHERE folder_id = ? ORDER BY user_id', [Number(id)])).toEqual([
      { user_id: 102, role: 'EDITOR' },
      { user_id: 103, role: 'VIEWER' },
    ]);
  });
});

describe('folders create: a refusal after the prompts (issue 13 item 11)', () => {
  it('keeps the answers: prints the equivalent command with every answer as a flag', async () => {
    const r = await runInPty(['folders', 'create', '--workspace', 'Product Team', '--color', '#123456'], [
      { kind: 'input', message: 'Title (1–50 characters)', answer: "Team's offsite" },
      { kind: 'input', message: 'Description', answer: 'Two days, one plan' },
      { kind: 'select', message: 'Sharing', answer: 'LIMITED' },
      { kind: 'input', message: 'Members (USER_ID:VIEWER', answer: '987654:EDITOR' },
    ]);
    expect(r.exitCode, r.stderr).toBe(6); // 422: that user is not a member of the workspace
    const screen = r.stderr;
    expect(screen).toContain('Your answers, as one command to change and run again:');
    expect(screen).toContain(`notevox folders create 'Team'\\''s offsite' --description 'Two days, one plan' --color '#123456' --sharing LIMITED --member 987654:EDITOR --workspace 'Product Team'`);
  });
});

describe('folders update', () => {
  it('changes fields (table and JSON)', async () => {
    const f = await createFolder('To update');
    const j = json(await cli(['folders', 'update', f.id, '--title', 'Updated', '--color', '#ABCDEF', '--json']));
    expect(j).toMatchObject({ id: f.id, title: 'Updated', color: '#ABCDEF' });
    const t = await cli(['folders', 'update', f.id, '--description', 'now described', '--sharing', 'ALL_MEMBER_EDITOR', '-o', 'table']);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/DESCRIPTION\s+now described/);
    expect(t.stdout).toMatch(/SHARING\s+ALL_MEMBER_EDITOR/);
  });

  it('exit 2 without a change or with an invalid value; exit 4 without edit rights', async () => {
    const none = await cli(['folders', 'update', String(F.roadmap)]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/at least one of --title/);
    expect((await cli(['folders', 'update', String(F.roadmap), '--title', 'y'.repeat(51)])).exitCode).toBe(2);
    expect((await cli(['folders', 'update', String(F.roadmap), '--title', 'View only'], DEMO_KEYS.member.token)).exitCode).toBe(4);
  });
});

describe('folders move', () => {
  it('moves under a parent inheriting its sharing, and back to the root keeping it', async () => {
    const f = await createFolder('Mover');
    const j = json(await cli(['folders', 'move', f.id, '--to', String(F.leadershipSync), '--inherit-sharing', '--json']));
    expect(j).toMatchObject({ parentId: String(F.leadershipSync), sharingType: 'LIMITED', members: [{ userId: 102, role: 'EDITOR' }, { userId: 103, role: 'VIEWER' }] });
    const t = await cli(['folders', 'move', f.id, '--root', '--inherit-sharing', '-o', 'table']);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stderr).toMatch(/no parent to inherit from; the folder keeps its sharing type/);
    expect(t.stderr).toMatch(/to the top level; sharing LIMITED/);
    expect(folderRow(f.id)?.parent_id).toBeNull();
  });

  it('exit 2 unless exactly one of --to and --root; exit 6 into its own subtree', async () => {
    const before = requests();
    for (const args of [[], ['--root', '--to', '12'], ['--to', 'abc'], ['--to', String(F.roadmap)]]) {
      const r = await cli(['folders', 'move', String(F.roadmap), ...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
    }
    expect(requests()).toBe(before);
    expect((await cli(['folders', 'move', String(F.roadmap), '--to', String(F.q1Launch)])).exitCode).toBe(6);
  });
});

describe('folders delete', () => {
  it('not interactive: exit 10 without --yes (nothing deleted), says what would be affected', async () => {
    const r = await cli(['folders', 'delete', String(F.planning2027)]);
    expect(r.exitCode).toBe(10);
    expect(r.stderr).toMatch(/3 sub-folders and 3 notes affected \(notes become folder-less\)/);
    expect(r.stderr).toMatch(/pass --yes/i);
    expect(folderRow(F.planning2027)).toBeDefined();
  });

  it('--yes deletes the folder and its sub-folders; notes become folder-less', async () => {
    const parent = await createFolder('Doomed');
    await createFolder('Doomed child', ['--parent', parent.id]);
    const r = await cli(['folders', 'delete', parent.id, '--yes', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r)).toEqual({ id: parent.id, title: 'Doomed', deleted: true, subFolders: 1, notes: 0 });
    expect(folderRow(parent.id)).toBeUndefined();
  });

  it('on a terminal asks to type the exact title; a wrong title deletes nothing', async () => {
    const typing = (text: string) => [{ kind: 'input' as const, message: 'Type the folder title "Design Reviews"', answer: text }];
    const wrong = await runInPty(['folders', 'delete', String(F.designReviews)], typing('Design'));
    expect(wrong.exitCode, wrong.stderr).toBe(130); // a declined confirmation, as in every command
    expect(wrong.stderr).toMatch(/1 sub-folder and 1 note affected \(notes become folder-less\)/);
    expect(wrong.stderr).toMatch(/does not match: cancelled, nothing was deleted/);
    expect(folderRow(F.designReviews)).toBeDefined();

    const right = await runInPty(['folders', 'delete', String(F.designReviews)], typing('Design Reviews'));
    expect(right.exitCode, right.stderr).toBe(0);
    expect(right.stderr).toMatch(/Deleted folder "Design Reviews" \(16\)/);
    expect(folderRow(F.designReviews)).toBeUndefined();
    expect(sb.db.get<{ folder_id: number | null }>('SELECT folder_id FROM notes WHERE guid = ?', [DEMO_NOTES.designCritique])?.folder_id).toBeNull();
  });
});
