import * as z from 'zod';
import { LIMITS } from '../../contract/limits.js';
import { documentLocale, locale, SHARING_TYPES, SOURCE_TYPES, TEMPLATE_OWNER_TYPES, wmText } from '../../contract/schemas.js';
import { isRecord } from '../../io/values.js';
import { isWordMemoryText } from '../fast-body.js';
import { EVENT_TYPE_NAMES } from '../../contract/events.js';
import { isScope, SCOPE_NAMES } from '../../contract/scopes.js';
import { KEY_TYPES } from '../../contract/types.js';
import { UsageError } from '../../errors.js';
import { ENDPOINT_ID_PATTERN, WEBHOOK_SECRET_PATTERN, WEBHOOK_SECRET_RULE, webhookUrlProblem } from '../events/endpoints.js';
import { DEFAULT_LIVE } from '../events/live.js';
import { COLLABORATOR_ROLES, FOLDER_MEMBER_ROLES, KEY_STATUSES, MEMBERSHIP_ROLES, MENTION_KINDS, TEMPLATE_KINDS, WORD_MEMORY_SCOPES } from '../schema.sql.js';

/**
 * The JSON seed format of the sandbox (docs/sandbox-seed.md): its zod schema, the types of a seed as written
 * and as validated, and the error that names every problem by its JSON path. checks.ts holds the checks
 * across items, load.ts the loader.
 */

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
  entry: wmText,
  subEntry: wmText.nullish(),
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

// ---------------------------------------------------------------- fast path for big arrays

/**
 * Validate a seed as `seedSchema.safeParse` does, faster on big seeds. zod costs about a microsecond per
 * field; a seed of 100k notes and 1M word memories spent seconds in it. The items of `notes` and
 * `wordMemories` in the common shapes are checked here by hand: such a check only ever vouches for an item
 * zod accepts, and gives the value zod gives. An item it cannot vouch for is parsed by zod on its own (an
 * array's items are independent), and as soon as one fails, the whole seed is parsed by zod as before, so
 * every problem is reported exactly as zod reports it, by its JSON path, all at once.
 */
export function parseSeed(input: unknown): { success: true; data: Seed } | { success: false; issues: SeedIssue[] } {
  const zodParse = () => {
    const parsed = seedSchema.safeParse(input);
    return parsed.success ? { success: true as const, data: parsed.data } : { success: false as const, issues: parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })) };
  };
  if (!isRecord(input) || !Array.isArray(input.notes) || !Array.isArray(input.wordMemories)) return zodParse();
  const notes = fastItems(input.notes, fastNote, noteSchema);
  const wordMemories = notes && fastItems(input.wordMemories, fastWordMemory, wordMemorySchema);
  if (!notes || !wordMemories) return zodParse();
  const rest = seedSchema.safeParse({ ...input, notes: [], wordMemories: [] });
  if (!rest.success) return zodParse();
  return { success: true, data: { ...rest.data, notes, wordMemories } };
}

/** A seed's wordMemories array as the seed schema gives it, or undefined when it is not an array or an item is invalid. */
export function parseWordMemories(input: unknown): Seed['wordMemories'] | undefined {
  return Array.isArray(input) ? fastItems(input, fastWordMemory, wordMemorySchema) : undefined;
}

/** Each item checked by `fast` (undefined: not vouched for) or else by `schema`; undefined when an item is invalid. */
function fastItems<T>(items: unknown[], fast: (item: unknown) => T | undefined, schema: z.ZodType<T>): T[] | undefined {
  const out = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) {
    let v = fast(items[i]);
    if (v === undefined) {
      const parsed = schema.safeParse(items[i]);
      if (!parsed.success) return undefined;
      v = parsed.data;
    }
    out[i] = v;
  }
  return out;
}

const SLUG = /^[A-Za-z0-9_-]{1,64}$/;
const wordMemoryScopes: ReadonlySet<unknown> = new Set(WORD_MEMORY_SCOPES);
const sourceTypes: ReadonlySet<unknown> = new Set(SOURCE_TYPES);
const collaboratorRoles: ReadonlySet<unknown> = new Set(COLLABORATOR_ROLES);
/** What z.number().int().positive() accepts. */
const isPositiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
/** Instants are rare in big arrays and their rule is zod's own: zod checks them. */
export const isInstant = (v: unknown) => instant.safeParse(v).success;

/** Keys the fast checks know; any other key (or one of the rarer ones) leaves the item to zod. */
const WORD_MEMORY_KEYS: ReadonlySet<string> = new Set(['id', 'scope', 'scopeId', 'entry', 'subEntry', 'createdAt']);

