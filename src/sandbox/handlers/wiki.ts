import type { Shape } from '../../contract/api.js';
import type { CanonicalEndpointId } from '../../contract/endpoints.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import { found, reachesWorkspace, visibility } from '../access.js';
import { decodeRow, type Db } from '../db.js';
import { loadedValidation } from '../validation-load.js';
import { ApiFailure, badRequest, decodeCursor, encodeCursor, keysetPage, notFound } from '../http.js';
import type { WorkspaceRow } from '../serialize.js';
import type { HandlerContext, HandlerMap, Principal } from '../types.js';

/**
 * The workspace wiki (decisions.md §3.9, §5.2, §5.4). Mentions from notes the caller cannot read are
 * dropped for every key type, and `mentionCount` counts only the mentions the caller can see.
 */

interface PageRow {
  guid: string;
  workspace_guid: string;
  canonical_name: string;
  page_type: string;
  description: string;
  aliases: string[];
  links: string[];
  created_at: string;
  updated_at: string;
}

interface MentionRow {
  id: number;
  guid: string;
  page_guid: string;
  note_guid: string;
  note_id: number;
  kind: string;
  source_user_id: number;
  extracted_text: string;
  created_at: string;
  paragraph_id: number;
  paragraph_uuid: string;
  confidence: number;
}


/** The workspace of the route: reachable by the key (404), with the wiki plan (403004) and activated (403005). */
function wikiWorkspace(db: Db, p: Principal, guid: string): WorkspaceRow {
  const w = reachesWorkspace(db, p, guid) ? db.get<WorkspaceRow>('SELECT * FROM workspaces WHERE guid = ?', [guid]) : undefined;
  if (!w) throw notFound('workspace');
  if (!w.wiki_plan) throw new ApiFailure(ERROR_CODES.WIKI_PLAN_REQUIRED, 'this workspace has no wiki plan', 'WIKI_PLAN_REQUIRED');
  if (!w.wiki_enabled) throw new ApiFailure(ERROR_CODES.WIKI_NOT_ACTIVATED, 'the wiki of this workspace is not activated', 'WIKI_NOT_ACTIVATED');
  return w;
}

/** Everything a wiki handler needs: the checked workspace and the caller's visibility rules as SQL. */
function wikiScope(ctx: HandlerContext<Extract<CanonicalEndpointId, `wiki.${string}`>>) {
  const { rt, principal: p, params } = ctx;
  const ws = wikiWorkspace(rt.db, p, params.workspaceGuid);
  const v = visibility(p);
  /** Mentions from notes the caller cannot read are dropped (decisions.md §5.2): this condition keeps the others of `m`. */
  const readable = found(`SELECT 1 FROM notes n WHERE n.guid = m.note_guid AND ${v.note}`);
  /** Page columns, with the count of the mentions the caller can see. */
  const columns = `p.*, (SELECT count(*) FROM wiki_mentions m WHERE m.page_guid = p.guid AND ${readable}) AS mention_count`;
  return { ws, readable, columns, params: { ...v.params, $wiki_ws: ws.guid } };
}

type PageRead = PageRow & { mention_count: number };

