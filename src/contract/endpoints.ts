import { z } from 'zod';
import { API_PREFIX, PAGE_SIZES, type PageSpec } from './limits.js';
import type { Scope } from './scopes.js';
import * as s from './schemas.js';
import { KEY_TYPES, type Endpoint, type HttpMethod, type KeyType } from './types.js';

/**
 * The endpoint table of the service: every row of service-interface.md, with the
 * decisions of decisions.md. The client, the sandbox, the completions and the docs read it.
 */

const ALL: readonly KeyType[] = KEY_TYPES;
/** Keys acting for a user: user keys, and legacy personal keys until their cutoff. */
const USER_KEYS: readonly KeyType[] = ['USER', 'LEGACY_PERSONAL'];
/**
 * Organization management (decisions.md §2.4): user keys (an organization admin's; other users get 403003
 * from the handler, and a legacy personal key acts as its user's key) and organization keys.
 */
const ORG_KEYS: readonly KeyType[] = ['USER', 'LEGACY_PERSONAL', 'ORGANIZATION'];
/** Document generation (decisions.md §2.3). */
const DOC_WRITERS: readonly KeyType[] = ['USER', 'LEGACY_PERSONAL', 'ORGANIZATION'];

const p = (shape: Record<string, z.ZodType>) => z.object(shape);
const str = z.string();
const noteParams = p({ noteGuid: str });
const wsParams = p({ workspaceGuid: str });
const folderParams = p({ folderId: str });
const jobParams = p({ jobId: str });
const cursorQuery = { cursor: z.string().optional() };
const pageQuery = (spec: PageSpec) => ({ ...cursorQuery, [spec.param]: z.coerce.number().int().min(spec.min).max(spec.max).optional() });
const noteListQuery = p({
  ...pageQuery(PAGE_SIZES.notes),
  folderId: z.string().optional(),
  keyword: z.string().optional(),
});

interface Row {
  id: string;
  method: HttpMethod;
  path: string;
  summary: string;
  scope: Scope | null;
  keyTypes?: readonly KeyType[];
  auth?: boolean;
  idempotent?: boolean;
  successStatus?: number;
  page?: PageSpec;
  deprecated?: boolean;
  updateMask?: readonly string[];
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  response?: z.ZodType;
}

function row(r: Row): Endpoint {
  const safe = r.method === 'GET' || r.method === 'PUT' || r.method === 'DELETE';
  const path = r.path.startsWith('/v1/') ? r.path : API_PREFIX + r.path;
  return {
    id: r.id,
    method: r.method,
    path,
    summary: r.summary,
    scope: r.scope,
    auth: r.auth ?? true,
    keyTypes: r.keyTypes ?? ALL,
    idempotent: r.idempotent ?? safe,
    successStatus: r.successStatus ?? (r.method === 'DELETE' ? 204 : 200),
    page: r.page,
    deprecated: r.deprecated,
    updateMask: r.updateMask,
    params: r.params,
    query: r.query,
    body: r.body,
    response: r.response,
  };
}

// ---- word memories: five scope paths, each with list/get and bulk create/update/delete on two paths ----
const WM_SCOPES = [
  { key: 'user', path: '/users/me', params: undefined, read: USER_KEYS, write: USER_KEYS },
  { key: 'workspace', path: '/workspaces/{workspaceGuid}', params: wsParams, read: ['USER', 'LEGACY_PERSONAL', 'WORKSPACE'], write: USER_KEYS },
  { key: 'workspaceMe', path: '/workspaces/me', params: undefined, read: ['USER', 'LEGACY_PERSONAL', 'WORKSPACE'], write: USER_KEYS },
  { key: 'teamMe', path: '/teams/me', params: undefined, read: ['USER', 'LEGACY_PERSONAL', 'WORKSPACE'], write: USER_KEYS },
  { key: 'organization', path: '/organizations/me', params: undefined, read: ORG_KEYS, write: ORG_KEYS },
] as const satisfies ReadonlyArray<{ key: string; path: string; params: z.ZodType | undefined; read: readonly KeyType[]; write: readonly KeyType[] }>;
export type WordMemoryScopeKey = (typeof WM_SCOPES)[number]['key'];

