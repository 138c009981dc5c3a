import * as z from 'zod';
import { charCount, DOCUMENT_LOCALES, LIMITS } from './limits.js';
import { ERROR_TYPES } from './errors.js';
import { KEY_TYPES } from './types.js';

/** Resource shapes of the service (service-interface.md + decisions.md §3–§4). Unknown fields are tolerated. */

export const timestamp = z.string().describe('ISO 8601 timestamp');
export const locale = z.string().regex(LIMITS.localePattern, 'must be a locale of the form ll_CC, e.g. en_US');
export const documentLocale = z.enum(DOCUMENT_LOCALES);
const notBlank = (s: string) => s.trim().length > 0;

/** The character limits of the text schemas made by `chars`, for the OpenAPI document's minLength/maxLength. */
export const CHAR_LIMITS = new WeakMap<z.ZodType, { min: number; max: number }>();
/**
 * Text of `min` to `max` characters counted as the service counts them, in code points (charCount: 50 emoji are 50
 * characters, where zod's own min/max count UTF-16 units); JSON Schema's minLength/maxLength count the same way.
 */
export function chars(limits: { min: number; max: number }, base: z.ZodString = z.string()): z.ZodString {
  const schema = base.refine((v) => {
    const n = charCount(v);
    return n >= limits.min && n <= limits.max;
  }, `must be ${limits.min} to ${limits.max} characters long`);
  CHAR_LIMITS.set(schema, limits);
  return schema;
}

export { CREATE_SHARING_TYPES, DOCUMENT_FORMATS, JOB_STATUSES, MOVE_STRATEGIES, SHARING_TYPES, SOURCE_TYPES, SUMMARY_FORMATS, TEMPLATE_OWNER_TYPES } from './enums.js';
import { COLLABORATOR_ROLES, CREATE_SHARING_TYPES, FOLDER_MEMBER_ROLES, JOB_STATUSES, MOVE_STRATEGIES, SHARING_TYPES, SOURCE_TYPES, TEMPLATE_OWNER_TYPES } from './enums.js';

export const pageOf = <T extends z.ZodType>(item: T) => z.object({ content: z.array(item), nextCursor: z.string().nullable() });
/** An unpaged list (decisions.md §1.1: folders, templates, summaries, workspaces): `nextCursor` is always null. */
export const unpagedListOf = <T extends z.ZodType>(item: T) => z.object({ content: z.array(item), nextCursor: z.null() });
/** A bare `{content}` list, where decisions.md names that shape (api-key-scopes, workspaces, translations, wiki search, bulk create). */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ content: z.array(item) });

// ---- identity ----
export const authMe = z.object({
  keyId: z.string(),
  keyType: z.enum(KEY_TYPES),
  scopes: z.array(z.string()),
  user: z.object({ id: z.number().int(), name: z.string(), email: z.string() }).nullable(),
  workspaceGuid: z.string().nullable(),
  organizationId: z.string().nullable(),
  createdAt: timestamp,
  expiresAt: timestamp.nullable(),
});
export const organization = z.object({ id: z.string(), name: z.string(), createdAt: timestamp });
export const workspace = z.object({
  guid: z.string(),
  name: z.string(),
  organizationId: z.string(),
  createdAt: timestamp,
  wikiPlan: z.boolean(),
  isWikiEnabled: z.boolean(),
  voiceFileEnabled: z.boolean(),
  quota: z.object({ monthlyMinutes: z.number().int().nullable(), usedMinutes: z.number().int() }),
});
export const scopeItem = z.object({ scope: z.string(), description: z.string() });

