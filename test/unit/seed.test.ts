import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import { SHARING_TYPES, SOURCE_TYPES, TEMPLATE_OWNER_TYPES } from '../../src/contract/schemas.js';
import { UsageError } from '../../src/errors.js';
import { decodeRow, openDatabase, type Db } from '../../src/sandbox/db.js';
import { DEMO_BUSY_PAGE, DEMO_FOLDERS, DEMO_KEYS, DEMO_NOTES, DEMO_WORKSPACES, demoSeed } from '../../src/sandbox/demo-seed.js';
import { hashSecret } from '../../src/sandbox/ids.js';
import { WORD_MEMORY_SCOPES } from '../../src/sandbox/schema.sql.js';
import { loadSeed, readSeedFile, type SeedSummary } from '../../src/sandbox/seed/load.js';
import { SeedError, type SeedInput } from '../../src/sandbox/seed/schema.js';

const count = (db: Db, sql: string, params: unknown[] = []) => Number(Object.values(db.get<Record<string, number>>(sql, params)!)[0]);

/** The issues a seed is rejected with. */
async function issuesOf(seed: unknown): Promise<Array<{ path: string; message: string }>> {
  const db = await openDatabase();
  try {
    loadSeed(db, seed);
  } catch (e) {
    if (e instanceof SeedError) return e.issues;
    throw e;
  } finally {
    await db.close();
  }
  throw new Error('the seed was accepted');
}

/** A small valid seed for the rejection tests to break. */
function minimal(): SeedInput {
  return {
    now: '2026-01-01T00:00:00Z',
    organizations: [{ id: 'org_a', name: 'A' }],
    workspaces: [
      { guid: 'wsAAAAAAAAAAAAA1', organizationId: 'org_a', name: 'One' },
      { guid: 'wsAAAAAAAAAAAAA2', organizationId: 'org_a', name: 'Two' },
    ],
    users: [{ id: 1, name: 'Ann', email: 'ann@example.com', organizationId: 'org_a', memberships: [{ workspaceGuid: 'wsAAAAAAAAAAAAA1' }] }],
    apiKeys: [{ id: 'k_ann', secret: 'sk_ann_secret_1', type: 'USER', userId: 1 }],
    folders: [{ id: 1, workspaceGuid: 'wsAAAAAAAAAAAAA1', ownerUserId: 1, title: 'F' }],
    templates: [{ id: 1, title: 'T', ownerType: 'MANAGED', sections: [{ title: 'S', instruction: 'I' }] }],
    notes: [{ guid: 'noteAAAAAAAA1', title: 'N', ownerUserId: 1, folderId: 1, sourceType: 'live-voice', paragraphs: [{ speaker: 'Ann', text: 'Hello there.' }] }],
  };
}