function wordMemoryRows(): Endpoint[] {
  const out: Endpoint[] = [];
  for (const sc of WM_SCOPES) {
    const base = `${sc.path}/word-memories`;
    const withId = sc.params ? (sc.params as z.ZodObject).extend({ id: z.coerce.number().int() }) : p({ id: z.coerce.number().int() });
    out.push(
      row({ id: `wm.${sc.key}.list`, method: 'GET', path: base, summary: `List ${sc.key} word memories`, scope: 'word_memory:read', keyTypes: sc.read, page: PAGE_SIZES.wordMemories, params: sc.params, query: p(pageQuery(PAGE_SIZES.wordMemories)), response: s.pageOf(s.wordMemory) }),
      row({ id: `wm.${sc.key}.get`, method: 'GET', path: `${base}/{id}`, summary: `Get a ${sc.key} word memory`, scope: 'word_memory:read', keyTypes: sc.read, params: withId, response: s.wordMemory }),
    );
    for (const [suffix, variant] of [['', ''], ['/bulk', 'Bulk']] as const) {
      const path = base + suffix;
      out.push(
        // Creating skips entries that already exist, so repeating the request is harmless.
        row({ id: `wm.${sc.key}.create${variant}`, method: 'POST', path, summary: `Create ${sc.key} word memories (bulk)`, scope: 'word_memory:write', keyTypes: sc.write, idempotent: true, params: sc.params, body: s.wmCreateBody, response: s.wmCreateResponse }),
        row({ id: `wm.${sc.key}.update${variant}`, method: 'PATCH', path, summary: `Update ${sc.key} word memories (bulk)`, scope: 'word_memory:write', keyTypes: sc.write, idempotent: true, params: sc.params, body: s.wmUpdateBody, response: s.wmUpdateResponse }),
        row({ id: `wm.${sc.key}.delete${variant}`, method: 'DELETE', path, summary: `Delete ${sc.key} word memories (bulk)`, scope: 'word_memory:write', keyTypes: sc.write, successStatus: 200, params: sc.params, body: s.wmDeleteBody, response: s.wmDeleteResponse }),
      );
    }
  }
  return out;
}

// ---- templates: eight list/get paths ----
function templateRows(): Endpoint[] {
  const list = s.unpagedListOf(s.template);
  const scope: Scope = 'note_document_template:read';
  return [
    row({ id: 'templates.list', method: 'GET', path: '/note-document-templates', summary: 'List the templates the key can use', scope, response: list }),
    row({ id: 'templates.managed', method: 'GET', path: '/note-document-templates/managed', summary: 'List managed templates', scope, response: list }),
    row({ id: 'templates.get', method: 'GET', path: '/note-document-templates/{templateId}', summary: 'Get a template', scope, params: p({ templateId: z.coerce.number().int() }), response: s.template }),
    row({ id: 'templates.user', method: 'GET', path: '/users/me/note-document-templates', summary: "List the user's templates", scope, keyTypes: USER_KEYS, response: list }),
    row({ id: 'templates.workspaceMe', method: 'GET', path: '/workspaces/me/note-document-templates', summary: "List the key's workspace templates", scope, response: list }),
    row({ id: 'templates.allWorkspaces', method: 'GET', path: '/workspaces/-/note-document-templates', summary: 'List the templates of every workspace the key reaches', scope, response: list }),
    row({ id: 'templates.workspace', method: 'GET', path: '/workspaces/{workspaceGuid}/note-document-templates', summary: "List a workspace's templates", scope, params: wsParams, response: list }),
    row({ id: 'templates.organization', method: 'GET', path: '/organizations/me/note-document-templates', summary: "List the organization's templates", scope, response: list }),
  ];
}

const voiceResults = (id: string, path: string, summary: string, response: z.ZodType, params: z.ZodType = jobParams) =>
  row({ id, method: 'GET', path: `/voice-file/jobs/{jobId}${path}`, summary, scope: 'voice_file_job:read', params, response });
const jobLocaleParams = p({ jobId: str, locale: str });

