import { API_PREFIX, PAGE_SIZES, type PageSpec } from './limits.js';
import type { Scope } from './scopes.js';
import { once } from '../once.js';
import { KEY_TYPES, type Endpoint, type HttpMethod, type KeyType } from './types.js';

/**
 * The endpoint table of the service: every row of service-interface.md, with the decisions of decisions.md.
 * The client, the sandbox, the completions and the docs read it. It loads no schema library, so that a command
 * pays only for what it uses; the zod schemas of each endpoint's path, query, body and response are in
 * endpoint-schemas.ts, keyed by the ids here.
 *
 * The rows are built by group, each when first asked for: `endpoint('notes.get')` builds the notes' rows only, and
 * ENDPOINTS (every group, in the order of the docs) only in a module that reads it. A one-request command (notes get)
 * built all ~130 rows at start: ~2.4 M instructions and ~80 kB of young-generation allocation (callgrind), of ~150 M.
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

interface Row<Id extends string, P extends string, A extends string> {
  id: Id;
  method: HttpMethod;
  /** Relative to API_PREFIX, unless it starts with /v1/. */
  path: P;
  summary: string;
  scope: Scope | null;
  keyTypes?: readonly KeyType[];
  auth?: boolean;
  idempotent?: boolean;
  successStatus?: number;
  page?: PageSpec;
  deprecated?: boolean;
  updateMask?: readonly string[];
  /** Id of the endpoint this row is an older path of (its literal type marks the row an alias). */
  aliasOf?: A;
}

/** The full path of a row's path. */
type FullPath<P extends string> = P extends `/v1/${string}` ? P : `${typeof API_PREFIX}${P}`;

function row<const Id extends string, const P extends string, const A extends string = never>(r: Row<Id, P, A>): Endpoint<Id, FullPath<P>> & { aliasOf?: A } {
  const safe = r.method === 'GET' || r.method === 'PUT' || r.method === 'DELETE';
  const path = (r.path.startsWith('/v1/') ? r.path : API_PREFIX + r.path) as FullPath<P>;
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
    aliasOf: r.aliasOf,
  };
}

// ---- word memories: five scope paths, each with list/get and bulk create/update/delete on two paths ----
const WM_SCOPES = [
  { key: 'user', path: '/users/me', read: USER_KEYS, write: USER_KEYS },
  { key: 'workspace', path: '/workspaces/{workspaceGuid}', read: ['USER', 'LEGACY_PERSONAL', 'WORKSPACE'], write: USER_KEYS },
  { key: 'workspaceMe', path: '/workspaces/me', read: ['USER', 'LEGACY_PERSONAL', 'WORKSPACE'], write: USER_KEYS },
  { key: 'teamMe', path: '/teams/me', read: ['USER', 'LEGACY_PERSONAL', 'WORKSPACE'], write: USER_KEYS },
  { key: 'organization', path: '/organizations/me', read: ORG_KEYS, write: ORG_KEYS },
] as const satisfies ReadonlyArray<{ key: string; path: string; read: readonly KeyType[]; write: readonly KeyType[] }>;
export type WordMemoryScopeKey = (typeof WM_SCOPES)[number]['key'];
/** The word-memory operations; each has the same schemas in every scope (endpoint-schemas.ts). */
export const WM_OPS = ['list', 'get', 'create', 'update', 'delete', 'createBulk', 'updateBulk', 'deleteBulk'] as const;
export type WordMemoryOp = (typeof WM_OPS)[number];
type WmScope = (typeof WM_SCOPES)[number];
type WmRowPath<S extends WmScope, Op extends WordMemoryOp> = `${typeof API_PREFIX}${S['path']}/word-memories${Op extends 'get' ? '/{id}' : Op extends `${string}Bulk` ? '/bulk' : ''}`;
/** Every word-memory endpoint, typed: `wm.<scope>.<op>` with its path. */
type WordMemoryEndpoint = { [S in WmScope as S['key']]: { [Op in WordMemoryOp]: Endpoint<`wm.${S['key']}.${Op}`, WmRowPath<S, Op>> }[WordMemoryOp] }[WordMemoryScopeKey];

