import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BUSY_PAGE, DEMO_KEYS, DEMO_WIKI_PAGES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { commandSandbox, runCommand } from '../helpers/run-command.js';

type Sandbox = Awaited<ReturnType<typeof commandSandbox>>;
const token = (k: { id: string; secret: string }) => `${k.id}.${k.secret}`;
const ADMIN = token(DEMO_KEYS.admin);
const PRODUCT = ['--workspace', 'Product Team'];
const BUSY = DEMO_BUSY_PAGE.guid;

describe('wiki commands', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await commandSandbox();
  });
  afterAll(() => sb.close());

  const cli = (args: string[], key = ADMIN) => runCommand(args, { sandbox: sb, key });
  const ok = async (args: string[], key = ADMIN) => {
    const r = await cli(args, key);
    expect(r.stderr, r.stderr).not.toMatch(/error:/);
    expect(r.exitCode).toBe(0);
    return r;
  };
  const json = async (args: string[], key = ADMIN) => JSON.parse((await ok([...args, '--json'], key)).stdout);
  const requests = () => sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM request_log')!.n;

  it('lists pages of a workspace given by name (JSON and table)', async () => {
    const pages = await json(['wiki', 'pages', ...PRODUCT]);
    expect(pages.map((p: any) => p.canonicalName)).toContain('Harbor Freight Logistics');
    const table = await ok(['wiki', 'pages', ...PRODUCT, '-o', 'table']);
    expect(table.stdout).toMatch(/^GUID\s+NAME\s+TYPE\s+MENTIONS/);
    expect(table.stdout).toMatch(/wp_harbor_freight\s+Harbor Freight Logistics\s+organization\s+200/);
  });

  it('filters by --type, --since and --search', async () => {
    const names = async (extra: string[]) => (await json(['wiki', 'pages', ...PRODUCT, ...extra])).map((p: any) => p.canonicalName);
    expect(await names(['--type', 'feature'])).toEqual(['Offline Sync', 'Onboarding Flow v3']);
    expect(await names(['--since', '2026-10-31T17:00:00Z'])).toEqual(['Harbor Freight Logistics', 'Q1 2027 Launch']);
    expect(await names(['--since', '2026-10-31', '--type', 'feature'])).toEqual(['Offline Sync']);
    expect(await names(['--search', 'HFL'])).toEqual(['Harbor Freight Logistics']);
  });

  it('defaults to the bound workspace; otherwise asks for --workspace, listing the choices', async () => {
    const bound = await json(['wiki', 'pages', '--type', 'person'], token(DEMO_KEYS.workspaceKey));
    expect(bound.map((p: any) => p.guid)).toEqual([DEMO_WIKI_PAGES.marco]);
    const unbound = await cli(['wiki', 'pages']);
    expect(unbound.exitCode).toBe(2);
    expect(unbound.stderr).toContain('--workspace is required');
    expect(unbound.stderr).toContain(`${DEMO_WORKSPACES.sales} (Sales)`);
  });

  it('validates --since and --limit before any request', async () => {
    const before = requests();
    const since = await cli(['wiki', 'pages', ...PRODUCT, '--since', 'last week']);
    expect(since.exitCode).toBe(2);
    expect(since.stderr).toContain('--since "last week" is not an ISO 8601 date or instant');
    for (const limit of ['0', '201', 'ten']) {
      const r = await cli(['wiki', 'mentions', BUSY, ...PRODUCT, '--limit', limit]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`--limit "${limit}" must be a whole number from 1 to 200`);
    }
    expect(requests()).toBe(before);
  });

  it('shows a page with aliases and links', async () => {
    const page = await json(['wiki', 'page', BUSY, ...PRODUCT]);
    expect(page.aliases).toEqual(['Harbor Freight', 'HFL']);
    expect(page.links.map((l: any) => l.canonicalName)).toEqual(['Q1 2027 Launch', 'Offline Sync']);
    const table = await ok(['wiki', 'page', BUSY, '--workspace', DEMO_WORKSPACES.product, '-o', 'table']);
    expect(table.stdout).toMatch(/Aliases\s+Harbor Freight, HFL/);
    expect(table.stdout).toMatch(/Links\s+Q1 2027 Launch \(wp_q1_launch\), Offline Sync \(wp_offline_sync\)/);
  });

  it('pages through mentions: --limit stops and says how to continue, --all follows nextCursor to the end', async () => {
    const legacy = token(DEMO_KEYS.legacyScopeWorkspaceKey);
    const first = await ok(['wiki', 'mentions', BUSY, '--limit', '200', '-o', 'ndjson'], legacy);
    expect(first.stdout.trim().split('\n')).toHaveLength(200);
    const cursor = /--cursor (\S+)/.exec(first.stderr)?.[1];
    expect(cursor).toBeTruthy();
    const rest = await ok(['wiki', 'mentions', BUSY, '--limit', '200', '--cursor', cursor!, '-o', 'ndjson'], legacy);
    expect(rest.stdout.trim().split('\n')).toHaveLength(DEMO_BUSY_PAGE.mentions - 200);
    expect(rest.stderr).not.toContain('more are available');

    const all = (await ok(['wiki', 'mentions', BUSY, '--all', '-o', 'ndjson'], legacy)).stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(all).toHaveLength(DEMO_BUSY_PAGE.mentions);
    expect(new Set(all.map((m) => m.guid)).size).toBe(DEMO_BUSY_PAGE.mentions);
    expect(all.map((m) => m.guid)).toEqual([...first.stdout.trim().split('\n'), ...rest.stdout.trim().split('\n')].map((l) => JSON.parse(l).guid));

    // the admin cannot read Tom's private note, so fewer mentions
    expect(await json(['wiki', 'mentions', BUSY, ...PRODUCT, '--all'])).toHaveLength(200);
    const table = await ok(['wiki', 'mentions', BUSY, ...PRODUCT, '--limit', '3', '-o', 'table']);
    expect(table.stdout).toMatch(/NOTE\s+PARA\s+KIND\s+CONF\s+TEXT/);
    expect(table.stdout.trim().split('\n')).toHaveLength(4);
    expect(table.stderr).toContain('Showing 3 mentions; more are available');
  });

  it('searches (JSON and table)', async () => {
    const found = await json(['wiki', 'search', 'offline', ...PRODUCT]);
    expect(found[0].canonicalName).toBe('Offline Sync');
    const table = await ok(['wiki', 'search', 'marco', ...PRODUCT, '-o', 'table']);
    expect(table.stdout).toMatch(/wp_marco_reyes\s+Marco Reyes\s+person/);
  });

  it('explains the wiki plan (403004) and activation (403005) gates', async () => {
    const sales = await cli(['wiki', 'pages', '--workspace', 'Sales']);
    expect(sales.exitCode).toBe(4);
    expect(sales.stderr).toContain('403005');
    expect(sales.stderr).toContain(`hint: Workspace "Sales" (${DEMO_WORKSPACES.sales}) has the wiki plan but its wiki is not activated: an admin must activate (enable) the wiki`);
    const support = await cli(['wiki', 'search', 'android', '--workspace', 'Customer Support']);
    expect(support.exitCode).toBe(4);
    expect(support.stderr).toContain('403004');
    expect(support.stderr).toContain(`hint: Workspace "Customer Support" (${DEMO_WORKSPACES.support}) has no wiki plan: an organization admin must enable the wiki plan`);
    const json = await cli(['wiki', 'page', 'wp_x', '--workspace', 'Sales', '--json']);
    expect(JSON.parse(json.stderr).error).toMatchObject({ exitCode: 4, errorType: 'forbidden', code: 403005, hint: expect.stringContaining('activate') });
    // mentions, and the workspace the key is bound to
    const bound = await cli(['wiki', 'mentions', 'wp_enterprise_pipeline', '--all'], token(DEMO_KEYS.salesWorkspaceKey));
    expect(bound.exitCode).toBe(4);
    expect(bound.stderr).toContain(`Workspace ${DEMO_WORKSPACES.sales} (the key's workspace) has the wiki plan but its wiki is not activated`);
    // other errors keep their own hints
    const scope = await cli(['wiki', 'pages', '--workspace', DEMO_WORKSPACES.product], token(DEMO_KEYS.noteReadOnly));
    expect(scope.exitCode).toBe(4);
    expect(scope.stderr).toContain('403001');
    expect(scope.stderr).toContain('wiki:read');
  });

  it('resolves --workspace names through the workspaces the key reaches: unknown names exit 5, ambiguous ones 2', async () => {
    const unknown = await cli(['wiki', 'pages', '--workspace', 'Product']);
    expect(unknown.exitCode).toBe(5);
    expect(unknown.stderr).toContain('no workspace "Product" among those this key reaches');
    expect(unknown.stderr).toContain(`${DEMO_WORKSPACES.product} (Product Team)`);
    const twins: string[] = [];
    for (let i = 0; i < 2; i++) twins.push(JSON.parse((await ok(['workspaces', 'create', 'Wiki Twin', '--json'])).stdout).guid);
    const ambiguous = await cli(['wiki', 'search', 'x', '--workspace', 'Wiki Twin']);
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toContain('workspace name "Wiki Twin" is ambiguous');
    for (const guid of twins) expect(ambiguous.stderr).toContain(guid);
    // a guid works where the name does not
    const byGuid = await cli(['wiki', 'pages', '--workspace', twins[0]]);
    expect(byGuid.exitCode).toBe(4);
    expect(byGuid.stderr).toContain('403004');
  });
});
