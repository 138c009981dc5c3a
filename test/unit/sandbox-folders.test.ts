import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import * as schemas from '../../src/contract/schemas.js';
import { DEMO_FOLDERS as F, DEMO_NOTES, DEMO_USERS, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import { folderDepth, subtreeHeight } from '../../src/sandbox/handlers/folders.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { K, expectError, type KeyName } from '../helpers/expect.js';

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

const API = '/v1/external';
const folderPath = (id: number | string) => `${API}/folders/${id}`;
const wsFolders = (ws: string) => `${API}/workspaces/${ws}/folders`;
const TEAM = `${API}/teams/me/folders`;

const ids = (content: Array<{ id: string }>) => content.map((f) => Number(f.id)).sort((a, b) => a - b);

/** A sandbox for tests that change data; closed by the caller. */
const fresh = () => inProcessSandbox();

describe('folders: reads and the sharing table', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await inProcessSandbox();
  });
  afterAll(() => sb.close());

  const product = [F.roadmap, F.planning2027, F.q1Launch, F.launchAssets, F.pressKit, F.designReviews];
  it.each<[KeyName, number[]]>([
    // owner of the PRIVATE Dana's Drafts and of the LIMITED Leadership Sync
    ['admin', [...product, F.danasDrafts, F.customerInterviews, F.leadershipSync]],
    // LIMITED EDITOR of Leadership Sync; does not see Dana's or Tom's private folders
    ['wsAdmin', [...product, F.customerInterviews, F.leadershipSync]],
    // LIMITED VIEWER of Leadership Sync
    ['member', [...product, F.customerInterviews, F.leadershipSync]],
    // system keys: only folders shared with all members
    ['workspaceKey', [...product, F.customerInterviews]],
    ['orgKey', [...product, F.customerInterviews]],
  ])('lists the product folders %s may see', async (key, expected) => {
    const r = await sb.call('GET', wsFolders(WS.product), { key: K[key] });
    expect(r.status).toBe(200);
    expect(r.json.nextCursor).toBeNull();
    expect(ids(r.json.content)).toEqual(expected.sort((a, b) => a - b));
    for (const f of r.json.content) expect(schemas.folder.safeParse(f).success).toBe(true);
  });

  it('lists the bound workspace at teams/me, and 404 for a key bound to none', async () => {
    const ws = await sb.call('GET', TEAM, { key: K.workspaceKey });
    expect(ws.status).toBe(200);
    expect(ids(ws.json.content)).toEqual([...product, F.customerInterviews].sort((a, b) => a - b));
    const bound = await sb.call('GET', TEAM, { key: K.boundUser });
    expect(ids(bound.json.content)).toEqual([...product, F.customerInterviews, F.leadershipSync].sort((a, b) => a - b));
    expectError(await sb.call('GET', TEAM, { key: K.admin }), 404, 404000);
    expectError(await sb.call('GET', TEAM, { key: K.orgKey }), 404, 404000);
  });

  it('404 for a workspace the key does not reach', async () => {
    expectError(await sb.call('GET', wsFolders(WS.support), { key: K.member }), 404, 404000);
    expectError(await sb.call('GET', wsFolders(WS.sales), { key: K.workspaceKey }), 404, 404000);
    expectError(await sb.call('GET', wsFolders('wsNoSuchSpace0001'), { key: K.admin }), 404, 404000);
  });

  it('the organization key sees the shared folders of every workspace, never LIMITED or PRIVATE', async () => {
    const sales = await sb.call('GET', wsFolders(WS.sales), { key: K.orgKey });
    expect(ids(sales.json.content)).toEqual([F.customerCalls]);
    const support = await sb.call('GET', wsFolders(WS.support), { key: K.orgKey });
    expect(ids(support.json.content)).toEqual([F.escalations, F.supportPlaybooks]);
  });

  it('parentId is null when the parent is hidden from the caller', async () => {
    const owner = await sb.call('GET', folderPath(F.customerInterviews), { key: K.admin });
    expect(owner.json.parentId).toBe(String(F.danasDrafts));
    for (const key of ['member', 'workspaceKey', 'orgKey'] as const) {
      const r = await sb.call('GET', folderPath(F.customerInterviews), { key: K[key] });
      expect(r.status).toBe(200);
      expect(r.json.parentId).toBeNull();
    }
    const list = await sb.call('GET', wsFolders(WS.product), { key: K.member });
    expect(list.json.content.find((f: any) => f.id === String(F.customerInterviews)).parentId).toBeNull();
    expect(list.json.content.find((f: any) => f.id === String(F.planning2027)).parentId).toBe(String(F.roadmap));
  });

  it('LIMITED folders list their members; isTeamFolder follows sharingType', async () => {
    const r = await sb.call('GET', folderPath(F.leadershipSync), { key: K.wsAdmin });
    expect(r.json).toMatchObject({ sharingType: 'LIMITED', isTeamFolder: true, workspaceGuid: WS.product });
    expect(r.json.members).toEqual([
      { userId: DEMO_USERS.marco, role: 'EDITOR' },
      { userId: DEMO_USERS.priya, role: 'VIEWER' },
    ]);
    const priv = await sb.call('GET', folderPath(F.danasDrafts), { key: K.admin });
    expect(priv.json).toMatchObject({ sharingType: 'PRIVATE', isTeamFolder: false });
    expect(priv.json.members).toBeUndefined();
  });

  it('404 for unknown and non-numeric folder ids', async () => {
    expectError(await sb.call('GET', folderPath(999999), { key: K.admin }), 404, 404000);
    expectError(await sb.call('GET', folderPath('abc'), { key: K.admin }), 404, 404000);
  });

  /** v: visible only (PATCH 403003), e: editable, -: invisible (404). */
  const TABLE: Array<[KeyName, Record<string, 'e' | 'v' | '-'>]> = [
    ['admin', { roadmap: 'e', designReviews: 'e', danasDrafts: 'e', leadershipSync: 'e', dealDesk: 'e', escalations: 'e', tomsScratchpad: '-' }],
    // workspace ADMIN of product: may edit ALL_MEMBER_VIEWER folders there; LIMITED VIEWER of Deal Desk; not in support
    ['wsAdmin', { roadmap: 'e', designReviews: 'e', danasDrafts: '-', leadershipSync: 'e', dealDesk: 'v', escalations: '-', tomsScratchpad: '-' }],
    // plain member: ALL_MEMBER_VIEWER is view-only; LIMITED VIEWER of Leadership Sync; not invited to Deal Desk; not in support
    ['member', { roadmap: 'v', designReviews: 'e', danasDrafts: '-', leadershipSync: 'v', dealDesk: '-', escalations: '-', tomsScratchpad: '-' }],
  ];
  for (const [key, row] of TABLE) {
    for (const [name, access] of Object.entries(row)) {
      const id = F[name as keyof typeof F];
      it(`${key} on ${name}: ${access === 'e' ? 'edit' : access === 'v' ? 'view only' : 'hidden'}`, async () => {
        const get = await sb.call('GET', folderPath(id), { key: K[key] });
        const patch = await sb.call('PATCH', folderPath(id), { key: K[key], body: { description: `touched by ${key}` } });
        if (access === '-') {
          expectError(get, 404, 404000);
          expectError(patch, 404, 404000);
          expectError(await sb.call('DELETE', folderPath(id), { key: K[key] }), 404, 404000);
          return;
        }
        expect(get.status).toBe(200);
        if (access === 'v') {
          expectError(patch, 403, 403003);
          expectError(await sb.call('DELETE', folderPath(id), { key: K[key] }), 403, 403003);
          expectError(await sb.call('PUT', `${folderPath(id)}/move`, { key: K[key], body: {} }), 403, 403003);
        } else {
          expect(patch.status).toBe(200);
          expect(patch.json.description).toBe(`touched by ${key}`);
          expect(schemas.folder.safeParse(patch.json).success).toBe(true);
        }
      });
    }
  }

  it('system keys read shared folders only and never write (403002, or 403001 without the write scope)', async () => {
    for (const key of ['workspaceKey', 'orgKey'] as const) {
      expect((await sb.call('GET', folderPath(F.roadmap), { key: K[key] })).status).toBe(200);
      expectError(await sb.call('GET', folderPath(F.danasDrafts), { key: K[key] }), 404, 404000);
      expectError(await sb.call('GET', folderPath(F.leadershipSync), { key: K[key] }), 404, 404000);
    }
    expectError(await sb.call('GET', folderPath(F.customerCalls), { key: K.workspaceKey }), 404, 404000);
    expectError(await sb.call('PATCH', folderPath(F.designReviews), { key: K.workspaceKey, body: { title: 'x' } }), 403, 403002);
    expectError(await sb.call('DELETE', folderPath(F.designReviews), { key: K.workspaceKey }), 403, 403002);
    expectError(await sb.call('PUT', `${folderPath(F.designReviews)}/move`, { key: K.workspaceKey, body: {} }), 403, 403002);
    expectError(await sb.call('POST', TEAM, { key: K.workspaceKey, body: { title: 'x' } }), 403, 403002);
    // the organization keys of the demo have folder:read only: the scope check comes first
    expectError(await sb.call('PATCH', folderPath(F.designReviews), { key: K.orgKey, body: { title: 'x' } }), 403, 403001);
  });

  it('the tree helpers measure depth and height', () => {
    expect(folderDepth(sb.db, F.roadmap)).toBe(1);
    expect(folderDepth(sb.db, F.pressKit)).toBe(LIMITS.folderMaxDepth);
    expect(subtreeHeight(sb.db, F.roadmap)).toBe(5);
    expect(subtreeHeight(sb.db, F.q1Launch)).toBe(3);
    expect(subtreeHeight(sb.db, F.designReviews)).toBe(1);
  });
});

