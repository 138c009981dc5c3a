import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { LIMITS } from '../contract/limits.js';
import { documentLocale, locale, SHARING_TYPES, SOURCE_TYPES, TEMPLATE_OWNER_TYPES } from '../contract/schemas.js';
import { EVENT_TYPE_NAMES } from '../contract/events.js';
import { isScope, SCOPE_NAMES } from '../contract/scopes.js';
import { KEY_TYPES } from '../contract/types.js';
import { UsageError } from '../errors.js';
import type { Db } from './db.js';
import { ENDPOINT_ID_PATTERN, WEBHOOK_SECRET_PATTERN, WEBHOOK_SECRET_RULE, webhookUrlProblem } from './events/endpoints.js';
import { DEFAULT_LIVE, generatedParagraphs, liveRow, liveSpecProblem, spokenSeconds as liveSpokenSeconds, type LiveSpec } from './events/live.js';
import { seededRandom } from './faults.js';
import { hashSecret, newSalt, newUuid, randomAlnum, type RandomSource } from './ids.js';
import {
  COLLABORATOR_ROLES, FOLDER_MEMBER_ROLES, KEY_STATUSES, MEMBERSHIP_ROLES, MENTION_KINDS, TEMPLATE_KINDS, WORD_MEMORY_SCOPES,
  type TableName,
} from './schema.sql.js';
import { WEB_APP_URL } from './serialize.js';

/** The JSON seed format of the sandbox (docs/sandbox-seed.md) and its loader. */

// ---------------------------------------------------------------- schema

const instant = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 instant, e.g. 2026-11-01T09:00:00Z' });
const slug = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -');
const text = z.string().refine((s) => s.trim().length > 0, 'must not be blank');
const userId = z.number().int().positive();
const workspaceGuid = z.string().regex(LIMITS.workspaceGuidPattern, 'must be 16 letters or digits');
const noteGuid = z.string().regex(LIMITS.noteGuidPattern, 'must be 13 letters or digits');
const folderId = z.union([z.number().int().positive(), z.string().regex(/^[1-9]\d*$/, 'must be a positive integer').transform(Number)]);
const templateId = z.number().int().positive();
const optionalId = z.number().int().positive().optional();
const scope = z.string().refine(isScope, { error: `must be one of the scopes ${SCOPE_NAMES.join(', ')}` });
const wordMemoryText = z
  .string()
  .min(LIMITS.wordMemoryText.min)
  .max(LIMITS.wordMemoryText.max)
  .regex(/^\S+$/, 'must not contain whitespace');
const list = <T extends z.ZodType>(item: T) => z.array(item).default([]);
/** Content types of document sections and paragraph summaries a seed may give (served as given; html is made on request). */
const SECTION_TYPES = ['text/markdown', 'text/plain'] as const;

const organizationSchema = z.strictObject({ id: slug, name: text, createdAt: instant.optional() });

const workspaceSchema = z.strictObject({
  guid: workspaceGuid,
  organizationId: slug,
  name: text.pipe(z.string().min(LIMITS.workspaceName.min).max(LIMITS.workspaceName.max)),
  createdAt: instant.optional(),
  voiceFileEnabled: z.boolean().default(true),
  wikiPlan: z.boolean().default(false),
  wikiEnabled: z.boolean().default(false),
  quota: z
    .strictObject({ monthlyMinutes: z.number().int().min(0).nullable(), usedMinutes: z.number().int().min(0).default(0) })
    .default({ monthlyMinutes: null, usedMinutes: 0 }),
});

const userSchema = z.strictObject({
  id: userId,
  /** Served as the collaborator guid of the user's notes (default `user-<id>`). */
  guid: slug.optional(),
  name: text,
  email: z.email(),
  organizationId: slug,
  orgAdmin: z.boolean().default(false),
  memberships: list(z.strictObject({ workspaceGuid, role: z.enum(MEMBERSHIP_ROLES).default('MEMBER') })),
});

const apiKeySchema = z.strictObject({
  id: slug,
  secret: z.string().regex(/^[A-Za-z0-9_-]{8,128}$/, 'must be 8 to 128 letters, digits, _ or - (no dot: the key is {id}.{secret})'),
  type: z.enum(KEY_TYPES),
  label: z.string().optional(),
  userId: userId.optional(),
  workspaceGuid: workspaceGuid.optional(),
  organizationId: slug.optional(),
  scopes: list(scope).transform((s) => [...new Set(s)]),
  status: z.enum(KEY_STATUSES).default('active'),
  expiresAt: instant.nullish(),
  createdAt: instant.optional(),
  voicePermission: z.boolean().default(true),
  legacyScope: z.boolean().default(false),
  /** ORGANIZATION keys: the organization admin who issued the key (its organization is then the admin's). */
  issuedByUserId: userId.optional(),
});

const folderSchema = z.strictObject({
  id: folderId,
  workspaceGuid,
  ownerUserId: userId,
  parentId: folderId.nullish(),
  title: text.pipe(z.string().min(LIMITS.folderTitle.min).max(LIMITS.folderTitle.max)),
  description: z.string().default(''),
  color: z.string().regex(LIMITS.folderColorPattern, 'must be a #RRGGBB color').default(LIMITS.folderDefaultColor),
  sharingType: z.enum(SHARING_TYPES).default(LIMITS.folderDefaultSharing),
  members: list(z.strictObject({ userId, role: z.enum(FOLDER_MEMBER_ROLES) })),
  createdAt: instant.optional(),
  updatedAt: instant.optional(),
});