export const ENDPOINTS: readonly Endpoint[] = [
  // ---- meta and identity ----
  row({ id: 'scopes.list', method: 'GET', path: '/v1/api-key-scopes', summary: 'List the assignable API-key scopes', scope: null, auth: false, response: s.listOf(s.scopeItem) }),
  row({ id: 'auth.me', method: 'GET', path: '/auth/me', summary: 'Describe the calling key', scope: null, response: s.authMe }),
  row({ id: 'auth.organization', method: 'GET', path: '/auth/organizations/me', summary: "The key's organization", scope: null, response: s.organization }),
  row({ id: 'auth.workspaces', method: 'GET', path: '/auth/workspaces', summary: 'Workspaces the key reaches', scope: null, response: s.listOf(s.workspace) }),
  row({ id: 'auth.workspace', method: 'GET', path: '/auth/workspaces/me', summary: "The key's bound workspace", scope: null, response: s.workspace }),

  // ---- notes ----
  row({ id: 'notes.list', method: 'GET', path: '/notes', summary: 'List notes', scope: 'note:read', page: PAGE_SIZES.notes, query: noteListQuery, response: s.pageOf(s.note) }),
  row({ id: 'notes.search', method: 'POST', path: '/notes/search', summary: 'Deep search (deprecated)', scope: 'note:read', idempotent: true, deprecated: true, body: s.searchBody, response: s.searchResponse }),
  row({ id: 'notes.listWorkspace', method: 'GET', path: '/workspaces/{workspaceGuid}/notes', summary: "List a workspace's notes", scope: 'note:read', page: PAGE_SIZES.notes, params: wsParams, query: noteListQuery, response: s.pageOf(s.note) }),
  row({ id: 'notes.searchWorkspace', method: 'POST', path: '/workspaces/{workspaceGuid}/notes/search', summary: "Deep search a workspace's notes", scope: 'note:read', idempotent: true, params: wsParams, body: s.searchBody, response: s.searchResponse }),
  row({ id: 'notes.listOrganization', method: 'GET', path: '/organizations/me/notes', summary: "List the organization's notes", scope: 'note:read', keyTypes: ORG_KEYS, page: PAGE_SIZES.notes, query: noteListQuery, response: s.pageOf(s.note) }),
  row({ id: 'notes.get', method: 'GET', path: '/notes/{noteGuid}', summary: 'Get a note', scope: 'note:read', params: noteParams, response: s.note }),
  row({ id: 'notes.update', method: 'PATCH', path: '/notes/{noteGuid}', summary: 'Rename a note', scope: 'note:write', keyTypes: USER_KEYS, idempotent: true, updateMask: ['title'], params: noteParams, query: p({ updateMask: z.string().optional() }), body: s.noteUpdateBody, response: s.note }),
  row({ id: 'notes.folders', method: 'GET', path: '/notes/{noteGuid}/folders', summary: "A note's folders", scope: 'note:read', params: noteParams, response: s.unpagedListOf(s.folder) }),
  row({ id: 'notes.paragraphs', method: 'GET', path: '/notes/{noteGuid}/paragraphs', summary: "A note's transcript paragraphs", scope: 'note:read', page: PAGE_SIZES.paragraphs, params: noteParams, query: p(pageQuery(PAGE_SIZES.paragraphs)), response: s.pageOf(s.paragraph) }),
  row({ id: 'notes.shareLink.get', method: 'GET', path: '/notes/{noteGuid}/share-link', summary: "A note's share link", scope: 'note:read', params: noteParams, response: s.shareLink }),
  row({ id: 'notes.shareLink.put', method: 'PUT', path: '/notes/{noteGuid}/share-link', summary: 'Create or replace a share link', scope: 'note:write', keyTypes: USER_KEYS, params: noteParams, body: s.shareLinkBody, response: s.shareLink }),
  row({ id: 'notes.shareLink.delete', method: 'DELETE', path: '/notes/{noteGuid}/share-link', summary: 'Delete a share link', scope: 'note:write', keyTypes: USER_KEYS, params: noteParams }),
  row({ id: 'notes.documents.list', method: 'GET', path: '/notes/{noteGuid}/documents', summary: "A note's generated documents", scope: 'note_document:read', params: noteParams, response: s.documentList }),
  row({ id: 'notes.documents.get', method: 'GET', path: '/notes/{noteGuid}/documents/{documentId}', summary: 'A generated document', scope: 'note_document:read', params: p({ noteGuid: str, documentId: z.coerce.number().int() }), query: p({ format: z.enum(s.DOCUMENT_FORMATS).optional() }), response: s.noteDocument }),
  row({ id: 'notes.documents.generate', method: 'POST', path: '/notes/{noteGuid}/documents', summary: 'Generate a document from a template', scope: 'note_document:write', keyTypes: DOC_WRITERS, successStatus: 201, params: noteParams, body: s.generateDocumentBody, response: s.generatedDocument }),
  row({ id: 'notes.summaries.list', method: 'GET', path: '/notes/{noteGuid}/summaries', summary: "A note's summaries", scope: 'note_summary:read', params: noteParams, response: s.unpagedListOf(s.summaryListItem) }),
  row({ id: 'notes.summaries.get', method: 'GET', path: '/notes/{noteGuid}/summaries/{summaryId}', summary: 'A summary', scope: 'note_summary:read', params: p({ noteGuid: str, summaryId: z.coerce.number().int() }), query: p({ format: z.enum(s.SUMMARY_FORMATS).optional() }), response: s.summary }),

  // ---- templates ----
  ...templateRows(),

  // ---- folders ----
  row({ id: 'folders.listTeam', method: 'GET', path: '/teams/me/folders', summary: "The key's workspace folders", scope: 'folder:read', response: s.unpagedListOf(s.folder) }),
  row({ id: 'folders.listWorkspace', method: 'GET', path: '/workspaces/{workspaceGuid}/folders', summary: "A workspace's folders", scope: 'folder:read', params: wsParams, response: s.unpagedListOf(s.folder) }),
  row({ id: 'folders.get', method: 'GET', path: '/folders/{folderId}', summary: 'Get a folder', scope: 'folder:read', params: folderParams, response: s.folder }),
  row({ id: 'folders.createTeam', method: 'POST', path: '/teams/me/folders', summary: "Create a folder in the key's workspace", scope: 'folder:write', keyTypes: USER_KEYS, successStatus: 201, body: s.folderCreateBody, response: s.folderCreated }),
  row({ id: 'folders.createWorkspace', method: 'POST', path: '/workspaces/{workspaceGuid}/folders', summary: 'Create a folder in a workspace', scope: 'folder:write', keyTypes: USER_KEYS, successStatus: 201, params: wsParams, body: s.folderCreateInWorkspaceBody, response: s.folderCreated }),
  row({ id: 'folders.update', method: 'PATCH', path: '/folders/{folderId}', summary: 'Update a folder', scope: 'folder:write', keyTypes: USER_KEYS, idempotent: true, params: folderParams, body: s.folderUpdateBody, response: s.folder }),
  row({ id: 'folders.delete', method: 'DELETE', path: '/folders/{folderId}', summary: 'Delete a folder and its sub-folders', scope: 'folder:write', keyTypes: USER_KEYS, params: folderParams }),
  row({ id: 'folders.move', method: 'PUT', path: '/folders/{folderId}/move', summary: 'Move a folder', scope: 'folder:write', keyTypes: USER_KEYS, params: folderParams, body: s.folderMoveBody, response: s.folder }),

  // ---- word memories ----
  ...wordMemoryRows(),

  // ---- wiki ----
  row({ id: 'wiki.pages', method: 'GET', path: '/workspaces/{workspaceGuid}/wiki/pages', summary: 'List wiki pages', scope: 'wiki:read', page: PAGE_SIZES.wiki, params: wsParams, query: p({ ...pageQuery(PAGE_SIZES.wiki), type: z.string().optional(), since: s.timestamp.optional(), q: z.string().optional() }), response: s.pageOf(s.wikiPage) }),
  row({ id: 'wiki.page', method: 'GET', path: '/workspaces/{workspaceGuid}/wiki/pages/{pageGuid}', summary: 'Get a wiki page', scope: 'wiki:read', params: p({ workspaceGuid: str, pageGuid: str }), response: s.wikiPageDetail }),
  row({ id: 'wiki.mentions', method: 'GET', path: '/workspaces/{workspaceGuid}/wiki/pages/{pageGuid}/mentions', summary: "A wiki page's mentions", scope: 'wiki:read', page: PAGE_SIZES.wiki, params: p({ workspaceGuid: str, pageGuid: str }), query: p(pageQuery(PAGE_SIZES.wiki)), response: s.pageOf(s.wikiMention) }),
  row({ id: 'wiki.search', method: 'GET', path: '/workspaces/{workspaceGuid}/wiki/search', summary: 'Search the wiki', scope: 'wiki:read', params: wsParams, query: p({ q: z.string().min(1) }), response: s.listOf(s.wikiPage) }),

  // ---- organization management ----
  row({ id: 'workspaces.list', method: 'GET', path: '/organizations/me/workspaces', summary: "List the organization's workspaces", scope: 'workspace:read', keyTypes: ORG_KEYS, response: s.unpagedListOf(s.workspace) }),
  row({ id: 'workspaces.get', method: 'GET', path: '/organizations/me/workspaces/{workspaceGuid}', summary: 'Get a workspace', scope: 'workspace:read', keyTypes: ORG_KEYS, params: wsParams, response: s.workspace }),
  row({ id: 'workspaces.create', method: 'POST', path: '/organizations/me/workspaces', summary: 'Create a workspace', scope: 'workspace:write', keyTypes: ORG_KEYS, successStatus: 201, body: s.workspaceCreateBody, response: s.workspace }),
  row({ id: 'workspaces.rename', method: 'PATCH', path: '/organizations/me/workspaces/{workspaceGuid}', summary: 'Rename a workspace', scope: 'workspace:write', keyTypes: ORG_KEYS, idempotent: true, params: wsParams, body: s.workspaceRenameBody, response: s.workspace }),
  row({ id: 'workspaces.quota', method: 'PATCH', path: '/organizations/me/workspaces/{workspaceGuid}/quota', summary: "Set a workspace's usage quota", scope: 'workspace:write', keyTypes: ORG_KEYS, idempotent: true, params: wsParams, body: s.workspaceQuotaBody, response: s.workspace }),
  row({ id: 'workspaces.delete', method: 'DELETE', path: '/organizations/me/workspaces/{workspaceGuid}', summary: 'Delete an empty workspace', scope: 'workspace:write', keyTypes: ORG_KEYS, params: wsParams }),

  // ---- voice file jobs ----
  row({ id: 'voice.create', method: 'POST', path: '/voice-file/jobs', summary: 'Create a voice file job', scope: 'voice_file_job:write', body: s.voiceJobCreateBody, response: s.voiceJobCreated }),
  row({ id: 'voice.get', method: 'GET', path: '/voice-file/jobs/{jobId}', summary: 'Get a voice file job', scope: 'voice_file_job:read', params: jobParams, response: s.voiceJob }),
  row({ id: 'voice.uploadComplete', method: 'PUT', path: '/voice-file/jobs/{jobId}/upload-complete', summary: 'Start processing an uploaded file', scope: 'voice_file_job:write', params: jobParams, response: s.voiceJob }),
  row({ id: 'voice.delete', method: 'DELETE', path: '/voice-file/jobs/{jobId}', summary: 'Delete (and cancel) a voice file job', scope: 'voice_file_job:write', params: jobParams }),
  voiceResults('voice.transcript', '/transcript', "A job's transcript", s.transcript),
  voiceResults('voice.translations', '/translations', "A job's translations", s.listOf(s.translation)),
  voiceResults('voice.translation', '/translations/{locale}', 'One translation', s.translation, jobLocaleParams),
  voiceResults('voice.summary', '/paragraph-summary', "The transcript's paragraph summary", s.paragraphSummary),
  voiceResults('voice.transcriptSummary', '/transcript/paragraph-summary', "The transcript's paragraph summary", s.paragraphSummary),
  voiceResults('voice.translationSummary', '/translations/{locale}/paragraph-summary', "A translation's paragraph summary", s.paragraphSummary, jobLocaleParams),
];

const BY_ID = new Map(ENDPOINTS.map((e) => [e.id, e]));

/** Look an endpoint up by id; an unknown id is a programming error. */
export function endpoint(id: string): Endpoint {
  const ep = BY_ID.get(id);
  if (!ep) throw new Error(`unknown endpoint id ${id}`);
  return ep;
}

/** Fill a path template. */
export function buildPath(ep: Endpoint, params: Record<string, string | number> = {}): string {
  return ep.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === '') throw new Error(`missing path parameter ${name} for ${ep.id}`);
    return encodeURIComponent(String(v));
  });
}

/** The word-memory endpoint of a scope (`wm.<scope>.<op>`). */
export function wordMemoryEndpoint(scope: WordMemoryScopeKey, op: 'list' | 'get' | 'create' | 'update' | 'delete'): Endpoint {
  return endpoint(`wm.${scope}.${op}`);
}