const wordMemoryRows = once((): WordMemoryEndpoint[] => {
  const out: Endpoint[] = [];
  for (const sc of WM_SCOPES) {
    const base = `${sc.path}/word-memories`;
    out.push(
      row({ id: `wm.${sc.key}.list`, method: 'GET', path: base, summary: `List ${sc.key} word memories`, scope: 'word_memory:read', keyTypes: sc.read, page: PAGE_SIZES.wordMemories }),
      row({ id: `wm.${sc.key}.get`, method: 'GET', path: `${base}/{id}`, summary: `Get a ${sc.key} word memory`, scope: 'word_memory:read', keyTypes: sc.read }),
    );
    for (const [suffix, variant] of [['', ''], ['/bulk', 'Bulk']] as const) {
      const path = base + suffix;
      out.push(
        // Creating skips entries that already exist, so repeating the request is harmless.
        row({ id: `wm.${sc.key}.create${variant}`, method: 'POST', path, summary: `Create ${sc.key} word memories (bulk)`, scope: 'word_memory:write', keyTypes: sc.write, idempotent: true }),
        row({ id: `wm.${sc.key}.update${variant}`, method: 'PATCH', path, summary: `Update ${sc.key} word memories (bulk)`, scope: 'word_memory:write', keyTypes: sc.write, idempotent: true }),
        row({ id: `wm.${sc.key}.delete${variant}`, method: 'DELETE', path, summary: `Delete ${sc.key} word memories (bulk)`, scope: 'word_memory:write', keyTypes: sc.write, successStatus: 200 }),
      );
    }
  }
  // The ids and paths are made from WM_SCOPES and WM_OPS as WordMemoryEndpoint spells them; a test compares them.
  return out as WordMemoryEndpoint[];
});

// ---- templates: eight list/get paths ----
const templateRows = once(() => {
  const scope: Scope = 'note_document_template:read';
  return [
    row({ id: 'templates.list', method: 'GET', path: '/note-document-templates', summary: 'List the templates the key can use', scope }),
    row({ id: 'templates.managed', method: 'GET', path: '/note-document-templates/managed', summary: 'List managed templates', scope }),
    row({ id: 'templates.get', method: 'GET', path: '/note-document-templates/{templateId}', summary: 'Get a template', scope }),
    row({ id: 'templates.user', method: 'GET', path: '/users/me/note-document-templates', summary: "List the user's templates", scope, keyTypes: USER_KEYS }),
    row({ id: 'templates.workspaceMe', method: 'GET', path: '/workspaces/me/note-document-templates', summary: "List the key's workspace templates", scope }),
    row({ id: 'templates.allWorkspaces', method: 'GET', path: '/workspaces/-/note-document-templates', summary: 'List the templates of every workspace the key reaches', scope }),
    row({ id: 'templates.workspace', method: 'GET', path: '/workspaces/{workspaceGuid}/note-document-templates', summary: "List a workspace's templates", scope }),
    row({ id: 'templates.organization', method: 'GET', path: '/organizations/me/note-document-templates', summary: "List the organization's templates", scope }),
  ];
});

const voiceResults = <const Id extends string, const P extends string>(id: Id, path: P, summary: string) =>
  row({ id, method: 'GET', path: `/voice-file/jobs/{jobId}${path}`, summary, scope: 'voice_file_job:read' });

// ---- meta and identity ----
const metaRows = once(() => [
  row({ id: 'scopes.list', method: 'GET', path: '/v1/api-key-scopes', summary: 'List the assignable API-key scopes', scope: null, auth: false }),
  row({ id: 'auth.me', method: 'GET', path: '/auth/me', summary: 'Describe the calling key', scope: null }),
  // The spec's ".../organizations/me, .../workspaces, .../workspaces/me" (decisions.md §2.2): the plain paths are the
  // ones to call; the `auth/` forms of an earlier reading are served too, by the same handlers.
  row({ id: 'organizations.me', method: 'GET', path: '/organizations/me', summary: "The key's organization", scope: null }),
  row({ id: 'workspaces.reachable', method: 'GET', path: '/workspaces', summary: 'Workspaces the key reaches', scope: null }),
  row({ id: 'workspaces.me', method: 'GET', path: '/workspaces/me', summary: "The key's bound workspace (404 for unbound keys)", scope: null }),
  row({ id: 'auth.organization', method: 'GET', path: '/auth/organizations/me', summary: "The key's organization", scope: null, aliasOf: 'organizations.me' }),
  row({ id: 'auth.workspaces', method: 'GET', path: '/auth/workspaces', summary: 'Workspaces the key reaches', scope: null, aliasOf: 'workspaces.reachable' }),
  row({ id: 'auth.workspace', method: 'GET', path: '/auth/workspaces/me', summary: "The key's bound workspace", scope: null, aliasOf: 'workspaces.me' }),
]);

