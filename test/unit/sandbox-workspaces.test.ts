import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import * as schemas from '../../src/contract/schemas.js';
import { DEMO_ORGANIZATION, DEMO_USERS, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { hashSecret, newSalt } from '../../src/sandbox/ids.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { K, expectError } from '../helpers/expect.js';

const BASE = '/v1/external/organizations/me/workspaces';
type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;
/** Exactly the fields of decisions.md §3.8, nothing more. */
const WORKSPACE_FIELDS = ['createdAt', 'guid', 'isWikiEnabled', 'name', 'organizationId', 'quota', 'voiceFileEnabled', 'wikiPlan'];

/** Add a key to the sandbox's store; answers the bearer value. */
function addKey(sb: Sandbox, id: string, k: { type: string; scopes: string[]; userId?: number; workspaceGuid?: string; organizationId?: string }): string {
  const salt = newSalt();
  sb.db.run(
    'INSERT INTO api_keys (id, secret_salt, secret_hash, type, user_id, workspace_guid, organization_id, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [id, salt, hashSecret('s3cret', salt), k.type, k.userId ?? null, k.workspaceGuid ?? null, k.organizationId ?? null, JSON.stringify(k.scopes), '2026-10-01T00:00:00Z'],
  );
  return `${id}.s3cret`;
}

describe('organization workspaces', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await inProcessSandbox({ now: '2026-11-01T09:00:00Z' });
  });
  afterAll(() => sb.close());

  const create = (name: string, key = K.admin) => sb.call('POST', BASE, { key, body: { name } });

  describe('who may call', () => {
    it('lists the organization workspaces for an org admin user key and for organization keys', async () => {
      for (const key of [K.admin, K.orgKey, K.orgReadOnly]) {
        const r = await sb.call('GET', BASE, { key });
        expect(r.status).toBe(200);
        const body = schemas.pageOf(schemas.workspace).parse(r.json);
        expect(body.nextCursor).toBeNull();
        expect(body.content.map((w) => w.guid)).toEqual(expect.arrayContaining(Object.values(DEMO_WORKSPACES)));
        expect(body.content.every((w) => w.organizationId === DEMO_ORGANIZATION)).toBe(true);
        for (const w of r.json.content) expect(Object.keys(w).sort()).toEqual(WORKSPACE_FIELDS);
      }
    });

    it('gives other user keys 403003, workspace keys 403002', async () => {
      for (const key of [K.member, K.wsAdmin, K.boundUser]) {
        expectError(await sb.call('GET', BASE, { key }), 403, 403003);
        expectError(await create('Nope', key), 403, 403003);
        expectError(await sb.call('DELETE', `${BASE}/${DEMO_WORKSPACES.sales}`, { key }), 403, 403003);
      }
      for (const key of [K.workspaceKey, K.salesWorkspaceKey]) {
        expectError(await sb.call('GET', BASE, { key }), 403, 403002);
        expectError(await sb.call('PATCH', `${BASE}/${DEMO_WORKSPACES.sales}`, { key, body: { name: 'x' } }), 403, 403002);
      }
    });

    it('needs workspace:write to change anything (403001), workspace:read to read', async () => {
      for (const r of [
        await create('Reporting', K.orgReadOnly),
        await sb.call('PATCH', `${BASE}/${DEMO_WORKSPACES.sales}`, { key: K.orgReadOnly, body: { name: 'x' } }),
        await sb.call('PATCH', `${BASE}/${DEMO_WORKSPACES.sales}/quota`, { key: K.orgReadOnly, body: { monthlyMinutes: 1 } }),
        await sb.call('DELETE', `${BASE}/${DEMO_WORKSPACES.sales}`, { key: K.orgReadOnly }),
      ]) {
        expectError(r, 403, 403001);
        expect(r.json.error.detail).toBe('insufficient_scope: requires workspace:write');
      }
      expectError(await sb.call('GET', BASE, { key: K.noteReadOnly }), 403, 403001);
      expect((await sb.call('GET', `${BASE}/${DEMO_WORKSPACES.support}`, { key: K.orgKey })).status).toBe(200);
    });

    it('checks the scope (403001) before the key type (403002) and the admin role (403003)', async () => {
      const scopedWs = addKey(sb, 'nvk_test_ws_wiki', { type: 'WORKSPACE', workspaceGuid: DEMO_WORKSPACES.product, scopes: ['wiki:read'] });
      const wsWithScope = addKey(sb, 'nvk_test_ws_wswrite', { type: 'WORKSPACE', workspaceGuid: DEMO_WORKSPACES.product, scopes: ['workspace:write'] });
      const memberScoped = addKey(sb, 'nvk_test_member_wswrite', { type: 'USER', userId: DEMO_USERS.priya, scopes: ['workspace:write'] });
      const memberWrongScope = addKey(sb, 'nvk_test_member_wiki', { type: 'USER', userId: DEMO_USERS.priya, scopes: ['wiki:read'] });
      for (const key of [scopedWs, memberWrongScope]) {
        expectError(await sb.call('GET', BASE, { key }), 403, 403001);
        expectError(await create('Nope', key), 403, 403001);
      }
      expectError(await sb.call('GET', BASE, { key: wsWithScope }), 403, 403002);
      expectError(await create('Nope', wsWithScope), 403, 403002);
      expectError(await sb.call('GET', BASE, { key: memberScoped }), 403, 403003);
      expectError(await create('Nope', memberScoped), 403, 403003);
    });

    it("reads with workspace:read alone, writes only with workspace:write, for the admin's user key too", async () => {
      const adminRead = addKey(sb, 'nvk_test_admin_wsread', { type: 'USER', userId: DEMO_USERS.dana, scopes: ['workspace:read'] });
      const adminWrite = addKey(sb, 'nvk_test_admin_wswrite', { type: 'USER', userId: DEMO_USERS.dana, scopes: ['workspace:write'] });
      const orgWrite = addKey(sb, 'nvk_test_org_wswrite', { type: 'ORGANIZATION', organizationId: DEMO_ORGANIZATION, scopes: ['workspace:write'] });
      expect((await sb.call('GET', BASE, { key: adminRead })).status).toBe(200);
      expect((await sb.call('GET', `${BASE}/${DEMO_WORKSPACES.sales}`, { key: adminRead })).status).toBe(200);
      const denied = await sb.call('PATCH', `${BASE}/${DEMO_WORKSPACES.sales}/quota`, { key: adminRead, body: { monthlyMinutes: 5 } });
      expectError(denied, 403, 403001);
      expect(denied.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="workspace:write"');
      // a write scope includes the read of the same resource
      for (const key of [adminWrite, orgWrite]) {
        expect((await sb.call('GET', BASE, { key })).status).toBe(200);
        expect((await sb.call('GET', `${BASE}/${DEMO_WORKSPACES.sales}`, { key })).status).toBe(200);
      }
      const made = await create('Scoped create', orgWrite);
      expect(made.status).toBe(201);
      expect((await sb.call('DELETE', `${BASE}/${made.json.guid}`, { key: adminWrite })).status).toBe(204);
    });

    it("treats a legacy personal key as its user's key before the cutoff (an admin's may manage workspaces), and refuses it after (401005)", async () => {
      const early = await inProcessSandbox({ now: '2026-05-01T09:00:00Z' });
      try {
        expect((await early.call('GET', '/v1/external/auth/me', { key: K.legacyPersonal })).status).toBe(200);
        expect((await early.call('GET', BASE, { key: K.legacyPersonal })).status).toBe(200);
        expect((await early.call('POST', BASE, { key: K.legacyPersonal, body: { name: 'Legacy' } })).status).toBe(201);
      } finally {
        early.close();
      }
      expectError(await sb.call('GET', BASE, { key: K.legacyPersonal }), 401, 401005);
    });

    it('answers 404 for workspaces of another organization and unknown ones', async () => {
      sb.db.run(`INSERT INTO organizations (id, name, created_at) VALUES ('org_other', 'Other', '2025-01-01T00:00:00Z')`);
      sb.db.run(`INSERT INTO workspaces (guid, organization_id, name, created_at) VALUES ('wsOtherOrg000001', 'org_other', 'Elsewhere', '2025-01-01T00:00:00Z')`);
      for (const [method, path, body] of [
        ['GET', `${BASE}/wsOtherOrg000001`, undefined],
        ['PATCH', `${BASE}/wsOtherOrg000001`, { name: 'Mine now' }],
        ['PATCH', `${BASE}/wsOtherOrg000001/quota`, { monthlyMinutes: 5 }],
        ['DELETE', `${BASE}/wsOtherOrg000001`, undefined],
        ['GET', `${BASE}/wsNoSuchSpace0001`, undefined],
      ] as const)
        expectError(await sb.call(method, path, { key: K.admin, body }), 404, 404000);
      expect((await sb.call('GET', BASE, { key: K.orgKey })).json.content.map((w: any) => w.guid)).not.toContain('wsOtherOrg000001');
    });
  });

  describe('create, rename, quota, delete', () => {
    it('creates a workspace with the defaults, and the admin owns it', async () => {
      const r = await create('Research');
      expect(r.status).toBe(201);
      const w = schemas.workspace.parse(r.json);
      expect(Object.keys(r.json).sort()).toEqual(WORKSPACE_FIELDS);
      expect(Object.keys(r.json.quota).sort()).toEqual(['monthlyMinutes', 'usedMinutes']);
      expect(w.guid).toMatch(LIMITS.workspaceGuidPattern);
      expect(w).toMatchObject({ name: 'Research', organizationId: DEMO_ORGANIZATION, wikiPlan: false, isWikiEnabled: false, voiceFileEnabled: true, quota: { monthlyMinutes: null, usedMinutes: 0 } });
      expect(sb.db.get<{ role: string }>('SELECT role FROM memberships WHERE user_id = ? AND workspace_guid = ?', [DEMO_USERS.dana, w.guid])?.role).toBe('OWNER');
      // the admin's key now reaches it
      const reach = await sb.call('GET', '/v1/external/auth/workspaces', { key: K.admin });
      expect(reach.json.content.map((x: any) => x.guid)).toContain(w.guid);
      expect((await sb.call('GET', `${BASE}/${w.guid}`, { key: K.orgKey })).json.name).toBe('Research');
    });

    it('an organization key creates without adding any member', async () => {
      const r = await create('Integrations', K.orgKey);
      expect(r.status).toBe(201);
      expect(sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM memberships WHERE workspace_guid = ?', [r.json.guid])?.n).toBe(0);
    });

    it('validates the name: 1–100 characters, not blank', async () => {
      for (const name of ['', '   ', 'x'.repeat(101)]) {
        const r = await create(name);
        expectError(r, 400, 400000);
        expect(r.json.error.detail).toMatch(/^name/);
      }
      expectError(await sb.call('POST', BASE, { key: K.admin, body: {} }), 400, 400000);
      expect((await create('x'.repeat(100))).status).toBe(201);
    });

    it('renames', async () => {
      const w = (await create('Old name')).json;
      const r = await sb.call('PATCH', `${BASE}/${w.guid}`, { key: K.orgKey, body: { name: 'New name' } });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ guid: w.guid, name: 'New name' });
      expect(Object.keys(r.json).sort()).toEqual(WORKSPACE_FIELDS);
      expect((await sb.call('GET', `${BASE}/${w.guid}`, { key: K.admin })).json.name).toBe('New name');
      expectError(await sb.call('PATCH', `${BASE}/${w.guid}`, { key: K.admin, body: { name: ' ' } }), 400, 400000);
    });

    it('sets and clears the monthly minutes quota', async () => {
      const path = `${BASE}/${DEMO_WORKSPACES.support}/quota`;
      const set = await sb.call('PATCH', path, { key: K.admin, body: { monthlyMinutes: 900 } });
      expect(set.status).toBe(200);
      expect(set.json.quota).toEqual({ monthlyMinutes: 900, usedMinutes: 412 });
      expect(Object.keys(set.json).sort()).toEqual(WORKSPACE_FIELDS);
      expect((await sb.call('GET', `${BASE}/${DEMO_WORKSPACES.support}`, { key: K.orgReadOnly })).json.quota.monthlyMinutes).toBe(900);
      expect((await sb.call('PATCH', path, { key: K.admin, body: { monthlyMinutes: 0 } })).json.quota.monthlyMinutes).toBe(0);
      expect((await sb.call('PATCH', path, { key: K.orgKey, body: { monthlyMinutes: null } })).json.quota.monthlyMinutes).toBeNull();
      for (const monthlyMinutes of [-1, 1.5, '10']) expectError(await sb.call('PATCH', path, { key: K.admin, body: { monthlyMinutes } }), 400, 400000);
      expectError(await sb.call('PATCH', path, { key: K.admin, body: {} }), 400, 400000);
    });

    it('deletes an empty workspace (204) with its memberships', async () => {
      const w = (await create('Short-lived')).json;
      // a deleted note does not keep it alive
      sb.db.run(`INSERT INTO notes (guid, id, title, owner_user_id, workspace_guid, source_type, created_at, updated_at, deleted) VALUES ('ntGoneShortLv', 99001, 'gone', ?, ?, 'text', '2026-10-01T00:00:00Z', '2026-10-01T00:00:00Z', 1)`, [DEMO_USERS.dana, w.guid]);
      const boundWs = addKey(sb, 'nvk_test_shortlived_ws', { type: 'WORKSPACE', workspaceGuid: w.guid, scopes: [] });
      const boundUser = addKey(sb, 'nvk_test_shortlived_user', { type: 'USER', userId: DEMO_USERS.dana, workspaceGuid: w.guid, scopes: [] });
      expect((await sb.call('GET', '/v1/external/auth/me', { key: boundWs })).status).toBe(200);
      const r = await sb.call('DELETE', `${BASE}/${w.guid}`, { key: K.admin });
      expect(r.status).toBe(204);
      // the keys bound to it go with it
      for (const key of [boundWs, boundUser]) expectError(await sb.call('GET', '/v1/external/auth/me', { key }), 401, 401002);
      expect(r.text).toBe('');
      expect(sb.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM memberships WHERE workspace_guid = ?', [w.guid])?.n).toBe(0);
      expectError(await sb.call('GET', `${BASE}/${w.guid}`, { key: K.admin }), 404, 404000);
      expectError(await sb.call('DELETE', `${BASE}/${w.guid}`, { key: K.admin }), 404, 404000);
    });

    it('refuses with 422000 while the workspace holds notes or folders', async () => {
      expectError(await sb.call('DELETE', `${BASE}/${DEMO_WORKSPACES.product}`, { key: K.orgKey }), 422, 422000);
      const w = (await create('Has a folder')).json;
      sb.db.run(`INSERT INTO folders (workspace_guid, owner_user_id, title, sharing_type, created_at, updated_at) VALUES (?, ?, 'Keep me', 'PRIVATE', 'now', 'now')`, [w.guid, DEMO_USERS.dana]);
      const r = await sb.call('DELETE', `${BASE}/${w.guid}`, { key: K.admin });
      expectError(r, 422, 422000);
      expect(r.json.error.detail).toMatch(/0 note\(s\) and 1 folder\(s\)/);
      expect((await sb.call('GET', `${BASE}/${w.guid}`, { key: K.admin })).status).toBe(200);

      // a live note with no folder keeps it too
      const n = (await create('Has a note')).json;
      sb.db.run(`INSERT INTO notes (guid, id, title, owner_user_id, workspace_guid, source_type, created_at, updated_at) VALUES ('ntLiveNoteWs1', 99002, 'kept', ?, ?, 'text', '2026-10-01T00:00:00Z', '2026-10-01T00:00:00Z')`, [DEMO_USERS.dana, n.guid]);
      const r2 = await sb.call('DELETE', `${BASE}/${n.guid}`, { key: K.orgKey });
      expectError(r2, 422, 422000);
      expect(r2.json.error.detail).toMatch(/1 note\(s\) and 0 folder\(s\)/);
      expect(sb.db.get('SELECT guid FROM notes WHERE guid = ?', ['ntLiveNoteWs1'])).toBeTruthy();
    });
  });
});
