import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS_WITH_SCHEMAS, schemasOf } from '../../src/contract/endpoint-schemas.js';
import { ENDPOINTS, buildPath, endpoint, type EndpointId } from '../../src/contract/endpoints.js';
import { ERROR_CODES, ERROR_TYPES, ERROR_TYPE_BY_STATUS, errorTypeForStatus } from '../../src/contract/errors.js';
import * as schemas from '../../src/contract/schemas.js';
import { SCOPE_NAMES, scopeAllows } from '../../src/contract/scopes.js';
import { REQUEST_LOG_KEEP, createApp } from '../../src/sandbox/app.js';
import { DEMO_FOLDERS, DEMO_KEYS, demoSeed, DEMO_NOTES, DEMO_TEMPLATES, DEMO_WIKI_PAGES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { prepareSandbox } from '../../src/sandbox/server.js';
import { FaultInjector, FaultSpecError, parseFaultSpec } from '../../src/sandbox/faults.js';
import { inProcessSandbox, startTestSandbox } from '../helpers/sandbox.js';
import { K, expectError } from '../helpers/expect.js';

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

describe('contract', () => {
  it('lists every endpoint once, under /v1/, with a known scope', () => {
    const keys = ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(ENDPOINTS.map((e) => e.id)).size).toBe(ENDPOINTS.length);
    for (const e of ENDPOINTS) {
      expect(e.path.startsWith('/v1/')).toBe(true);
      if (e.scope !== null) expect(SCOPE_NAMES).toContain(e.scope);
    }
    // every row of the spec's tables is present
    for (const row of [
      'GET /v1/api-key-scopes', 'GET /v1/external/notes', 'POST /v1/external/notes/search', 'GET /v1/external/workspaces/{workspaceGuid}/notes',
      'POST /v1/external/workspaces/{workspaceGuid}/notes/search', 'GET /v1/external/organizations/me/notes', 'PATCH /v1/external/notes/{noteGuid}',
      'POST /v1/external/notes/{noteGuid}/documents', 'GET /v1/external/notes/{noteGuid}/summaries/{summaryId}', 'PUT /v1/external/folders/{folderId}/move',
      'GET /v1/external/workspaces/-/note-document-templates', 'GET /v1/external/workspaces/{workspaceGuid}/wiki/pages/{pageGuid}/mentions',
      'DELETE /v1/external/teams/me/word-memories/bulk', 'PATCH /v1/external/organizations/me/workspaces/{workspaceGuid}/quota',
      'GET /v1/external/voice-file/jobs/{jobId}/translations/{locale}/paragraph-summary', 'PUT /v1/external/voice-file/jobs/{jobId}/upload-complete',
    ])
      expect(keys).toContain(row);
  });

  it('holds exactly the endpoint table of the spec and decisions.md, each with its scope', () => {
    const R = 'note:read', W = 'note:write', T = 'note_document_template:read', FR = 'folder:read', FW = 'folder:write';
    const expected: Array<[string, string, string | null]> = [
      ['GET', '/v1/api-key-scopes', null],
      ...['/auth/me', '/organizations/me', '/workspaces', '/workspaces/me'].map((p): [string, string, null] => ['GET', p, null]),
      // decisions.md §2.2: the `auth/` forms of the earlier reading, kept as aliases.
      ...['/auth/organizations/me', '/auth/workspaces', '/auth/workspaces/me'].map((p): [string, string, null] => ['GET', p, null]),
      ['GET', '/notes', R], ['POST', '/notes/search', R], ['GET', '/workspaces/{workspaceGuid}/notes', R],
      ['POST', '/workspaces/{workspaceGuid}/notes/search', R], ['GET', '/organizations/me/notes', R],
      ['GET', '/notes/{noteGuid}', R], ['PATCH', '/notes/{noteGuid}', W], ['GET', '/notes/{noteGuid}/folders', R], ['GET', '/notes/{noteGuid}/paragraphs', R],
      ['GET', '/notes/{noteGuid}/share-link', R], ['PUT', '/notes/{noteGuid}/share-link', W], ['DELETE', '/notes/{noteGuid}/share-link', W],
      ['GET', '/notes/{noteGuid}/documents', 'note_document:read'], ['GET', '/notes/{noteGuid}/documents/{documentId}', 'note_document:read'],
      ['POST', '/notes/{noteGuid}/documents', 'note_document:write'],
      ['GET', '/notes/{noteGuid}/summaries', 'note_summary:read'], ['GET', '/notes/{noteGuid}/summaries/{summaryId}', 'note_summary:read'],
      ['GET', '/note-document-templates', T], ['GET', '/note-document-templates/managed', T], ['GET', '/note-document-templates/{templateId}', T],
      ...['users/me', 'workspaces/me', 'workspaces/{workspaceGuid}', 'workspaces/-', 'organizations/me'].map((o): [string, string, string] => ['GET', `/${o}/note-document-templates`, T]),
      ['GET', '/teams/me/folders', FR], ['GET', '/workspaces/{workspaceGuid}/folders', FR], ['GET', '/folders/{folderId}', FR],
      ['POST', '/teams/me/folders', FW], ['POST', '/workspaces/{workspaceGuid}/folders', FW], ['PATCH', '/folders/{folderId}', FW],
      ['DELETE', '/folders/{folderId}', FW], ['PUT', '/folders/{folderId}/move', FW],
      ...['users/me', 'workspaces/{workspaceGuid}', 'workspaces/me', 'teams/me', 'organizations/me'].flatMap((o): Array<[string, string, string]> => [
        ['GET', `/${o}/word-memories`, 'word_memory:read'], ['GET', `/${o}/word-memories/{id}`, 'word_memory:read'],
        ...['POST', 'PATCH', 'DELETE'].flatMap((m): Array<[string, string, string]> => [[m, `/${o}/word-memories`, 'word_memory:write'], [m, `/${o}/word-memories/bulk`, 'word_memory:write']]),
      ]),
      ...['/pages', '/pages/{pageGuid}', '/pages/{pageGuid}/mentions', '/search'].map((p): [string, string, string] => ['GET', `/workspaces/{workspaceGuid}/wiki${p}`, 'wiki:read']),
      ['GET', '/organizations/me/workspaces', 'workspace:read'], ['GET', '/organizations/me/workspaces/{workspaceGuid}', 'workspace:read'],
      ['POST', '/organizations/me/workspaces', 'workspace:write'], ['PATCH', '/organizations/me/workspaces/{workspaceGuid}', 'workspace:write'],
      ['PATCH', '/organizations/me/workspaces/{workspaceGuid}/quota', 'workspace:write'], ['DELETE', '/organizations/me/workspaces/{workspaceGuid}', 'workspace:write'],
      ['POST', '/voice-file/jobs', 'voice_file_job:write'], ['PUT', '/voice-file/jobs/{jobId}/upload-complete', 'voice_file_job:write'], ['DELETE', '/voice-file/jobs/{jobId}', 'voice_file_job:write'],
      ...['', '/transcript', '/translations', '/translations/{locale}', '/paragraph-summary', '/transcript/paragraph-summary', '/translations/{locale}/paragraph-summary'].map(
        (p): [string, string, string] => ['GET', `/voice-file/jobs/{jobId}${p}`, 'voice_file_job:read'],
      ),
    ];
    const full = (p: string) => (p.startsWith('/v1/') ? p : `/v1/external${p}`);
    const want = expected.map(([m, p, sc]) => `${m} ${full(p)} ${sc}`).sort();
    expect(ENDPOINTS.map((e) => `${e.method} ${e.path} ${e.scope}`).sort()).toEqual(want);
    expect(ENDPOINTS.filter((e) => !e.auth).map((e) => e.id)).toEqual(['scopes.list']);
    expect(ENDPOINTS.filter((e) => e.deprecated).map((e) => e.path)).toEqual(['/v1/external/notes/search']);
    expect(Object.fromEntries(ENDPOINTS.filter((e) => e.aliasOf).map((e) => [e.path, endpoint(e.aliasOf as EndpointId).path]))).toEqual({
      '/v1/external/auth/organizations/me': '/v1/external/organizations/me',
      '/v1/external/auth/workspaces': '/v1/external/workspaces',
      '/v1/external/auth/workspaces/me': '/v1/external/workspaces/me',
    });
  });

  it('gives every endpoint zod schemas for its path, query, body and response, and the page sizes of decisions.md', () => {
    for (const e of ENDPOINTS_WITH_SCHEMAS) {
      const placeholders = [...e.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      const shape = e.params ? Object.keys((e.params as any).shape).sort() : [];
      expect(shape, e.id).toEqual(placeholders);
      if (e.successStatus !== 204) expect(e.response, e.id).toBeDefined();
      if (e.method === 'POST' || e.method === 'PATCH' || (e.method === 'DELETE' && e.successStatus === 200)) expect(e.body, e.id).toBeDefined();
      if (e.page) expect(Object.keys((e.query as any).shape), e.id).toEqual(expect.arrayContaining(['cursor', e.page.param]));
    }
    const page = (id: EndpointId) => endpoint(id).page;
    for (const id of ['notes.list', 'notes.listWorkspace', 'notes.listOrganization', 'notes.paragraphs'] as const) expect(page(id)).toMatchObject({ param: 'size', default: 100, min: 1, max: 1000 });
    for (const e of ENDPOINTS.filter((x) => x.id.startsWith('wm.') && x.id.endsWith('.list'))) expect(e.page).toMatchObject({ param: 'size', default: 1000, min: 1, max: 1000 });
    for (const id of ['wiki.pages', 'wiki.mentions'] as const) expect(page(id)).toMatchObject({ param: 'limit', default: 50, min: 1, max: 200 });
    expect(endpoint('notes.update').updateMask).toEqual(['title']);
    // success statuses of decisions.md §1.2
    expect(ENDPOINTS.filter((e) => e.successStatus === 201).map((e) => e.id).sort()).toEqual(
      ['folders.createTeam', 'folders.createWorkspace', 'notes.documents.generate', 'workspaces.create'].sort(),
    );
    expect(endpoint('voice.create').successStatus).toBe(200);
  });

  it('encodes the key-type write rules of decisions.md §2.3–§2.4', () => {
    const writes = ENDPOINTS.filter((e) => e.method !== 'GET' && !e.id.startsWith('notes.search'));
    // workspace system keys write only voice-file jobs
    expect(writes.filter((e) => e.keyTypes.includes('WORKSPACE')).map((e) => e.id).sort()).toEqual(['voice.create', 'voice.delete', 'voice.uploadComplete']);
    // organization keys: documents, workspaces, the organization word memories, voice jobs; never renames or share links
    const org = writes.filter((e) => e.keyTypes.includes('ORGANIZATION')).map((e) => e.id);
    for (const id of org) expect(id, id).toMatch(/^(notes\.documents\.generate|workspaces\.|wm\.organization\.|voice\.)/);
    for (const id of ['notes.update', 'notes.shareLink.put', 'notes.shareLink.delete'] as const) expect(endpoint(id).keyTypes).toEqual(['USER', 'LEGACY_PERSONAL']);
    expect(endpoint('notes.listOrganization').keyTypes).toEqual(['USER', 'LEGACY_PERSONAL', 'ORGANIZATION']);
  });

  it('maps every error code to its status and errorType', () => {
    for (const code of Object.values(ERROR_CODES)) {
      const status = Math.floor(code / 1000);
      expect(errorTypeForStatus(status), String(code)).toBe(status >= 500 ? 'internal_error' : ERROR_TYPE_BY_STATUS[status]);
      expect(ERROR_TYPE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : undefined), String(code)).toBeDefined();
    }
    expect(new Set(Object.values(ERROR_TYPE_BY_STATUS))).toEqual(new Set(ERROR_TYPES));
  });

  it('applies the scope rules: none = all, write implies read', () => {
    expect(scopeAllows([], 'folder:write')).toBe(true);
    expect(scopeAllows(['folder:write'], 'folder:read')).toBe(true);
    expect(scopeAllows(['folder:read'], 'folder:write')).toBe(false);
    expect(scopeAllows(['note:read'], 'folder:read')).toBe(false);
    expect(scopeAllows(['note:read'], null)).toBe(true);
  });

  it('validates bodies by the spec rules', () => {
    expect(schemas.folderCreateBody.safeParse({ title: 'x'.repeat(51) }).success).toBe(false);
    expect(schemas.folderCreateBody.safeParse({ title: 'ok', color: '#12345G' }).success).toBe(false);
    expect(schemas.folderCreateBody.safeParse({ title: 'ok', color: '#A0b1C2' }).success).toBe(true);
    expect(schemas.noteUpdateBody.safeParse({ title: '   ' }).success).toBe(false);
    expect(schemas.wmCreateBody.safeParse({ entries: [{ entry: 'has space' }] }).success).toBe(false);
    expect(schemas.wmCreateBody.safeParse({ entries: Array.from({ length: 1001 }, (_, i) => ({ entry: `e${i}` })) }).success).toBe(false);
    expect(buildPath(endpoint('notes.get'), { noteGuid: 'a/b' })).toBe('/v1/external/notes/a%2Fb');
  });
});