// ---- notes ----
export const participant = z.object({ name: z.string(), email: z.string().nullable() });
export const collaborator = z.object({ guid: z.string(), name: z.string(), email: z.string().nullable(), role: z.enum(COLLABORATOR_ROLES) });
export const note = z.object({
  guid: z.string(),
  title: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
  sourceType: z.enum(SOURCE_TYPES),
  recordingStartAt: timestamp.nullable(),
  recordingEndAt: timestamp.nullable(),
  recordingDurationSeconds: z.number().int(),
  transcribeLocale: z.string().nullable(),
  translateLocale: z.string().nullable(),
  webUrl: z.string(),
  collaborators: z.array(collaborator),
  participants: z.array(participant),
  workspaceGuid: z.string().nullable(),
});
export const searchDocument = z.object({ id: z.number().int(), templateTitle: z.string(), content: z.string(), truncated: z.boolean() });
export const searchNote = note.extend({ matchedSnippets: z.array(z.string()), documents: z.array(searchDocument) });
export const searchResponse = z.object({
  notes: z.array(searchNote),
  nextCursor: z.null(),
  degraded: z.boolean(),
  degradedReason: z.string().nullable(),
});
export const searchBody = z.object({
  keyword: z.string().refine(notBlank, 'must not be blank'),
  filter: z
    .object({ folderId: z.string().nullish(), createdAtFrom: timestamp.nullish(), createdAtTo: timestamp.nullish() })
    .nullish(),
  // size: 1 to LIMITS.deepSearchMaxSize; checked by the handler, because a bad page size is 400003, not a schema violation (decisions.md §1.1).
  pagination: z.object({ cursor: z.string().nullish(), size: z.unknown().optional() }).nullish(),
});
export const noteUpdateBody = z.object({
  title: chars(LIMITS.noteTitle, z.string().refine(notBlank, 'must not be blank')).nullish(),
});
/** A paragraph's part spoken by one speaker (decisions.md §3.2): label `SPEAKER_1`…, `personName` when the speaker is tagged. */
export const diarizedSegment = z.object({ content: z.string(), speaker: z.object({ label: z.string(), personName: z.string().nullable() }) });
export const paragraph = z.object({
  id: z.number().int(),
  uuid: z.string(),
  timeFrom: timestamp,
  timeTo: timestamp,
  speaker: z.string().nullable(),
  /** Content hidden by the plan: `transcript.content` is then empty and `diarizedSegments` `[]`. */
  locked: z.boolean(),
  diarizedSegments: z.array(diarizedSegment),
  summary: z.object({ type: z.string(), content: z.string() }).nullable(),
  transcript: z.object({ type: z.literal('text/plain'), content: z.string() }),
});
export const shareLink = z.object({
  shareId: z.string(),
  noteGuid: z.string(),
  shareUrl: z.string(),
  hasPassword: z.boolean(),
  createdAt: timestamp,
  sharePassword: z.string().optional(),
});
export const shareLinkBody = z.object({ usePassword: z.boolean().optional() }).nullish();

