import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FolderRow, NoteRow } from '../../src/sandbox/access.js';
import { authenticate } from '../../src/sandbox/auth.js';
import { decodeRow, type Db } from '../../src/sandbox/db.js';
import { seededRandom } from '../../src/sandbox/faults.js';
import type { SeedInput } from '../../src/sandbox/seed/schema.js';
import type { Principal } from '../../src/sandbox/types.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

/**
 * Conformance of the SQL visibility rules and keyset paging (src/sandbox/access.ts and the list handlers)
 * with the rules as they were written in JavaScript before, kept here as the oracle: on a generated world
 * with every sharing type, key type and folder nesting, no note, folder or wiki mention is shown or hidden
 * differently, and every list has the same order and the same page boundaries.
 */

const API = '/v1/external';
const NOW = '2026-05-01T09:00:00Z'; // before the legacy personal key cutoff
type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

// ---------------------------------------------------------------- the generated world

const ORG_A_WORKSPACES = ['wsConformance0A1', 'wsConformance0A2', 'wsConformance0A3'];
const ORG_B_WORKSPACE = 'wsConformance0B1';
const WIKI_WS = ORG_A_WORKSPACES[0];
const SHARING = ['PRIVATE', 'ALL_MEMBER_VIEWER', 'ALL_MEMBER_EDITOR', 'LIMITED'] as const;
/** Titles and transcripts with words whose case folding differs between JavaScript and SQLite (İ, K the Kelvin sign, Ä). */
const WORDS = ['Harbor', 'HARBOR', 'harbor', 'Launch', 'İstanbul', 'KELVIN', 'Ärger', 'ärger', 'roadmap', 'Q1', 'sync', 'İi'];
const KEYWORDS = ['harbor', 'i', 'k', 'ärger', 'launch q1', 'zzz', 'İ'];