describe('sandbox core over app.request', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await inProcessSandbox();
  });
  afterAll(() => sb.close());

  describe('authentication', () => {
    it('401000 without a header', async () => expectError(await sb.call('GET', '/v1/external/notes'), 401, 401000));
    it('401001 for an id-only key, saying so', async () => {
      const r = await sb.call('GET', '/v1/external/notes', { headers: { authorization: `Bearer ${DEMO_KEYS.admin.id}` } });
      expectError(r, 401, 401001);
      expect(r.json.error.detail).toMatch(/only a key id/);
    });
    it('401001 for a non-Bearer scheme', async () => expectError(await sb.call('GET', '/v1/external/notes', { headers: { authorization: `Basic ${K.admin}` } }), 401, 401001));
    it('401002 for an unknown id and a wrong secret', async () => {
      expectError(await sb.call('GET', '/v1/external/notes', { key: 'nvk_nobody.secret' }), 401, 401002);
      expectError(await sb.call('GET', '/v1/external/notes', { key: `${DEMO_KEYS.admin.id}.wrong-secret` }), 401, 401002);
    });
    it('401003 for expired, inactive and deleted keys', async () => {
      for (const k of [K.expired, K.inactive, K.deleted]) expectError(await sb.call('GET', '/v1/external/notes', { key: k }), 401, 401003);
    });
    it('401004 for a workspace key not bound to a workspace', async () => expectError(await sb.call('GET', '/v1/external/notes', { key: K.unboundWorkspaceKey }), 401, 401004));
    it('401005 for a legacy personal key after 2026-06-30', async () => expectError(await sb.call('GET', '/v1/external/notes', { key: K.legacyPersonal }), 401, 401005));
    it('accepts a legacy personal key before the cutoff, acting as its user (an org admin)', async () => {
      const early = await inProcessSandbox({ now: '2026-05-01T00:00:00Z' });
      try {
        expect((await early.call('GET', '/v1/external/auth/me', { key: K.legacyPersonal })).json.keyType).toBe('LEGACY_PERSONAL');
        expect((await early.call('GET', '/v1/external/organizations/me/notes', { key: K.legacyPersonal })).status).toBe(200);
        const mine = await early.call('PATCH', `/v1/external/notes/${DEMO_NOTES.roadmapReview}?updateMask=title`, { key: K.legacyPersonal, body: { title: 'Renamed by a legacy key' } });
        expect(mine.status).toBe(200);
      } finally {
        await early.close();
      }
    });
    it('answers every 401 with a Bearer challenge (RFC 6750)', async () => {
      expect((await sb.call('GET', '/v1/external/notes')).headers.get('www-authenticate')).toBe('Bearer');
      expect((await sb.call('GET', '/v1/external/notes', { headers: { authorization: 'Bearer no-dot' } })).headers.get('www-authenticate')).toBe('Bearer error="invalid_request"');
      for (const k of ['nvk_nobody.secret', K.expired, K.unboundWorkspaceKey, K.legacyPersonal])
        expect((await sb.call('GET', '/v1/external/notes', { key: k })).headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    });
    it('stores only hashes of secrets', () => {
      const bytes = Buffer.from(sb.db.export());
      for (const k of Object.values(DEMO_KEYS)) expect(bytes.includes(Buffer.from(k.secret))).toBe(false);
    });
    it('auth/me describes the key; api-key-scopes needs no key', async () => {
      const me = await sb.call('GET', '/v1/external/auth/me', { key: K.orgKey });
      expect(schemas.authMe.parse(me.json).keyType).toBe('ORGANIZATION');
      expect(me.json.user).toBeNull();
      const scopes = await sb.call('GET', '/v1/api-key-scopes');
      expect(scopes.json.content.map((s: any) => s.scope)).toEqual(SCOPE_NAMES);
      expect((await sb.call('GET', '/v1/external/auth/workspaces/me', { key: K.admin })).status).toBe(404);
      expect((await sb.call('GET', '/v1/external/auth/workspaces/me', { key: K.workspaceKey })).json.guid).toBeTruthy();
    });
  });

  describe('scopes and key types', () => {
    it('403001 with WWW-Authenticate for a scope the key lacks', async () => {
      const r = await sb.call('GET', '/v1/external/teams/me/folders', { key: K.noteReadOnly });
      expectError(r, 403, 403001);
      expect(r.json.error.detail).toBe('insufficient_scope: requires folder:read');
      expect(r.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="folder:read"');
    });
    it('a scoped key still reads what its scope covers', async () => {
      expect((await sb.call('GET', '/v1/external/notes', { key: K.noteReadOnly })).status).toBe(200);
    });
    it('a write scope includes read of the same resource, and nothing else', async () => {
      // the integration key holds word_memory:write and workspace:write, but neither read scope
      expect(DEMO_KEYS.orgKey.id).toBe('nvk_org_integration');
      expect((await sb.call('GET', '/v1/external/organizations/me/word-memories?size=1', { key: K.orgKey })).status).toBe(200);
      expect((await sb.call('GET', '/v1/external/organizations/me/workspaces', { key: K.orgKey })).status).toBe(200);
      // folder:read does not include folder:write; note:read does not include note_summary:read
      const noWrite = await sb.call('POST', '/v1/external/teams/me/folders', { key: K.orgReadOnly, body: { title: 'x' } });
      expectError(noWrite, 403, 403001);
      expect(noWrite.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="folder:write"');
      expectError(await sb.call('GET', `/v1/external/notes/${DEMO_NOTES.roadmapReview}/summaries`, { key: K.noteReadOnly }), 403, 403001);
    });
    it('key types: system keys may not rename notes or write folders (403002); workspace keys may not manage workspaces', async () => {
      const visible = DEMO_NOTES.roadmapReview;
      expectError(await sb.call('PATCH', `/v1/external/notes/${visible}?updateMask=title`, { key: K.legacyScopeWorkspaceKey, body: { title: 'x' } }), 403, 403002);
      expectError(await sb.call('POST', '/v1/external/teams/me/folders', { key: K.workspaceKey, body: { title: 'x' } }), 403, 403002);
      expectError(await sb.call('GET', '/v1/external/organizations/me/workspaces', { key: K.workspaceKey }), 403, 403002);
      expectError(await sb.call('GET', '/v1/external/users/me/word-memories', { key: K.orgReadOnly }), 403, 403002);
    });
    it('scope before key type: a read-only org key renaming gets 403001, a workspace key 403002', async () => {
      const visible = (await sb.call('GET', '/v1/external/notes?size=1', { key: K.workspaceKey })).json.content[0].guid;
      expectError(await sb.call('PATCH', `/v1/external/notes/${visible}?updateMask=title`, { key: K.orgReadOnly, body: { title: 'x' } }), 403, 403001);
      expectError(await sb.call('PATCH', `/v1/external/notes/${visible}?updateMask=title`, { key: K.workspaceKey, body: { title: 'x' } }), 403, 403002);
    });
    it('organization notes: org admin and org keys yes, members 403003, workspace keys 403002', async () => {
      expect((await sb.call('GET', '/v1/external/organizations/me/notes', { key: K.admin })).status).toBe(200);
      expect((await sb.call('GET', '/v1/external/organizations/me/notes', { key: K.orgKey })).status).toBe(200);
      expectError(await sb.call('GET', '/v1/external/organizations/me/notes', { key: K.member }), 403, 403003);
      expectError(await sb.call('GET', '/v1/external/organizations/me/notes', { key: K.workspaceKey }), 403, 403002);
    });
  });

  describe('the note read scope of system keys', () => {
    const sharedNotes = (ws?: string) =>
      sb.db
        .all<{ guid: string }>(
          `SELECT n.guid FROM notes n JOIN folders f ON f.id = n.folder_id WHERE n.deleted = 0 AND f.sharing_type IN ('ALL_MEMBER_VIEWER','ALL_MEMBER_EDITOR') ${ws ? 'AND n.workspace_guid = ?' : ''}`,
          ws ? [ws] : [],
        )
        .map((r) => r.guid)
        .sort();
    const hiddenNote = (ws: string) =>
      sb.db.get<{ guid: string }>(
        `SELECT n.guid FROM notes n LEFT JOIN folders f ON f.id = n.folder_id WHERE n.deleted = 0 AND n.workspace_guid = ? AND (f.id IS NULL OR f.sharing_type IN ('PRIVATE','LIMITED'))`,
        [ws],
      )!.guid;
    const listAll = async (key: string, path = '/v1/external/notes') => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const r: any = await sb.call('GET', `${path}?size=2${cursor ? `&cursor=${cursor}` : ''}`, { key });
        expect(r.status).toBe(200);
        out.push(...r.json.content.map((n: any) => n.guid));
        cursor = r.json.nextCursor;
      } while (cursor);
      return out;
    };

    it('lists only notes in shared folders, silently', async () => {
      const ws = (await sb.call('GET', '/v1/external/auth/me', { key: K.workspaceKey })).json.workspaceGuid;
      expect((await listAll(K.workspaceKey)).sort()).toEqual(sharedNotes(ws));
      expect((await listAll(K.orgKey)).sort()).toEqual(sharedNotes());
    });
    it('answers 404 for single reads and writes outside the scope', async () => {
      const ws = (await sb.call('GET', '/v1/external/auth/me', { key: K.workspaceKey })).json.workspaceGuid;
      const hidden = hiddenNote(ws);
      expectError(await sb.call('GET', `/v1/external/notes/${hidden}`, { key: K.workspaceKey }), 404, 404000);
      expectError(await sb.call('GET', `/v1/external/notes/${hidden}/paragraphs`, { key: K.workspaceKey }), 404, 404000);
      expectError(await sb.call('PATCH', `/v1/external/notes/${hidden}?updateMask=title`, { key: K.workspaceKey, body: { title: 'x' } }), 404, 404000);
      // the legacy-scope workspace key still reads it
      expect((await sb.call('GET', `/v1/external/notes/${hidden}`, { key: K.legacyScopeWorkspaceKey })).status).toBe(200);
    });
    it('applies the same scope to the workspace and organization lists', async () => {
      const ws = DEMO_WORKSPACES.product;
      expect((await listAll(K.workspaceKey, `/v1/external/workspaces/${ws}/notes`)).sort()).toEqual(sharedNotes(ws));
      expect((await listAll(K.orgKey, '/v1/external/organizations/me/notes')).sort()).toEqual(sharedNotes());
      expect((await listAll(K.orgKey, `/v1/external/workspaces/${DEMO_WORKSPACES.sales}/notes`)).sort()).toEqual(sharedNotes(DEMO_WORKSPACES.sales));
      // another workspace is not reachable by a workspace key at all
      expectError(await sb.call('GET', `/v1/external/workspaces/${DEMO_WORKSPACES.sales}/notes`, { key: K.workspaceKey }), 404, 404000);
      // the user key sees more than the system keys: its private notes too
      expect((await listAll(K.admin)).length).toBeGreaterThan(sharedNotes().length);
    });
    it('answers 404 for every sub-resource of an out-of-scope note, before scope and key-type checks', async () => {
      const hidden = DEMO_NOTES.oneOnOnePrep; // in Dana's private folder
      for (const sub of ['', '/paragraphs', '/folders', '/share-link', '/summaries', '/documents']) {
        expectError(await sb.call('GET', `/v1/external/notes/${hidden}${sub}`, { key: K.workspaceKey }), 404, 404000);
        expectError(await sb.call('GET', `/v1/external/notes/${hidden}${sub}`, { key: K.orgKey }), 404, 404000);
      }
      // the read-only org key lacks note:write (403001 on a visible note) but an invisible note is 404 first
      expectError(await sb.call('PATCH', `/v1/external/notes/${hidden}?updateMask=title`, { key: K.orgReadOnly, body: { title: 'x' } }), 404, 404000);
      expectError(await sb.call('POST', `/v1/external/notes/${hidden}/documents`, { key: K.orgKey, body: { templateId: 1, locale: 'en_US' } }), 404, 404000);
      // the owner reads it
      expect((await sb.call('GET', `/v1/external/notes/${hidden}`, { key: K.admin })).status).toBe(200);
    });
    it('lets system keys read only folders shared with all members', async () => {
      const r = await sb.call('GET', '/v1/external/teams/me/folders', { key: K.workspaceKey });
      expect(r.status).toBe(200);
      const types = new Set(r.json.content.map((f: any) => f.sharingType));
      expect([...types].sort()).toEqual(['ALL_MEMBER_EDITOR', 'ALL_MEMBER_VIEWER']);
      expectError(await sb.call('GET', `/v1/external/folders/${DEMO_FOLDERS.danasDrafts}`, { key: K.workspaceKey }), 404, 404000);
      expectError(await sb.call('GET', `/v1/external/folders/${DEMO_FOLDERS.leadershipSync}`, { key: K.orgKey }), 404, 404000);
      expect((await sb.call('GET', `/v1/external/folders/${DEMO_FOLDERS.roadmap}`, { key: K.workspaceKey })).status).toBe(200);
    });
    it('deleted notes are 404 for everyone', async () => {
      expectError(await sb.call('GET', `/v1/external/notes/${DEMO_NOTES.deletedBrainstorm}`, { key: K.admin }), 404, 404000);
    });
  });

  describe('pagination', () => {
    it('rejects sizes out of range with 400003', async () => {
      for (const size of ['0', '1001', 'abc', '2.5', '-1']) expectError(await sb.call('GET', `/v1/external/notes?size=${size}`, { key: K.admin }), 400, 400003);
      expect((await sb.call('GET', '/v1/external/notes?size=1000', { key: K.admin })).status).toBe(200);
      expect((await sb.call('GET', '/v1/external/notes?size=1', { key: K.admin })).json.content).toHaveLength(1);
    });
    it('walks every note exactly once with size=1 and ends with nextCursor null', async () => {
      const all = (await sb.call('GET', '/v1/external/notes?size=1000', { key: K.admin })).json;
      expect(all.nextCursor).toBeNull();
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r: any = await sb.call('GET', `/v1/external/notes?size=1${cursor ? `&cursor=${cursor}` : ''}`, { key: K.admin });
        seen.push(...r.json.content.map((n: any) => n.guid));
        cursor = r.json.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all.content.map((n: any) => n.guid));
    });
    it('checks the page size of every paged endpoint of the contract at and beyond its bounds', async () => {
      const params = { workspaceGuid: DEMO_WORKSPACES.product, noteGuid: DEMO_NOTES.launchKickoff, pageGuid: DEMO_WIKI_PAGES.harborFreight };
      const paged = ENDPOINTS.filter((e) => e.page);
      expect(paged.length).toBeGreaterThanOrEqual(11);
      for (const e of paged) {
        const path = buildPath(e, params);
        const { param, min, max } = e.page!;
        // teams/me and workspaces/me need a key bound to a workspace (decisions.md §3.6)
        const key = /\/(teams|workspaces)\/me\//.test(path) ? K.boundUser : K.admin;
        for (const ok of [min, max]) expect((await sb.call('GET', `${path}?${param}=${ok}`, { key })).status, `${e.id} ${ok}`).toBe(200);
        for (const bad of [min - 1, max + 1, 'x']) expectError(await sb.call('GET', `${path}?${param}=${bad}`, { key }), 400, 400003);
      }
    });
    it('filters by folderId including sub-folders, and 404 for a folder the key cannot see', async () => {
      const sub = sb.db
        .all<{ guid: string }>(
          `WITH RECURSIVE t(id) AS (SELECT ? UNION ALL SELECT f.id FROM folders f JOIN t ON f.parent_id = t.id) SELECT guid FROM notes WHERE deleted = 0 AND folder_id IN (SELECT id FROM t)`,
          [DEMO_FOLDERS.roadmap],
        )
        .map((r) => r.guid)
        .sort();
      expect(sub.length).toBeGreaterThanOrEqual(3);
      const r = await sb.call('GET', `/v1/external/notes?folderId=${DEMO_FOLDERS.roadmap}&size=1000`, { key: K.admin });
      expect(r.json.content.map((n: any) => n.guid).sort()).toEqual(sub);
      expectError(await sb.call('GET', `/v1/external/notes?folderId=${DEMO_FOLDERS.danasDrafts}`, { key: K.workspaceKey }), 404, 404000);
      expectError(await sb.call('GET', '/v1/external/notes?folderId=nope', { key: K.admin }), 404, 404000);
    });
    it('filters by keyword for user keys only (400005), in relevance order, unpaged', async () => {
      for (const key of [K.workspaceKey, K.orgKey]) expectError(await sb.call('GET', '/v1/external/notes?keyword=launch', { key }), 400, 400005);
      const r = await sb.call('GET', '/v1/external/notes?keyword=Harbor&size=1000', { key: K.admin });
      expect(r.status).toBe(200);
      expect(r.json.nextCursor).toBeNull();
      const guids: string[] = r.json.content.map((n: any) => n.guid);
      expect(guids.length).toBeGreaterThan(1);
      const score = (g: string) => {
        const title = sb.db.get<{ title: string }>('SELECT title FROM notes WHERE guid = ?', [g])!.title;
        const text = sb.db.all<{ content: string }>('SELECT content FROM paragraphs WHERE note_guid = ?', [g]).map((x) => x.content).join('\n');
        const count = (t: string) => t.toLowerCase().split('harbor').length - 1;
        return count(title) * 10 + count(text);
      };
      const scores = guids.map(score);
      for (const x of scores) expect(x).toBeGreaterThan(0);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect((await sb.call('GET', '/v1/external/notes?keyword=Harbor&size=1', { key: K.admin })).json.content).toHaveLength(1);
    });
    it('rejects a forged cursor', async () => expectError(await sb.call('GET', '/v1/external/notes?cursor=%%%', { key: K.admin }), 400, 400000));
  });

  describe('rename and malformed input', () => {
    const path = () => `/v1/external/notes/${DEMO_NOTES.launchKickoff}`;
    it('renames with updateMask=title and answers the note', async () => {
      const r = await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, body: { title: 'Launch kickoff (final)' } });
      expect(r.status).toBe(200);
      expect(schemas.note.parse(r.json).title).toBe('Launch kickoff (final)');
      expect((await sb.call('GET', path(), { key: K.admin })).json.title).toBe('Launch kickoff (final)');
    });
    it('the four error cases of the field mask', async () => {
      expectError(await sb.call('PATCH', path(), { key: K.admin, body: { title: 'x' } }), 400, 400001);
      expectError(await sb.call('PATCH', `${path()}?updateMask=color`, { key: K.admin, body: { title: 'x' } }), 400, 400001);
      expectError(await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, body: {} }), 400, 400002);
      expectError(await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, body: { title: null } }), 400, 400002);
    });
    it('checks the mask before the body, and a missing body lacks the title (400002)', async () => {
      expectError(await sb.call('PATCH', `${path()}?updateMask=color`, { key: K.admin, body: { title: '' } }), 400, 400001);
      expectError(await sb.call('PATCH', path(), { key: K.admin, rawBody: '{"title":', headers: { 'content-type': 'application/json' } }), 400, 400001);
      const r = await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin });
      expectError(r, 400, 400002);
      expect(r.json.error.detail).toMatch(/^title/);
      expectError(await sb.call('PATCH', `${path()}?updateMask=title,title`, { key: K.admin, body: {} }), 400, 400002);
      // only the masked field is touched: other body fields are ignored
      const ok = await sb.call('PATCH', `${path()}?updateMask=%20title%20`, { key: K.admin, body: { title: 'Masked', sourceType: 'text' } });
      expect(ok.status).toBe(200);
      expect(ok.json.sourceType).not.toBe('text');
    });
    it('renaming needs edit access on the note (403003) and updates updatedAt', async () => {
      // Priya (member) sees Marco's press briefing in an ALL_MEMBER_VIEWER folder but may not edit it
      expect((await sb.call('GET', `/v1/external/notes/${DEMO_NOTES.pressBriefing}`, { key: K.member })).status).toBe(200);
      expectError(await sb.call('PATCH', `/v1/external/notes/${DEMO_NOTES.pressBriefing}?updateMask=title`, { key: K.member, body: { title: 'nope' } }), 403, 403003);
      const before = (await sb.call('GET', path(), { key: K.admin })).json.updatedAt;
      const r = await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, body: { title: 'Touch' } });
      expect(Date.parse(r.json.updatedAt)).toBeGreaterThan(Date.parse(before));
    });
    it('title rules: blank, empty and over 100 characters are 400000 naming the field', async () => {
      for (const title of ['', '   ', 'x'.repeat(101)]) {
        const r = await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, body: { title } });
        expectError(r, 400, 400000);
        expect(r.json.error.detail).toMatch(/^title/);
      }
    });
    it('malformed JSON, wrong content type, oversized body, Accept without JSON', async () => {
      expectError(await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, rawBody: '{"title":', headers: { 'content-type': 'application/json' } }), 400, 400000);
      expectError(await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, rawBody: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 400000);
      const big = JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024 + 10) });
      expectError(await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, rawBody: big, headers: { 'content-type': 'application/json' } }), 413, 413000);
      expectError(await sb.call('GET', path(), { key: K.admin, headers: { accept: 'text/html' } }), 406, 406000);
    });
    it('Accept: JSON-compatible ranges are served, q=0 and non-JSON types are 406', async () => {
      for (const accept of ['application/json', '*/*', 'application/*', 'application/problem+json', 'text/html, application/json;q=0.5', ''])
        expect((await sb.call('GET', path(), { key: K.admin, headers: { accept } })).status, accept).toBe(200);
      for (const accept of ['application/json;q=0', 'text/plain', 'text/*', 'application/xml'])
        expectError(await sb.call('GET', path(), { key: K.admin, headers: { accept } }), 406, 406000);
    });
    it('more malformed input: a JSON array, a wrong type, a bad path parameter, charset variants', async () => {
      expectError(await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, body: [1] }), 400, 400000);
      const wrongType = await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, body: { title: 42 } });
      expectError(wrongType, 400, 400000);
      expect(wrongType.json.error.detail).toMatch(/^title:/);
      expectError(await sb.call('GET', '/v1/external/users/me/word-memories/abc', { key: K.admin }), 400, 400000);
      const ok = await sb.call('PATCH', `${path()}?updateMask=title`, { key: K.admin, rawBody: '{"title":"cs"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
      expect(ok.status).toBe(200);
      // no stack trace, no plain text: every error above was JSON with the envelope
    });
    it('marks the deprecated deep search with a Deprecation header, and only it', async () => {
      const old = await sb.call('POST', '/v1/external/notes/search', { key: K.admin, body: { keyword: 'launch' } });
      expect(old.status).toBe(200);
      expect(old.headers.get('deprecation')).toBe('true');
      const ws = await sb.call('POST', `/v1/external/workspaces/${DEMO_WORKSPACES.product}/notes/search`, { key: K.admin, body: { keyword: 'launch' } });
      expect(ws.status).toBe(200);
      expect(ws.headers.get('deprecation')).toBeNull();
    });
    it('unknown routes and wrong methods are 404001 envelopes', async () => {
      expectError(await sb.call('GET', '/v1/external/nope', { key: K.admin }), 404, 404001);
      expectError(await sb.call('DELETE', '/v1/external/notes', { key: K.admin }), 404, 404001);
      expectError(await sb.call('GET', '/', {}), 404, 404001);
      expectError(await sb.call('POST', '/v1/external/auth/me', { key: K.admin, body: {} }), 404, 404001);
      expectError(await sb.call('OPTIONS', '/v1/external/notes', { key: K.admin }), 404, 404001);
    });
  });
});