const templateRef = z.object({ id: z.number().int(), title: z.string() });
export const summaryListItem = z.object({ id: z.number().int(), template: templateRef.nullable(), locale: z.string(), createdAt: timestamp });
export const summary = z.object({
  id: z.number().int(),
  noteGuid: z.string(),
  template: templateRef.nullable(),
  locale: z.string(),
  content: z.object({ type: z.string(), content: z.string() }),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const documentSection = z.object({ content: z.object({ type: z.string(), content: z.string() }), createdAt: timestamp });
export const documentListItem = z.object({
  id: z.number().int(),
  noteGuid: z.string(),
  template: templateRef,
  locale: z.string(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const noteDocument = documentListItem.extend({ sections: z.array(documentSection) });
export const documentList = z.object({ content: z.array(documentListItem), totalSize: z.number().int() });
export const generateDocumentBody = z.object({ templateId: z.number().int().positive(), locale: documentLocale });
export const generatedDocument = z.object({ documentId: z.number().int(), noteId: z.number().int(), document: noteDocument, createdAt: timestamp });

export const template = z.object({
  id: z.number().int(),
  title: z.string(),
  description: z.string(),
  ownerType: z.enum(TEMPLATE_OWNER_TYPES),
  sections: z.array(z.object({ id: z.number().int(), title: z.string(), instruction: z.string() })),
  createdAt: timestamp,
});

// ---- folders ----
const folderTitle = chars(LIMITS.folderTitle, z.string().refine(notBlank, 'must not be blank'));
const folderColor = z.string().regex(LIMITS.folderColorPattern, 'must match ^#[0-9A-Fa-f]{6}$');
export const folderMember = z.object({ userId: z.number().int(), role: z.enum(FOLDER_MEMBER_ROLES) });
export const folderCreated = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  color: z.string(),
  isTeamFolder: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  sharingType: z.enum(SHARING_TYPES).optional(),
});
export const folder = z.object({
  id: z.string(),
  workspaceGuid: z.string(),
  title: z.string(),
  description: z.string(),
  sharingType: z.enum(SHARING_TYPES),
  parentId: z.string().nullable(),
  color: z.string(),
  isTeamFolder: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
  members: z.array(folderMember).optional(),
});
export const folderCreateBody = z.object({
  title: folderTitle,
  description: z.string().nullish(),
  color: folderColor.nullish(),
  parentId: z.string().nullish(),
  sharingType: z.enum(CREATE_SHARING_TYPES).nullish(),
  members: z.array(folderMember).nullish(),
});
export const folderCreateInWorkspaceBody = folderCreateBody.extend({ sharingType: z.enum(SHARING_TYPES).nullish() });
export const folderUpdateBody = z.object({
  title: folderTitle.optional(),
  description: z.string().nullish(),
  color: folderColor.optional(),
  sharingType: z.enum(SHARING_TYPES).optional(),
  members: z.array(folderMember).nullish(),
});
export const folderMoveBody = z
  .object({ newParentId: z.string().nullish(), sharingTypeUpdateStrategy: z.enum(MOVE_STRATEGIES).nullish() })
  .nullish();

// ---- word memories ----
/** An entry or sub-entry of a word memory: 1–63 characters (code points), no whitespace. */
export const wmText = chars(LIMITS.wordMemoryText, z.string().regex(/^\S+$/, 'must not contain whitespace'));
export const wordMemory = z.object({ id: z.number().int(), entry: z.string(), subEntry: z.string().nullable(), createdAt: timestamp });
export const wmCreateBody = z.object({
  entries: z.array(z.object({ entry: wmText, subEntry: wmText.nullish() })).min(1).max(LIMITS.wordMemoryBulkMax),
});
export const wmUpdateBody = z.object({
  entries: z
    .array(z.object({ id: z.number().int(), entry: wmText.optional(), subEntry: wmText.nullish() }))
    .min(1)
    .max(LIMITS.wordMemoryBulkMax),
});
export const wmDeleteBody = z.object({ ids: z.array(z.number().int()).min(1).max(LIMITS.wordMemoryBulkMax) });
export const wmCreateResponse = listOf(wordMemory);
export const wmUpdateResponse = z.object({ content: z.array(wordMemory), notFound: z.array(z.number().int()) });
export const wmDeleteResponse = z.object({ deleted: z.number().int(), notFound: z.array(z.number().int()) });

// ---- workspaces ----
const workspaceName = chars(LIMITS.workspaceName, z.string().refine(notBlank, 'must not be blank'));
export const workspaceCreateBody = z.object({ name: workspaceName });
export const workspaceRenameBody = z.object({ name: workspaceName });
export const workspaceQuotaBody = z.object({ monthlyMinutes: z.number().int().min(0).nullable() });

// ---- wiki ----
export const wikiPage = z.object({
  guid: z.string(),
  canonicalName: z.string(),
  pageType: z.string(),
  description: z.string(),
  mentionCount: z.number().int(),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export const wikiPageDetail = wikiPage.extend({ aliases: z.array(z.string()), links: z.array(z.object({ guid: z.string(), canonicalName: z.string() })) });
export const wikiMention = z.object({
  guid: z.string(),
  noteId: z.number().int(),
  kind: z.string(),
  sourceUserId: z.number().int(),
  extractedText: z.string(),
  createdAt: timestamp,
  paragraphId: z.number().int(),
  paragraphUuid: z.string(),
  confidence: z.number(),
});

// ---- voice file jobs ----
export const voiceJobCreateBody = z
  .object({
    transcriptLocaleHints: z.array(locale).max(LIMITS.transcriptLocaleHintsMax).nullish(),
    translationLocales: z.array(locale).max(LIMITS.translationLocalesMax).nullish(),
    workspaceGuid: z.string().nullish(),
  })
  .nullish();
export const voiceJob = z.object({
  id: z.string(),
  status: z.enum(JOB_STATUSES),
  workspaceGuid: z.string().nullable(),
  createdAt: timestamp,
  fileUploadedAt: timestamp.nullable(),
  processStartedAt: timestamp.nullable(),
  processCompletedAt: timestamp.nullable(),
  errorMessage: z.string().nullable(),
  durationSeconds: z.number().nullable(),
  transcriptLocaleHints: z.array(z.string()),
  translationLocales: z.array(z.string()),
});
export const voiceJobCreated = z.object({
  id: z.string(),
  status: z.literal('CREATED'),
  uploadUri: z.string(),
  uploadUriExpiresAt: timestamp,
  workspaceGuid: z.string().nullable(),
  transcriptLocaleHints: z.array(z.string()),
  translationLocales: z.array(z.string()),
  createdAt: timestamp,
});
export const transcriptSegment = z.object({
  index: z.number().int(),
  startTimeMillis: z.number().int(),
  endTimeMillis: z.number().int(),
  speakerLabel: z.string().nullable(),
  text: z.string(),
});
/** decisions.md §4.5: `segments`, and the same array as `paragraphs` for clients of the earlier reading. */
export const transcript = z.object({
  jobId: z.string(),
  locale: z.string(),
  text: z.string(),
  segments: z.array(transcriptSegment),
  paragraphs: z.array(transcriptSegment),
});
export const translation = z.object({ jobId: z.string(), locale: z.string(), text: z.string() });
export const paragraphSummary = z.object({ jobId: z.string(), locale: z.string(), summary: z.object({ type: z.string(), content: z.string() }) });

// ---- errors (decisions.md §1.3–§1.4) ----
export const errorBodySchema = z.object({
  code: z.number().int().min(100000).max(599999),
  errorType: z.enum(ERROR_TYPES),
  message: z.string(),
  detail: z.string().nullable().optional(),
});
export const errorEnvelopeSchema = z.object({ error: errorBodySchema });

/** The older 401 body (decisions.md §1.4) the CLI also accepts. */
export const legacyAuthErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), type: z.string() }),
});