describe('folders: create', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await fresh();
  });
  afterAll(() => sb.close());

  it('creates with the defaults and answers 201 with the create shape; the creator owns it', async () => {
    const r = await sb.call('POST', TEAM, { key: K.boundUser, body: { title: 'Team rituals' } });
    expect(r.status).toBe(201);
    expect(schemas.folderCreated.safeParse(r.json).success).toBe(true);
    expect(r.json).toMatchObject({ title: 'Team rituals', description: '', color: LIMITS.folderDefaultColor, sharingType: LIMITS.folderDefaultSharing, isTeamFolder: true });
    expect(r.json.id).toMatch(/^\d+$/);
    const got = await sb.call('GET', folderPath(r.json.id), { key: K.member });
    expect(got.json).toMatchObject({ workspaceGuid: WS.product, parentId: null });
    const row = sb.db.get<{ owner_user_id: number }>('SELECT owner_user_id FROM folders WHERE id = ?', [Number(r.json.id)]);
    expect(row?.owner_user_id).toBe(DEMO_USERS.priya);
  });

  it('teams/me answers 404 for a key bound to no workspace', async () => {
    expectError(await sb.call('POST', TEAM, { key: K.admin, body: { title: 'x' } }), 404, 404000);
  });

  it('PRIVATE only on the workspace path', async () => {
    const team = await sb.call('POST', TEAM, { key: K.boundUser, body: { title: 'Mine', sharingType: 'PRIVATE' } });
    expectError(team, 400, 400000);
    expect(team.json.error.detail).toMatch(/^sharingType/);
    const ws = await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'Mine', sharingType: 'PRIVATE', color: '#00aa11', description: 'notes to self' } });
    expect(ws.status).toBe(201);
    expect(ws.json).toMatchObject({ sharingType: 'PRIVATE', isTeamFolder: false, color: '#00aa11', description: 'notes to self' });
    expectError(await sb.call('GET', folderPath(ws.json.id), { key: K.wsAdmin }), 404, 404000);
  });

  it.each<[string, unknown, RegExp]>([
    ['an empty title', { title: '' }, /^title/],
    ['a blank title', { title: '   ' }, /^title: must not be blank/],
    ['a 51-character title', { title: 'x'.repeat(LIMITS.folderTitle.max + 1) }, /^title/],
    ['a bad colour', { title: 'ok', color: '#12345G' }, /^color/],
    ['a short colour', { title: 'ok', color: '#123' }, /^color/],
    ['no title', { color: '#123456' }, /^title/],
    ['an unknown sharing type', { title: 'ok', sharingType: 'EVERYONE' }, /^sharingType/],
    ['an unknown member role', { title: 'ok', sharingType: 'LIMITED', members: [{ userId: 102, role: 'OWNER' }] }, /^members/],
  ])('400000 for %s, naming the field', async (_what, body, detail) => {
    const r = await sb.call('POST', wsFolders(WS.product), { key: K.member, body });
    expectError(r, 400, 400000);
    expect(r.json.error.detail).toMatch(detail);
  });

  it('accepts a 50-character title', async () => {
    const r = await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'x'.repeat(LIMITS.folderTitle.max) } });
    expect(r.status).toBe(201);
  });

  it('LIMITED with members: VIEWER and EDITOR, workspace members only, never on other sharing types', async () => {
    const r = await sb.call('POST', wsFolders(WS.product), {
      key: K.member,
      body: { title: 'Offsite', sharingType: 'LIMITED', members: [{ userId: DEMO_USERS.marco, role: 'EDITOR' }, { userId: DEMO_USERS.tom, role: 'VIEWER' }] },
    });
    expect(r.status).toBe(201);
    const asMarco = await sb.call('GET', folderPath(r.json.id), { key: K.wsAdmin });
    expect(asMarco.json.members).toEqual([
      { userId: DEMO_USERS.marco, role: 'EDITOR' },
      { userId: DEMO_USERS.tom, role: 'VIEWER' },
    ]);
    // Dana, the workspace OWNER, was not invited
    expectError(await sb.call('GET', folderPath(r.json.id), { key: K.admin }), 404, 404000);
    const outsider = await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'x', sharingType: 'LIMITED', members: [{ userId: DEMO_USERS.lena, role: 'VIEWER' }] } });
    expectError(outsider, 422, 422000);
    expect(outsider.json.error.detail).toMatch(/^members\[0\]\.userId/);
    expectError(await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'x', members: [{ userId: DEMO_USERS.marco, role: 'VIEWER' }] } }), 400, 400000);
  });

  it('a parent must be visible (404), in the same workspace (422) and editable (403003)', async () => {
    const child = await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'Child', parentId: String(F.designReviews) } });
    expect(child.status).toBe(201);
    expect((await sb.call('GET', folderPath(child.json.id), { key: K.member })).json.parentId).toBe(String(F.designReviews));
    expectError(await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'x', parentId: String(F.danasDrafts) } }), 404, 404000);
    expectError(await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'x', parentId: '999999' } }), 404, 404000);
    expectError(await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'x', parentId: String(F.customerCalls) } }), 422, 422000);
    expectError(await sb.call('POST', wsFolders(WS.product), { key: K.member, body: { title: 'x', parentId: String(F.roadmap) } }), 403, 403003);
  });

  it('422000 when the new folder would be deeper than 5', async () => {
    const r = await sb.call('POST', wsFolders(WS.product), { key: K.wsAdmin, body: { title: 'Too deep', parentId: String(F.pressKit) } });
    expectError(r, 422, 422000);
    expect(r.json.error.detail).toMatch(/depth 6/);
    const ok = await sb.call('POST', wsFolders(WS.product), { key: K.wsAdmin, body: { title: 'Depth 5', parentId: String(F.launchAssets) } });
    expect(ok.status).toBe(201);
  });

  it('404 for a workspace the user is not a member of', async () => {
    expectError(await sb.call('POST', wsFolders(WS.support), { key: K.member, body: { title: 'x' } }), 404, 404000);
  });
});