describe('demo seed', () => {
  let db: Db;
  let summary: SeedSummary;
  beforeAll(async () => {
    db = await openDatabase();
    summary = loadSeed(db, demoSeed);
  });
  afterAll(() => db.close());

  it('loads, and the counts match the seed', () => {
    const notes = demoSeed.notes!;
    const sum = (f: (n: (typeof notes)[number]) => number) => notes.reduce((s, n) => s + f(n), 0);
    const expected = {
      organizations: demoSeed.organizations.length,
      workspaces: demoSeed.workspaces!.length,
      users: demoSeed.users!.length,
      memberships: demoSeed.users!.reduce((s, u) => s + (u.memberships?.length ?? 0), 0),
      api_keys: demoSeed.apiKeys!.length,
      folders: demoSeed.folders!.length,
      folder_members: demoSeed.folders!.reduce((s, f) => s + (f.members?.length ?? 0), 0),
      templates: demoSeed.templates!.length,
      notes: notes.length,
      note_participants: sum((n) => n.participants?.length ?? 0),
      // the owner is added as OWNER collaborator when not listed
      note_collaborators: sum((n) => (n.collaborators?.length ?? 0) + (n.collaborators?.some((c) => c.userId === n.ownerUserId) ? 0 : 1)),
      paragraphs: sum((n) => n.paragraphs?.length ?? 0),
      summaries: sum((n) => n.summaries?.length ?? 0),
      documents: sum((n) => n.documents?.length ?? 0),
      share_links: sum((n) => (n.shareLink ? 1 : 0)),
      word_memories: demoSeed.wordMemories!.length,
      wiki_pages: demoSeed.wiki!.pages!.length,
      wiki_mentions: demoSeed.wiki!.mentions!.length + demoSeed.wiki!.generatedMentions!.reduce((s, g) => s + g.count, 0),
    };
    expect(summary.counts).toEqual(expected);
    for (const [table, n] of Object.entries(expected)) expect(count(db, `SELECT count(*) FROM ${table}`), table).toBe(n);
  });

  it('returns every key with its secret, and stores only salted hashes that verify', () => {
    expect(summary.keys).toHaveLength(demoSeed.apiKeys!.length);
    for (const k of Object.values(DEMO_KEYS)) {
      const seeded = summary.keys.find((s) => s.id === k.id)!;
      expect(seeded.secret).toBe(k.secret);
      const row = db.get<{ secret_salt: string; secret_hash: string }>('SELECT secret_salt, secret_hash FROM api_keys WHERE id = ?', [k.id])!;
      expect(row.secret_hash).toBe(hashSecret(k.secret, row.secret_salt));
      expect(row.secret_hash).not.toContain(k.secret);
    }
  });

  it('keeps no secret anywhere in the stored bytes', () => {
    const bytes = Buffer.from(db.export());
    const secrets = [...Object.values(DEMO_KEYS).map((k) => k.secret), ...demoSeed.notes!.flatMap((n) => (n.shareLink?.password ? [n.shareLink.password] : []))];
    expect(secrets.length).toBeGreaterThan(Object.keys(DEMO_KEYS).length);
    for (const s of secrets) {
      expect(bytes.includes(Buffer.from(s, 'utf8')), s).toBe(false);
      expect(bytes.includes(Buffer.from(s, 'utf16le')), s).toBe(false);
    }
    expect(bytes.includes(Buffer.from(DEMO_KEYS.admin.id))).toBe(true); // the search does find what is there
  });

  it('covers every source type, sharing type, template owner and word-memory scope', () => {
    const values = (sql: string) => db.all<Record<string, string>>(sql).map((r) => Object.values(r)[0]).sort();
    expect(values('SELECT DISTINCT source_type FROM notes')).toEqual([...SOURCE_TYPES].sort());
    expect(values('SELECT DISTINCT sharing_type FROM folders')).toEqual([...SHARING_TYPES].sort());
    expect(values('SELECT DISTINCT owner_type FROM templates')).toEqual([...TEMPLATE_OWNER_TYPES].sort());
    expect(values('SELECT DISTINCT scope_type FROM word_memories')).toEqual([...WORD_MEMORY_SCOPES].sort());
    expect(values("SELECT DISTINCT role FROM folder_members f JOIN folders d ON d.id = f.folder_id WHERE d.sharing_type = 'LIMITED'")).toEqual(['EDITOR', 'VIEWER']);
    expect(count(db, "SELECT count(*) FROM templates WHERE owner_type = 'MANAGED' AND kind = 'one_pager'")).toBeGreaterThan(0);
    for (const scope of WORD_MEMORY_SCOPES) expect(count(db, 'SELECT count(*) FROM word_memories WHERE scope_type = ?', [scope])).toBeGreaterThanOrEqual(2);
  });

  it('has the three workspace kinds', () => {
    const ws = (guid: string) => decodeRow('workspaces', db.get<Record<string, unknown>>('SELECT * FROM workspaces WHERE guid = ?', [guid])!);
    expect(ws(DEMO_WORKSPACES.product)).toMatchObject({ voice_file_enabled: true, wiki_plan: true, wiki_enabled: true });
    expect(ws(DEMO_WORKSPACES.sales)).toMatchObject({ voice_file_enabled: false, wiki_plan: true, wiki_enabled: false });
    expect(ws(DEMO_WORKSPACES.support)).toMatchObject({ wiki_plan: false, monthly_minutes: 600 });
    expect(count(db, 'SELECT count(*) FROM memberships WHERE workspace_guid = ?', [DEMO_WORKSPACES.sales])).toBeLessThan(demoSeed.users!.length);
  });

  it('nests folders: a chain to the maximum depth, and a shared folder under a private one', () => {
    const depth = (id: number): number => {
      const f = db.get<{ parent_id: number | null }>('SELECT parent_id FROM folders WHERE id = ?', [id])!;
      return f.parent_id === null ? 1 : 1 + depth(f.parent_id);
    };
    expect(depth(DEMO_FOLDERS.pressKit)).toBe(LIMITS.folderMaxDepth);
    const shared = db.get<{ sharing_type: string; parent: string }>(
      'SELECT f.sharing_type, p.sharing_type AS parent FROM folders f JOIN folders p ON p.id = f.parent_id WHERE f.id = ?',
      [DEMO_FOLDERS.customerInterviews],
    );
    expect(shared).toEqual({ sharing_type: 'ALL_MEMBER_VIEWER', parent: 'PRIVATE' });
  });

  it('has realistic notes: 5 to 40 paragraphs, one deleted, one without a workspace, a share link', () => {
    const per = db.all<{ n: number }>('SELECT count(p.id) AS n FROM notes n LEFT JOIN paragraphs p ON p.note_guid = n.guid GROUP BY n.guid');
    expect(per.length).toBeGreaterThanOrEqual(12);
    for (const { n } of per) {
      expect(n).toBeGreaterThanOrEqual(5);
      expect(n).toBeLessThanOrEqual(40);
    }
    expect(count(db, 'SELECT count(*) FROM notes WHERE deleted = 1')).toBe(1);
    expect(count(db, 'SELECT count(*) FROM notes WHERE workspace_guid IS NULL')).toBe(1);
    expect(count(db, 'SELECT count(*) FROM notes WHERE folder_id IS NULL AND workspace_guid IS NOT NULL')).toBeGreaterThan(0);
    expect(count(db, "SELECT count(*) FROM notes WHERE source_type IN ('text', 'webpage') AND (recording_start_at IS NOT NULL OR transcribe_locale IS NOT NULL OR recording_duration_seconds <> 0)")).toBe(0);
    expect(count(db, "SELECT count(*) FROM notes WHERE source_type = 'live-voice' AND (recording_start_at IS NULL OR recording_duration_seconds = 0)")).toBe(0);
    expect(count(db, 'SELECT count(*) FROM share_links WHERE note_guid = ? AND password_hash IS NOT NULL', [DEMO_NOTES.launchKickoff])).toBe(1);
  });

  it('has a document section longer than the deep-search budget', () => {
    const docs = db.all<{ sections: string }>('SELECT sections FROM documents WHERE note_guid = ?', [DEMO_NOTES.launchKickoff]);
    const longest = Math.max(...docs.flatMap((d) => (JSON.parse(d.sections) as Array<{ content: string }>).map((s) => s.content.length)));
    expect(longest).toBeGreaterThan(LIMITS.deepSearchDocumentChars);
  });

  it('has a wiki page with more mentions than a page of results, some from private folders', () => {
    expect(count(db, 'SELECT count(*) FROM wiki_mentions WHERE page_guid = ?', [DEMO_BUSY_PAGE.guid])).toBe(DEMO_BUSY_PAGE.mentions);
    const privateMentions = count(
      db,
      "SELECT count(*) FROM wiki_mentions m JOIN notes n ON n.guid = m.note_guid JOIN folders f ON f.id = n.folder_id WHERE m.page_guid = ? AND f.sharing_type = 'PRIVATE'",
      [DEMO_BUSY_PAGE.guid],
    );
    expect(privateMentions).toBeGreaterThan(0);
    expect(privateMentions).toBeLessThan(DEMO_BUSY_PAGE.mentions);
    // every mention points at a paragraph of its own note
    expect(count(db, 'SELECT count(*) FROM wiki_mentions m JOIN paragraphs p ON p.id = m.paragraph_id WHERE p.note_guid <> m.note_guid OR p.uuid <> m.paragraph_uuid')).toBe(0);
    expect(count(db, "SELECT count(*) FROM wiki_mentions WHERE kind = 'IMPLICIT'")).toBeGreaterThan(0);
  });

  it('has the key kinds the docs promise', () => {
    const key = (id: string) => decodeRow('api_keys', db.get<any>('SELECT * FROM api_keys WHERE id = ?', [id]));
    expect(key(DEMO_KEYS.admin.id)).toMatchObject({ type: 'USER', scopes: [], workspace_guid: null });
    expect(key(DEMO_KEYS.noteReadOnly.id)).toMatchObject({ scopes: ['note:read'] });
    expect(key(DEMO_KEYS.boundUser.id)).toMatchObject({ type: 'USER', workspace_guid: DEMO_WORKSPACES.product });
    expect(key(DEMO_KEYS.workspaceKey.id)).toMatchObject({ type: 'WORKSPACE', workspace_guid: DEMO_WORKSPACES.product, legacy_scope: false });
    expect(key(DEMO_KEYS.unboundWorkspaceKey.id)).toMatchObject({ type: 'WORKSPACE', workspace_guid: null });
    expect(key(DEMO_KEYS.legacyScopeWorkspaceKey.id)).toMatchObject({ legacy_scope: true });
    expect(key(DEMO_KEYS.noVoiceWorkspaceKey.id)).toMatchObject({ voice_permission: false });
    expect(key(DEMO_KEYS.orgKey.id).scopes).toEqual(expect.arrayContaining(['workspace:write', 'note_document:write', 'word_memory:write']));
    expect(key(DEMO_KEYS.orgReadOnly.id).scopes.every((s: string) => s.endsWith(':read'))).toBe(true);
    expect(key(DEMO_KEYS.expired.id).status).toBe('expired');
    expect(key(DEMO_KEYS.inactive.id).status).toBe('inactive');
    expect(key(DEMO_KEYS.deleted.id).status).toBe('deleted');
    expect(key(DEMO_KEYS.legacyPersonal.id)).toMatchObject({ type: 'LEGACY_PERSONAL', organization_id: 'org_northwind' });
  });

  it('loads the same ids every time, also after a JSON round trip (what `sandbox seed-example` prints)', async () => {
    const other = await openDatabase();
    loadSeed(other, JSON.parse(JSON.stringify(demoSeed)));
    const ids = (d: Db) => d.all('SELECT m.guid, m.paragraph_uuid, p.time_from FROM wiki_mentions m JOIN paragraphs p ON p.id = m.paragraph_id ORDER BY m.id');
    expect(ids(other)).toEqual(ids(db));
    await other.close();
  });

  it('loads in one transaction: a failure leaves the store as it was', () => {
    const before = count(db, 'SELECT count(*) FROM notes');
    expect(() => loadSeed(db, demoSeed)).toThrow(/UNIQUE|constraint/i);
    expect(count(db, 'SELECT count(*) FROM notes')).toBe(before);
    expect(count(db, 'SELECT count(*) FROM organizations')).toBe(1);
  });

  it('is documented: every demo key appears in docs/sandbox-seed.md', async () => {
    const doc = await readFile(new URL('../../docs/sandbox-seed.md', import.meta.url), 'utf8');
    for (const k of Object.values(DEMO_KEYS)) expect(doc, k.id).toContain(`\`${k.id}\``);
    for (const k of Object.values(DEMO_KEYS)) expect(doc, k.secret).toContain(k.secret);
  });
});

