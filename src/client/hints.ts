/** What to do about an API error: one table, by error code first, then by HTTP status. */

import { ERROR_CODES } from '../contract/errors.js';
import { LIMITS } from '../contract/limits.js';
import { SCOPE_NAMES } from '../contract/scopes.js';
import { formatBytes } from '../io/progress.js';

export interface HintContext {
  status: number;
  code?: number | string;
  detail?: string | null;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  retryAfterSeconds?: number;
  /** The key that was sent has no dot, i.e. looks like a bare key id. */
  keyLooksLikeIdOnly?: boolean;
  /** The endpoint called (endpoints.ts id): 404 and 422 hints name its resource. */
  endpoint?: string;
  /** The service's one-line message (e.g. "share link not found"). */
  message?: string;
}

type Hint = string | ((c: HintContext) => string);

const LOGIN = 'Check the key: run `notevox auth login` again, or set NOTEVOX_API_KEY to a valid key.';
const NEW_KEY = 'Create a new key in the dashboard, then run `notevox auth login`.';
const ONLY_ID = 'Pass the whole key `{id}.{secret}` (id, dot and secret), not just the key id.';
const legacyCutoff = LIMITS.legacyKeyCutoff.slice(0, 10);
const uploadTtlMinutes = LIMITS.uploadUrlTtlSeconds / 60;

function onlyIdSent(c: HintContext): boolean {
  return Boolean(c.keyLooksLikeIdOnly) || /only (?:a |the )?key id|id only/i.test(c.detail ?? '');
}

/** The missing scope: from `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, else named in `detail`. */
export function missingScope(c: Pick<HintContext, 'detail' | 'headers'>): string | undefined {
  const fromHeader = /scope="([^"]+)"/i.exec(c.headers['www-authenticate'] ?? '')?.[1];
  if (fromHeader) return fromHeader;
  const detail = c.detail ?? '';
  return SCOPE_NAMES.find((s) => detail.includes(s));
}

const KEY_TYPE_NAMES: Record<string, string> = { USER: 'a user (account) key', ORGANIZATION: 'an organization key', WORKSPACE: 'a workspace key' };

/**
 * 403002: the key type may not make this call. When the detail names the key types that may (the sandbox does),
 * say which; otherwise the rule of decisions.md §2.3–2.4.
 */
function keyTypeHint(c: HintContext): string {
  const listed = /key types that may call it: ([A-Z_, ]+)/.exec(c.detail ?? '')?.[1];
  const names = (listed ?? '').split(/,\s*/).flatMap((t) => (KEY_TYPE_NAMES[t.trim()] ? [KEY_TYPE_NAMES[t.trim()]] : []));
  if (names.length) return `This key type cannot make this call: use ${names.join(' or ')} (\`notevox auth login\`, or NOTEVOX_API_KEY).`;
  return 'This key type cannot make this call: changes other than voice jobs need a user (account) key; organization management an organization admin\'s user key or an organization key.';
}

const BY_CODE: Record<number, Hint> = {
  [ERROR_CODES.AUTH_MISSING]: 'Run `notevox auth login` or set NOTEVOX_API_KEY.',
  [ERROR_CODES.AUTH_MALFORMED]: (c) => (onlyIdSent(c) ? ONLY_ID : LOGIN),
  [ERROR_CODES.AUTH_INACTIVE]: `The key is inactive, expired or deleted. ${NEW_KEY}`,
  [ERROR_CODES.AUTH_UNBOUND_WORKSPACE_KEY]:
    'This workspace key is not bound to a workspace yet: bind it in the dashboard, or use an account key.',
  [ERROR_CODES.AUTH_LEGACY_EXPIRED]: `Legacy personal keys stopped working on ${legacyCutoff}: create a workspace key or an account key in the dashboard, then run \`notevox auth login\`.`,
  [ERROR_CODES.VOICE_NOT_ENABLED]: 'An admin must enable voice file jobs for this workspace.',
  [ERROR_CODES.INSUFFICIENT_SCOPE]: (c) => {
    const scope = missingScope(c);
    const what = scope ? `the \`${scope}\` scope` : 'a scope this call needs';
    return `The key lacks ${what}: add it to the key in the dashboard (organization keys have fixed scopes: issue a new one with it).`;
  },
  [ERROR_CODES.KEY_TYPE_FORBIDDEN]: keyTypeHint,
  [ERROR_CODES.PERMISSION_DENIED]: 'Your user lacks the permission for this: ask a workspace or organization admin.',
  [ERROR_CODES.WIKI_PLAN_REQUIRED]: 'The workspace has no wiki plan: an admin must buy the wiki plan.',
  [ERROR_CODES.WIKI_NOT_ACTIVATED]: 'The wiki is not activated: an admin must activate it for the workspace.',
  [ERROR_CODES.UPLOAD_SIGNATURE]: `The upload URL is invalid or expired (it is valid for ${uploadTtlMinutes} minutes): create a new job and upload again.`,
  [ERROR_CODES.VOICE_PERMISSION]: 'The key lacks the voice-file permission: enable it for the key in the dashboard, or use another key.',
  [ERROR_CODES.KEYWORD_USER_KEY_ONLY]: 'Only user (account) keys may filter note lists by keyword: with this key, use deep search (`notevox notes search KEYWORD`).',
  [ERROR_CODES.NO_ROUTE]: 'The service has no such path or method: check the path and method.',
};

