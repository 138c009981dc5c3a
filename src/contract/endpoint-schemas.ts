import * as z from 'zod';
import { ENDPOINTS, WM_OPS, type CanonicalEndpointId, type WordMemoryOp, type WordMemoryScopeKey } from './endpoints.js';
import { PAGE_SIZES, type PageSpec } from './limits.js';
import * as s from './schemas.js';
import type { Endpoint } from './types.js';

/**
 * The zod schemas of every endpoint of endpoints.ts, by id: path, query, body and response (decisions.md). The
 * sandbox validates requests with them and tests check responses against them; the CLI loads them only for
 * `--debug` response checks, so that zod stays out of a command's start-up.
 */
export interface EndpointSchemas {
  params: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
}

export type EndpointWithSchemas = Endpoint & EndpointSchemas;

/** Path parameters that are integers (decisions.md §1.7); every other one is a string. */
const INTEGER_PARAMS = new Set(['documentId', 'summaryId', 'templateId', 'id']);

/** The path parameters, read off the path template. */
function paramsOf(path: string): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [, name] of path.matchAll(/\{(\w+)\}/g)) shape[name] = INTEGER_PARAMS.has(name) ? z.coerce.number().int() : z.string();
  return z.object(shape);
}

const p = <T extends z.ZodRawShape>(shape: T) => z.object(shape);
const pageQuery = <S extends PageSpec>(spec: S) =>
  p({ cursor: z.string().optional(), [spec.param]: z.coerce.number().int().min(spec.min).max(spec.max).optional() } as { cursor: z.ZodOptional<z.ZodString> } & {
    [K in S['param']]: z.ZodOptional<z.ZodCoercedNumber>;
  });
const noteListQuery = pageQuery(PAGE_SIZES.notes).extend({ folderId: z.string().optional(), keyword: z.string().optional() });
const templateList = s.unpagedListOf(s.template);

type Entry = Omit<EndpointSchemas, 'params'>;

/** The schemas of each word-memory operation: the same in every scope. */
const WM_ENTRIES = {
  list: { query: pageQuery(PAGE_SIZES.wordMemories), response: s.pageOf(s.wordMemory) },
  get: { response: s.wordMemory },
  create: { body: s.wmCreateBody, response: s.wmCreateResponse },
  update: { body: s.wmUpdateBody, response: s.wmUpdateResponse },
  delete: { body: s.wmDeleteBody, response: s.wmDeleteResponse },
  createBulk: { body: s.wmCreateBody, response: s.wmCreateResponse },
  updateBulk: { body: s.wmUpdateBody, response: s.wmUpdateResponse },
  deleteBulk: { body: s.wmDeleteBody, response: s.wmDeleteResponse },
} as const satisfies Record<WordMemoryOp, Entry>;

type WordMemoryEntries<S extends WordMemoryScopeKey> = { [Op in WordMemoryOp as `wm.${S}.${Op}`]: (typeof WM_ENTRIES)[Op] };

const wordMemories = <S extends WordMemoryScopeKey>(scope: S): WordMemoryEntries<S> =>
  Object.fromEntries(WM_OPS.map((op) => [`wm.${scope}.${op}`, WM_ENTRIES[op]])) as WordMemoryEntries<S>;

/**
 * Every endpoint's schemas, by id. The object's own type is what the client's and the sandbox's types are inferred
 * from (ResponseOf, BodyOf, … in api.ts); an endpoint without an entry does not type-check.
 */
