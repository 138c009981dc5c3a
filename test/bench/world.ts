// Big sandbox worlds for the benches, written in the seed file format (docs/sandbox-seed.md) so that any
// checkout's sandbox loads them with `sandbox start --seed FILE`. A world of N notes has 10·N word memories
// (so the 100k world is the 100k-notes/1M-word-memories seed of issue 15), four workspaces, a dozen users
// and, in each workspace, folders of every sharing type nested to depth 5, a shared folder under a private
// one, LIMITED folders with and without the listing user, notes without a folder, notes without a
// workspace, collaborators and deleted notes. Deterministic; generated once and cached (.bench-cache/).
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../src/sandbox/faults.js';

/** Bump when the generator's output changes, so cached worlds are made again. */
export const WORLD_VERSION = 1;

const NOW = Date.parse('2026-11-01T09:00:00Z');
const ORG = 'org_bench';
const WORKSPACES = ['wsBenchAlpha0001', 'wsBenchBravo0002', 'wsBenchCharl0003', 'wsBenchDelta0004'];
/** Share of the notes per workspace; the listing user is not a member of the last one. */
const WORKSPACE_SHARE = [0.4, 0.25, 0.25, 0.1];
const USERS = 12;
/** The listing user: a plain member of the first three workspaces. */
export const MEMBER_USER = 2;
/** Public bench values (like the demo seed's keys), never real credentials. */
export const WORLD_KEYS = {
  member: { id: 'bench_member', secret: 'sk_bench_member_0001' },
  admin: { id: 'bench_admin', secret: 'sk_bench_admin_0001' },
  workspace: { id: 'bench_ws', secret: 'sk_bench_ws_0001' },
  organization: { id: 'bench_org', secret: 'sk_bench_org_0001' },
} as const;
export const WORD_MEMORIES_PER_NOTE = 10;

export interface WorldInfo {
  version: number;
  notes: number;
  wordMemories: number;
  file: string;
  bytes: number;
  /** `id.secret` of the member's user key: the key the list benches use. */
  memberKey: string;
  /** A note the member reads (the newest one). */
  noteGuid: string;
  generatedMs: number;
}

const WORDS = (
  'the team agreed to ship the offline sync fix before the launch review and the design owner will update ' +
  'the onboarding flow with pricing notes from the customer interviews while support tracks escalations ' +
  'about android battery usage and the roadmap for next quarter includes search exports and a faster import'
).split(' ');

const iso = (ms: number) => new Date(ms).toISOString();
export const noteGuid = (i: number) => 'bn' + i.toString(36).padStart(11, '0');

function membershipsOf(user: number): number[] {
  if (user === 1 || user === 3 || user === 4 || user === 5) return [0, 1, 2, 3];
  if (user === MEMBER_USER) return [0, 1, 2];
  return [user % 4, (user + 1) % 4];
}

/** Folder ids are `w * 100 + k`; `k` picks the kind (see FOLDER_KINDS). */
const FOLDER_KINDS: Array<{ k: number; sharing: string; owner: number; parent?: number; members?: Array<{ userId: number; role: string }> }> = [
  { k: 1, sharing: 'ALL_MEMBER_VIEWER', owner: 1 },
  { k: 2, sharing: 'ALL_MEMBER_EDITOR', owner: 1, parent: 1 },
  { k: 3, sharing: 'ALL_MEMBER_VIEWER', owner: 3, parent: 2 },
  { k: 4, sharing: 'ALL_MEMBER_EDITOR', owner: 3, parent: 3 },
  { k: 5, sharing: 'ALL_MEMBER_VIEWER', owner: 4, parent: 4 }, // depth 5
  { k: 6, sharing: 'PRIVATE', owner: MEMBER_USER }, // only where the member is one
  { k: 7, sharing: 'PRIVATE', owner: 3 },
  { k: 8, sharing: 'LIMITED', owner: 3, members: [{ userId: MEMBER_USER, role: 'VIEWER' }, { userId: 4, role: 'EDITOR' }] },
  { k: 9, sharing: 'LIMITED', owner: 4, members: [{ userId: 5, role: 'EDITOR' }] },
  { k: 10, sharing: 'ALL_MEMBER_VIEWER', owner: 3, parent: 7 }, // shared under a private folder
  { k: 11, sharing: 'ALL_MEMBER_EDITOR', owner: 5 },
];
const SHARED_KINDS = [1, 2, 3, 4, 5, 10, 11];