const pageJson = (r: PageRead): Shape<'wikiPage'> => ({
  guid: r.guid,
  canonicalName: r.canonical_name,
  pageType: r.page_type,
  description: r.description,
  mentionCount: r.mention_count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const decodePage = (r: PageRead): PageRead => decodeRow('wiki_pages', r);

/**
 * How well a page matches a search text `q` (already trimmed and lower-cased): 0 = not at all; the name
 * counts more than aliases, aliases more than the description. Case folding is JavaScript's (nvx_lower).
 */
const MATCH_SCORE = `CASE
  WHEN nvx_lower(p.canonical_name) = $q THEN 4
  WHEN instr(nvx_lower(p.canonical_name), $q) > 0 THEN 3
  WHEN (SELECT 1 FROM json_each(p.aliases) a WHERE instr(nvx_lower(a.value), $q) > 0 LIMIT 1) IS NOT NULL THEN 2
  WHEN instr(nvx_lower(p.description), $q) > 0 THEN 1
  ELSE 0 END`;

const PAGE_ORDER = 'p.canonical_name COLLATE NOCASE, p.guid';
const pagesCursor = (v: any) => typeof v?.n === 'string' && typeof v?.g === 'string';

function mentionJson(m: MentionRow): Shape<'wikiMention'> {
  return {
    guid: m.guid,
    noteId: m.note_id,
    kind: m.kind,
    sourceUserId: m.source_user_id,
    extractedText: m.extracted_text,
    createdAt: m.created_at,
    paragraphId: m.paragraph_id,
    paragraphUuid: m.paragraph_uuid,
    confidence: m.confidence,
  };
}

export const wikiHandlers = {
  /** One query per page: the filters and the caller's mention counts in SQL, keyset paging in name order. */
  'wiki.pages': (ctx) => {
    const { query, rt } = ctx;
    let since: string | undefined;
    if (query.since !== undefined) {
      if (!loadedValidation().isIsoDateTime(query.since)) throw badRequest('invalid query', 'since: must be an ISO 8601 timestamp, e.g. 2026-10-30T00:00:00Z');
      since = new Date(Date.parse(query.since)).toISOString();
    }
    const scope = wikiScope(ctx);
    const size: number = query.limit ?? PAGE_SIZES.wiki.default;
    const params: Record<string, unknown> = { ...scope.params, $limit: size + 1 };
    const where = ['p.workspace_guid = $wiki_ws'];
    // An empty filter (`?type=`, `?q=`) filters nothing, as if it were left out.
    const type = query.type?.trim().toLowerCase() || undefined;
    if (type !== undefined) {
      where.push('nvx_lower(p.page_type) = $type');
      params.$type = type;
    }
    if (since !== undefined) {
      where.push('p.updated_at >= $since'); // timestamps are stored as toISOString() text, which orders as time does
      params.$since = since;
    }
    const q = query.q?.trim().toLowerCase() || undefined;
    if (q !== undefined) {
      where.push(`${MATCH_SCORE} > 0`);
      params.$q = q;
    }
    const after = decodeCursor<{ n: string; g: string }>(query.cursor, pagesCursor);
    if (after) {
      where.push('(p.canonical_name COLLATE NOCASE, p.guid) > ($afterName, $afterGuid)');
      params.$afterName = after.n;
      params.$afterGuid = after.g;
    }
    const rows = rt.db.all<PageRead>(`SELECT ${scope.columns} FROM wiki_pages p WHERE ${where.join(' AND ')} ORDER BY ${PAGE_ORDER} LIMIT $limit`, params);
    const more = rows.length > size;
    const page = more ? rows.slice(0, size) : rows;
    const last = page[page.length - 1];
    return { content: page.map(pageJson), nextCursor: more ? encodeCursor({ n: last.canonical_name, g: last.guid }) : null };
  },

  'wiki.page': (ctx) => {
    const { rt, params } = ctx;
    const scope = wikiScope(ctx);
    const row = rt.db.get<PageRead>(`SELECT ${scope.columns} FROM wiki_pages p WHERE p.workspace_guid = $wiki_ws AND p.guid = $page`, { ...scope.params, $page: params.pageGuid });
    if (!row) throw notFound('wiki page');
    const r = decodePage(row);
    // Links to pages of the workspace, in the page's order; links to pages that are gone are left out.
    const links = rt.db.all<{ guid: string; canonical_name: string }>(
      `SELECT t.guid, t.canonical_name FROM json_each($links) j, wiki_pages t WHERE t.guid = j.value AND t.workspace_guid = $wiki_ws ORDER BY j.key`,
      { $links: JSON.stringify(r.links), $wiki_ws: scope.ws.guid },
    );
    return { ...pageJson(r), aliases: r.aliases, links: links.map((l) => ({ guid: l.guid, canonicalName: l.canonical_name })) };
  },

  'wiki.mentions': (ctx) => {
    const { rt, query, params } = ctx;
    const scope = wikiScope(ctx);
    const page = rt.db.get<{ guid: string }>('SELECT guid FROM wiki_pages WHERE workspace_guid = ? AND guid = ?', [scope.ws.guid, params.pageGuid]);
    if (!page) throw notFound('wiki page');
    // One query per page of results: mentions the caller cannot read are skipped, not counted.
    const result = keysetPage<MentionRow>({
      cursor: query.cursor,
      size: query.limit ?? PAGE_SIZES.wiki.default,
      keyOf: (m) => m.id,
      fetch: (after, limit) =>
        rt.db.all<MentionRow>(`SELECT m.* FROM wiki_mentions m WHERE m.page_guid = $page AND m.id > $after AND ${scope.readable} ORDER BY m.id LIMIT $limit`, {
          ...scope.params,
          $page: page.guid,
          $after: Number.isFinite(after) ? after : 0,
          $limit: limit,
        }),
    });
    return { content: result.rows.map(mentionJson), nextCursor: result.nextCursor };
  },

  'wiki.search': (ctx) => {
    const scope = wikiScope(ctx);
    const q = String(ctx.query.q).trim().toLowerCase();
    if (!q) return { content: [] };
    const rows = ctx.rt.db.all<PageRead>(
      `SELECT * FROM (SELECT ${scope.columns}, ${MATCH_SCORE} AS score FROM wiki_pages p WHERE p.workspace_guid = $wiki_ws) p
       WHERE p.score > 0 ORDER BY p.score DESC, ${PAGE_ORDER}`,
      { ...scope.params, $q: q },
    );
    return { content: rows.map(pageJson) };
  },
} satisfies HandlerMap;