describe('seed defaults', () => {
  it('fills in what a minimal seed leaves out', async () => {
    const db = await openDatabase();
    const s = minimal();
    s.notes!.push({ guid: 'noteAAAAAAAA2', title: 'Typed', ownerUserId: 1, workspaceGuid: 'wsAAAAAAAAAAAAA1', sourceType: 'text', paragraphs: [{ text: 'one' }, { text: 'two' }] });
    const summary = loadSeed(db, s);
    expect(summary.keys).toEqual([{ id: 'k_ann', type: 'USER', status: 'active', secret: 'sk_ann_secret_1', scopes: [] }]);
    expect(db.get('SELECT color, sharing_type, description FROM folders')).toEqual({ color: LIMITS.folderDefaultColor, sharing_type: LIMITS.folderDefaultSharing, description: '' });
    expect(db.get('SELECT role FROM memberships')).toEqual({ role: 'MEMBER' });
    expect(db.get("SELECT * FROM notes WHERE guid = 'noteAAAAAAAA1'")).toMatchObject({
      id: 1, workspace_guid: 'wsAAAAAAAAAAAAA1', created_at: '2026-01-01T00:00:00.000Z', recording_start_at: '2026-01-01T00:00:00.000Z',
      transcribe_locale: 'en_US', translate_locale: null, deleted: 0,
    });
    const voice = db.get<{ recording_duration_seconds: number; recording_end_at: string; updated_at: string }>("SELECT * FROM notes WHERE guid = 'noteAAAAAAAA1'")!;
    expect(voice.recording_duration_seconds).toBeGreaterThan(0);
    expect(voice.updated_at).toBe(voice.recording_end_at);
    expect(db.get("SELECT id, recording_start_at, transcribe_locale FROM notes WHERE guid = 'noteAAAAAAAA2'")).toEqual({ id: 2, recording_start_at: null, transcribe_locale: null });
    expect(db.all('SELECT user_id, role FROM note_collaborators WHERE note_guid = ?', ['noteAAAAAAAA1'])).toEqual([{ user_id: 1, role: 'OWNER' }]);
    const paras = db.all<{ time_from: string; time_to: string }>("SELECT time_from, time_to FROM paragraphs WHERE note_guid = 'noteAAAAAAAA2' ORDER BY position");
    expect(paras[1].time_from).toBe(paras[0].time_to);
    expect(db.get('SELECT created_at, status, voice_permission, legacy_scope, organization_id FROM api_keys')).toEqual({
      created_at: '2026-01-01T00:00:00.000Z', status: 'active', voice_permission: 1, legacy_scope: 0, organization_id: 'org_a',
    });
    await db.close();
  });
});