function header(notes: number) {
  const workspaces = WORKSPACES.map((guid, w) => ({ guid, organizationId: ORG, name: `Bench ${w + 1}` }));
  const users = Array.from({ length: USERS }, (_, u) => {
    const id = u + 1;
    return {
      id,
      name: `Bench User ${id}`,
      email: `user${id}@bench.example`,
      organizationId: ORG,
      orgAdmin: id === 1,
      memberships: membershipsOf(id).map((w) => ({ workspaceGuid: WORKSPACES[w], role: id === 1 ? 'OWNER' : 'MEMBER' })),
    };
  });
  const apiKeys = [
    { ...WORLD_KEYS.member, type: 'USER', userId: MEMBER_USER, label: 'bench member (lists)' },
    { ...WORLD_KEYS.admin, type: 'USER', userId: 1, label: 'bench org admin' },
    { ...WORLD_KEYS.workspace, type: 'WORKSPACE', workspaceGuid: WORKSPACES[0], label: 'bench workspace key' },
    { ...WORLD_KEYS.organization, type: 'ORGANIZATION', label: 'bench organization key' },
  ];
  const folders = WORKSPACES.flatMap((guid, w) =>
    FOLDER_KINDS.filter((f) => f.k !== 6 || membershipsOf(MEMBER_USER).includes(w)).map((f) => ({
      id: w * 100 + f.k,
      workspaceGuid: guid,
      ownerUserId: f.owner,
      parentId: f.parent === undefined ? null : w * 100 + f.parent,
      title: `Folder ${f.k} (${f.sharing.toLowerCase()})`,
      sharingType: f.sharing,
      members: (f.members ?? []).filter((m) => membershipsOf(m.userId).includes(w)),
    })),
  );
  return { now: iso(NOW), organizations: [{ id: ORG, name: `Bench world of ${notes} notes` }], workspaces, users, apiKeys, folders };
}

function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]);
  out[0] = out[0][0].toUpperCase() + out[0].slice(1);
  return out.join(' ') + '.';
}

/** Note `i` (0 = newest) of the world. */
export function makeNote(i: number, rand: () => number): Record<string, unknown> {
  const r = rand();
  const wr = rand();
  let w = 0;
  for (let acc = WORKSPACE_SHARE[0]; wr > acc && w < WORKSPACES.length - 1; ) acc += WORKSPACE_SHARE[++w];
  const members = Array.from({ length: USERS }, (_, u) => u + 1).filter((u) => membershipsOf(u).includes(w));
  const memberHere = membershipsOf(MEMBER_USER).includes(w);
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const created = NOW - i * 60_000 - 3_600_000;
  const note: Record<string, unknown> = {
    guid: noteGuid(i),
    title: `${sentence(rand, 4).slice(0, -1)} #${i}`,
    sourceType: i % 3 === 0 ? 'recording' : 'text',
    createdAt: iso(created),
  };
  let folderKind: number | null = null;
  let owner = pick(members);
  if (i === 0) {
    folderKind = 1; // the newest note: in a shared folder, read by every key of the first workspace
    w = 0;
    owner = MEMBER_USER;
  } else if (r < 0.55) folderKind = pick(SHARED_KINDS);
  else if (r < 0.6) folderKind = memberHere ? 6 : 7;
  else if (r < 0.68) {
    folderKind = 7;
    if (memberHere && rand() < 0.25) note.collaborators = [{ userId: MEMBER_USER, role: 'VIEWER' }];
  } else if (r < 0.74) folderKind = 8;
  else if (r < 0.8) folderKind = 9;
  else if (r < 0.93) folderKind = null; // in the workspace, no folder
  else if (r < 0.95) {
    // no workspace: its owner's unbound user keys only
    return withParagraphs({ ...note, ownerUserId: rand() < 0.5 ? MEMBER_USER : 3, workspaceGuid: null }, i, rand);
  } else if (r < 0.96) {
    folderKind = 1;
    note.deleted = true;
  } else folderKind = pick(SHARED_KINDS);
  if (folderKind !== null) {
    const kind = FOLDER_KINDS.find((f) => f.k === folderKind)!;
    if (kind.sharing === 'PRIVATE') owner = kind.owner;
    note.folderId = w * 100 + folderKind;
  } else note.workspaceGuid = WORKSPACES[w];
  note.ownerUserId = owner;
  return withParagraphs(note, i, rand);
}