// ---- notes ----
const noteRows = once(() => [
  row({ id: 'notes.list', method: 'GET', path: '/notes', summary: 'List notes', scope: 'note:read', page: PAGE_SIZES.notes }),
  row({ id: 'notes.search', method: 'POST', path: '/notes/search', summary: 'Deep search (deprecated)', scope: 'note:read', idempotent: true, deprecated: true }),
  row({ id: 'notes.listWorkspace', method: 'GET', path: '/workspaces/{workspaceGuid}/notes', summary: "List a workspace's notes", scope: 'note:read', page: PAGE_SIZES.notes }),
  row({ id: 'notes.searchWorkspace', method: 'POST', path: '/workspaces/{workspaceGuid}/notes/search', summary: "Deep search a workspace's notes", scope: 'note:read', idempotent: true }),
  row({ id: 'notes.listOrganization', method: 'GET', path: '/organizations/me/notes', summary: "List the organization's notes", scope: 'note:read', keyTypes: ORG_KEYS, page: PAGE_SIZES.notes }),
  row({ id: 'notes.get', method: 'GET', path: '/notes/{noteGuid}', summary: 'Get a note', scope: 'note:read' }),
  row({ id: 'notes.update', method: 'PATCH', path: '/notes/{noteGuid}', summary: 'Rename a note', scope: 'note:write', keyTypes: USER_KEYS, idempotent: true, updateMask: ['title'] }),
  row({ id: 'notes.folders', method: 'GET', path: '/notes/{noteGuid}/folders', summary: "A note's folders", scope: 'note:read' }),
  row({ id: 'notes.paragraphs', method: 'GET', path: '/notes/{noteGuid}/paragraphs', summary: "A note's transcript paragraphs", scope: 'note:read', page: PAGE_SIZES.paragraphs }),
  row({ id: 'notes.shareLink.get', method: 'GET', path: '/notes/{noteGuid}/share-link', summary: "A note's share link", scope: 'note:read' }),
  row({ id: 'notes.shareLink.put', method: 'PUT', path: '/notes/{noteGuid}/share-link', summary: 'Create or replace a share link', scope: 'note:write', keyTypes: USER_KEYS }),
  row({ id: 'notes.shareLink.delete', method: 'DELETE', path: '/notes/{noteGuid}/share-link', summary: 'Delete a share link', scope: 'note:write', keyTypes: USER_KEYS }),
  row({ id: 'notes.documents.list', method: 'GET', path: '/notes/{noteGuid}/documents', summary: "A note's generated documents", scope: 'note_document:read' }),
  row({ id: 'notes.documents.get', method: 'GET', path: '/notes/{noteGuid}/documents/{documentId}', summary: 'A generated document', scope: 'note_document:read' }),
  row({ id: 'notes.documents.generate', method: 'POST', path: '/notes/{noteGuid}/documents', summary: 'Generate a document from a template', scope: 'note_document:write', keyTypes: DOC_WRITERS, successStatus: 201 }),
  row({ id: 'notes.summaries.list', method: 'GET', path: '/notes/{noteGuid}/summaries', summary: "A note's summaries", scope: 'note_summary:read' }),
  row({ id: 'notes.summaries.get', method: 'GET', path: '/notes/{noteGuid}/summaries/{summaryId}', summary: 'A summary', scope: 'note_summary:read' }),
]);