const noteSchema = z.strictObject({
  guid: noteGuid,
  id: optionalId,
  title: text.pipe(z.string().min(LIMITS.noteTitle.min).max(LIMITS.noteTitle.max)),
  ownerUserId: userId,
  workspaceGuid: workspaceGuid.nullish(),
  folderId: folderId.nullish(),
  sourceType: z.enum(SOURCE_TYPES),
  createdAt: instant.optional(),
  updatedAt: instant.optional(),
  recording: z
    .strictObject({
      startAt: instant.optional(),
      durationSeconds: z.number().int().min(0).optional(),
      transcribeLocale: locale.optional(),
      translateLocale: locale.nullish(),
    })
    .optional(),
  participants: list(z.strictObject({ name: text, email: z.email().nullish() })),
  collaborators: list(z.strictObject({ userId, role: z.enum(COLLABORATOR_ROLES) })),
  paragraphs: list(
    z.strictObject({
      id: optionalId,
      uuid: slug.optional(),
      speaker: z.string().nullish(),
      /** Required unless the paragraph is locked (then empty or left out) or has diarizedSegments (then their text joined). */
      text: z.string().optional(),
      offsetSeconds: z.number().min(0).optional(),
      durationSeconds: z.number().positive().optional(),
      locked: z.boolean().default(false),
      diarizedSegments: list(z.strictObject({ content: text, speaker: z.strictObject({ label: text, personName: z.string().nullish() }) })),
      summary: z.union([text, z.strictObject({ type: z.enum(SECTION_TYPES).default('text/markdown'), content: text })]).nullish(),
    }),
  ),
  summaries: list(
    z.strictObject({ id: optionalId, templateId: templateId.nullish(), locale: documentLocale, content: text, createdAt: instant.optional(), updatedAt: instant.optional() }),
  ),
  documents: list(
    z.strictObject({
      id: optionalId,
      templateId,
      locale: documentLocale,
      /** A Markdown string, or a section in the API's shape with its content type. */
      sections: z.array(z.union([text, z.strictObject({ content: z.strictObject({ type: z.enum(SECTION_TYPES), content: text }), createdAt: instant.optional() })])).min(1),
      createdAt: instant.optional(),
    }),
  ),
  shareLink: z
    .strictObject({
      shareId: z.string().regex(/^[A-Za-z0-9_-]{6,64}$/, 'must be 6 to 64 letters, digits, _ or -').optional(),
      password: z.string().min(1).optional(),
      createdAt: instant.optional(),
    })
    .optional(),
  deleted: z.boolean().default(false),
  /** A note still recording when the sandbox starts (decisions.md §6.5); its `paragraphs` are those recorded so far. */
  live: z
    .strictObject({
      paragraphIntervalSeconds: z.number().default(DEFAULT_LIVE.intervalSeconds),
      paragraphs: z.array(z.union([text, z.strictObject({ speaker: z.string().nullish(), text, durationSeconds: z.number().positive().optional() })])).optional(),
      count: z.number().int().positive().optional(),
      stops: list(z.number().int()),
    })
    .optional(),
});