describe('answer text', () => {
  it('GET note answers the same text again, and the new title once renamed', async () => {
    const sb = await inProcessSandbox();
    try {
      const path = `/v1/external/notes/${DEMO_NOTES.launchKickoff}`;
      const first = await sb.call('GET', path, { key: K.admin });
      const again = await sb.call('GET', path, { key: K.admin });
      expect(first.status).toBe(200);
      expect(again.text).toBe(first.text);
      const renamed = await sb.call('PATCH', `${path}?updateMask=title`, { key: K.admin, body: { title: 'Renamed once' } });
      expect(renamed.status).toBe(200);
      const after = await sb.call('GET', path, { key: K.admin });
      expect(after.json.title).toBe('Renamed once');
      expect(after.text).toBe(JSON.stringify({ ...first.json, title: 'Renamed once', updatedAt: after.json.updatedAt }));
    } finally {
      await sb.close();
    }
  });
});

describe('responses match the contract', () => {
  it('answers every GET endpoint with a body its response schema accepts', async () => {
    const sb = await inProcessSandbox();
    try {
      const one = <T>(sql: string) => Object.values(sb.db.get<Record<string, T>>(sql)!)[0];
      // a voice job (its results need real processing: test/unit/sandbox-voice.test.ts checks their shapes)
      const job = (await sb.call('POST', '/v1/external/voice-file/jobs', { key: K.admin, body: { workspaceGuid: DEMO_WORKSPACES.product } })).json;
      const note = one<string>('SELECT note_guid FROM share_links LIMIT 1');
      const params: Record<string, string | number> = {
        noteGuid: note,
        workspaceGuid: DEMO_WORKSPACES.product,
        pageGuid: DEMO_WIKI_PAGES.harborFreight,
        folderId: DEMO_FOLDERS.roadmap,
        templateId: DEMO_TEMPLATES.onePager,
        summaryId: one<number>(`SELECT id FROM summaries WHERE note_guid = '${note}' LIMIT 1`),
        documentId: one<number>(`SELECT id FROM documents WHERE note_guid = '${note}' LIMIT 1`),
        jobId: job.id,
        locale: 'ja_JP',
      };
      const results = ['voice.transcript', 'voice.translations', 'voice.translation', 'voice.summary', 'voice.transcriptSummary', 'voice.translationSummary'];
      const checked: string[] = [];
      for (const e of ENDPOINTS.filter((x) => x.method === 'GET' && !results.includes(x.id))) {
        const key = /\/(teams|workspaces)\/me(\/|$)/.test(e.path) ? K.boundUser : K.admin;
        let p = { ...params };
        if (e.path.includes('word-memories/{id}')) {
          const list = await sb.call('GET', buildPath(endpoint(e.id.replace(/\.get$/, '.list') as EndpointId), params), { key });
          p = { ...p, id: list.json.content[0].id };
        }
        const q = e.id === 'wiki.search' ? '?q=harbor' : '';
        const r = await sb.call('GET', buildPath(e, p) + q, { key });
        expect(r.status, `${e.id}: ${r.text}`).toBe(200);
        const parsed = schemasOf(e.id)!.response!.safeParse(r.json);
        expect(parsed.success, `${e.id}: ${parsed.error?.message}`).toBe(true);
        checked.push(e.id);
      }
      expect(checked.length + results.length).toBe(ENDPOINTS.filter((x) => x.method === 'GET').length);
    } finally {
      await sb.close();
    }
  });
});