function generateWorld(seed: number): SeedInput {
  const rand = seededRandom(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(a: readonly T[]): T => a[int(a.length)];
  const subset = <T>(a: readonly T[], p: number) => a.filter(() => rand() < p);
  const instant = (i: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + i * 3_600_000).toISOString();

  const users: NonNullable<SeedInput['users']> = [];
  for (let id = 1; id <= 9; id++) {
    const ws = id === 1 ? ORG_A_WORKSPACES : subset(ORG_A_WORKSPACES, 0.6);
    if (ws.length === 0) ws.push(pick(ORG_A_WORKSPACES));
    users.push({
      id, name: `User ${id}`, email: `u${id}@example.com`, organizationId: 'org_a', orgAdmin: id === 1,
      memberships: ws.map((w) => ({ workspaceGuid: w, role: pick(['OWNER', 'ADMIN', 'MEMBER'] as const) })),
    });
  }
  users.push({ id: 20, name: 'Other org', email: 'o@example.com', organizationId: 'org_b', memberships: [{ workspaceGuid: ORG_B_WORKSPACE, role: 'OWNER' }] });
  const membersOf = (ws: string) => users.filter((u) => u.memberships!.some((m) => m.workspaceGuid === ws)).map((u) => u.id);
  const boundUser = users.find((u) => u.id !== 1 && u.memberships!.length >= 1)!;

  // Folders: chains up to depth 5 in every workspace, every sharing type.
  const folders: NonNullable<SeedInput['folders']> = [];
  let folderId = 100;
  for (const ws of [...ORG_A_WORKSPACES, ORG_B_WORKSPACE]) {
    const depth = new Map<number, number>();
    const members = membersOf(ws);
    for (let i = 0; i < (ws === ORG_B_WORKSPACE ? 3 : 11); i++) {
      const candidates = folders.filter((f) => f.workspaceGuid === ws && depth.get(Number(f.id))! < 5);
      const parent = i > 0 && rand() < 0.65 ? pick(candidates) : undefined;
      const sharingType = SHARING[i % SHARING.length];
      const id = folderId++;
      depth.set(id, parent ? depth.get(Number(parent.id))! + 1 : 1);
      folders.push({
        id, workspaceGuid: ws, ownerUserId: pick(members), parentId: parent ? Number(parent.id) : null, title: `Folder ${id}`, sharingType,
        members: sharingType === 'LIMITED' ? subset(members, 0.5).map((userId) => ({ userId, role: pick(['VIEWER', 'EDITOR'] as const) })) : [],
      });
    }
  }

  const notes: NonNullable<SeedInput['notes']> = [];
  for (let i = 0; i < 170; i++) {
    const noWorkspace = rand() < 0.08;
    const ws = noWorkspace ? null : i % 23 === 0 ? ORG_B_WORKSPACE : pick(ORG_A_WORKSPACES);
    const owner = ws ? pick(membersOf(ws)) : pick(users.filter((u) => u.id < 20)).id;
    const org = ws === ORG_B_WORKSPACE ? [20] : users.filter((u) => u.id < 20).map((u) => u.id);
    const folder = ws && rand() < 0.75 ? pick(folders.filter((f) => f.workspaceGuid === ws)) : undefined;
    const words = () => Array.from({ length: 1 + int(3) }, () => pick(WORDS)).join(' ');
    notes.push({
      guid: `cn${String(i).padStart(11, '0')}`,
      title: `${words()} ${i}`,
      ownerUserId: owner,
      workspaceGuid: ws,
      folderId: folder ? Number(folder.id) : null,
      sourceType: 'text',
      createdAt: instant(int(25)), // few distinct instants: ties broken by id
      participants: subset(['Ann', 'Bo', 'Cy'], 0.4).map((name, k) => ({ name, email: k % 2 ? null : `${name.toLowerCase()}@example.com` })),
      collaborators: subset(org.filter((u) => u !== owner), 0.15).map((userId) => ({ userId, role: pick(['OWNER', 'EDITOR', 'VIEWER'] as const) })),
      paragraphs: Array.from({ length: ws === WIKI_WS ? 1 + int(3) : int(3) }, () => ({ text: `${words()} and ${words()}.` })),
      deleted: rand() < 0.08,
    });
  }

  const keys: NonNullable<SeedInput['apiKeys']> = [
    { id: 'k_admin', secret: 'conformance-secret', type: 'USER', userId: 1 },
    ...[2, 3, 4, 6, 7].map((u) => ({ id: `k_user${u}`, secret: 'conformance-secret', type: 'USER' as const, userId: u })),
    { id: 'k_bound', secret: 'conformance-secret', type: 'USER', userId: boundUser.id, workspaceGuid: boundUser.memberships![0].workspaceGuid },
    { id: 'k_legacy', secret: 'conformance-secret', type: 'LEGACY_PERSONAL', userId: 5 },
    { id: 'k_ws', secret: 'conformance-secret', type: 'WORKSPACE', workspaceGuid: ORG_A_WORKSPACES[0] },
    { id: 'k_ws2', secret: 'conformance-secret', type: 'WORKSPACE', workspaceGuid: ORG_A_WORKSPACES[1] },
    { id: 'k_wslegacy', secret: 'conformance-secret', type: 'WORKSPACE', workspaceGuid: ORG_A_WORKSPACES[0], legacyScope: true },
    { id: 'k_org', secret: 'conformance-secret', type: 'ORGANIZATION', organizationId: 'org_a' },
    { id: 'k_orgb', secret: 'conformance-secret', type: 'ORGANIZATION', organizationId: 'org_b' },
    { id: 'k_userb', secret: 'conformance-secret', type: 'USER', userId: 20 },
  ];

  const wikiNotes = notes.filter((n) => n.workspaceGuid === WIKI_WS).map((n) => n.guid);
  const pages = Array.from({ length: 14 }, (_, i) => ({
    guid: `wp_${i}`,
    workspaceGuid: WIKI_WS,
    canonicalName: `${pick(['harbor', 'Harbor', 'launch', 'İstanbul', 'Kelvin', 'ärger', 'Zeta'])} ${pick(['a', 'B', 'c'])}`,
    pageType: pick(['Customer', 'customer', 'Project', 'Person']),
    description: `About ${pick(WORDS)}`,
    aliases: subset(WORDS, 0.2),
    links: [] as string[],
    updatedAt: instant(int(10)),
  }));
  pages.forEach((p, i) => (p.links = subset(pages.filter((x) => x.guid !== p.guid).map((x) => x.guid), 0.15).concat(i % 5 === 0 ? [] : [])));
  return {
    now: NOW,
    organizations: [{ id: 'org_a', name: 'A' }, { id: 'org_b', name: 'B' }],
    workspaces: [
      ...ORG_A_WORKSPACES.map((guid, i) => ({ guid, organizationId: 'org_a', name: `A${i}`, wikiPlan: i === 0, wikiEnabled: i === 0 })),
      { guid: ORG_B_WORKSPACE, organizationId: 'org_b', name: 'B' },
    ],
    users,
    apiKeys: keys,
    folders,
    notes,
    wiki: {
      pages,
      generatedMentions: pages.slice(0, 10).map((p, i) => ({ pageGuid: p.guid, count: 5 + i * 3, noteGuids: subset(wikiNotes, 0.3).concat(wikiNotes[i % wikiNotes.length]) })),
    },
  };
}

// ---------------------------------------------------------------- the oracle: the rules as they were in JavaScript


const SHARED = new Set(['ALL_MEMBER_VIEWER', 'ALL_MEMBER_EDITOR']);
const isSystemKey = (p: Principal) => p.keyType === 'WORKSPACE' || p.keyType === 'ORGANIZATION';
const isUserKey = (p: Principal) => p.keyType === 'USER' || p.keyType === 'LEGACY_PERSONAL';

class Oracle {
  constructor(private readonly db: Db) {}

  reachableWorkspaces(p: Principal): string[] {
    if (p.keyType === 'WORKSPACE') return p.workspaceGuid ? [p.workspaceGuid] : [];
    if (p.keyType === 'ORGANIZATION')
      return this.db.all<{ guid: string }>('SELECT guid FROM workspaces WHERE organization_id = ? ORDER BY guid', [p.organizationId]).map((r) => r.guid);
    const all = this.db.all<{ workspace_guid: string }>('SELECT workspace_guid FROM memberships WHERE user_id = ? ORDER BY workspace_guid', [p.userId]).map((r) => r.workspace_guid);
    return p.workspaceGuid ? all.filter((g) => g === p.workspaceGuid) : all;
  }

  reachesWorkspace(p: Principal, guid: string): boolean {
    return this.reachableWorkspaces(p).includes(guid);
  }

  getFolder(id: number | string): FolderRow | undefined {
    if (!/^\d+$/.test(String(id))) return undefined;
    return this.db.get<FolderRow>('SELECT * FROM folders WHERE id = ?', [Number(id)]);
  }

  folderVisible(p: Principal, f: FolderRow): boolean {
    if (!this.reachesWorkspace(p, f.workspace_guid)) return false;
    if (isSystemKey(p)) return SHARED.has(f.sharing_type);
    if (f.owner_user_id === p.userId) return true;
    if (f.sharing_type === 'PRIVATE') return false;
    if (f.sharing_type === 'LIMITED') return this.db.get('SELECT role FROM folder_members WHERE folder_id = ? AND user_id = ?', [f.id, p.userId]) !== undefined;
    return true;
  }

  noteVisible(p: Principal, n: NoteRow): boolean {
    if (n.deleted) return false;
    if (n.workspace_guid !== null && !this.reachesWorkspace(p, n.workspace_guid)) return false;
    if (n.workspace_guid === null && (isSystemKey(p) || p.workspaceGuid !== null)) return false;
    if (p.keyType === 'WORKSPACE' && p.legacyScope) return true;
    const folder = n.folder_id !== null ? this.getFolder(n.folder_id) : undefined;
    if (isSystemKey(p)) return folder !== undefined && SHARED.has(folder.sharing_type);
    if (n.owner_user_id === p.userId || this.db.get('SELECT role FROM note_collaborators WHERE note_guid = ? AND user_id = ?', [n.guid, p.userId]) !== undefined) return true;
    return folder !== undefined && this.folderVisible(p, folder);
  }

  folderSubtree(rootId: number): number[] {
    return this.db
      .all<{ id: number }>('WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL SELECT f.id FROM folders f JOIN sub ON f.parent_id = sub.id) SELECT id FROM sub', [rootId])
      .map((r) => r.id);
  }

  /** Every note the caller can read, optionally limited to workspaces, newest first; undefined for an invisible folder (404). */
  visibleNotes(p: Principal, opts: { workspaces?: string[]; folderId?: string } = {}): NoteRow[] | undefined {
    const workspaces = opts.workspaces ?? this.reachableWorkspaces(p);
    const clauses: string[] = ['deleted = 0'];
    const params: unknown[] = [];
    const wsList = workspaces.map(() => '?').join(',') || 'NULL';
    if (isUserKey(p) && p.workspaceGuid === null && opts.workspaces === undefined) {
      clauses.push(`(workspace_guid IN (${wsList}) OR (workspace_guid IS NULL AND owner_user_id = ?))`);
      params.push(...workspaces, p.userId);
    } else {
      clauses.push(`workspace_guid IN (${wsList})`);
      params.push(...workspaces);
    }
    if (opts.folderId !== undefined) {
      const folder = this.getFolder(opts.folderId);
      if (!folder || !this.folderVisible(p, folder)) return undefined;
      const ids = this.folderSubtree(folder.id);
      clauses.push(`folder_id IN (${ids.map(() => '?').join(',')})`);
      params.push(...ids);
    }
    const rows = this.db.all<NoteRow>(`SELECT * FROM notes WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC`, params);
    return rows.filter((n) => this.noteVisible(p, n));
  }

  relevance(n: NoteRow, keyword: string): number {
    const k = keyword.toLowerCase();
    const count = (text: string) => text.toLowerCase().split(k).length - 1;
    const paragraphs = this.db.all<{ content: string }>('SELECT content FROM paragraphs WHERE note_guid = ?', [n.guid]);
    return count(n.title) * 10 + paragraphs.reduce((sum, r) => sum + count(r.content), 0);
  }

  noteJson(n: NoteRow) {
    const participants = this.db.all<{ name: string; email: string | null }>('SELECT name, email FROM note_participants WHERE note_guid = ? ORDER BY position', [n.guid]);
    const collaborators = this.db.all<{ user_id: number; name: string; email: string | null; role: string }>(
      'SELECT c.user_id, u.name, u.email, c.role FROM note_collaborators c JOIN users u ON u.id = c.user_id WHERE c.note_guid = ? ORDER BY c.user_id',
      [n.guid],
    );
    return {
      guid: n.guid, title: n.title, createdAt: n.created_at, updatedAt: n.updated_at, sourceType: n.source_type,
      recordingStartAt: n.recording_start_at, recordingEndAt: n.recording_end_at, recordingDurationSeconds: n.recording_duration_seconds,
      transcribeLocale: n.transcribe_locale, translateLocale: n.translate_locale, webUrl: `https://app.notevox.example/notes/${n.guid}`,
      collaborators: collaborators.map((c) => ({ guid: `user-${c.user_id}`, name: c.name, email: c.email, role: c.role })),
      participants: participants.map((x) => ({ name: x.name, email: x.email })),
      workspaceGuid: n.workspace_guid,
    };
  }

  folderJson(f: FolderRow, p: Principal) {
    const parent = f.parent_id !== null ? this.getFolder(f.parent_id) : undefined;
    const out: Record<string, unknown> = {
      id: String(f.id), workspaceGuid: f.workspace_guid, title: f.title, description: f.description ?? '', sharingType: f.sharing_type,
      parentId: parent && this.folderVisible(p, parent) ? String(parent.id) : null, color: f.color, isTeamFolder: f.sharing_type !== 'PRIVATE',
      createdAt: f.created_at, updatedAt: f.updated_at,
    };
    if (f.sharing_type === 'LIMITED')
      out.members = this.db.all<{ user_id: number; role: string }>('SELECT user_id, role FROM folder_members WHERE folder_id = ? ORDER BY user_id', [f.id]).map((m) => ({ userId: m.user_id, role: m.role }));
    return out;
  }

  folders(p: Principal, ws: string) {
    return this.db.all<FolderRow>('SELECT * FROM folders WHERE workspace_guid = ? ORDER BY id', [ws]).filter((f) => this.folderVisible(p, f)).map((f) => this.folderJson(f, p));
  }

  /** The wiki pages of the workspace in name order with the caller's visible mention counts. */
  wikiPages(p: Principal) {
    const pages = this.db
      .all<Record<string, any>>('SELECT * FROM wiki_pages WHERE workspace_guid = ? ORDER BY canonical_name COLLATE NOCASE, guid', [WIKI_WS])
      .map((r) => decodeRow('wiki_pages', r) as any);
    const counts = new Map<string, number>();
    const canRead = (guid: string) => {
      const n = this.db.get<NoteRow>('SELECT * FROM notes WHERE guid = ?', [guid]);
      return n !== undefined && this.noteVisible(p, n);
    };
    for (const m of this.db.all<{ page_guid: string; note_guid: string; n: number }>('SELECT page_guid, note_guid, COUNT(*) AS n FROM wiki_mentions GROUP BY page_guid, note_guid'))
      if (canRead(m.note_guid)) counts.set(m.page_guid, (counts.get(m.page_guid) ?? 0) + m.n);
    return { pages, counts, canRead };
  }
}

function matchScore(r: { canonical_name: string; aliases: string[]; description: string }, q: string): number {
  const needle = q.trim().toLowerCase();
  const contains = (text: string) => text.toLowerCase().includes(needle);
  if (!needle) return 0;
  if (r.canonical_name.toLowerCase() === needle) return 4;
  if (contains(r.canonical_name)) return 3;
  if (r.aliases.some((a) => contains(a))) return 2;
  return contains(r.description) ? 1 : 0;
}

/** Offset paging of the old handlers: the pages of `all` at `size`. */
const pagesOf = <T>(all: T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < all.length || out.length === 0; i += size) out.push(all.slice(i, i + size));
  return out;
};