const webhookEndpointSchema = z.strictObject({
  id: z.string().regex(ENDPOINT_ID_PATTERN, 'must be 1 to 64 letters, digits, _ or -'),
  url: z.string().superRefine((u, ctx) => {
    const problem = webhookUrlProblem(u);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  secret: z.string().regex(WEBHOOK_SECRET_PATTERN, WEBHOOK_SECRET_RULE),
  eventTypes: list(z.enum(EVENT_TYPE_NAMES as [string, ...string[]], { error: `must be one of the event types ${EVENT_TYPE_NAMES.join(', ')}` })),
  organizationId: slug.optional(),
  workspaceGuids: list(workspaceGuid),
  createdAt: instant.optional(),
});

const templateSchema = z.strictObject({
  id: templateId,
  title: text,
  description: z.string().default(''),
  ownerType: z.enum(TEMPLATE_OWNER_TYPES),
  ownerUserId: userId.optional(),
  workspaceGuid: workspaceGuid.optional(),
  organizationId: slug.optional(),
  kind: z.enum(TEMPLATE_KINDS).default('custom'),
  sections: z.array(z.strictObject({ id: optionalId, title: text, instruction: text })).min(1),
  createdAt: instant.optional(),
});

const wordMemorySchema = z.strictObject({
  id: optionalId,
  scope: z.enum(WORD_MEMORY_SCOPES),
  scopeId: z.union([slug, userId]).transform(String),
  entry: wordMemoryText,
  subEntry: wordMemoryText.nullish(),
  createdAt: instant.optional(),
});

const wikiSchema = z.strictObject({
  pages: list(
    z.strictObject({
      guid: slug,
      workspaceGuid,
      canonicalName: text,
      pageType: text,
      description: z.string().default(''),
      aliases: list(text),
      links: list(slug),
      createdAt: instant.optional(),
      updatedAt: instant.optional(),
    }),
  ),
  mentions: list(
    z.strictObject({
      guid: slug.optional(),
      pageGuid: slug,
      noteGuid,
      kind: z.enum(MENTION_KINDS).default('EXPLICIT'),
      paragraphIndex: z.number().int().min(0).default(0),
      extractedText: text,
      confidence: z.number().min(0).max(1),
      sourceUserId: userId.optional(),
      createdAt: instant.optional(),
    }),
  ),
  /** Bulk mentions made up from the notes' paragraphs, so a seed can hold hundreds without listing them. */
  generatedMentions: list(z.strictObject({ pageGuid: slug, count: z.number().int().min(1).max(100_000), noteGuids: z.array(noteGuid).min(1) })),
});

export const seedSchema = z.strictObject({
  /** Default for every omitted createdAt. Without it, the current time. */
  now: instant.optional(),
  organizations: z.array(organizationSchema).min(1, 'at least one organization is required'),
  workspaces: list(workspaceSchema),
  users: list(userSchema),
  apiKeys: list(apiKeySchema),
  folders: list(folderSchema),
  templates: list(templateSchema),
  notes: list(noteSchema),
  wordMemories: list(wordMemorySchema),
  wiki: wikiSchema.prefault({}),
  /** Webhook endpoints (decisions.md §6.4) that receive the sandbox's events. */
  webhookEndpoints: list(webhookEndpointSchema),
});

/** A seed as written (JSON, defaults omitted). */
export type SeedInput = z.input<typeof seedSchema>;
/** A seed after validation, defaults applied. */
export type Seed = z.output<typeof seedSchema>;
type NoteSeed = Seed['notes'][number];

/** Source types that are recordings: they get recording fields (defaulted when omitted). text and webpage never have them. */
const RECORDING_SOURCE_TYPES: ReadonlySet<string> = new Set(['live-voice', 'recording', 'offline-mode', 'video']);
const NON_RECORDING_SOURCE_TYPES: ReadonlySet<string> = new Set(['text', 'webpage']);
const DEFAULT_TRANSCRIBE_LOCALE = 'en_US';
/** Fixed seed of the random source for generated uuids and share ids, so a seed always loads the same. */
const LOADER_RANDOM_SEED = 0x5eed;

// ---------------------------------------------------------------- errors

export interface SeedIssue {
  /** JSON path, e.g. `workspaces[1].guid`. */
  path: string;
  message: string;
}

export class SeedError extends UsageError {
  readonly issues: SeedIssue[];
  constructor(issues: SeedIssue[], source = 'seed') {
    const shown = issues.slice(0, 20).map((i) => `  - ${i.path}: ${i.message}`);
    if (issues.length > shown.length) shown.push(`  … and ${issues.length - shown.length} more`);
    super(`invalid ${source} (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${shown.join('\n')}`, 'the seed format is described in docs/sandbox-seed.md');
    this.name = 'SeedError';
    this.issues = issues;
  }
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

// ---------------------------------------------------------------- validation

/** Lookups over a parsed seed, shared by the reference checks and the loader. */
class SeedIndex {
  readonly organizations = new Map<string, Seed['organizations'][number]>();
  readonly workspaces = new Map<string, Seed['workspaces'][number]>();
  readonly users = new Map<number, Seed['users'][number]>();
  readonly folders = new Map<number, Seed['folders'][number]>();
  readonly templates = new Map<number, Seed['templates'][number]>();
  readonly notes = new Map<string, NoteSeed>();
  readonly keys = new Map<string, Seed['apiKeys'][number]>();
  readonly pages = new Map<string, Seed['wiki']['pages'][number]>();
  readonly issues: SeedIssue[] = [];

  constructor(readonly seed: Seed) {
    this.fill(this.organizations, seed.organizations, 'organizations', (o) => o.id);
    this.fill(this.workspaces, seed.workspaces, 'workspaces', (w) => w.guid, 'guid');
    this.fill(this.users, seed.users, 'users', (u) => u.id);
    this.fill(this.folders, seed.folders, 'folders', (f) => f.id);
    this.fill(this.templates, seed.templates, 'templates', (t) => t.id);
    this.fill(this.notes, seed.notes, 'notes', (n) => n.guid, 'guid');
    this.fill(this.keys, seed.apiKeys, 'apiKeys', (k) => k.id);
    this.fill(this.pages, seed.wiki.pages, 'wiki.pages', (p) => p.guid, 'guid');
  }

  private fill<K, T>(map: Map<K, T>, items: T[], path: string, key: (t: T) => K, field = 'id') {
    items.forEach((item, i) => {
      const k = key(item);
      if (map.has(k)) this.issue(`${path}[${i}].${field}`, `duplicate ${field} ${JSON.stringify(k)} (also at ${path}[${items.indexOf(map.get(k)!)}])`);
      else map.set(k, item);
    });
  }

  issue(path: string, message: string) {
    this.issues.push({ path, message });
  }

  /** Report `message` at `path` unless `ok`; returns ok. */
  check(ok: boolean, path: string, message: string): boolean {
    if (!ok) this.issue(path, message);
    return ok;
  }

  /** Check a reference exists; returns the target. */
  ref<K, T>(map: Map<K, T>, key: K | null | undefined, path: string, what: string): T | undefined {
    if (key === null || key === undefined) return undefined;
    const target = map.get(key);
    this.check(target !== undefined, path, `unknown ${what} ${JSON.stringify(key)}`);
    return target;
  }

  isMember(uid: number, ws: string): boolean {
    return this.users.get(uid)?.memberships.some((m) => m.workspaceGuid === ws) ?? false;
  }

  /** The workspace of a note: its own, else its folder's. */
  noteWorkspace(n: NoteSeed): string | null {
    if (n.workspaceGuid) return n.workspaceGuid;
    return n.folderId != null ? (this.folders.get(n.folderId)?.workspaceGuid ?? null) : null;
  }

  /** Organization of a key: its own, its user's, its issuer's or its workspace's; the only organization for an organization key. */
  keyOrganization(k: Seed['apiKeys'][number]): string | null {
    if (k.userId !== undefined) return this.users.get(k.userId)?.organizationId ?? null;
    if (k.issuedByUserId !== undefined) return this.users.get(k.issuedByUserId)?.organizationId ?? null;
    if (k.workspaceGuid) return this.workspaces.get(k.workspaceGuid)?.organizationId ?? null;
    if (k.organizationId) return k.organizationId;
    return k.type === 'ORGANIZATION' && this.organizations.size === 1 ? [...this.organizations.keys()][0] : null;
  }
}

/** The collaborator guid a user is served with. */
const userGuid = (u: { id: number; guid?: string }) => u.guid ?? `user-${u.id}`;

function checkWorkspacesAndUsers(ix: SeedIndex) {
  ix.seed.workspaces.forEach((w, i) => {
    const at = `workspaces[${i}]`;
    ix.ref(ix.organizations, w.organizationId, `${at}.organizationId`, 'organization');
    ix.check(!w.wikiEnabled || w.wikiPlan, `${at}.wikiEnabled`, 'the wiki can only be activated on a workspace with the wiki plan (wikiPlan: true)');
  });
  const guids = new Map<string, string>();
  ix.seed.users.forEach((u, i) => {
    const at = `users[${i}]`;
    ix.ref(ix.organizations, u.organizationId, `${at}.organizationId`, 'organization');
    const guid = userGuid(u);
    ix.check(!guids.has(guid), `${at}.guid`, `duplicate user guid ${guid} (also the guid of ${guids.get(guid)}; users without one get user-<id>)`);
    guids.set(guid, at);
    const seen = new Set<string>();
    u.memberships.forEach((m, j) => {
      const mAt = `${at}.memberships[${j}].workspaceGuid`;
      const ws = ix.ref(ix.workspaces, m.workspaceGuid, mAt, 'workspace');
      if (ws) ix.check(ws.organizationId === u.organizationId, mAt, `workspace ${m.workspaceGuid} belongs to another organization than the user`);
      ix.check(!seen.has(m.workspaceGuid), mAt, `duplicate membership in ${m.workspaceGuid}`);
      seen.add(m.workspaceGuid);
    });
  });
}

function checkApiKeys(ix: SeedIndex) {
  ix.seed.apiKeys.forEach((k, i) => {
    const at = `apiKeys[${i}]`;
    const user = ix.ref(ix.users, k.userId, `${at}.userId`, 'user');
    const ws = ix.ref(ix.workspaces, k.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    ix.ref(ix.organizations, k.organizationId, `${at}.organizationId`, 'organization');
    const personal = k.type === 'USER' || k.type === 'LEGACY_PERSONAL';
    ix.check(!personal || k.userId !== undefined, `${at}.userId`, `a ${k.type} key needs the user it acts for`);
    ix.check(personal || k.userId === undefined, `${at}.userId`, `a ${k.type} key acts for no user: remove userId`);
    ix.check(k.type !== 'LEGACY_PERSONAL' || !k.workspaceGuid, `${at}.workspaceGuid`, 'a legacy personal key is bound to no workspace');
    ix.check(k.type !== 'ORGANIZATION' || !k.workspaceGuid, `${at}.workspaceGuid`, 'an organization key is bound to no workspace');
    ix.check(k.type === 'WORKSPACE' || !k.legacyScope, `${at}.legacyScope`, 'only workspace keys have the legacy note scope');
    if (k.issuedByUserId !== undefined) {
      const issuer = ix.ref(ix.users, k.issuedByUserId, `${at}.issuedByUserId`, 'user');
      ix.check(k.type === 'ORGANIZATION', `${at}.issuedByUserId`, `only ORGANIZATION keys have an issuer in the seed, not ${k.type} keys`);
      if (issuer) ix.check(issuer.orgAdmin, `${at}.issuedByUserId`, `user ${issuer.id} is not an organization admin (orgAdmin: true), who issue organization keys`);
    }
    if (k.type === 'USER' && user && ws)
      ix.check(ix.isMember(user.id, ws.guid), `${at}.workspaceGuid`, `user ${user.id} is not a member of workspace ${ws.guid}`);
    const org = ix.keyOrganization(k);
    if (k.type === 'ORGANIZATION' || (k.type === 'WORKSPACE' && !k.workspaceGuid))
      ix.check(org !== null, `${at}.organizationId`, `a ${k.type} key ${k.type === 'WORKSPACE' ? 'not bound to a workspace ' : ''}needs organizationId`);
    if (k.organizationId && org !== null)
      ix.check(org === k.organizationId, `${at}.organizationId`, `${org} is the organization of the key's ${user ? 'user' : k.issuedByUserId !== undefined ? 'issuer' : 'workspace'}`);
  });
}

function checkFolders(ix: SeedIndex) {
  ix.seed.folders.forEach((f, i) => {
    const at = `folders[${i}]`;
    const ws = ix.ref(ix.workspaces, f.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    if (ix.ref(ix.users, f.ownerUserId, `${at}.ownerUserId`, 'user') && ws)
      ix.check(ix.isMember(f.ownerUserId, f.workspaceGuid), `${at}.ownerUserId`, `user ${f.ownerUserId} is not a member of workspace ${f.workspaceGuid}`);
    const parent = ix.ref(ix.folders, f.parentId, `${at}.parentId`, 'folder');
    if (parent) ix.check(parent.workspaceGuid === f.workspaceGuid, `${at}.parentId`, `folder ${parent.id} is in another workspace`);
    ix.check(f.sharingType === 'LIMITED' || f.members.length === 0, `${at}.members`, 'only LIMITED folders have members');
    const seen = new Set<number>();
    f.members.forEach((m, j) => {
      const mAt = `${at}.members[${j}].userId`;
      if (ix.ref(ix.users, m.userId, mAt, 'user'))
        ix.check(ix.isMember(m.userId, f.workspaceGuid), mAt, `user ${m.userId} is not a member of workspace ${f.workspaceGuid}`);
      ix.check(!seen.has(m.userId), mAt, `duplicate member ${m.userId}`);
      seen.add(m.userId);
    });
    // Depth: a root-level folder is depth 1 (decisions.md §5.1).
    const chain = new Set<number>([f.id]);
    let cur = parent;
    while (cur) {
      if (!ix.check(!chain.has(cur.id), `${at}.parentId`, `the parent chain loops back to folder ${cur.id}`)) return;
      chain.add(cur.id);
      cur = cur.parentId != null ? ix.folders.get(cur.parentId) : undefined;
    }
    ix.check(
      chain.size <= LIMITS.folderMaxDepth,
      `${at}.parentId`,
      `folder ${f.id} would be at depth ${chain.size}: folders nest at most ${LIMITS.folderMaxDepth} deep (a root-level folder is depth 1)`,
    );
  });
}

function checkTemplates(ix: SeedIndex) {
  ix.seed.templates.forEach((t, i) => {
    const at = `templates[${i}]`;
    const owners = [['USER', 'ownerUserId'], ['WORKSPACE', 'workspaceGuid'], ['ORGANIZATION', 'organizationId']] as const;
    for (const [type, field] of owners) {
      const present = t[field] !== undefined;
      if (t.ownerType === type) ix.check(present, `${at}.${field}`, `a ${type} template needs ${field}`);
      else ix.check(!present, `${at}.${field}`, `a ${t.ownerType} template has no ${field}`);
    }
    ix.ref(ix.users, t.ownerUserId, `${at}.ownerUserId`, 'user');
    ix.ref(ix.workspaces, t.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    ix.ref(ix.organizations, t.organizationId, `${at}.organizationId`, 'organization');
    ix.check(t.kind !== 'one_pager' || t.ownerType === 'MANAGED', `${at}.kind`, 'only MANAGED templates can be one-pagers');
  });
}

function checkNotes(ix: SeedIndex) {
  const noteIds = new Map<number, string>();
  const summaryIds = new Map<number, string>();
  const documentIds = new Map<number, string>();
  const paragraphIds = new Map<number, string>();
  const paragraphUuids = new Map<string, string>();
  const unique = <K>(ids: Map<K, string>, id: K | undefined, path: string, what = 'id') => {
    if (id === undefined) return;
    ix.check(!ids.has(id), path, `duplicate ${what} ${id} (also at ${ids.get(id)})`);
    ids.set(id, path);
  };
  ix.seed.notes.forEach((n, i) => {
    const at = `notes[${i}]`;
    unique(noteIds, n.id, `${at}.id`);
    ix.ref(ix.users, n.ownerUserId, `${at}.ownerUserId`, 'user');
    if (n.workspaceGuid) ix.ref(ix.workspaces, n.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    const folder = ix.ref(ix.folders, n.folderId, `${at}.folderId`, 'folder');
    if (folder && n.workspaceGuid)
      ix.check(folder.workspaceGuid === n.workspaceGuid, `${at}.folderId`, `folder ${folder.id} is in workspace ${folder.workspaceGuid}, not ${n.workspaceGuid}`);
    const ws = ix.noteWorkspace(n);
    if (ws && ix.workspaces.has(ws) && ix.users.has(n.ownerUserId))
      ix.check(ix.isMember(n.ownerUserId, ws), `${at}.ownerUserId`, `user ${n.ownerUserId} is not a member of workspace ${ws}`);
    ix.check(!(n.recording && NON_RECORDING_SOURCE_TYPES.has(n.sourceType)), `${at}.recording`, `a ${n.sourceType} note has no recording`);
    const owner = ix.users.get(n.ownerUserId);
    n.collaborators.forEach((c, j) => {
      const cAt = `${at}.collaborators[${j}].userId`;
      const u = ix.ref(ix.users, c.userId, cAt, 'user');
      if (u && owner) ix.check(u.organizationId === owner.organizationId, cAt, `user ${c.userId} is in another organization than the note's owner`);
      ix.check(n.collaborators.findIndex((x) => x.userId === c.userId) === j, cAt, `duplicate collaborator ${c.userId}`);
    });
    n.paragraphs.forEach((p, j) => {
      const pAt = `${at}.paragraphs[${j}]`;
      unique(paragraphIds, p.id, `${pAt}.id`);
      unique(paragraphUuids, p.uuid, `${pAt}.uuid`, 'uuid');
      if (p.locked) {
        // decisions.md §3.2: the plan hides a locked paragraph's content.
        ix.check(!p.text, `${pAt}.text`, 'a locked paragraph shows no text: leave text out (or empty)');
        ix.check(p.diarizedSegments.length === 0, `${pAt}.diarizedSegments`, 'a locked paragraph shows no speaker split: leave diarizedSegments out');
      } else {
        ix.check(
          (p.text !== undefined && p.text.trim() !== '') || p.diarizedSegments.length > 0,
          `${pAt}.text`,
          'must not be blank (give the text, or diarizedSegments to join, or mark the paragraph locked: true)',
        );
      }
    });
    n.summaries.forEach((s, j) => {
      unique(summaryIds, s.id, `${at}.summaries[${j}].id`);
      ix.ref(ix.templates, s.templateId, `${at}.summaries[${j}].templateId`, 'template');
      if (s.createdAt && s.updatedAt)
        ix.check(Date.parse(s.updatedAt) >= Date.parse(s.createdAt), `${at}.summaries[${j}].updatedAt`, 'must not be before createdAt');
    });
    n.documents.forEach((d, j) => {
      unique(documentIds, d.id, `${at}.documents[${j}].id`);
      ix.ref(ix.templates, d.templateId, `${at}.documents[${j}].templateId`, 'template');
    });
  });
}

/** The live part of a note seed as the live engine takes it. */
function liveSpecOf(live: NonNullable<NoteSeed['live']>): LiveSpec {
  const paragraphs = live.paragraphs
    ? live.paragraphs.map((p, i) => {
        const o = typeof p === 'string' ? { text: p } : p;
        return { speaker: o.speaker ?? `Speaker ${(i % 2) + 1}`, text: o.text, durationSeconds: o.durationSeconds ?? liveSpokenSeconds(o.text) };
      })
    : generatedParagraphs(live.count ?? DEFAULT_LIVE.count);
  return { paragraphs, intervalSeconds: live.paragraphIntervalSeconds, stops: live.stops };
}

function checkLiveNotes(ix: SeedIndex) {
  ix.seed.notes.forEach((n, i) => {
    if (!n.live) return;
    const at = `notes[${i}].live`;
    ix.check(RECORDING_SOURCE_TYPES.has(n.sourceType), `notes[${i}].sourceType`, `a ${n.sourceType} note cannot be live: use one of ${[...RECORDING_SOURCE_TYPES].join(', ')}`);
    ix.check(!n.deleted, `notes[${i}].deleted`, 'a deleted note cannot be live');
    if (!ix.check(!(n.live.paragraphs && n.live.count !== undefined), `${at}.count`, 'give either paragraphs or count, not both')) return;
    const problem = liveSpecProblem(liveSpecOf(n.live));
    if (problem) ix.issue(`${at}.${problem.slice(0, problem.indexOf(':'))}`, problem.slice(problem.indexOf(':') + 2));
  });
}

function checkWebhookEndpoints(ix: SeedIndex) {
  const seen = new Map<string, number>();
  ix.seed.webhookEndpoints.forEach((e, i) => {
    const at = `webhookEndpoints[${i}]`;
    ix.check(!seen.has(e.id), `${at}.id`, `duplicate id ${JSON.stringify(e.id)} (also at webhookEndpoints[${seen.get(e.id)}])`);
    seen.set(e.id, i);
    ix.ref(ix.organizations, e.organizationId, `${at}.organizationId`, 'organization');
    e.workspaceGuids.forEach((g, j) => ix.ref(ix.workspaces, g, `${at}.workspaceGuids[${j}]`, 'workspace'));
    ix.check(!(e.organizationId && e.workspaceGuids.length), `${at}.workspaceGuids`, 'give either organizationId (every workspace of it) or workspaceGuids, not both');
  });
}

function checkWordMemories(ix: SeedIndex) {
  const seen = new Map<string, number>();
  const ids = new Map<number, number>();
  ix.seed.wordMemories.forEach((w, i) => {
    const at = `wordMemories[${i}]`;
    if (w.id !== undefined) ix.check(!ids.has(w.id), `${at}.id`, `duplicate id ${w.id} (also at wordMemories[${ids.get(w.id)}])`);
    if (w.id !== undefined) ids.set(w.id, i);
    if (w.scope === 'user') ix.ref(ix.users, /^\d+$/.test(w.scopeId) ? Number(w.scopeId) : -1, `${at}.scopeId`, 'user');
    if (w.scope === 'workspace') ix.ref(ix.workspaces, w.scopeId, `${at}.scopeId`, 'workspace');
    if (w.scope === 'organization') ix.ref(ix.organizations, w.scopeId, `${at}.scopeId`, 'organization');
    const key = `${w.scope}\u0000${w.scopeId}\u0000${w.entry}`;
    ix.check(!seen.has(key), `${at}.entry`, `duplicate entry ${JSON.stringify(w.entry)} in this scope (also at wordMemories[${seen.get(key)}])`);
    seen.set(key, i);
  });
}

function checkWiki(ix: SeedIndex) {
  const { pages, mentions, generatedMentions } = ix.seed.wiki;
  pages.forEach((p, i) => {
    const at = `wiki.pages[${i}]`;
    ix.ref(ix.workspaces, p.workspaceGuid, `${at}.workspaceGuid`, 'workspace');
    p.links.forEach((l, j) => {
      const target = ix.ref(ix.pages, l, `${at}.links[${j}]`, 'wiki page');
      if (target) ix.check(target.workspaceGuid === p.workspaceGuid && target.guid !== p.guid, `${at}.links[${j}]`, 'links go to other pages of the same workspace');
    });
  });
  /** The note of a mention, checked to be in the page's workspace and to have paragraphs. */
  const mentionNote = (pageGuid: string, guid: string, at: string) => {
    const page = ix.pages.get(pageGuid);
    const note = ix.ref(ix.notes, guid, at, 'note');
    if (!note || !page) return undefined;
    if (!ix.check(ix.noteWorkspace(note) === page.workspaceGuid, at, `note ${guid} is not in the page's workspace ${page.workspaceGuid}`)) return undefined;
    return ix.check(note.paragraphs.length > 0, at, `note ${guid} has no paragraphs to mention`) ? note : undefined;
  };
  const guids = new Set<string>();
  mentions.forEach((m, i) => {
    const at = `wiki.mentions[${i}]`;
    ix.ref(ix.pages, m.pageGuid, `${at}.pageGuid`, 'wiki page');
    const note = mentionNote(m.pageGuid, m.noteGuid, `${at}.noteGuid`);
    if (note) ix.check(m.paragraphIndex < note.paragraphs.length, `${at}.paragraphIndex`, `note ${note.guid} has ${note.paragraphs.length} paragraphs`);
    ix.ref(ix.users, m.sourceUserId, `${at}.sourceUserId`, 'user');
    if (m.guid) ix.check(!guids.has(m.guid), `${at}.guid`, `duplicate guid ${m.guid}`);
    if (m.guid) guids.add(m.guid);
  });
  generatedMentions.forEach((g, i) => {
    const at = `wiki.generatedMentions[${i}]`;
    ix.ref(ix.pages, g.pageGuid, `${at}.pageGuid`, 'wiki page');
    g.noteGuids.forEach((guid, j) => mentionNote(g.pageGuid, guid, `${at}.noteGuids[${j}]`));
  });
}

function analyze(input: unknown, source?: string): { seed: Seed; index: SeedIndex } {
  const parsed = seedSchema.safeParse(input);
  if (!parsed.success) throw new SeedError(parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })), source);
  const index = new SeedIndex(parsed.data);
  for (const check of [checkWorkspacesAndUsers, checkApiKeys, checkFolders, checkTemplates, checkNotes, checkLiveNotes, checkWordMemories, checkWiki, checkWebhookEndpoints])
    check(index);
  if (index.issues.length) throw new SeedError(index.issues, source);
  return { seed: parsed.data, index };
}

// ---------------------------------------------------------------- loading

export interface SeededKey {
  id: string;
  type: Seed['apiKeys'][number]['type'];
  label?: string;
  status: Seed['apiKeys'][number]['status'];
  /** The secret as written in the seed, for `sandbox start` to print; the store keeps only its salted hash. */
  secret: string;
  workspaceGuid?: string;
  scopes: string[];
}

export interface SeedSummary {
  keys: SeededKey[];
  /** Rows inserted, per table. */
  counts: Partial<Record<TableName, number>>;
}

const iso = (s: string) => new Date(s).toISOString();
const addSeconds = (s: string, seconds: number) => new Date(Date.parse(s) + Math.round(seconds * 1000)).toISOString();
const later = (a: string, b: string) => (Date.parse(a) >= Date.parse(b) ? a : b);
/** Speaking time (2.5 words a second, at least 2 s) used when a paragraph gives no duration. */
const spokenSeconds = (s: string) => Math.max(2, Math.ceil(s.split(/\s+/).length / 2.5));

/** Give items without an id the next ids after the largest explicit one. */
function assignIds<T extends { id?: number }>(items: T[]): number[] {
  // A loop, not Math.max(...ids): a million arguments overflow the stack.
  let next = 1;
  for (const i of items) if (i.id !== undefined && i.id >= next) next = i.id + 1;
  return items.map((i) => i.id ?? next++);
}

/** Rows per batch of the loader's inserts. */
const BATCH_ROWS = 20_000;

/** A value as the loader binds it (db.ts bindValue), as a JSON array element that `->>` reads back as such. */
function jsonCell(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' || typeof v === 'number') return v;
  return JSON.stringify(v);
}

class Loader {
  readonly counts: Partial<Record<TableName, number>> = {};
  private readonly rand: RandomSource = seededRandom(LOADER_RANDOM_SEED);
  /** Paragraph rows per note, for wiki mentions. */
  private readonly paragraphRows = new Map<string, Array<{ id: number; uuid: string; content: string }>>();
  private readonly noteIds = new Map<string, number>();
  private readonly noteTimes = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly ix: SeedIndex,
    private readonly now: string,
  ) {}

  /**
   * Rows waiting to be inserted, per table in the order the tables were first written (parents before
   * children, as the loader writes them): each table's rows go in as one statement per batch, an INSERT …
   * SELECT over json_each of the rows as JSON arrays, so that a million rows cost a few hundred statements
   * instead of a million binds and steps (and the update hook's calls stay in SQLite's loop).
   */
  private readonly batches = new Map<TableName, { cols: string[]; rows: unknown[][] }>();
  private batched = 0;

  private insert(table: TableName, row: Record<string, unknown>): void {
    const cols = Object.keys(row);
    let batch = this.batches.get(table);
    if (batch && (batch.cols.length !== cols.length || batch.cols.some((c, i) => c !== cols[i]))) {
      this.flush();
      this.batches.delete(table);
      batch = undefined;
    }
    if (!batch) this.batches.set(table, (batch = { cols, rows: [] }));
    batch.rows.push(cols.map((c) => jsonCell(row[c])));
    this.counts[table] = (this.counts[table] ?? 0) + 1;
    if (++this.batched >= BATCH_ROWS) this.flush();
  }

  /** Insert every batched row, table by table in the order they were first written. */
  flush(): void {
    for (const [table, batch] of this.batches) {
      if (!batch.rows.length) continue;
      const values = batch.cols.map((_, i) => `value ->> ${i}`).join(', ');
      this.db.run(`INSERT INTO ${table} (${batch.cols.join(', ')}) SELECT ${values} FROM json_each(?)`, [JSON.stringify(batch.rows)]);
      batch.rows = [];
    }
    this.batched = 0;
  }

  private at = (s: string | undefined | null, fallback = this.now) => (s ? iso(s) : fallback);

  load(): SeededKey[] {
    const { seed } = this.ix;
    for (const o of seed.organizations) this.insert('organizations', { id: o.id, name: o.name, created_at: this.at(o.createdAt) });
    for (const w of seed.workspaces)
      this.insert('workspaces', {
        guid: w.guid, organization_id: w.organizationId, name: w.name, created_at: this.at(w.createdAt),
        voice_file_enabled: w.voiceFileEnabled, wiki_plan: w.wikiPlan, wiki_enabled: w.wikiEnabled,
        monthly_minutes: w.quota.monthlyMinutes, used_minutes: w.quota.usedMinutes,
      });
    for (const u of seed.users) {
      this.insert('users', { id: u.id, guid: u.guid ?? null, name: u.name, email: u.email, organization_id: u.organizationId, org_admin: u.orgAdmin });
      for (const m of u.memberships) this.insert('memberships', { user_id: u.id, workspace_guid: m.workspaceGuid, role: m.role });
    }
    const keys = seed.apiKeys.map((k) => this.apiKey(k));
    this.folders();
    for (const t of seed.templates)
      this.insert('templates', {
        id: t.id, title: t.title, description: t.description, owner_type: t.ownerType, owner_user_id: t.ownerUserId,
        workspace_guid: t.workspaceGuid, organization_id: t.organizationId, kind: t.kind,
        sections: t.sections.map((s, i) => ({ id: s.id ?? i + 1, title: s.title, instruction: s.instruction })), created_at: this.at(t.createdAt),
      });
    this.notes();
    const wordMemoryIds = assignIds(seed.wordMemories);
    seed.wordMemories.forEach((w, i) =>
      this.insert('word_memories', { id: wordMemoryIds[i], scope_type: w.scope, scope_id: w.scopeId, entry: w.entry, sub_entry: w.subEntry, created_at: this.at(w.createdAt) }),
    );
    this.wiki();
    for (const e of seed.webhookEndpoints)
      this.insert('webhook_endpoints', {
        id: e.id, url: e.url, secret: e.secret, event_types: [...new Set(e.eventTypes)], organization_id: e.organizationId ?? null,
        workspace_guids: e.workspaceGuids, source: 'seed', created_at: this.at(e.createdAt),
      });
    return keys;
  }

  private apiKey(k: Seed['apiKeys'][number]): SeededKey {
    const salt = newSalt();
    this.insert('api_keys', {
      id: k.id, secret_salt: salt, secret_hash: hashSecret(k.secret, salt), type: k.type, label: k.label,
      user_id: k.userId, workspace_guid: k.workspaceGuid, organization_id: this.ix.keyOrganization(k), scopes: k.scopes,
      status: k.status, expires_at: k.expiresAt ? iso(k.expiresAt) : null, created_at: this.at(k.createdAt),
      voice_permission: k.voicePermission, legacy_scope: k.legacyScope, issued_by_user_id: k.issuedByUserId ?? null,
    });
    return { id: k.id, type: k.type, label: k.label, status: k.status, secret: k.secret, workspaceGuid: k.workspaceGuid, scopes: k.scopes };
  }

  /** Parents before children (the seed may list them in any order). */
  private folders() {
    const depth = (f: Seed['folders'][number]): number => (f.parentId != null ? 1 + depth(this.ix.folders.get(f.parentId)!) : 1);
    const ordered = [...this.ix.seed.folders].sort((a, b) => depth(a) - depth(b));
    for (const f of ordered) {
      const created = this.at(f.createdAt);
      this.insert('folders', {
        id: f.id, workspace_guid: f.workspaceGuid, owner_user_id: f.ownerUserId, parent_id: f.parentId ?? null, title: f.title,
        description: f.description, color: f.color, sharing_type: f.sharingType, created_at: created, updated_at: this.at(f.updatedAt, created),
      });
      for (const m of f.members) this.insert('folder_members', { folder_id: f.id, user_id: m.userId, role: m.role });
    }
  }

  private notes() {
    const notes = this.ix.seed.notes;
    const ids = assignIds(notes);
    const summaryIds = assignIds(notes.flatMap((n) => n.summaries));
    const documentIds = assignIds(notes.flatMap((n) => n.documents));
    const paragraphIds = assignIds(notes.flatMap((n) => n.paragraphs));
    notes.forEach((n, i) => {
      this.note(n, ids[i], { summaries: summaryIds.splice(0, n.summaries.length), documents: documentIds.splice(0, n.documents.length), paragraphs: paragraphIds.splice(0, n.paragraphs.length) });
    });
  }

  private note(n: NoteSeed, id: number, childIds: { summaries: number[]; documents: number[]; paragraphs: number[] }) {
    const created = this.at(n.createdAt);
    const rec = n.recording ?? (RECORDING_SOURCE_TYPES.has(n.sourceType) ? {} : undefined);
    const start = rec ? this.at(rec.startAt, created) : null;
    const base = start ?? created;
    // Paragraph timing: each starts where the previous ended unless given.
    let cursor = 0;
    const timed = n.paragraphs.map((p) => {
      // A locked paragraph is stored without its text: the plan hides it everywhere (decisions.md §3.2).
      const content = p.locked ? '' : p.text?.trim() ? p.text : p.diarizedSegments.map((d) => d.content).join(' ');
      const from = p.offsetSeconds ?? cursor;
      const length = p.durationSeconds ?? spokenSeconds(content);
      cursor = from + length;
      return { ...p, content, from, to: from + length };
    });
    const duration = rec ? (rec.durationSeconds ?? Math.ceil(Math.max(0, ...timed.map((p) => p.to)))) : 0;
    // A live note is still recording: no end yet (the live engine sets it after its last paragraph).
    const end = start && !n.live ? addSeconds(start, duration) : null;
    const updated = this.at(n.updatedAt, end ? later(end, created) : created);
    this.noteIds.set(n.guid, id);
    this.noteTimes.set(n.guid, updated);

    this.insert('notes', {
      guid: n.guid, id, title: n.title, owner_user_id: n.ownerUserId, workspace_guid: this.ix.noteWorkspace(n), folder_id: n.folderId ?? null,
      source_type: n.sourceType, created_at: created, updated_at: updated, recording_start_at: start, recording_end_at: end,
      recording_duration_seconds: duration, transcribe_locale: rec ? (rec.transcribeLocale ?? DEFAULT_TRANSCRIBE_LOCALE) : null,
      translate_locale: rec?.translateLocale ?? null, deleted: n.deleted,
    });
    n.participants.forEach((p, position) => this.insert('note_participants', { note_guid: n.guid, position, name: p.name, email: p.email ?? null }));
    const collaborators = n.collaborators.some((c) => c.userId === n.ownerUserId)
      ? n.collaborators
      : [{ userId: n.ownerUserId, role: 'OWNER' as const }, ...n.collaborators];
    for (const c of collaborators) this.insert('note_collaborators', { note_guid: n.guid, user_id: c.userId, role: c.role });

    const rows = timed.map((p, position) => {
      const row = { id: childIds.paragraphs[position], uuid: p.uuid ?? newUuid(this.rand), content: p.content };
      const summary = typeof p.summary === 'string' ? { type: 'text/markdown', content: p.summary } : (p.summary ?? null);
      const diarized = p.diarizedSegments.map((d) => ({ content: d.content, speaker: { label: d.speaker.label, personName: d.speaker.personName ?? null } }));
      this.insert('paragraphs', {
        ...row, note_guid: n.guid, position, time_from: addSeconds(base, p.from), time_to: addSeconds(base, p.to), speaker: p.speaker ?? null,
        locked: p.locked, diarized_segments: diarized, summary,
      });
      return row;
    });
    this.paragraphRows.set(n.guid, rows);

    n.summaries.forEach((s, j) => {
      const at = this.at(s.createdAt, updated);
      this.insert('summaries', {
        id: childIds.summaries[j], note_guid: n.guid, template_id: s.templateId ?? null, locale: s.locale, content_markdown: s.content,
        created_at: at, updated_at: this.at(s.updatedAt, at),
      });
    });
    n.documents.forEach((d, j) => {
      const at = this.at(d.createdAt, updated);
      const sections = d.sections.map((sec) =>
        typeof sec === 'string' ? { type: 'text/markdown', content: sec, createdAt: at } : { type: sec.content.type, content: sec.content.content, createdAt: this.at(sec.createdAt, at) },
      );
      this.insert('documents', { id: childIds.documents[j], note_guid: n.guid, template_id: d.templateId, locale: d.locale, sections, created_at: at, updated_at: at });
    });
    if (n.live) this.insert('live_notes', liveRow(n.guid, liveSpecOf(n.live), duration, this.now));
    if (n.shareLink) {
      const shareId = n.shareLink.shareId ?? randomAlnum(22, this.rand);
      const salt = n.shareLink.password !== undefined ? newSalt() : null;
      this.insert('share_links', {
        note_guid: n.guid, share_id: shareId, share_url: `${WEB_APP_URL}/share/${shareId}`, password_salt: salt,
        password_hash: salt !== null ? hashSecret(n.shareLink.password!, salt) : null, created_at: this.at(n.shareLink.createdAt, updated),
      });
    }
  }

  private wiki() {
    const { pages, mentions, generatedMentions } = this.ix.seed.wiki;
    for (const p of pages) {
      const created = this.at(p.createdAt);
      this.insert('wiki_pages', {
        guid: p.guid, workspace_guid: p.workspaceGuid, canonical_name: p.canonicalName, page_type: p.pageType, description: p.description,
        aliases: p.aliases, links: p.links, created_at: created, updated_at: this.at(p.updatedAt, created),
      });
    }
    for (const m of mentions) this.mention({ ...m, guid: m.guid ?? newUuid(this.rand), createdAt: m.createdAt ? iso(m.createdAt) : undefined });
    for (const g of generatedMentions) {
      const page = this.ix.pages.get(g.pageGuid)!;
      const names = [page.canonicalName, ...page.aliases].map((n) => n.toLowerCase());
      const naming = (content: string) => names.some((n) => content.toLowerCase().includes(n));
      // Per note, the paragraphs that name the page (all of them when none does).
      const candidates = g.noteGuids.map((guid) => {
        const rows = this.paragraphRows.get(guid)!.map((p, index) => ({ index, content: p.content }));
        // Locked paragraphs have no text to extract (unless the note has nothing else).
        const shown = rows.filter((p) => p.content !== '');
        const all = shown.length ? shown : rows;
        const named = all.filter((p) => naming(p.content));
        return named.length ? named : all;
      });
      for (let i = 0; i < g.count; i++) {
        const n = i % g.noteGuids.length;
        const noteGuid = g.noteGuids[n];
        const paragraph = candidates[n][Math.floor(i / g.noteGuids.length) % candidates[n].length];
        const sentences = paragraph.content.match(/[^.!?]+[.!?]*/g) ?? [paragraph.content];
        this.mention({
          guid: newUuid(this.rand), pageGuid: g.pageGuid, noteGuid, paragraphIndex: paragraph.index,
          kind: i % 4 === 3 ? 'IMPLICIT' : 'EXPLICIT',
          extractedText: clip((sentences.find(naming) ?? sentences[0]).trim()),
          confidence: Math.round((0.55 + ((i * 37) % 45) / 100) * 100) / 100,
          createdAt: addSeconds(this.noteTimes.get(noteGuid)!, i),
        });
      }
    }
  }

  private mention(m: {
    guid: string; pageGuid: string; noteGuid: string; paragraphIndex: number; kind: string; extractedText: string;
    confidence: number; sourceUserId?: number; createdAt?: string;
  }) {
    const paragraph = this.paragraphRows.get(m.noteGuid)![m.paragraphIndex];
    this.insert('wiki_mentions', {
      guid: m.guid, page_guid: m.pageGuid, note_guid: m.noteGuid, note_id: this.noteIds.get(m.noteGuid), kind: m.kind,
      source_user_id: m.sourceUserId ?? this.ix.notes.get(m.noteGuid)!.ownerUserId, extracted_text: m.extractedText,
      created_at: m.createdAt ?? this.noteTimes.get(m.noteGuid), paragraph_id: paragraph.id, paragraph_uuid: paragraph.uuid, confidence: m.confidence,
    });
  }
}

const clip = (s: string) => (s.length > 200 ? s.slice(0, 199) + '…' : s);

/**
 * Validate a seed and insert it in one transaction. Secrets are stored only as salted hashes; they are
 * returned in `keys` so that `sandbox start` can print usable keys.
 */
export function loadSeed(db: Db, input: unknown, source?: string): SeedSummary {
  const { seed, index } = analyze(input, source);
  const now = seed.now ? iso(seed.now) : new Date().toISOString();
  const loader = new Loader(db, index, now);
  const keys = db.tx(() => {
    const k = loader.load();
    loader.flush();
    return k;
  });
  return { keys, counts: loader.counts };
}

/** Read a seed file as JSON; errors name the file and, for bad JSON, the line and column. */
export async function readSeedFile(path: string): Promise<unknown> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `seed file ${path} not found` : `cannot read seed file ${path}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(raw.replace(/^\uFEFF/, ''));
  } catch (e) {
    const msg = (e as Error).message;
    const pos = /position (\d+)/.exec(msg);
    let where = '';
    if (pos && !/line \d+/.test(msg)) {
      const before = raw.slice(0, Number(pos[1])).split('\n');
      where = ` (line ${before.length} column ${before[before.length - 1].length + 1})`;
    }
    throw new UsageError(`seed file ${path} is not valid JSON: ${msg}${where}`, 'the seed format is described in docs/sandbox-seed.md');
  }
}