describe('a contract route without a handler', () => {
  it('answers 404001 after authentication, never a fake success', async () => {
    const p = await prepareSandbox({ rateLimit: '0', log: () => {} });
    try {
      const { notesCoreHandlers } = await import('../../src/sandbox/handlers/notes-core.js');
      const app = createApp({ rt: p.rt, handlers: { ...notesCoreHandlers } });
      const get = (path: string, key?: string) => app.request(path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
      const unimplemented = await get(`/v1/external/notes/${DEMO_NOTES.roadmapReview}/paragraphs`, K.admin);
      expect(unimplemented.status).toBe(404);
      expect(((await unimplemented.json()) as any).error.code).toBe(404001);
      expect((await get('/v1/external/teams/me/folders')).status).toBe(401);
      expect((await get(`/v1/external/notes/${DEMO_NOTES.roadmapReview}`, K.admin)).status).toBe(200);
    } finally {
      await p.shutdown();
    }
  });
});

describe('a failing handler', () => {
  it('answers 500000 in the envelope without the stack, and reports the stack on the error log', async () => {
    const p = await prepareSandbox({ rateLimit: '0', log: () => {} });
    const errors: string[] = [];
    try {
      const app = createApp({ rt: p.rt, errorLog: (l) => errors.push(l), handlers: { 'auth.me': () => { throw new TypeError('boom at line 1'); } } });
      const r = await app.request('/v1/external/auth/me', { headers: { authorization: `Bearer ${K.admin}` } });
      expect(r.status).toBe(500);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await r.text();
      expect(JSON.parse(text)).toEqual({ error: { code: 500000, errorType: 'internal_error', message: 'internal error', detail: null } });
      expect(text).not.toContain('boom');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(/^internal error on GET \/v1\/external\/auth\/me: TypeError: boom at line 1\n\s+at /);
    } finally {
      await p.shutdown();
    }
  });
});

describe('access log', () => {
  it('logs one line per request with the key id, never a secret', async () => {
    const lines: string[] = [];
    const sb = await inProcessSandbox({ verbose: true, log: (l) => lines.push(l) });
    try {
      await sb.call('GET', '/v1/external/auth/me', { key: K.admin });
      await sb.call('GET', '/v1/external/auth/me', { key: `${DEMO_KEYS.member.id}.wrong-${DEMO_KEYS.member.secret}` });
      await sb.call('GET', '/v1/external/auth/me', { headers: { authorization: `Bearer ${DEMO_KEYS.orgKey.secret}` } });
      await sb.call('GET', `/v1/external/notes?cursor=${DEMO_KEYS.wsAdmin.secret}`, { key: K.wsAdmin });
      await sb.call('GET', '/v1/external/nope');
      expect(lines).toHaveLength(5);
      expect(lines[0]).toMatch(/^sandbox: GET \/v1\/external\/auth\/me 200 \d+ms key=nvk_user_admin$/);
      expect(lines[1]).toMatch(/ 401 .* key=-$/);
      for (const k of Object.values(DEMO_KEYS)) for (const l of lines) expect(l).not.toContain(k.secret);
    } finally {
      await sb.close();
    }
  });

  it(`keeps the newest ${REQUEST_LOG_KEEP} rows of request_log`, async () => {
    const sb = await inProcessSandbox();
    try {
      const before = sb.db.get<{ n: number }>('SELECT count(*) AS n FROM request_log')!.n;
      sb.db.tx(() => {
        for (let i = before; i < 10_998; i++) sb.db.run("INSERT INTO request_log (at, method, path, status) VALUES ('t', 'GET', '/filler', 200)");
      });
      await sb.call('GET', '/v1/api-key-scopes');
      await sb.call('GET', '/v1/api-key-scopes');
      const rows = sb.db.get<{ n: number; lo: number; hi: number }>('SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM request_log')!;
      expect(rows).toEqual({ n: REQUEST_LOG_KEEP, lo: 1001, hi: 11_000 });
    } finally {
      await sb.close();
    }
  });
});

describe('over a socket (headers and bodies read from the Node request)', () => {
  it('records each request in request_log, reads repeated headers joined as the Fetch API does, and bodies of either framing', async () => {
    const sb = await startTestSandbox();
    const { request } = await import('node:http');
    const send = (method: string, path: string, headers: Array<[string, string]>, body?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        // Raw headers (repeated names kept); Node then adds no Host of its own.
        const raw = [['Host', new URL(sb.baseUrl).host], ...headers].flat();
        const req = request(sb.baseUrl + path, { method, headers: raw as unknown as Record<string, string> }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      const auth: [string, string] = ['Authorization', `Bearer ${DEMO_KEYS.admin.token}`];
      const before = sb.db.get<{ hi: number | null }>('SELECT max(id) AS hi FROM request_log')!.hi ?? 0;
      expect((await send('GET', '/v1/external/auth/me', [auth])).status).toBe(200);
      // Two Authorization headers read as one value "a, b": not a key (401), as before.
      expect((await send('GET', '/v1/external/auth/me', [auth, auth])).status).toBe(401);
      // Accept: repeated, joined; one of them admits JSON.
      expect((await send('GET', '/v1/external/auth/me', [auth, ['Accept', 'text/html'], ['Accept', 'application/json']])).status).toBe(200);
      expect((await send('GET', '/v1/external/auth/me', [auth, ['Accept', 'text/html']])).status).toBe(406);
      const path = '/v1/external/users/me/word-memories';
      const json: [string, string] = ['Content-Type', 'application/json'];
      const sized = await send('POST', path, [auth, json], JSON.stringify({ entries: [{ entry: 'Sized-1' }] }));
      expect(sized.status).toBe(200);
      const chunked = await send('POST', path, [auth, json, ['Transfer-Encoding', 'chunked']], JSON.stringify({ entries: [{ entry: 'Chunked-1', subEntry: null }] }));
      expect(chunked.status).toBe(200);
      expect(JSON.parse(chunked.body).content).toMatchObject([{ entry: 'Chunked-1', subEntry: null }]);
      expect((await send('POST', path, [auth, json], '{"entries": [')).status).toBe(400);
      const rows = sb.db.all('SELECT key_id, method, path, status FROM request_log WHERE id > ? ORDER BY id', [before]);
      expect(rows).toEqual([
        { key_id: DEMO_KEYS.admin.id, method: 'GET', path: '/v1/external/auth/me', status: 200 },
        { key_id: null, method: 'GET', path: '/v1/external/auth/me', status: 401 },
        { key_id: DEMO_KEYS.admin.id, method: 'GET', path: '/v1/external/auth/me', status: 200 },
        { key_id: null, method: 'GET', path: '/v1/external/auth/me', status: 406 },
        { key_id: DEMO_KEYS.admin.id, method: 'POST', path, status: 200 },
        { key_id: DEMO_KEYS.admin.id, method: 'POST', path, status: 200 },
        { key_id: DEMO_KEYS.admin.id, method: 'POST', path, status: 400 },
      ]);
      const at = sb.db.get<{ at: string }>('SELECT at FROM request_log ORDER BY id DESC LIMIT 1')!.at;
      expect(Math.abs(Date.parse(at) - Date.now())).toBeLessThan(60_000);
    } finally {
      await sb.close();
    }
  });
});

describe('rate limiting', () => {
  it('counts per key, with the headers of decisions.md §1.5, and 429 with Retry-After past the limit', async () => {
    const sb = await inProcessSandbox({ rateLimit: '3/60s' });
    try {
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await sb.call('GET', '/v1/external/auth/me', { key: K.admin });
        expect(r.status).toBe(200);
        expect(r.headers.get('x-ratelimit-limit')).toBe('3');
        // The policy in the IETF form: the quota and the window in seconds (issue 29 item 5).
        expect(r.headers.get('ratelimit-policy')).toBe('3;w=60');
        expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
        remaining.push(r.headers.get('x-ratelimit-remaining')!);
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const limited = await sb.call('GET', '/v1/external/auth/me', { key: K.admin });
      expectError(limited, 429, 429001);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      // another key has its own budget; its errors carry the headers too, a 401 (no key identified) does not
      const denied = await sb.call('GET', '/v1/external/teams/me/folders', { key: K.noteReadOnly });
      expectError(denied, 403, 403001);
      expect(denied.headers.get('x-ratelimit-remaining')).toBe('2');
      expect((await sb.call('GET', '/v1/external/auth/me', { key: K.member })).status).toBe(200);
      const unauth = await sb.call('GET', '/v1/external/auth/me');
      expect(unauth.status).toBe(401);
      expect(unauth.headers.get('x-ratelimit-limit')).toBeNull();
    } finally {
      await sb.close();
    }
  });
});

describe('fault injection', () => {
  const statuses = async (seed: number) => {
    const sb = await inProcessSandbox({ faults: '500=0.3,503=0.2,429=0.2:2', faultSeed: seed });
    try {
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await sb.call('GET', '/v1/external/auth/me', { key: K.admin })).status);
      return out;
    } finally {
      await sb.close();
    }
  };
  it('is deterministic under a seed, and injects each kind', async () => {
    const a = await statuses(7);
    expect(await statuses(7)).toEqual(a);
    expect(await statuses(8)).not.toEqual(a);
    expect(new Set(a)).toEqual(new Set([200, 500, 503, 429]));
  });

  it('answers injected failures with the envelope: a code whose first digits are the status, Retry-After on 429', async () => {
    for (const [spec, status, code] of [['500=1', 500, 500000], ['503=1', 503, 503000], ['429=1:7', 429, 429001]] as const) {
      const sb = await inProcessSandbox({ faults: spec, faultSeed: 1 });
      try {
        const r = await sb.call('GET', '/v1/external/auth/me', { key: K.admin });
        expectError(r, status, code);
        if (status === 429) expect(r.headers.get('retry-after')).toBe('7');
      } finally {
        await sb.close();
      }
    }
  });

  it('draws latency and path-filtered faults reproducibly', () => {
    const draw = (seed: number) => {
      const f = new FaultInjector(parseFaultSpec('latency=0.5:50-400,500=0.5@/voice-file/'), seed);
      return Array.from({ length: 30 }, (_, i) => f.decide(i % 2 ? '/v1/external/voice-file/jobs' : '/v1/external/notes'));
    };
    const a = draw(3);
    expect(draw(3)).toEqual(a);
    const latencies = a.map((d) => d.latencyMs).filter((ms) => ms > 0);
    expect(latencies.length).toBeGreaterThan(0);
    for (const ms of latencies) expect(ms >= 50 && ms <= 400).toBe(true);
    // the 500 rule only ever fires on paths containing /voice-file/
    a.forEach((d, i) => {
      if (d.failure) expect(i % 2).toBe(1);
    });
    expect(a.some((d) => d.failure?.kind === '500')).toBe(true);
  });

  it('rejects bad fault specs with a message naming the item', () => {
    for (const bad of ['x=0.1', '503=2', '503=0.1:5', '429=0.1:1-2', 'latency=0.1:400-50', 'latency=0.1:-', '500']) expect(() => parseFaultSpec(bad), bad).toThrow(FaultSpecError);
    expect(parseFaultSpec('429=0.2:3,latency=1:80')).toEqual([
      { kind: '429', probability: 0.2, retryAfter: 3, pathFilter: undefined },
      { kind: 'latency', probability: 1, latency: [80, 80], pathFilter: undefined },
    ]);
  });

  it('resets the connection over real HTTP, reproducibly under a seed', async () => {
    const run = async () => {
      const sb = await startTestSandbox({ faults: 'reset=0.5', faultSeed: 11 });
      try {
        const out: string[] = [];
        for (let i = 0; i < 12; i++) {
          try {
            const r = await fetch(`${sb.baseUrl}/v1/external/auth/me`, { headers: { authorization: `Bearer ${K.admin}`, connection: 'close' } });
            out.push(String(r.status));
          } catch {
            out.push('reset');
          }
        }
        return out;
      } finally {
        await sb.close();
      }
    };
    const a = await run();
    expect(new Set(a)).toEqual(new Set(['200', 'reset']));
    expect(await run()).toEqual(a);
  });
});