// ---- folders ----
const folderRows = once(() => [
  row({ id: 'folders.listTeam', method: 'GET', path: '/teams/me/folders', summary: "The key's workspace folders", scope: 'folder:read' }),
  row({ id: 'folders.listWorkspace', method: 'GET', path: '/workspaces/{workspaceGuid}/folders', summary: "A workspace's folders", scope: 'folder:read' }),
  row({ id: 'folders.get', method: 'GET', path: '/folders/{folderId}', summary: 'Get a folder', scope: 'folder:read' }),
  row({ id: 'folders.createTeam', method: 'POST', path: '/teams/me/folders', summary: "Create a folder in the key's workspace", scope: 'folder:write', keyTypes: USER_KEYS, successStatus: 201 }),
  row({ id: 'folders.createWorkspace', method: 'POST', path: '/workspaces/{workspaceGuid}/folders', summary: 'Create a folder in a workspace', scope: 'folder:write', keyTypes: USER_KEYS, successStatus: 201 }),
  row({ id: 'folders.update', method: 'PATCH', path: '/folders/{folderId}', summary: 'Update a folder', scope: 'folder:write', keyTypes: USER_KEYS, idempotent: true }),
  row({ id: 'folders.delete', method: 'DELETE', path: '/folders/{folderId}', summary: 'Delete a folder and its sub-folders', scope: 'folder:write', keyTypes: USER_KEYS }),
  row({ id: 'folders.move', method: 'PUT', path: '/folders/{folderId}/move', summary: 'Move a folder', scope: 'folder:write', keyTypes: USER_KEYS }),
]);

// ---- wiki ----
const wikiRows = once(() => [
  row({ id: 'wiki.pages', method: 'GET', path: '/workspaces/{workspaceGuid}/wiki/pages', summary: 'List wiki pages', scope: 'wiki:read', page: PAGE_SIZES.wiki }),
  row({ id: 'wiki.page', method: 'GET', path: '/workspaces/{workspaceGuid}/wiki/pages/{pageGuid}', summary: 'Get a wiki page', scope: 'wiki:read' }),
  row({ id: 'wiki.mentions', method: 'GET', path: '/workspaces/{workspaceGuid}/wiki/pages/{pageGuid}/mentions', summary: "A wiki page's mentions", scope: 'wiki:read', page: PAGE_SIZES.wiki }),
  row({ id: 'wiki.search', method: 'GET', path: '/workspaces/{workspaceGuid}/wiki/search', summary: 'Search the wiki', scope: 'wiki:read' }),
]);

// ---- organization management ----
const workspaceRows = once(() => [
  row({ id: 'workspaces.list', method: 'GET', path: '/organizations/me/workspaces', summary: "List the organization's workspaces", scope: 'workspace:read', keyTypes: ORG_KEYS }),
  row({ id: 'workspaces.get', method: 'GET', path: '/organizations/me/workspaces/{workspaceGuid}', summary: 'Get a workspace', scope: 'workspace:read', keyTypes: ORG_KEYS }),
  row({ id: 'workspaces.create', method: 'POST', path: '/organizations/me/workspaces', summary: 'Create a workspace', scope: 'workspace:write', keyTypes: ORG_KEYS, successStatus: 201 }),
  row({ id: 'workspaces.rename', method: 'PATCH', path: '/organizations/me/workspaces/{workspaceGuid}', summary: 'Rename a workspace', scope: 'workspace:write', keyTypes: ORG_KEYS, idempotent: true }),
  row({ id: 'workspaces.quota', method: 'PATCH', path: '/organizations/me/workspaces/{workspaceGuid}/quota', summary: "Set a workspace's usage quota", scope: 'workspace:write', keyTypes: ORG_KEYS, idempotent: true }),
  row({ id: 'workspaces.delete', method: 'DELETE', path: '/organizations/me/workspaces/{workspaceGuid}', summary: 'Delete an empty workspace', scope: 'workspace:write', keyTypes: ORG_KEYS }),
]);

// ---- voice file jobs ----
const voiceRows = once(() => [
  row({ id: 'voice.create', method: 'POST', path: '/voice-file/jobs', summary: 'Create a voice file job', scope: 'voice_file_job:write' }),
  row({ id: 'voice.get', method: 'GET', path: '/voice-file/jobs/{jobId}', summary: 'Get a voice file job', scope: 'voice_file_job:read' }),
  row({ id: 'voice.uploadComplete', method: 'PUT', path: '/voice-file/jobs/{jobId}/upload-complete', summary: 'Start processing an uploaded file', scope: 'voice_file_job:write' }),
  row({ id: 'voice.delete', method: 'DELETE', path: '/voice-file/jobs/{jobId}', summary: 'Delete (and cancel) a voice file job', scope: 'voice_file_job:write' }),
  voiceResults('voice.transcript', '/transcript', "A job's transcript"),
  voiceResults('voice.translations', '/translations', "A job's translations"),
  voiceResults('voice.translation', '/translations/{locale}', 'One translation'),
  voiceResults('voice.summary', '/paragraph-summary', "The transcript's paragraph summary"),
  voiceResults('voice.transcriptSummary', '/transcript/paragraph-summary', "The transcript's paragraph summary"),
  voiceResults('voice.translationSummary', '/translations/{locale}/paragraph-summary', "A translation's paragraph summary"),
]);