const BY_STATUS: Record<number, Hint> = {
  400: (c) => (c.detail ? 'Fix the request: the detail above names the field.' : 'Check the arguments and try again.'),
  401: (c) => (onlyIdSent(c) ? ONLY_ID : LOGIN),
  403: 'The key may not do this: check its scopes and type in the dashboard.',
  404: 'Check the id: it may not exist, be deleted, or be outside the key\'s reach (system keys see only notes in folders shared with all members).',
  406: 'The service did not accept the Accept header: send Accept: application/json.',
  409: 'The resource is not in a state that allows this (for example a job that is not COMPLETED yet, or an upload completed twice): check its status.',
  413: `The request is too large (JSON bodies up to ${LIMITS.jsonBodyMaxBytes / 1024 / 1024} MiB, uploads up to ${formatBytes(LIMITS.uploadMaxBytes)}): send less at once.`,
  422: 'The request is well-formed but impossible (for example a folder moved into its own subtree, nesting too deep, or a non-empty workspace deleted).',
  429: (c) =>
    `Rate limited: wait ${c.retryAfterSeconds !== undefined ? `${c.retryAfterSeconds}s` : 'a moment'} and try again, or run fewer requests at once.`,
};

function serverHint(c: HintContext): string {
  const id = c.headers['x-request-id'];
  return `The service failed; try again later. If it keeps failing, rerun with --debug and report it${id ? ` (request id ${id})` : ''}.`;
}

const says = (c: HintContext, re: RegExp) => re.test(`${c.message ?? ''} ${c.detail ?? ''}`);
const SYSTEM_KEYS = ' (system keys see only notes in folders shared with all members)';

/** 404 by the resource the endpoint is about; the message tells a missing sub-resource from a missing parent. */
function notFoundHint(c: HintContext): string | undefined {
  const ep = c.endpoint ?? '';
  if (ep.startsWith('notes.shareLink') && says(c, /share link/i))
    return 'The note has no share link: create one with `notevox notes share-link create NOTE`.';
  if (ep.startsWith('voice.') && says(c, /translation/i))
    return 'The job was not created with this translation locale: see its locales with `notevox voice translations JOB`, or create a new job with --translate LOCALE.';
  if (ep.startsWith('voice.'))
    return 'No such voice job here: check the id (as printed by `notevox voice upload`); it may have been deleted, or belong to a workspace this key does not reach.';
  if (ep.startsWith('notes.documents.generate') && says(c, /template/i)) return 'No such template for this key: list the usable ones with `notevox templates list`.';
  if (ep.startsWith('notes.documents')) return says(c, /document/i) ? 'No such document of this note: list them with `notevox notes documents list NOTE`.' : `No such note for this key: check the guid (\`notevox notes list\`)${SYSTEM_KEYS}.`;
  if (ep.startsWith('notes.summaries')) return says(c, /summary/i) ? 'No such summary of this note: list them with `notevox notes summaries list NOTE`.' : `No such note for this key: check the guid (\`notevox notes list\`)${SYSTEM_KEYS}.`;
  if (ep.startsWith('notes.') && says(c, /folder/i)) return 'No such folder for this key: list the folders with `notevox folders list`.';
  if (ep.startsWith('notes.') && !says(c, /workspace/i)) return `No such note for this key: check the guid (\`notevox notes list\`); it may be deleted${SYSTEM_KEYS}.`;
  if (ep.startsWith('wm.') && says(c, /word memor/i))
    return 'No such word memory in this scope: list them with `notevox wm list` (with the same --scope / --workspace).';
  if (ep.startsWith('wiki.') && says(c, /wiki page|page/i)) return 'No such wiki page: find pages with `notevox wiki search TEXT` or `notevox wiki pages`.';
  if (ep.startsWith('folders.create') && says(c, /folder/i))
    return 'The parent folder (--parent) does not exist or this key cannot see it: list the folders with `notevox folders list`.';
  if (ep === 'folders.move' && says(c, /folder/i))
    return 'The folder or its new parent does not exist or this key cannot see it: list the folders with `notevox folders list`.';
  if (ep.startsWith('folders.') && says(c, /folder/i)) return 'No such folder for this key: list the folders with `notevox folders list`.';
  if (ep.startsWith('templates.') && says(c, /template/i)) return 'No such template for this key: list the usable ones with `notevox templates list`.';
  if (says(c, /bound workspace/i) || ((ep.endsWith('Me') || ep.endsWith('.me') || ep.includes('Team')) && says(c, /workspace/i)))
    return 'This key is bound to no workspace: name one with --workspace (see `notevox workspaces list`).';
  if (says(c, /workspace/i)) return 'No such workspace for this key: list the ones it reaches with `notevox workspaces list`.';
  return undefined;
}