describe('seed instants', () => {
  it('stores every instant as toISOString gives it, whether the seed writes it in that form or not', async () => {
    // in that form already (stored as written, without a Date), at the edges of months, years and the range
    const written = ['2024-02-29T23:59:59.999Z', '2026-12-31T23:59:59.000Z', '2027-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '2026-06-30T12:00:00.500Z'];
    // other forms (converted)
    const other = ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00.1+02:00', '2026-03-01T10:00:00.123456Z', '2026-02-28T23:30:00-01:00'];
    for (const at of [...written, ...other]) {
      const db = await openDatabase();
      const s = minimal();
      s.notes!.push({ guid: 'noteAAAAAAAA2', title: 'Timed', ownerUserId: 1, workspaceGuid: 'wsAAAAAAAAAAAAA1', sourceType: 'recording', createdAt: at, updatedAt: at });
      s.wordMemories = [{ scope: 'user', scopeId: 1, entry: 'timed', createdAt: at }];
      loadSeed(db, s);
      const stored = new Date(at).toISOString();
      expect(db.get("SELECT created_at, updated_at, recording_start_at, recording_end_at FROM notes WHERE guid = 'noteAAAAAAAA2'"), at).toEqual({
        created_at: stored, updated_at: stored, recording_start_at: stored, recording_end_at: stored,
      });
      expect(db.get('SELECT created_at FROM word_memories')).toEqual({ created_at: stored });
      if (written.includes(at)) expect(stored).toBe(at);
      await db.close();
    }
  });
});

describe('big seeds', () => {
  it('loads 150k word memories without ids and many notes, every value stored with its type', async () => {
    // Interleaved tables (notes, their collaborators and paragraphs) through the loader's reused statements,
    // and more ids to assign than Math.max(...ids) can take as arguments.
    const s = minimal();
    const notes = 12_000;
    for (let i = 0; i < notes; i++)
      s.notes!.push({ guid: `nb${String(i).padStart(11, '0')}`, title: `N ${i}`, ownerUserId: 1, workspaceGuid: 'wsAAAAAAAAAAAAA1', sourceType: i % 2 ? 'text' : 'recording', paragraphs: [{ text: `p ${i}` }] });
    s.wordMemories = Array.from({ length: 150_000 }, (_, i) => ({ scope: 'user' as const, scopeId: 1, entry: `w${i}`, subEntry: i % 2 ? null : `s${i}` }));
    const db = await openDatabase();
    try {
      const summary = loadSeed(db, s);
      expect(summary.counts).toMatchObject({ notes: notes + 1, paragraphs: notes + 1, note_collaborators: notes + 1, word_memories: 150_000 });
      expect(count(db, 'SELECT count(*) FROM word_memories')).toBe(150_000);
      expect(db.get("SELECT id, typeof(id) AS t, scope_id, typeof(scope_id) AS st, sub_entry FROM word_memories WHERE entry = 'w149999'")).toEqual({ id: 150_000, t: 'integer', scope_id: '1', st: 'text', sub_entry: null });
      expect(db.get("SELECT sub_entry FROM word_memories WHERE entry = 'w149998'")).toEqual({ sub_entry: 's149998' });
      // Inserted many rows per statement and the rest one by one: every row with the id of its place in the seed.
      expect(count(db, "SELECT count(*) FROM word_memories WHERE id = CAST(substr(entry, 2) AS INTEGER) + 1 AND sub_entry IS (CASE WHEN id % 2 THEN 's' || (id - 1) END)")).toBe(150_000);
      expect(db.get("SELECT id, deleted, typeof(deleted) AS dt, folder_id FROM notes WHERE guid = 'nb00000011999'")).toEqual({ id: notes + 1, deleted: 0, dt: 'integer', folder_id: null });
      expect(decodeRow('paragraphs', db.get("SELECT locked, diarized_segments, summary FROM paragraphs WHERE note_guid = 'nb00000011999'")!)).toEqual({ locked: false, diarized_segments: [], summary: null });
      expect(count(db, 'SELECT count(*) FROM note_collaborators c JOIN notes n ON n.guid = c.note_guid')).toBe(notes + 1);
      expect(db.get('PRAGMA foreign_key_check')).toBeUndefined();
    } finally {
      await db.close();
    }
  });
});

describe('seed validation', () => {
  it('names the JSON path and the rule of shape errors', async () => {
    const s = minimal() as any;
    s.workspaces[1].guid = 'too-short';
    s.notes[0].titel = 'typo';
    s.apiKeys[0].scopes = ['note:read', 'notes:everything'];
    s.folders[0].color = 'blue';
    const issues = await issuesOf(s);
    const at = (path: string) => issues.find((i) => i.path === path)?.message;
    expect(at('workspaces[1].guid')).toMatch(/16 letters or digits/);
    expect(at('notes[0]')).toMatch(/titel/);
    expect(at('apiKeys[0].scopes[1]')).toMatch(/must be one of the scopes note:read/);
    expect(at('folders[0].color')).toMatch(/#RRGGBB/);
    expect(issues).toHaveLength(4);
    expect(await issuesOf({ organizations: [] })).toEqual([{ path: 'organizations', message: 'at least one organization is required' }]);
    expect((await issuesOf('nope'))[0].path).toBe('(root)');
  });

  it('puts every problem in one UsageError message', async () => {
    const s = minimal() as any;
    s.workspaces[1].guid = 'x';
    const db = await openDatabase();
    const err = (() => {
      try {
        loadSeed(db, s, 'seed file demo.json');
      } catch (e) {
        return e as SeedError;
      }
    })()!;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('invalid seed file demo.json (1 problem)');
    expect(err.message).toContain('workspaces[1].guid: must be 16 letters or digits');
    expect(err.hint).toMatch(/docs\/sandbox-seed\.md/);
    expect(count(db, 'SELECT count(*) FROM organizations')).toBe(0);
    await db.close();
  });

  it('rejects unknown references, naming the path', async () => {
    const cases: Array<[(s: any) => void, string, RegExp]> = [
      [(s) => (s.folders[0].workspaceGuid = 'wsUNKNOWN0000000'), 'folders[0].workspaceGuid', /unknown workspace "wsUNKNOWN0000000"/],
      [(s) => (s.users[0].memberships[0].workspaceGuid = 'wsUNKNOWN0000000'), 'users[0].memberships[0].workspaceGuid', /unknown workspace/],
      [(s) => (s.notes[0].ownerUserId = 99), 'notes[0].ownerUserId', /unknown user 99/],
      [(s) => (s.notes[0].folderId = 5), 'notes[0].folderId', /unknown folder 5/],
      [(s) => (s.notes[0].documents = [{ templateId: 9, locale: 'en_US', sections: ['x'] }]), 'notes[0].documents[0].templateId', /unknown template 9/],
      [(s) => (s.apiKeys[0].userId = 2), 'apiKeys[0].userId', /unknown user 2/],
      [(s) => (s.wordMemories = [{ scope: 'workspace', scopeId: 'wsUNKNOWN0000000', entry: 'x' }]), 'wordMemories[0].scopeId', /unknown workspace/],
      [(s) => (s.wiki = { mentions: [{ pageGuid: 'nope', noteGuid: 'noteAAAAAAAA1', extractedText: 'x', confidence: 0.5 }] }), 'wiki.mentions[0].pageGuid', /unknown wiki page "nope"/],
      [(s) => (s.workspaces[0].organizationId = 'org_b'), 'workspaces[0].organizationId', /unknown organization "org_b"/],
    ];
    for (const [mutate, path, message] of cases) {
      const s = minimal();
      mutate(s);
      const issues = await issuesOf(s);
      expect(issues.find((i) => i.path === path)?.message, path).toMatch(message);
    }
  });

  it('rejects inconsistent data', async () => {
    const cases: Array<[(s: any) => void, string, RegExp]> = [
      [(s) => s.workspaces.push({ ...s.workspaces[0] }), 'workspaces[2].guid', /duplicate guid "wsAAAAAAAAAAAAA1" \(also at workspaces\[0\]\)/],
      [(s) => (s.workspaces[0].wikiEnabled = true), 'workspaces[0].wikiEnabled', /wiki plan/],
      [(s) => (s.folders[0].workspaceGuid = 'wsAAAAAAAAAAAAA2'), 'folders[0].ownerUserId', /not a member of workspace wsAAAAAAAAAAAAA2/],
      [(s) => (s.folders[0].members = [{ userId: 1, role: 'VIEWER' }]), 'folders[0].members', /only LIMITED folders/],
      [(s) => (s.notes[0].workspaceGuid = 'wsAAAAAAAAAAAAA2'), 'notes[0].folderId', /is in workspace wsAAAAAAAAAAAAA1, not wsAAAAAAAAAAAAA2/],
      [(s) => ((s.notes[0].sourceType = 'text'), (s.notes[0].recording = {})), 'notes[0].recording', /a text note has no recording/],
      [(s) => (s.apiKeys[0].type = 'WORKSPACE'), 'apiKeys[0].userId', /acts for no user/],
      [(s) => delete s.apiKeys[0].userId, 'apiKeys[0].userId', /needs the user/],
      [(s) => (s.apiKeys[0].workspaceGuid = 'wsAAAAAAAAAAAAA2'), 'apiKeys[0].workspaceGuid', /not a member/],
      [(s) => s.apiKeys.push({ id: 'k_ws', secret: 'sk_ws_secret_1', type: 'WORKSPACE', legacyScope: true }), 'apiKeys[1].organizationId', /needs organizationId/],
      [(s) => (s.apiKeys[0].secret = 'has.dot.inside'), 'apiKeys[0].secret', /no dot/],
      [(s) => (s.templates[0] = { ...s.templates[0], ownerType: 'USER' }), 'templates[0].ownerUserId', /a USER template needs ownerUserId/],
      [(s) => Object.assign(s.templates[0], { kind: 'one_pager', ownerType: 'WORKSPACE', workspaceGuid: 'wsAAAAAAAAAAAAA1' }), 'templates[0].kind', /only MANAGED/],
      [(s) => (s.wordMemories = [{ scope: 'user', scopeId: 1, entry: 'Acme' }, { scope: 'user', scopeId: '1', entry: 'Acme' }]), 'wordMemories[1].entry', /duplicate entry "Acme"/],
      [(s) => (s.wordMemories = [{ scope: 'user', scopeId: 1, entry: 'two words' }]), 'wordMemories[0].entry', /whitespace/],
      [
        (s) => (s.wiki = { pages: [{ guid: 'p1', workspaceGuid: 'wsAAAAAAAAAAAAA2', canonicalName: 'P', pageType: 'topic' }], mentions: [{ pageGuid: 'p1', noteGuid: 'noteAAAAAAAA1', extractedText: 'x', confidence: 0.5 }] }),
        'wiki.mentions[0].noteGuid',
        /not in the page's workspace/,
      ],
      [
        (s) => (s.wiki = { pages: [{ guid: 'p1', workspaceGuid: 'wsAAAAAAAAAAAAA1', canonicalName: 'P', pageType: 'topic' }], mentions: [{ pageGuid: 'p1', noteGuid: 'noteAAAAAAAA1', paragraphIndex: 3, extractedText: 'x', confidence: 0.5 }] }),
        'wiki.mentions[0].paragraphIndex',
        /has 1 paragraphs/,
      ],
    ];
    for (const [mutate, path, message] of cases) {
      const s = minimal();
      mutate(s);
      const issues = await issuesOf(s);
      expect(issues.find((i) => i.path === path)?.message, `${path} in ${JSON.stringify(issues)}`).toMatch(message);
    }
  });

  it(`rejects folders nested deeper than ${LIMITS.folderMaxDepth}, and cycles`, async () => {
    const chain = (length: number) => {
      const s = minimal();
      s.folders = Array.from({ length }, (_, i) => ({ id: i + 1, workspaceGuid: 'wsAAAAAAAAAAAAA1', ownerUserId: 1, title: `L${i + 1}`, parentId: i ? i : null }));
      return s;
    };
    const db = await openDatabase();
    expect(loadSeed(db, chain(LIMITS.folderMaxDepth)).counts.folders).toBe(LIMITS.folderMaxDepth);
    await db.close();
    const issues = await issuesOf(chain(LIMITS.folderMaxDepth + 1));
    expect(issues).toEqual([
      { path: `folders[${LIMITS.folderMaxDepth}].parentId`, message: expect.stringMatching(/depth 6: folders nest at most 5 deep/) },
    ]);
    const cyclic = chain(3);
    cyclic.folders![0].parentId = 3;
    expect((await issuesOf(cyclic)).map((i) => i.message)).toContain('the parent chain loops back to folder 1');
  });

  it('inserts folders listed child-first in parent order', async () => {
    const s = minimal();
    s.folders = [
      { id: 3, workspaceGuid: 'wsAAAAAAAAAAAAA1', ownerUserId: 1, title: 'C', parentId: '2' },
      { id: 2, workspaceGuid: 'wsAAAAAAAAAAAAA1', ownerUserId: 1, title: 'B', parentId: 1 },
      { id: '1', workspaceGuid: 'wsAAAAAAAAAAAAA1', ownerUserId: 1, title: 'A' },
    ];
    const db = await openDatabase();
    loadSeed(db, s);
    expect(db.all('SELECT id, parent_id FROM folders ORDER BY id')).toEqual([
      { id: 1, parent_id: null }, { id: 2, parent_id: 1 }, { id: 3, parent_id: 2 },
    ]);
    await db.close();
  });
});

describe('seed fields of third-party worlds (issue 10)', () => {
  /** A seed with every field the loader used to assign or leave out, given verbatim. */
  function verbatim(): SeedInput {
    const s = minimal();
    s.users![0] = { ...s.users![0], guid: 'f4c1e2d3-ann', orgAdmin: true };
    s.users!.push({ id: 2, name: 'Bo', email: 'bo@example.com', organizationId: 'org_a', memberships: [{ workspaceGuid: 'wsAAAAAAAAAAAAA1' }] });
    s.apiKeys!.push({ id: 'k_org', secret: 'sk_org_secret_1', type: 'ORGANIZATION', issuedByUserId: 1 });
    s.notes![0] = {
      ...s.notes![0],
      collaborators: [{ userId: 2, role: 'EDITOR' }],
      paragraphs: [
        { id: 7001, uuid: '6b1f0c8e-0d2a-4c55-9f10-1a2b3c4d5e6f', speaker: 'Ann', text: 'Hello there.', summary: 'A greeting.' },
        {
          id: 7002,
          speaker: 'Ann',
          diarizedSegments: [
            { content: 'Ready?', speaker: { label: 'SPEAKER_1', personName: 'Ann' } },
            { content: 'Yes.', speaker: { label: 'SPEAKER_2' } },
          ],
          summary: { type: 'text/plain', content: 'Both agree.' },
        },
        { locked: true },
      ],
      summaries: [{ id: 5, locale: 'en_US', content: '## S', createdAt: '2026-01-02T00:00:00Z', updatedAt: '2026-01-03T00:00:00Z' }],
      documents: [
        { id: 9, templateId: 1, locale: 'en_US', sections: ['## Markdown', { content: { type: 'text/plain', content: 'Plain words.' }, createdAt: '2026-01-04T00:00:00Z' }] },
      ],
    };
    s.wordMemories = [
      { id: 300, scope: 'user', scopeId: 1, entry: 'Kafka' },
      { scope: 'user', scopeId: 1, entry: 'Flink' },
    ];
    return s;
  }

  it('keeps ids, uuids, guids, updatedAt, section types, paragraph fields and the issuer as given', async () => {
    const db = await openDatabase();
    loadSeed(db, verbatim());
    const paras = db.all<Record<string, unknown>>("SELECT * FROM paragraphs WHERE note_guid = 'noteAAAAAAAA1' ORDER BY position").map((r) => decodeRow('paragraphs', r));
    expect(paras.map((p) => p.id)).toEqual([7001, 7002, 7003]);
    expect(paras[0]).toMatchObject({ uuid: '6b1f0c8e-0d2a-4c55-9f10-1a2b3c4d5e6f', locked: false, diarized_segments: [], summary: { type: 'text/markdown', content: 'A greeting.' } });
    expect(paras[1]).toMatchObject({
      content: 'Ready? Yes.',
      diarized_segments: [
        { content: 'Ready?', speaker: { label: 'SPEAKER_1', personName: 'Ann' } },
        { content: 'Yes.', speaker: { label: 'SPEAKER_2', personName: null } },
      ],
      summary: { type: 'text/plain', content: 'Both agree.' },
    });
    expect(paras[2]).toMatchObject({ locked: true, content: '', diarized_segments: [], summary: null });
    expect(db.get('SELECT created_at, updated_at FROM summaries WHERE id = 5')).toEqual({ created_at: '2026-01-02T00:00:00.000Z', updated_at: '2026-01-03T00:00:00.000Z' });
    const doc = decodeRow('documents', db.get<Record<string, unknown>>('SELECT * FROM documents WHERE id = 9')!);
    expect(doc.sections).toEqual([
      { type: 'text/markdown', content: '## Markdown', createdAt: doc.created_at },
      { type: 'text/plain', content: 'Plain words.', createdAt: '2026-01-04T00:00:00.000Z' },
    ]);
    expect(db.all('SELECT id, entry FROM word_memories ORDER BY id')).toEqual([{ id: 300, entry: 'Kafka' }, { id: 301, entry: 'Flink' }]);
    expect(db.all('SELECT id, guid FROM users ORDER BY id')).toEqual([{ id: 1, guid: 'f4c1e2d3-ann' }, { id: 2, guid: null }]);
    expect(db.get("SELECT organization_id, issued_by_user_id FROM api_keys WHERE id = 'k_org'")).toEqual({ organization_id: 'org_a', issued_by_user_id: 1 });
    await db.close();
  });

  it('serves them: collaborator guids, paragraph fields, summary updatedAt, section types', async () => {
    const { inProcessSandbox } = await import('../helpers/sandbox.js');
    const dirPath = await mkdtemp(join(tmpdir(), 'nvx-seed-'));
    const file = join(dirPath, 'seed.json');
    await writeFile(file, JSON.stringify(verbatim()));
    const sb = await inProcessSandbox({ seedFile: file });
    try {
      const note = (await sb.call('GET', '/v1/external/notes/noteAAAAAAAA1', { key: 'k_ann.sk_ann_secret_1' })).json;
      expect(note.collaborators.map((c: any) => c.guid)).toEqual(['f4c1e2d3-ann', 'user-2']);
      const paras = (await sb.call('GET', '/v1/external/notes/noteAAAAAAAA1/paragraphs', { key: 'k_ann.sk_ann_secret_1' })).json.content;
      expect(paras.map((p: any) => [p.id, p.locked, p.transcript.content])).toEqual([[7001, false, 'Hello there.'], [7002, false, 'Ready? Yes.'], [7003, true, '']]);
      const summary = (await sb.call('GET', '/v1/external/notes/noteAAAAAAAA1/summaries/5', { key: 'k_ann.sk_ann_secret_1' })).json;
      expect(summary.updatedAt).toBe('2026-01-03T00:00:00.000Z');
      const doc = (await sb.call('GET', '/v1/external/notes/noteAAAAAAAA1/documents/9', { key: 'k_ann.sk_ann_secret_1' })).json;
      expect(doc.sections.map((x: any) => x.content.type)).toEqual(['text/markdown', 'text/plain']);
      const org = await sb.call('GET', '/v1/external/organizations/me', { key: 'k_org.sk_org_secret_1' });
      expect(org.json.id).toBe('org_a');
    } finally {
      await sb.close();
      await rm(dirPath, { recursive: true, force: true });
    }
  });

  it('checks them: duplicates, locked paragraphs with text, blank paragraphs, issuers, updatedAt before createdAt', async () => {
    const s = verbatim();
    s.users![1].guid = 'f4c1e2d3-ann';
    s.apiKeys!.push({ id: 'k_org2', secret: 'sk_org_secret_2', type: 'ORGANIZATION', issuedByUserId: 2 });
    s.apiKeys!.push({ id: 'k_ws', secret: 'sk_ws_secret_01', type: 'WORKSPACE', workspaceGuid: 'wsAAAAAAAAAAAAA1', issuedByUserId: 1 });
    const note = s.notes![0];
    note.paragraphs!.push({ id: 7001, uuid: '6b1f0c8e-0d2a-4c55-9f10-1a2b3c4d5e6f', text: 'dup' }, { locked: true, text: 'secret' }, { text: '  ' });
    note.summaries![0].updatedAt = '2026-01-01T00:00:00Z';
    s.wordMemories!.push({ id: 300, scope: 'user', scopeId: 1, entry: 'Storm' });
    const issues = await issuesOf(s);
    const at = (path: string) => issues.find((i) => i.path === path)?.message;
    expect(at('users[1].guid')).toMatch(/duplicate user guid f4c1e2d3-ann/);
    expect(at('apiKeys[2].issuedByUserId')).toMatch(/user 2 is not an organization admin/);
    expect(at('apiKeys[3].issuedByUserId')).toMatch(/only ORGANIZATION keys have an issuer/);
    expect(at('notes[0].paragraphs[3].id')).toMatch(/duplicate id 7001/);
    expect(at('notes[0].paragraphs[3].uuid')).toMatch(/duplicate uuid 6b1f0c8e/);
    expect(at('notes[0].paragraphs[4].text')).toMatch(/a locked paragraph shows no text/);
    expect(at('notes[0].paragraphs[5].text')).toMatch(/must not be blank/);
    expect(at('notes[0].summaries[0].updatedAt')).toMatch(/must not be before createdAt/);
    expect(at('wordMemories[2].id')).toMatch(/duplicate id 300/);
  });

  it('reports a bad item deep in a big array by its path, and every problem of the word memories at once', async () => {
    const s = minimal();
    const n = 60_000;
    s.wordMemories = Array.from({ length: n }, (_, i) => ({ scope: 'user' as const, scopeId: i % 2 ? 1 : '1', entry: `w${i}` }));
    s.wordMemories[49_998] = { scope: 'user', scopeId: 1, entry: 'w17' }; // the third w17 of user 1 (two scopeId spellings, one scope)
    s.wordMemories[49_999] = { scope: 'user', scopeId: 1, entry: 'w17' };
    s.wordMemories[50_001] = { scope: 'user', scopeId: 9, entry: 'x' };
    s.wordMemories[50_002] = { scope: 'workspace', scopeId: 'wsUNKNOWN0000000', entry: 'x' };
    s.wordMemories[50_003] = { scope: 'organization', scopeId: 'org_a', entry: 'x' };
    s.wordMemories[50_004] = { scope: 'organization', scopeId: 'org_a', entry: 'x', id: 5 };
    s.wordMemories[50_005] = { scope: 'organization', scopeId: 'org_a', entry: 'y', id: 5 };
    s.wordMemories[59_999] = { scope: 'user', scopeId: 1, entry: 'two words' };
    const schemaIssues = await issuesOf(s);
    expect(schemaIssues).toEqual([{ path: 'wordMemories[59999].entry', message: 'must not contain whitespace' }]);
    s.wordMemories[59_999] = { scope: 'user', scopeId: 1, entry: 'last' };
    expect(await issuesOf(s)).toEqual([
      { path: 'wordMemories[49998].entry', message: 'duplicate entry "w17" in this scope (also at wordMemories[17])' },
      { path: 'wordMemories[49999].entry', message: 'duplicate entry "w17" in this scope (also at wordMemories[49998])' },
      { path: 'wordMemories[50001].scopeId', message: 'unknown user 9' },
      { path: 'wordMemories[50002].scopeId', message: 'unknown workspace "wsUNKNOWN0000000"' },
      { path: 'wordMemories[50004].entry', message: 'duplicate entry "x" in this scope (also at wordMemories[50003])' },
      { path: 'wordMemories[50005].id', message: 'duplicate id 5 (also at wordMemories[50004])' },
    ]);
  });
});

describe('readSeedFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'notevox-seed-test-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads JSON, and names the file and position of bad JSON', async () => {
    const good = join(dir, 'good.json');
    await writeFile(good, '\uFEFF' + JSON.stringify(minimal()));
    expect(await readSeedFile(good)).toEqual(minimal());

    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{\n  "organizations": [\n    { "id": "a", }\n  ]\n}\n');
    const err = (await readSeedFile(bad).catch((e: unknown) => e)) as UsageError;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain(`seed file ${bad} is not valid JSON`);
    expect(err.message).toMatch(/line 3 column 18/);

    await expect(readSeedFile(join(dir, 'missing.json'))).rejects.toThrow(`seed file ${join(dir, 'missing.json')} not found`);
  });
});
