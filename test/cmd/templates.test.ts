import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, DEMO_TEMPLATES } from '../../src/sandbox/demo-seed.js';
import { commandSandbox, runCommand } from '../helpers/run-command.js';

type Sandbox = Awaited<ReturnType<typeof commandSandbox>>;
const token = (k: { id: string; secret: string }) => `${k.id}.${k.secret}`;
const ADMIN = token(DEMO_KEYS.admin);
const T = DEMO_TEMPLATES;

describe('templates commands', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await commandSandbox();
  });
  afterAll(() => sb.close());

  const cli = (args: string[], key = ADMIN) => runCommand(args, { sandbox: sb, key, env: { COLUMNS: '200' } });
  const ids = async (args: string[], key = ADMIN) => {
    const r = await cli([...args, '--json'], key);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout).map((t: any) => t.id);
  };
  const requests = () => sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log')!.n;

  it('lists every usable template as a table', async () => {
    const r = await cli(['templates', 'list', '-o', 'table']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^ID\s+TITLE\s+OWNER\s+SECTIONS\s+CREATED/);
    expect(r.stdout).toMatch(/10\s+Interview debrief\s+USER\s+4/);
    expect(r.stdout).toMatch(/30\s+Customer call report\s+ORGANIZATION\s+4/);
  });

  it('picks the endpoint from --managed, --owner and --workspace', async () => {
    expect(await ids(['templates', 'list'])).toEqual([1, 2, 3, 10, 20, 21, 30]);
    expect(await ids(['templates', 'list', '--managed'])).toEqual([T.onePager, T.meetingMinutes, T.salesCall]);
    expect(await ids(['templates', 'list', '--owner', 'user'])).toEqual([T.interviewDebrief]);
    expect(await ids(['templates', 'list', '--owner', 'org'])).toEqual([T.customerCallReport]);
    expect(await ids(['templates', 'list', '--owner', 'workspace'], token(DEMO_KEYS.workspaceKey))).toEqual([T.designReview]);
    expect(await ids(['templates', 'list', '--workspace', 'Customer Support'])).toEqual([T.escalationReport]);
    expect(await ids(['templates', 'list', '--workspace', '-'])).toEqual([T.designReview, T.escalationReport]);
  });

  it('explains --owner workspace for a key bound to no workspace (exit 5)', async () => {
    const r = await cli(['templates', 'list', '--owner', 'workspace']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/bound to no workspace/);
    expect(r.stderr).toMatch(/--workspace -/);
  });

  it('rejects contradicting flags and bad ids before any request (exit 2)', async () => {
    const before = requests();
    for (const args of [['templates', 'list', '--managed', '--owner', 'user'], ['templates', 'list', '--owner', 'org', '--workspace', '-'], ['templates', 'list', '--owner', 'team'], ['templates', 'get', 'abc']]) {
      const r = await cli(args);
      expect(r.exitCode, args.join(' ')).toBe(2);
    }
    expect(requests()).toBe(before);
  });

  it('gets one template (table and JSON); not usable is exit 5, no scope exit 4', async () => {
    const table = await cli(['templates', 'get', String(T.interviewDebrief), '-o', 'table']);
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toMatch(/Title\s+Interview debrief/);
    expect(table.stdout).toMatch(/Sections\s+Context, Pain points, Quotes, Follow-ups/);
    const json = JSON.parse((await cli(['templates', 'get', '1', '--json'])).stdout);
    expect(json).toMatchObject({ id: 1, ownerType: 'MANAGED', title: 'One-pager' });
    expect(json.sections).toHaveLength(4);
    expect((await cli(['templates', 'get', String(T.interviewDebrief)], token(DEMO_KEYS.wsAdmin))).exitCode).toBe(5);
    expect((await cli(['templates', 'list'], token(DEMO_KEYS.noteReadOnly))).exitCode).toBe(4);
  });
});