/**
 * The group of rows an id is in (by its first word; `workspaces.` names rows of two groups). Any id it does not find
 * is looked for in every row (endpoint()), so a row added to another group is still found, at the price of ENDPOINTS.
 */
function groupOf(id: string): readonly AnyEndpoint[] {
  switch (id.slice(0, id.indexOf('.'))) {
    case 'scopes':
    case 'auth':
    case 'organizations':
      return metaRows();
    case 'workspaces':
      return id === 'workspaces.reachable' || id === 'workspaces.me' ? metaRows() : workspaceRows();
    case 'notes':
      return noteRows();
    case 'templates':
      return templateRows();
    case 'folders':
      return folderRows();
    case 'wm':
      return wordMemoryRows();
    case 'wiki':
      return wikiRows();
    case 'voice':
      return voiceRows();
    default:
      return [];
  }
}

/** Every row, in the order of the docs; an alias of an unknown id is a programming error. */
const allRows = once(() => {
  const all = [...metaRows(), ...noteRows(), ...templateRows(), ...folderRows(), ...wordMemoryRows(), ...wikiRows(), ...workspaceRows(), ...voiceRows()];
  const ids = new Set<string>(all.map((e) => e.id));
  for (const e of all) if (e.aliasOf && !ids.has(e.aliasOf)) throw new Error(`${e.id} is an alias of unknown endpoint ${e.aliasOf}`);
  return all;
});

/**
 * Every endpoint of the service. Marked pure so that a bundle whose code never reads it (the hot bundle: endpoint()
 * builds one group) leaves the whole table out; a module that reads it builds it at load, as before.
 */
export const ENDPOINTS = /* @__PURE__ */ allRows();

/** Every endpoint of the table, with its literal id and path. */
export type AnyEndpoint = (typeof ENDPOINTS)[number];
/** The id of an endpoint: a misspelt id does not type-check. */
export type EndpointId = AnyEndpoint['id'];
/** The row of one id (its literal path gives the path parameters). */
export type EndpointOf<Id extends EndpointId> = Extract<AnyEndpoint, { id: Id }>;

/** The rows that are an older path of another (their `aliasOf` is a literal id). */
type AliasRow<E = AnyEndpoint> = E extends { aliasOf?: infer A } ? (string extends NonNullable<A> ? never : [NonNullable<A>] extends [never] ? never : E) : never;
/** The ids of the older paths (decisions.md §2.2): served by the handler, and answered with the schemas, of another endpoint. */
export type AliasEndpointId = AliasRow['id'];
/** The ids of the endpoints that are not an older path of another: those with schemas and a handler. */
export type CanonicalEndpointId = Exclude<EndpointId, AliasEndpointId>;
/** The endpoint whose schemas and handler an id uses: itself, or the one it is an older path of. */
export type TargetOf<Id extends EndpointId> = Id extends AliasEndpointId ? Extract<NonNullable<EndpointOf<Id>['aliasOf']>, CanonicalEndpointId> : Id;

/** The rows looked up so far, by id. */
const BY_ID = new Map<string, AnyEndpoint>();

/** Look an endpoint up by id (building its group only); an unknown id is a programming error. */
export function endpoint<Id extends EndpointId>(id: Id): EndpointOf<Id> {
  let ep = BY_ID.get(id);
  if (!ep) {
    ep = groupOf(id).find((e) => e.id === id) ?? allRows().find((e) => e.id === id);
    if (!ep) throw new Error(`unknown endpoint id ${id}`);
    BY_ID.set(id, ep);
  }
  return ep as EndpointOf<Id>;
}

/** The older path of an endpoint (the row whose `aliasOf` is `id`), if it has one. */
export function aliasOf(id: string): Endpoint | undefined {
  return allRows().find((e) => e.aliasOf === id);
}

/** Fill a path template. */
export function buildPath(ep: Endpoint, params: Record<string, string | number> = {}): string {
  return ep.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === '') throw new Error(`missing path parameter ${name} for ${ep.id}`);
    return encodeURIComponent(String(v));
  });
}