export const ENTRIES = {
  // ---- meta and identity ----
  'scopes.list': { response: s.listOf(s.scopeItem) },
  'auth.me': { response: s.authMe },
  'organizations.me': { response: s.organization },
  'workspaces.reachable': { response: s.listOf(s.workspace) },
  'workspaces.me': { response: s.workspace },

  // ---- notes ----
  'notes.list': { query: noteListQuery, response: s.pageOf(s.note) },
  'notes.search': { body: s.searchBody, response: s.searchResponse },
  'notes.listWorkspace': { query: noteListQuery, response: s.pageOf(s.note) },
  'notes.searchWorkspace': { body: s.searchBody, response: s.searchResponse },
  'notes.listOrganization': { query: noteListQuery, response: s.pageOf(s.note) },
  'notes.get': { response: s.note },
  'notes.update': { query: p({ updateMask: z.string().optional() }), body: s.noteUpdateBody, response: s.note },
  'notes.folders': { response: s.unpagedListOf(s.folder) },
  'notes.paragraphs': { query: pageQuery(PAGE_SIZES.paragraphs), response: s.pageOf(s.paragraph) },
  'notes.shareLink.get': { response: s.shareLink },
  'notes.shareLink.put': { body: s.shareLinkBody, response: s.shareLink },
  'notes.shareLink.delete': {},
  'notes.documents.list': { response: s.documentList },
  'notes.documents.get': { query: p({ format: z.enum(s.DOCUMENT_FORMATS).optional() }), response: s.noteDocument },
  'notes.documents.generate': { body: s.generateDocumentBody, response: s.generatedDocument },
  'notes.summaries.list': { response: s.unpagedListOf(s.summaryListItem) },
  'notes.summaries.get': { query: p({ format: z.enum(s.SUMMARY_FORMATS).optional() }), response: s.summary },

  // ---- templates ----
  'templates.list': { response: templateList },
  'templates.managed': { response: templateList },
  'templates.get': { response: s.template },
  'templates.user': { response: templateList },
  'templates.workspaceMe': { response: templateList },
  'templates.allWorkspaces': { response: templateList },
  'templates.workspace': { response: templateList },
  'templates.organization': { response: templateList },

  // ---- folders ----
  'folders.listTeam': { response: s.unpagedListOf(s.folder) },
  'folders.listWorkspace': { response: s.unpagedListOf(s.folder) },
  'folders.get': { response: s.folder },
  'folders.createTeam': { body: s.folderCreateBody, response: s.folderCreated },
  'folders.createWorkspace': { body: s.folderCreateInWorkspaceBody, response: s.folderCreated },
  'folders.update': { body: s.folderUpdateBody, response: s.folder },
  'folders.delete': {},
  'folders.move': { body: s.folderMoveBody, response: s.folder },

  // ---- word memories ----
  ...wordMemories('user'),
  ...wordMemories('workspace'),
  ...wordMemories('workspaceMe'),
  ...wordMemories('teamMe'),
  ...wordMemories('organization'),

  // ---- wiki ----
  'wiki.pages': {
    query: pageQuery(PAGE_SIZES.wiki).extend({ type: z.string().optional(), since: s.timestamp.optional(), q: z.string().optional() }),
    response: s.pageOf(s.wikiPage),
  },
  'wiki.page': { response: s.wikiPageDetail },
  'wiki.mentions': { query: pageQuery(PAGE_SIZES.wiki), response: s.pageOf(s.wikiMention) },
  'wiki.search': { query: p({ q: z.string().min(1) }), response: s.listOf(s.wikiPage) },

  // ---- organization management ----
  'workspaces.list': { response: s.unpagedListOf(s.workspace) },
  'workspaces.get': { response: s.workspace },
  'workspaces.create': { body: s.workspaceCreateBody, response: s.workspace },
  'workspaces.rename': { body: s.workspaceRenameBody, response: s.workspace },
  'workspaces.quota': { body: s.workspaceQuotaBody, response: s.workspace },
  'workspaces.delete': {},

  // ---- voice file jobs ----
  'voice.create': { body: s.voiceJobCreateBody, response: s.voiceJobCreated },
  'voice.get': { response: s.voiceJob },
  'voice.uploadComplete': { response: s.voiceJob },
  'voice.delete': {},
  'voice.transcript': { response: s.transcript },
  'voice.translations': { response: s.listOf(s.translation) },
  'voice.translation': { response: s.translation },
  'voice.summary': { response: s.paragraphSummary },
  'voice.transcriptSummary': { response: s.paragraphSummary },
  'voice.translationSummary': { response: s.paragraphSummary },
} satisfies { [Id in CanonicalEndpointId]: Entry };

/**
 * Every endpoint with its schemas (an alias has those of the endpoint it is an alias of); an endpoint without an
 * entry here, or an entry without an endpoint, is a programming error.
 */
export const ENDPOINTS_WITH_SCHEMAS: readonly EndpointWithSchemas[] = ENDPOINTS.map((ep) => {
  const entry: Entry | undefined = (ENTRIES as Record<string, Entry>)[ep.aliasOf ?? ep.id];
  if (!entry) throw new Error(`endpoint-schemas.ts has no entry for ${ep.id}`);
  return { ...ep, params: paramsOf(ep.path), ...entry };
});
const stray = Object.keys(ENTRIES).filter((id) => !ENDPOINTS.some((ep) => ep.id === id && !ep.aliasOf));
if (stray.length) throw new Error(`endpoint-schemas.ts has entries for unknown endpoints: ${stray.join(', ')}`);

const BY_ID = new Map(ENDPOINTS_WITH_SCHEMAS.map((e) => [e.id, e]));

/** The schemas of an endpoint, by id (undefined for an id that is not in the table). */
export function schemasOf(id: string): EndpointWithSchemas | undefined {
  return BY_ID.get(id);
}