// ---------------------------------------------------------------- the comparison

let sb: Sandbox;
let oracle: Oracle;
let dir: string;
const principals = new Map<string, Principal>();
const KEY_IDS = ['k_admin', 'k_user2', 'k_user3', 'k_user4', 'k_user6', 'k_user7', 'k_bound', 'k_legacy', 'k_ws', 'k_ws2', 'k_wslegacy', 'k_org', 'k_orgb', 'k_userb'];
const token = (id: string) => `${id}.conformance-secret`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'notevox-conformance-'));
  const file = join(dir, 'world.json');
  writeFileSync(file, JSON.stringify(generateWorld(15)));
  sb = await inProcessSandbox({ seedFile: file, now: NOW });
  oracle = new Oracle(sb.db);
  for (const id of KEY_IDS) principals.set(id, authenticate(sb.db, `Bearer ${token(id)}`, new Date(NOW)));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every page of a list through the API: the items of each page, in order. */
async function walk(key: string, path: string, size: number, param = 'size'): Promise<{ status: number; pages: unknown[][]; code?: number }> {
  const pages: unknown[][] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await sb.call('GET', `${API}${path}${sep}${param}=${size}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: token(key) });
    if (r.status !== 200) return { status: r.status, pages, code: r.json?.error?.code };
    pages.push(r.json.content);
    cursor = r.json.nextCursor;
    expect(pages.length).toBeLessThan(500);
  } while (cursor);
  return { status: 200, pages };
}

describe('SQL visibility and keyset paging against the JavaScript rules they replace', () => {
  it('generates a world with every sharing type, key type and folder nesting', () => {
    const depth = sb.db.get<{ d: number }>(
      'WITH RECURSIVE up(id, d) AS (SELECT id, 1 FROM folders WHERE parent_id IS NULL UNION ALL SELECT f.id, up.d + 1 FROM folders f JOIN up ON f.parent_id = up.id) SELECT max(d) AS d FROM up',
    )!.d;
    expect(depth).toBeGreaterThanOrEqual(3);
    expect(sb.db.all('SELECT DISTINCT sharing_type FROM folders ORDER BY 1').length).toBe(4);
    expect(sb.db.all('SELECT DISTINCT type FROM api_keys ORDER BY 1').length).toBe(4);
    expect(sb.db.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE workspace_guid IS NULL')!.n).toBeGreaterThan(0);
    expect(sb.db.get<{ n: number }>('SELECT count(*) AS n FROM notes WHERE deleted = 1')!.n).toBeGreaterThan(0);
    expect(sb.db.get<{ n: number }>('SELECT count(*) AS n FROM (SELECT created_at FROM notes GROUP BY created_at HAVING count(*) > 1)')!.n).toBeGreaterThan(5);
    expect(sb.db.get<{ n: number }>('SELECT count(*) AS n FROM wiki_mentions')!.n).toBeGreaterThan(50);
  });

  it('reads a note (GET) exactly when the rules allow it, in the same shape', { timeout: 120_000 }, async () => {
    const notes = sb.db.all<NoteRow>('SELECT * FROM notes ORDER BY id');
    let shown = 0;
    for (const id of KEY_IDS) {
      const p = principals.get(id)!;
      for (const n of notes) {
        const r = await sb.call('GET', `${API}/notes/${n.guid}`, { key: token(id) });
        const visible = oracle.noteVisible(p, n);
        expect(r.status, `${id} GET ${n.guid}`).toBe(visible ? 200 : 404);
        if (visible) {
          shown++;
          expect(r.json).toEqual(oracle.noteJson(n));
        }
      }
    }
    expect(shown).toBeGreaterThan(300);
  });

  it('lists the same notes in the same order on the same pages: all notes, at several page sizes', { timeout: 120_000 }, async () => {
    for (const id of KEY_IDS) {
      const p = principals.get(id)!;
      const all = oracle.visibleNotes(p)!.map((n) => oracle.noteJson(n));
      for (const size of id === 'k_admin' || id === 'k_org' ? [1, 7, 100] : [7, 100]) {
        const r = await walk(id, '/notes', size);
        expect(r.status).toBe(200);
        expect(r.pages, `${id} size ${size}`).toEqual(pagesOf(all, size));
      }
    }
  });

  it('…per workspace and per organization, with the same 404 and 403 answers', { timeout: 120_000 }, async () => {
    for (const id of KEY_IDS) {
      const p = principals.get(id)!;
      for (const ws of [...ORG_A_WORKSPACES, ORG_B_WORKSPACE]) {
        const r = await walk(id, `/workspaces/${ws}/notes`, 9);
        if (!oracle.reachesWorkspace(p, ws)) {
          expect(r.status, `${id} ${ws}`).toBe(404);
          continue;
        }
        expect(r.pages, `${id} ${ws}`).toEqual(pagesOf(oracle.visibleNotes(p, { workspaces: [ws] })!.map((n) => oracle.noteJson(n)), 9));
      }
      const org = await walk(id, '/organizations/me/notes', 11);
      if (isUserKey(p) && !p.orgAdmin) expect(org.status).toBe(403);
      else if (p.keyType === 'WORKSPACE') expect(org.status).toBe(403);
      else {
        const all = sb.db.all<{ guid: string }>('SELECT guid FROM workspaces WHERE organization_id = ? ORDER BY guid', [p.organizationId]).map((r) => r.guid);
        const reach = new Set(oracle.reachableWorkspaces(p));
        const workspaces = p.keyType === 'ORGANIZATION' ? all : all.filter((g) => reach.has(g));
        expect(org.pages, id).toEqual(pagesOf(oracle.visibleNotes(p, { workspaces })!.map((n) => oracle.noteJson(n)), 11));
      }
    }
  });

  it('…filtered by folder, sub-folders included, 404 for a folder the key cannot see', { timeout: 120_000 }, async () => {
    const folders = sb.db.all<{ id: number; workspace_guid: string }>('SELECT id, workspace_guid FROM folders ORDER BY id');
    let compared = 0;
    for (const id of KEY_IDS) {
      const p = principals.get(id)!;
      for (const f of [...folders, { id: 99999, workspace_guid: '' }]) {
        const expected = oracle.visibleNotes(p, { folderId: String(f.id) });
        const r = await walk(id, `/notes?folderId=${f.id}`, 4);
        if (expected === undefined) {
          expect(r.status, `${id} folder ${f.id}`).toBe(404);
          continue;
        }
        compared++;
        expect(r.pages, `${id} folder ${f.id}`).toEqual(pagesOf(expected.map((n) => oracle.noteJson(n)), 4));
        if (f.workspace_guid && oracle.reachesWorkspace(p, f.workspace_guid)) {
          const inWs = await walk(id, `/workspaces/${f.workspace_guid}/notes?folderId=${f.id}`, 4);
          expect(inWs.pages).toEqual(pagesOf(oracle.visibleNotes(p, { workspaces: [f.workspace_guid], folderId: String(f.id) })!.map((n) => oracle.noteJson(n)), 4));
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('…by keyword, in relevance order (case folded as JavaScript does), for user keys only', { timeout: 120_000 }, async () => {
    for (const id of KEY_IDS) {
      const p = principals.get(id)!;
      for (const keyword of KEYWORDS)
        for (const size of [3, 1000]) {
          const r = await sb.call('GET', `${API}/notes?keyword=${encodeURIComponent(keyword)}&size=${size}`, { key: token(id) });
          if (!isUserKey(p)) {
            expect(r.status).toBe(400);
            expect(r.json.error.code).toBe(400005);
            continue;
          }
          const scored = oracle.visibleNotes(p)!.map((n) => ({ n, score: oracle.relevance(n, keyword) })).filter((x) => x.score > 0);
          scored.sort((a, b) => b.score - a.score);
          expect(r.json, `${id} "${keyword}" size ${size}`).toEqual({ content: scored.slice(0, size).map((x) => oracle.noteJson(x.n)), nextCursor: null });
        }
      const folder = sb.db.get<{ id: number }>('SELECT id FROM folders WHERE parent_id IS NULL ORDER BY id')!.id;
      if (isUserKey(p)) {
        const r = await sb.call('GET', `${API}/notes?keyword=harbor&folderId=${folder}`, { key: token(id) });
        const inFolder = oracle.visibleNotes(p, { folderId: String(folder) });
        if (!inFolder) expect(r.status).toBe(404);
        else {
          const scored = inFolder.map((n) => ({ n, score: oracle.relevance(n, 'harbor') })).filter((x) => x.score > 0);
          scored.sort((a, b) => b.score - a.score);
          expect(r.json.content).toEqual(scored.slice(0, 100).map((x) => oracle.noteJson(x.n)));
        }
      }
    }
  });

  it('finds the same notes in deep search, with the same filters and order', { timeout: 120_000 }, async () => {
    const folder = sb.db.get<{ id: number }>('SELECT id FROM folders WHERE parent_id IS NULL ORDER BY id')!.id;
    const filters = [
      {},
      { createdAtFrom: '2026-01-01T05:00:00Z', createdAtTo: '2026-01-01T20:00:00+02:00' },
      { createdAtFrom: '+010000-01-01T00:00:00Z' },
      { createdAtTo: '+010000-01-01T00:00:00Z', folderId: String(folder) },
    ];
    for (const id of KEY_IDS) {
      const p = principals.get(id)!;
      for (const keyword of ['harbor', ' i ', 'ärger'])
        for (const filter of filters) {
          const r = await sb.call('POST', `${API}/notes/search`, { key: token(id), body: { keyword, filter, pagination: { size: 30 } } });
          const candidates = oracle.visibleNotes(p, { folderId: filter.folderId });
          if (!candidates) {
            expect(r.status).toBe(404);
            continue;
          }
          const from = filter.createdAtFrom ? Date.parse(filter.createdAtFrom) : undefined;
          const to = filter.createdAtTo ? Date.parse(filter.createdAtTo) : undefined;
          const k = keyword.trim();
          const scored = candidates
            .filter((n) => (from === undefined || Date.parse(n.created_at) >= from) && (to === undefined || Date.parse(n.created_at) <= to))
            .map((n) => ({ n, score: oracle.relevance(n, k) }))
            .filter((x) => x.score > 0);
          scored.sort((a, b) => b.score - a.score);
          expect(r.status).toBe(200);
          const got = r.json.notes.map(({ matchedSnippets: _s, documents: _d, ...note }: any) => note);
          expect(got, `${id} "${keyword}" ${JSON.stringify(filter)}`).toEqual(scored.slice(0, 30).map((x) => oracle.noteJson(x.n)));
        }
    }
  });

  it('lists the same folders with the same visible parents', { timeout: 60_000 }, async () => {
    for (const id of KEY_IDS) {
      const p = principals.get(id)!;
      for (const ws of [...ORG_A_WORKSPACES, ORG_B_WORKSPACE]) {
        const r = await sb.call('GET', `${API}/workspaces/${ws}/folders`, { key: token(id) });
        if (!oracle.reachesWorkspace(p, ws)) expect(r.status, `${id} ${ws}`).toBe(404);
        else expect(r.json, `${id} ${ws}`).toEqual({ content: oracle.folders(p, ws), nextCursor: null });
      }
    }
  });

  it('shows the same wiki pages, counts and mentions, on the same pages', { timeout: 120_000 }, async () => {
    let mentionsSeen = 0;
    for (const id of KEY_IDS) {
      const p = principals.get(id)!;
      if (!oracle.reachesWorkspace(p, WIKI_WS)) {
        expect((await sb.call('GET', `${API}/workspaces/${WIKI_WS}/wiki/pages`, { key: token(id) })).status).toBe(404);
        continue;
      }
      const { pages, counts, canRead } = oracle.wikiPages(p);
      const json = (r: any) => ({ guid: r.guid, canonicalName: r.canonical_name, pageType: r.page_type, description: r.description, mentionCount: counts.get(r.guid) ?? 0, createdAt: r.created_at, updatedAt: r.updated_at });
      const filters: Array<[string, (r: any) => boolean]> = [
        ['', () => true],
        ['type=CUSTOMER', (r) => r.page_type.toLowerCase() === 'customer'],
        ['type=%20', () => true],
        ['since=2026-01-01T05:00:00%2B02:00', (r) => Date.parse(r.updated_at) >= Date.parse('2026-01-01T05:00:00+02:00')],
        ...['harbor', 'i', 'k', 'ärger', 'İ', 'b'].map((q): [string, (r: any) => boolean] => [`q=${encodeURIComponent(q)}`, (r) => matchScore(r, q) > 0]),
      ];
      for (const [query, keep] of filters) {
        const r = await walk(id, `/workspaces/${WIKI_WS}/wiki/pages${query ? `?${query}` : ''}`, 3, 'limit');
        expect(r.pages, `${id} ${query}`).toEqual(pagesOf(pages.filter(keep).map(json), 3));
      }
      for (const q of ['harbor', 'a', 'k', 'İ', 'ärger', '  ']) {
        const scored = pages.map((r: any) => ({ r, score: matchScore(r, q) })).filter((x: any) => x.score > 0);
        scored.sort((a: any, b: any) => b.score - a.score);
        const r = await sb.call('GET', `${API}/workspaces/${WIKI_WS}/wiki/search?q=${encodeURIComponent(q)}`, { key: token(id) });
        expect(r.json, `${id} search ${q}`).toEqual({ content: scored.map((x: any) => json(x.r)) });
      }
      for (const page of pages) {
        const one = await sb.call('GET', `${API}/workspaces/${WIKI_WS}/wiki/pages/${page.guid}`, { key: token(id) });
        const links = page.links.flatMap((g: string) => pages.filter((x: any) => x.guid === g).map((x: any) => ({ guid: x.guid, canonicalName: x.canonical_name })));
        expect(one.json).toEqual({ ...json(page), aliases: page.aliases, links });
        const mentions = sb.db
          .all<{ id: number; note_guid: string; guid: string }>('SELECT id, note_guid, guid FROM wiki_mentions WHERE page_guid = ? ORDER BY id', [page.guid])
          .filter((m) => canRead(m.note_guid))
          .map((m) => m.guid);
        const r = await walk(id, `/workspaces/${WIKI_WS}/wiki/pages/${page.guid}/mentions`, 4, 'limit');
        expect(r.pages.map((pg) => pg.map((m: any) => m.guid)), `${id} mentions of ${page.guid}`).toEqual(pagesOf(mentions, 4));
        mentionsSeen += mentions.length;
      }
    }
    expect(mentionsSeen).toBeGreaterThan(100);
  });
});