/** 422 by case: what the service found impossible, from its detail (or the endpoint when it says nothing). */
function unprocessableHint(c: HintContext): string | undefined {
  const ep = c.endpoint ?? '';
  if (says(c, /member/i) || (ep.startsWith('folders.') && says(c, /userId/)))
    return 'A --member user id is not a member of the folder\'s workspace: use the ids of its members (`notevox workspaces get WS`), or leave that member out.';
  if (ep === 'workspaces.delete' || says(c, /not empty/i))
    return 'The workspace still has notes or folders: move or delete them first (`notevox folders list --workspace WS`, `notevox notes list --workspace WS`).';
  if (says(c, /nest|depth/i)) return 'Folders nest at most 5 levels below the root: choose a parent higher up.';
  if (says(c, /itself|own sub-?folder/i)) return 'A folder cannot move into itself or one of its sub-folders: choose another parent.';
  if (says(c, /another workspace/i)) return 'The parent folder is in another workspace: choose a parent in the same workspace, or none.';
  return undefined;
}

/** The hint for an API error, or undefined when there is nothing useful to say. */
export function hintFor(c: HintContext): string | undefined {
  const specific = c.status === 404 ? notFoundHint(c) : c.status === 422 ? unprocessableHint(c) : undefined;
  const hint = (typeof c.code === 'number' ? BY_CODE[c.code] : undefined) ?? specific ?? BY_STATUS[c.status] ?? (c.status >= 500 ? serverHint : undefined);
  return typeof hint === 'function' ? hint(c) : hint;
}

/** For network failures that say nothing more specific (also the fallback for any exit 8). */
export const NETWORK_HINT = 'Check the base URL and your network (or proxy settings).';

const PROXY_HINT = 'Check the proxy in HTTPS_PROXY / HTTP_PROXY (or list the host in NO_PROXY to reach it directly)';

/** What to do about a network failure: by what failed, where (this machine or not) and whether a proxy was in the way. */
export function networkHint(c: { code: string; loopback: boolean; proxied: boolean; timeout?: string }): string {
  const raise = c.timeout ? `raise --timeout (now ${c.timeout})` : 'raise --timeout';
  switch (c.code) {
    case 'ECONNREFUSED':
      if (c.loopback) return 'Is `notevox sandbox start` running? Start it, or check the base URL (`notevox auth status`).';
      return c.proxied ? `${PROXY_HINT}.` : NETWORK_HINT;
    case 'PROXY_TIMEOUT':
      return `${PROXY_HINT}, or ${raise}.`;
    case 'PROXY_REFUSED':
      return `${PROXY_HINT}; a 407 means it wants credentials: http://user:password@proxy:3128.`;
    case 'CONNECT_TIMEOUT':
      return `Check the base URL and your network${c.proxied ? '' : ' (or proxy settings)'}, or ${raise}.`;
    case 'SEND_TIMEOUT':
    case 'HEADERS_TIMEOUT':
    case 'BODY_TIMEOUT':
      return `The service is slow or stalled: try again later, or ${raise}.`;
    default:
      return c.proxied ? `${PROXY_HINT}, and your network.` : NETWORK_HINT;
  }
}
export const NOT_LOGGED_IN_HINT = 'Run `notevox auth login` or set NOTEVOX_API_KEY.';
