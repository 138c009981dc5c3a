import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, buildPath, endpoint } from '../../src/contract/endpoints.js';
import { ERROR_TYPE_BY_STATUS, errorEnvelopeSchema } from '../../src/contract/errors.js';
import * as schemas from '../../src/contract/schemas.js';
import { SCOPE_NAMES, scopeAllows } from '../../src/contract/scopes.js';
import { DEMO_KEYS, DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

const K = Object.fromEntries(Object.entries(DEMO_KEYS).map(([name, k]) => [name, `${k.id}.${k.secret}`])) as Record<keyof typeof DEMO_KEYS, string>;
type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

function expectError(res: { status: number; json: any }, status: number, code: number) {
  expect(res.status).toBe(status);
  expect(errorEnvelopeSchema.safeParse(res.json).success).toBe(true);
  expect(res.json.error.code).toBe(code);
  expect(res.json.error.errorType).toBe(ERROR_TYPE_BY_STATUS[status]);
}

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
    it('accepts a legacy personal key before the cutoff', async () => {
      const early = await inProcessSandbox({ now: '2026-05-01T00:00:00Z' });
      try {
        expect((await early.call('GET', '/v1/external/auth/me', { key: K.legacyPersonal })).json.keyType).toBe('LEGACY_PERSONAL');
      } finally {
        await early.close();
      }
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
    it('unknown routes and wrong methods are 404001 envelopes', async () => {
      expectError(await sb.call('GET', '/v1/external/nope', { key: K.admin }), 404, 404001);
      expectError(await sb.call('DELETE', '/v1/external/notes', { key: K.admin }), 404, 404001);
      expectError(await sb.call('GET', '/', {}), 404, 404001);
    });
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
        expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
        remaining.push(r.headers.get('x-ratelimit-remaining')!);
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const limited = await sb.call('GET', '/v1/external/auth/me', { key: K.admin });
      expectError(limited, 429, 429001);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // another key has its own budget
      expect((await sb.call('GET', '/v1/external/auth/me', { key: K.member })).status).toBe(200);
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
        expect(b.keys).toEqual([]); // not re-seeded
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
});