describe('state file', () => {
  it('survives a restart, is written atomically and opens with sqlite3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-state-'));
    const file = join(dir, 'state.db');
    try {
      const a = await inProcessSandbox({ stateFile: file });
      const r = await a.call('PATCH', `/v1/external/notes/${DEMO_NOTES.roadmapReview}?updateMask=title`, { key: K.admin, body: { title: 'Persisted title' } });
      expect(r.status).toBe(200);
      await a.close();
      expect(existsSync(file)).toBe(true);
      const b = await inProcessSandbox({ stateFile: file });
      try {
        // not re-seeded, yet the demo keys (public values) are recognised by their hashes
        expect(b.reloaded).toBe(true);
        expect(b.keys).toEqual(a.keys);
        const got = await b.call('GET', `/v1/external/notes/${DEMO_NOTES.roadmapReview}`, { key: K.admin });
        expect(got.json.title).toBe('Persisted title');
      } finally {
        await b.close();
      }
      try {
        const out = execFileSync('sqlite3', [file, `SELECT title FROM notes WHERE guid = '${DEMO_NOTES.roadmapReview}'`], { encoding: 'utf8' });
        expect(out.trim()).toBe('Persisted title');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || process.env.CI) throw e;
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers a write once it is on disk, and a read without waiting for the writes of others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-state-'));
    const sb = await inProcessSandbox({ stateFile: join(dir, 'state.db') });
    try {
      // Db.flush (the point where a write is durable) is held until released: a write is not answered meanwhile, a read is.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const flush = sb.db.flush.bind(sb.db);
      Object.assign(sb.db, { flush: () => held.then(flush) });
      let answered = false;
      const write = sb.call('PATCH', `/v1/external/notes/${DEMO_NOTES.roadmapReview}?updateMask=title`, { key: K.admin, body: { title: 'Held' } }).then((r) => ((answered = true), r));
      const timeout = new Promise<'timed out'>((r) => setTimeout(() => r('timed out'), 2000));
      const read = await Promise.race([sb.call('GET', `/v1/external/notes/${DEMO_NOTES.roadmapReview}`, { key: K.admin }), timeout]);
      expect(read).not.toBe('timed out');
      expect((read as { status: number }).status).toBe(200);
      expect(answered).toBe(false);
      release();
      expect((await write).status).toBe(200);
    } finally {
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on reload lists only the keys whose secrets are public demo values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notevox-state-'));
    try {
      const seedFile = join(dir, 'seed.json');
      const custom = { ...demoSeed, apiKeys: demoSeed.apiKeys!.map((k) => (k.id === DEMO_KEYS.admin.id ? { ...k, secret: 'a-private-secret' } : k)) };
      writeFileSync(seedFile, JSON.stringify(custom));
      const stateFile = join(dir, 'state.db');
      const a = await inProcessSandbox({ seedFile, stateFile });
      expect(a.reloaded).toBe(false);
      expect(a.keys.find((k) => k.id === DEMO_KEYS.admin.id)?.secret).toBe('a-private-secret');
      await a.close();
      const b = await inProcessSandbox({ stateFile });
      try {
        expect(b.keys.map((k) => k.id)).toEqual(a.keys.map((k) => k.id).filter((id) => id !== DEMO_KEYS.admin.id));
        expect(JSON.stringify(b.keys)).not.toContain('a-private-secret');
      } finally {
        await b.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