describe('folders: update', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await fresh();
  });
  afterAll(() => sb.close());

  it('changes title, description, colour and sharing type and answers the list shape', async () => {
    const r = await sb.call('PATCH', folderPath(F.designReviews), { key: K.member, body: { title: 'Design crits', color: '#ABCDEF', description: null, sharingType: 'ALL_MEMBER_VIEWER' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: String(F.designReviews), title: 'Design crits', color: '#ABCDEF', description: '', sharingType: 'ALL_MEMBER_VIEWER', workspaceGuid: WS.product });
    expect(r.json.updatedAt > r.json.createdAt).toBe(true);
    // ALL_MEMBER_VIEWER now: the member may no longer edit it
    expectError(await sb.call('PATCH', folderPath(F.designReviews), { key: K.member, body: { title: 'again' } }), 403, 403003);
  });

  it('sets LIMITED members, and drops them when the folder stops being LIMITED', async () => {
    const r = await sb.call('PATCH', folderPath(F.danasDrafts), { key: K.admin, body: { sharingType: 'LIMITED', members: [{ userId: DEMO_USERS.priya, role: 'VIEWER' }] } });
    expect(r.json.members).toEqual([{ userId: DEMO_USERS.priya, role: 'VIEWER' }]);
    expect((await sb.call('GET', folderPath(F.danasDrafts), { key: K.member })).status).toBe(200);
    const back = await sb.call('PATCH', folderPath(F.danasDrafts), { key: K.admin, body: { sharingType: 'PRIVATE' } });
    expect(back.json.members).toBeUndefined();
    expect(sb.db.all('SELECT * FROM folder_members WHERE folder_id = ?', [F.danasDrafts])).toEqual([]);
    expectError(await sb.call('GET', folderPath(F.danasDrafts), { key: K.member }), 404, 404000);
  });

  it('400000 for an empty body and for invalid fields', async () => {
    expectError(await sb.call('PATCH', folderPath(F.roadmap), { key: K.admin, body: {} }), 400, 400000);
    const r = await sb.call('PATCH', folderPath(F.roadmap), { key: K.admin, body: { color: 'blue' } });
    expectError(r, 400, 400000);
    expect(r.json.error.detail).toMatch(/^color/);
    expectError(await sb.call('PATCH', folderPath(F.roadmap), { key: K.admin, body: { title: ' ' } }), 400, 400000);
  });
});

