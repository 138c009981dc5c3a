import { z } from 'zod';
import { ERROR_CODES } from '../../contract/errors.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import { getNote, noteVisible, reachesWorkspace } from '../access.js';
import { decodeRow, type Db } from '../db.js';
import { ApiFailure, badRequest, keysetPage, notFound, offsetPage } from '../http.js';
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

const instant = z.iso.datetime({ offset: true });

/** The workspace of the route: reachable by the key (404), with the wiki plan (403004) and activated (403005). */
function wikiWorkspace(db: Db, p: Principal, guid: string): WorkspaceRow {
  const w = reachesWorkspace(db, p, guid) ? db.get<WorkspaceRow>('SELECT * FROM workspaces WHERE guid = ?', [guid]) : undefined;
  if (!w) throw notFound('workspace');
  if (!w.wiki_plan) throw new ApiFailure(ERROR_CODES.WIKI_PLAN_REQUIRED, 'this workspace has no wiki plan', 'WIKI_PLAN_REQUIRED');
  if (!w.wiki_enabled) throw new ApiFailure(ERROR_CODES.WIKI_NOT_ACTIVATED, 'the wiki of this workspace is not activated', 'WIKI_NOT_ACTIVATED');
  return w;
}

/** Per request: which notes the caller may read (memoised, as many mentions share a note). */
function noteReader(db: Db, p: Principal): (noteGuid: string) => boolean {
  const seen = new Map<string, boolean>();
  return (guid) => {
    let ok = seen.get(guid);
    if (ok === undefined) {
      const n = getNote(db, guid);
      ok = n !== undefined && noteVisible(db, p, n);
      seen.set(guid, ok);
    }
    return ok;
  };
}

/** Everything a wiki handler needs: the checked workspace, the visibility test and the visible mention counts. */
function wikiScope(ctx: HandlerContext) {
  const { rt, principal: p, params } = ctx;
  const ws = wikiWorkspace(rt.db, p, params.workspaceGuid);
  const canRead = noteReader(rt.db, p);
  const pages = rt.db
    .all<PageRow>('SELECT * FROM wiki_pages WHERE workspace_guid = ? ORDER BY canonical_name COLLATE NOCASE, guid', [ws.guid])
    .map((r) => decodeRow('wiki_pages', r) as PageRow);
  const counts = new Map<string, number>();
  const mentions = rt.db.all<{ page_guid: string; note_guid: string; n: number }>(
    'SELECT m.page_guid, m.note_guid, COUNT(*) AS n FROM wiki_mentions m JOIN wiki_pages p ON p.guid = m.page_guid WHERE p.workspace_guid = ? GROUP BY m.page_guid, m.note_guid',
    [ws.guid],
  );
  for (const m of mentions) if (canRead(m.note_guid)) counts.set(m.page_guid, (counts.get(m.page_guid) ?? 0) + m.n);
  const pageJson = (r: PageRow) => ({
    guid: r.guid,
    canonicalName: r.canonical_name,
    pageType: r.page_type,
    description: r.description,
    mentionCount: counts.get(r.guid) ?? 0,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });
  const page = (guid: string) => {
    const r = pages.find((x) => x.guid === guid);
    if (!r) throw notFound('wiki page');
    return r;
  };
  return { pages, page, pageJson, canRead };
}

const contains = (text: string, needle: string) => text.toLowerCase().includes(needle);

/** How well a page matches a search text: 0 = not at all; the name counts more than aliases, aliases more than the description. */
function matchScore(r: PageRow, q: string): number {
  const needle = q.trim().toLowerCase();
  if (!needle) return 0;
  if (r.canonical_name.toLowerCase() === needle) return 4;
  if (contains(r.canonical_name, needle)) return 3;
  if (r.aliases.some((a) => contains(a, needle))) return 2;
  return contains(r.description, needle) ? 1 : 0;
}

function mentionJson(m: MentionRow) {
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
  'wiki.pages': (ctx) => {
    const { query } = ctx;
    let since: number | undefined;
    if (query.since !== undefined) {
      if (!instant.safeParse(query.since).success) throw badRequest('invalid query', 'since: must be an ISO 8601 timestamp, e.g. 2026-10-30T00:00:00Z');
      since = Date.parse(query.since);
    }
    const { pages, pageJson } = wikiScope(ctx);
    // An empty filter (`?type=`, `?q=`) filters nothing, as if it were left out.
    const type = query.type?.trim().toLowerCase() || undefined;
    const q = query.q?.trim() || undefined;
    const filtered = pages.filter(
      (r) =>
        (type === undefined || r.page_type.toLowerCase() === type) &&
        (since === undefined || Date.parse(r.updated_at) >= since) &&
        (q === undefined || matchScore(r, q) > 0),
    );
    const page = offsetPage(filtered, query.cursor, query.limit ?? PAGE_SIZES.wiki.default);
    return { content: page.rows.map(pageJson), nextCursor: page.nextCursor };
  },

  'wiki.page': (ctx) => {
    const { pages, page, pageJson } = wikiScope(ctx);
    const r = page(ctx.params.pageGuid);
    const links = r.links.flatMap((guid) => {
      const target = pages.find((x) => x.guid === guid);
      return target ? [{ guid: target.guid, canonicalName: target.canonical_name }] : [];
    });
    return { ...pageJson(r), aliases: r.aliases, links };
  },

  'wiki.mentions': (ctx) => {
    const { rt, query, params } = ctx;
    const { page, canRead } = wikiScope(ctx);
    const r = page(params.pageGuid);
    const result = keysetPage<MentionRow>({
      cursor: query.cursor,
      size: query.limit ?? PAGE_SIZES.wiki.default,
      keyOf: (m) => m.id,
      fetch: (after, limit) => {
        const out: MentionRow[] = [];
        // Read in batches until enough visible mentions are found (invisible ones are skipped, not counted).
        for (let from = Number.isFinite(after) ? after : 0; out.length < limit; ) {
          const batch = rt.db.all<MentionRow>('SELECT * FROM wiki_mentions WHERE page_guid = ? AND id > ? ORDER BY id LIMIT ?', [r.guid, from, limit]);
          if (batch.length === 0) break;
          out.push(...batch.filter((m) => canRead(m.note_guid)));
          from = batch[batch.length - 1].id;
        }
        return out.slice(0, limit);
      },
    });
    return { content: result.rows.map(mentionJson), nextCursor: result.nextCursor };
  },

  'wiki.search': (ctx) => {
    const { pages, pageJson } = wikiScope(ctx);
    const q: string = ctx.query.q;
    const scored = pages.map((r) => ({ r, score: matchScore(r, q) })).filter((x) => x.score > 0);
    scored.sort((a, b) => b.score - a.score);
    return { content: scored.map((x) => pageJson(x.r)) };
  },
} satisfies HandlerMap;