function fastWordMemory(w: unknown): Seed['wordMemories'][number] | undefined {
  if (!isRecord(w)) return undefined;
  for (const k in w) if (!WORD_MEMORY_KEYS.has(k)) return undefined;
  const { id, scope, scopeId, entry, subEntry, createdAt } = w;
  if (id !== undefined && !isPositiveInt(id)) return undefined;
  if (!wordMemoryScopes.has(scope) || !isWordMemoryText(entry)) return undefined;
  if (subEntry !== undefined && subEntry !== null && !isWordMemoryText(subEntry)) return undefined;
  if (createdAt !== undefined && !isInstant(createdAt)) return undefined;
  let scopeText: string;
  if (typeof scopeId === 'string' && SLUG.test(scopeId)) scopeText = scopeId;
  else if (isPositiveInt(scopeId)) scopeText = String(scopeId);
  else return undefined;
  // zod's output: the same fields, scopeId as text.
  return scopeText === scopeId ? (w as Seed['wordMemories'][number]) : ({ ...w, scopeId: scopeText } as Seed['wordMemories'][number]);
}

/** The note fields the fast check knows (the rest — recordings, summaries, live notes… — go to zod). */
const NOTE_KEYS: ReadonlySet<string> = new Set(['guid', 'id', 'title', 'ownerUserId', 'workspaceGuid', 'folderId', 'sourceType', 'createdAt', 'updatedAt', 'collaborators', 'paragraphs', 'deleted']);
const PARAGRAPH_KEYS: ReadonlySet<string> = new Set(['speaker', 'text']);
const COLLABORATOR_KEYS: ReadonlySet<string> = new Set(['userId', 'role']);
const FOLDER_ID_TEXT = /^[1-9]\d*$/;

function fastNote(n: unknown): NoteSeed | undefined {
  if (!isRecord(n)) return undefined;
  for (const k in n) if (!NOTE_KEYS.has(k)) return undefined;
  const { guid, id, title, ownerUserId, workspaceGuid, folderId, sourceType, createdAt, updatedAt, collaborators, paragraphs, deleted } = n;
  if (typeof guid !== 'string' || !LIMITS.noteGuidPattern.test(guid)) return undefined;
  if (id !== undefined && !isPositiveInt(id)) return undefined;
  if (typeof title !== 'string' || title.trim().length === 0 || title.length < LIMITS.noteTitle.min || title.length > LIMITS.noteTitle.max) return undefined;
  if (!isPositiveInt(ownerUserId) || !sourceTypes.has(sourceType)) return undefined;
  if (workspaceGuid !== undefined && workspaceGuid !== null && (typeof workspaceGuid !== 'string' || !LIMITS.workspaceGuidPattern.test(workspaceGuid))) return undefined;
  let folder = folderId;
  if (typeof folderId === 'string') {
    if (!FOLDER_ID_TEXT.test(folderId)) return undefined;
    folder = Number(folderId);
  } else if (folderId !== undefined && folderId !== null && !isPositiveInt(folderId)) return undefined;
  if ((createdAt !== undefined && !isInstant(createdAt)) || (updatedAt !== undefined && !isInstant(updatedAt))) return undefined;
  if (deleted !== undefined && typeof deleted !== 'boolean') return undefined;
  if (collaborators !== undefined) {
    if (!Array.isArray(collaborators)) return undefined;
    for (const c of collaborators) {
      if (!isRecord(c)) return undefined;
      for (const k in c) if (!COLLABORATOR_KEYS.has(k)) return undefined;
      if (!isPositiveInt(c.userId) || !collaboratorRoles.has(c.role)) return undefined;
    }
  }
  let outParagraphs: NoteSeed['paragraphs'] = [];
  if (paragraphs !== undefined) {
    if (!Array.isArray(paragraphs)) return undefined;
    outParagraphs = new Array(paragraphs.length);
    for (let i = 0; i < paragraphs.length; i++) {
      const p: unknown = paragraphs[i];
      if (!isRecord(p)) return undefined;
      for (const k in p) if (!PARAGRAPH_KEYS.has(k)) return undefined;
      if (p.speaker !== undefined && p.speaker !== null && typeof p.speaker !== 'string') return undefined;
      if (p.text !== undefined && typeof p.text !== 'string') return undefined;
      outParagraphs[i] = { ...(p as { speaker?: string | null; text?: string }), locked: false, diarizedSegments: [] };
    }
  }
  // zod's output: the fields given (folderId as a number), the defaults of those left out.
  const out = {
    ...n,
    participants: [],
    collaborators: collaborators === undefined ? [] : (collaborators as NoteSeed['collaborators']).map((c) => ({ ...c })),
    paragraphs: outParagraphs,
    summaries: [],
    documents: [],
    deleted: deleted ?? false,
  } as unknown as NoteSeed;
  if (folderId !== undefined) out.folderId = folder as number | null;
  return out;
}

/** A seed as written (JSON, defaults omitted). */
export type SeedInput = z.input<typeof seedSchema>;
/** A seed after validation, defaults applied. */
export type Seed = z.output<typeof seedSchema>;
export type NoteSeed = Seed['notes'][number];

/** Source types that are recordings: they get recording fields (defaulted when omitted). text and webpage never have them. */
export const RECORDING_SOURCE_TYPES: ReadonlySet<string> = new Set(['live-voice', 'recording', 'offline-mode', 'video']);
export const NON_RECORDING_SOURCE_TYPES: ReadonlySet<string> = new Set(['text', 'webpage']);

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