describe('folders: delete', () => {
  it('removes the folder and its sub-folders; their notes become folder-less', async () => {
    const sb = await fresh();
    try {
      const before = sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM folders')!.n;
      const r = await sb.call('DELETE', folderPath(F.planning2027), { key: K.wsAdmin });
      expect(r.status).toBe(204);
      expect(r.text).toBe('');
      // 2027 Planning, Q1 Launch, Launch Assets, Press Kit
      expect(sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM folders')!.n).toBe(before - 4);
      for (const id of [F.planning2027, F.q1Launch, F.launchAssets, F.pressKit]) expectError(await sb.call('GET', folderPath(id), { key: K.admin }), 404, 404000);
      for (const guid of [DEMO_NOTES.sprintRetro, DEMO_NOTES.launchKickoff, DEMO_NOTES.pressBriefing])
        expect(sb.db.get<{ folder_id: number | null }>('SELECT folder_id FROM notes WHERE guid = ?', [guid])!.folder_id).toBeNull();
      // the parent stays, with its own notes
      expect((await sb.call('GET', folderPath(F.roadmap), { key: K.admin })).status).toBe(200);
      expect(sb.db.get<{ folder_id: number }>('SELECT folder_id FROM notes WHERE guid = ?', [DEMO_NOTES.roadmapReview])!.folder_id).toBe(F.roadmap);
      // folder-less notes leave the system keys' scope
      expectError(await sb.call('GET', `${API}/notes/${DEMO_NOTES.launchKickoff}`, { key: K.workspaceKey }), 404, 404000);
      expectError(await sb.call('DELETE', folderPath(F.planning2027), { key: K.wsAdmin }), 404, 404000);
    } finally {
      await sb.close();
    }
  });
});

describe('folders: move', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await fresh();
  });
  afterAll(() => sb.close());
  const move = (id: number, key: KeyName, body?: unknown) => sb.call('PUT', `${folderPath(id)}/move`, { key: K[key], body });

  it('KEEP_EXISTING (the default) keeps the sharing type', async () => {
    const r = await move(F.designReviews, 'wsAdmin', { newParentId: String(F.leadershipSync) });
    expect(r.status).toBe(200);
    expect(schemas.folder.safeParse(r.json).success).toBe(true);
    expect(r.json).toMatchObject({ parentId: String(F.leadershipSync), sharingType: 'ALL_MEMBER_EDITOR', isTeamFolder: true });
    expect(r.json.members).toBeUndefined();
  });

  it('INHERIT_FROM_PARENT copies the sharing type and the member list', async () => {
    const r = await move(F.designReviews, 'wsAdmin', { newParentId: String(F.leadershipSync), sharingTypeUpdateStrategy: 'INHERIT_FROM_PARENT' });
    expect(r.status).toBe(200);
    expect(r.json.sharingType).toBe('LIMITED');
    expect(r.json.members).toEqual([
      { userId: DEMO_USERS.marco, role: 'EDITOR' },
      { userId: DEMO_USERS.priya, role: 'VIEWER' },
    ]);
    // Priya is now a VIEWER of the moved folder
    expectError(await sb.call('PATCH', folderPath(F.designReviews), { key: K.member, body: { title: 'x' } }), 403, 403003);
    // the system keys no longer see it
    expectError(await sb.call('GET', folderPath(F.designReviews), { key: K.workspaceKey }), 404, 404000);
  });

  it('at the root nothing is inherited', async () => {
    const r = await move(F.designReviews, 'wsAdmin', { newParentId: null, sharingTypeUpdateStrategy: 'INHERIT_FROM_PARENT' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ parentId: null, sharingType: 'LIMITED' });
    const omitted = await move(F.q1Launch, 'wsAdmin', { sharingTypeUpdateStrategy: 'INHERIT_FROM_PARENT' });
    expect(omitted.json).toMatchObject({ parentId: null, sharingType: 'ALL_MEMBER_EDITOR' });
    expect(folderDepth(sb.db, F.pressKit)).toBe(3);
  });

  it('404000 for a missing or invisible new parent', async () => {
    expectError(await move(F.q1Launch, 'member', { newParentId: String(F.danasDrafts) }), 404, 404000);
    expectError(await move(F.q1Launch, 'member', { newParentId: '424242' }), 404, 404000);
    expectError(await move(F.roadmap, 'admin', { newParentId: String(F.tomsScratchpad) }), 404, 404000);
  });

  it('422000 for a parent in another workspace', async () => {
    const r = await move(F.q1Launch, 'admin', { newParentId: String(F.customerCalls) });
    expectError(r, 422, 422000);
    expect(r.json.error.detail).toMatch(/another workspace|workspace/);
  });

  it('422000 into itself or its own subtree', async () => {
    expectError(await move(F.roadmap, 'admin', { newParentId: String(F.roadmap) }), 422, 422000);
    expectError(await move(F.roadmap, 'admin', { newParentId: String(F.planning2027) }), 422, 422000);
  });

  it('422000 when the deepest moved folder would pass depth 5', async () => {
    // Q1 Launch (now at the root) has a subtree of 3 levels: under 2027 Planning (depth 2) it ends at 5, under a depth-3 folder at 6
    const deep = await sb.call('POST', wsFolders(WS.product), { key: K.admin, body: { title: 'Level 2', parentId: String(F.planning2027) } });
    const r = await move(F.q1Launch, 'admin', { newParentId: deep.json.id });
    expectError(r, 422, 422000);
    expect(r.json.error.detail).toMatch(/depth 6/);
    expect((await move(F.q1Launch, 'admin', { newParentId: String(F.planning2027) })).status).toBe(200);
    expect(folderDepth(sb.db, F.pressKit)).toBe(5);
  });

  it('both strategies with every kind of parent: members are a copy, and only LIMITED keeps any', async () => {
    const own = await fresh();
    try {
      const mv = (id: string, parent: number, strategy?: string) =>
        own.call('PUT', `${folderPath(id)}/move`, { key: K.admin, body: { newParentId: String(parent), sharingTypeUpdateStrategy: strategy } });
      const members = (id: string) => own.db.all<{ user_id: number; role: string }>('SELECT user_id, role FROM folder_members WHERE folder_id = ? ORDER BY user_id', [Number(id)]);
      const a = await own.call('POST', wsFolders(WS.product), {
        key: K.admin,
        body: { title: 'Mover', sharingType: 'LIMITED', members: [{ userId: DEMO_USERS.tom, role: 'EDITOR' }] },
      });
      expect(a.status).toBe(201);
      // KEEP_EXISTING under an ALL_MEMBER_VIEWER parent: still LIMITED with its own member
      const keep = await mv(a.json.id, F.roadmap, 'KEEP_EXISTING');
      expect(keep.json).toMatchObject({ parentId: String(F.roadmap), sharingType: 'LIMITED', members: [{ userId: DEMO_USERS.tom, role: 'EDITOR' }] });
      // INHERIT_FROM_PARENT under an ALL_MEMBER_EDITOR parent: the member list goes with the old sharing type
      const editor = await mv(a.json.id, F.designReviews, 'INHERIT_FROM_PARENT');
      expect(editor.json).toMatchObject({ sharingType: 'ALL_MEMBER_EDITOR', isTeamFolder: true });
      expect(editor.json.members).toBeUndefined();
      expect(members(a.json.id)).toEqual([]);
      // under a LIMITED parent: its members are copied…
      const limited = await mv(a.json.id, F.leadershipSync, 'INHERIT_FROM_PARENT');
      expect(limited.json.members).toEqual([
        { userId: DEMO_USERS.marco, role: 'EDITOR' },
        { userId: DEMO_USERS.priya, role: 'VIEWER' },
      ]);
      // …not linked: changing the parent's members later leaves the moved folder alone
      const patched = await own.call('PATCH', folderPath(F.leadershipSync), { key: K.admin, body: { members: [{ userId: DEMO_USERS.priya, role: 'EDITOR' }] } });
      expect(patched.json.members).toEqual([{ userId: DEMO_USERS.priya, role: 'EDITOR' }]);
      expect(members(a.json.id)).toEqual([
        { user_id: DEMO_USERS.marco, role: 'EDITOR' },
        { user_id: DEMO_USERS.priya, role: 'VIEWER' },
      ]);
      // under a PRIVATE parent: PRIVATE, and the former members lose it
      const priv = await mv(a.json.id, F.danasDrafts, 'INHERIT_FROM_PARENT');
      expect(priv.json).toMatchObject({ parentId: String(F.danasDrafts), sharingType: 'PRIVATE', isTeamFolder: false });
      expect(members(a.json.id)).toEqual([]);
      expectError(await own.call('GET', folderPath(a.json.id), { key: K.wsAdmin }), 404, 404000);
    } finally {
      await own.close();
    }
  });

  it('needs edit rights on the folder; the body may be empty (moves to the root)', async () => {
    expectError(await move(F.roadmap, 'member', { newParentId: null }), 403, 403003);
    const r = await sb.call('PUT', `${folderPath(F.planning2027)}/move`, { key: K.admin });
    expect(r.status).toBe(200);
    expect(r.json.parentId).toBeNull();
    const bad = await move(F.planning2027, 'admin', { sharingTypeUpdateStrategy: 'SOMETHING' });
    expectError(bad, 400, 400000);
    expect(bad.json.error.detail).toMatch(/^sharingTypeUpdateStrategy/);
  });
});