/** Every 20th note has a short transcript: the 100k world's sql.js state is then about 160 MB (issue 15 measured at 144 MB). */
function withParagraphs(note: Record<string, unknown>, i: number, rand: () => number): Record<string, unknown> {
  if (i % 20 !== 0) return note;
  const n = 2 + Math.floor(rand() * 2);
  return { ...note, paragraphs: Array.from({ length: n }, (_, p) => ({ speaker: `Speaker ${p % 2 ? 'B' : 'A'}`, text: sentence(rand, 14 + Math.floor(rand() * 10)) })) };
}

/** Word memory `j`: user, workspace and organization scopes in turn; entries unique within the world. */
export function makeWordMemory(j: number): Record<string, unknown> {
  const kind = j % 10;
  const entry = `t${j.toString(36)}`;
  const base =
    kind < 6
      ? { scope: 'user', scopeId: (j % USERS) + 1 }
      : kind < 9
        ? { scope: 'workspace', scopeId: WORKSPACES[j % WORKSPACES.length] }
        : { scope: 'organization', scopeId: ORG };
  return j % 3 === 0 ? { ...base, entry, subEntry: `s${j.toString(36)}` } : { ...base, entry };
}

/** Write the seed of an N-note world to `file` (streamed; a 100k world is about 100 MB). */
export async function writeWorld(file: string, notes: number): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  const out = createWriteStream(tmp);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  const head = JSON.stringify(header(notes));
  await write(head.slice(0, -1) + ',"notes":[');
  const rand = seededRandom(notes);
  let chunk = '';
  const flush = async (force = false) => {
    if (chunk.length > 1 << 16 || (force && chunk)) {
      await write(chunk);
      chunk = '';
    }
  };
  for (let i = 0; i < notes; i++) {
    chunk += (i ? ',' : '') + JSON.stringify(makeNote(i, rand));
    await flush();
  }
  chunk += '],"wordMemories":[';
  for (let j = 0; j < notes * WORD_MEMORIES_PER_NOTE; j++) {
    chunk += (j ? ',' : '') + JSON.stringify(makeWordMemory(j));
    await flush();
  }
  chunk += ']}\n';
  await flush(true);
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
  renameSync(tmp, file);
}

/** The cached world of `notes` notes, generated first when missing or made by another generator version. */
export async function ensureWorld(cacheDir: string, notes: number, log: (s: string) => void = () => {}): Promise<WorldInfo> {
  mkdirSync(cacheDir, { recursive: true });
  const file = join(cacheDir, `world-${notes}-v${WORLD_VERSION}.json`);
  const metaFile = `${file}.meta`;
  if (existsSync(file) && existsSync(metaFile)) {
    try {
      const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as WorldInfo;
      if (meta.version === WORLD_VERSION && meta.notes === notes && statSync(file).size === meta.bytes) return { ...meta, file };
    } catch {
      // regenerate below
    }
  }
  log(`generating a world of ${notes} notes and ${notes * WORD_MEMORIES_PER_NOTE} word memories (cached in ${cacheDir}) …`);
  const started = performance.now();
  await writeWorld(file, notes);
  const info: WorldInfo = {
    version: WORLD_VERSION,
    notes,
    wordMemories: notes * WORD_MEMORIES_PER_NOTE,
    file,
    bytes: statSync(file).size,
    memberKey: `${WORLD_KEYS.member.id}.${WORLD_KEYS.member.secret}`,
    noteGuid: noteGuid(0),
    generatedMs: Math.round(performance.now() - started),
  };
  writeFileSync(metaFile, JSON.stringify(info));
  return info;
}
