import type { Shape } from '../../contract/api.js';
import type { DocumentFormat } from '../../contract/enums.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { LIMITS, PAGE_SIZES } from '../../contract/limits.js';
import { folderVisible, getFolder, isUserKey, noteEditable, reachesWorkspace, type NoteRow } from '../access.js';
import { decodeRow, type Db } from '../db.js';
import { ApiFailure, badRequest, forbidden, keysetPage, notFound } from '../http.js';
import { hashSecret, newSalt, randomAlnum } from '../ids.js';
import { folderJson, markdownToHtml, noteJson, plainToHtml, WEB_APP_URL } from '../serialize.js';
import type { HandlerContext, HandlerMap } from '../types.js';
import { queryNotes } from './notes-core.js';
import { getTemplate, templateUsable } from './templates.js';
import { documentListJson, documents, firstSentence, SANDBOX_MARK, summaries, summaryJson, templateRef, type DocumentRow, type Section } from '../note-content.js';

/**
 * Note sub-resources and deep search (decisions.md §3.1–§3.4, §5.2, §5.4, §5.5). The app has already
 * checked the note's visibility for every `{noteGuid}` route, so `ctx.note` is readable by the caller.
 */

// ---------------------------------------------------------------- rows

interface ParagraphRow {
  id: number;
  uuid: string;
  position: number;
  time_from: string;
  time_to: string;
  speaker: string | null;
  content: string;
  locked: boolean;
  diarized_segments: Array<{ content: string; speaker: { label: string; personName: string | null } }>;
  summary: { type: string; content: string } | null;
}

/** A paragraph as stored: `locked` is 0/1 and the JSON columns are text, until decodeRow maps them. */
type StoredParagraph = Omit<ParagraphRow, 'locked' | 'diarized_segments' | 'summary'> & { locked: number; diarized_segments: string; summary: string | null };
const decodeParagraph = (r: StoredParagraph): ParagraphRow => decodeRow('paragraphs', r);




interface ShareLinkRow {
  note_guid: string;
  share_id: string;
  share_url: string;
  password_salt: string | null;
  password_hash: string | null;
  created_at: string;
}

const SHARE_ID_LENGTH = 22;
const SHARE_PASSWORD_LENGTH = 16;
const SNIPPET_CONTEXT = 40;
const SNIPPETS_PER_NOTE = 3;

/** The paragraphs of a note whose text the plan shows (locked ones are stored empty: nothing to search or draft from). */
const paragraphs = (db: Db, guid: string) =>
  db.all<StoredParagraph>('SELECT * FROM paragraphs WHERE note_guid = ? AND locked = 0 ORDER BY position', [guid]).map(decodeParagraph);

/** decisions.md §3.2: a locked paragraph shows no text and no speaker split. */
function paragraphJson(r: ParagraphRow): Shape<'paragraph'> {
  return {
    id: r.id,
    uuid: r.uuid,
    timeFrom: r.time_from,
    timeTo: r.time_to,
    speaker: r.speaker,
    locked: r.locked,
    diarizedSegments: r.locked ? [] : r.diarized_segments,
    summary: r.summary,
    transcript: { type: 'text/plain', content: r.locked ? '' : r.content },
  };
}




/** A section in the asked format: json keeps the stored type; markdown and html convert (decisions.md §5.4). */
function sectionAs(s: Section, format: DocumentFormat): Shape<'documentSection'> {
  const markdown = s.type === 'text/markdown';
  if (format === 'json') return { content: { type: s.type, content: s.content }, createdAt: s.createdAt };
  if (format === 'markdown') return { content: { type: 'text/markdown', content: s.content }, createdAt: s.createdAt };
  return { content: { type: 'text/html', content: markdown ? markdownToHtml(s.content) : plainToHtml(s.content) }, createdAt: s.createdAt };
}

function documentJson(d: DocumentRow, format: DocumentFormat = 'json'): Shape<'noteDocument'> {
  return { ...documentListJson(d), sections: d.sections.map((s) => sectionAs(s, format)) };
}

function shareLinkJson(r: ShareLinkRow): Shape<'shareLink'> {
  return { shareId: r.share_id, noteGuid: r.note_guid, shareUrl: r.share_url, hasPassword: r.password_hash !== null, createdAt: r.created_at };
}

const getShareLink = (db: Db, guid: string) => db.get<ShareLinkRow>('SELECT * FROM share_links WHERE note_guid = ?', [guid]);




/** Changing a note (share links, documents) needs the UPDATE_CONTENT permission for user keys. */
function requireEditable(ctx: HandlerContext<'notes.shareLink.put' | 'notes.shareLink.delete' | 'notes.documents.generate'>, what: string): NoteRow {
  const note = ctx.note;
  if (!noteEditable(ctx.rt.db, ctx.principal, note)) throw forbidden(`you may not ${what} on this note`, 'UPDATE_CONTENT permission on the note is required');
  return note;
}

// ---------------------------------------------------------------- document generation

/** One section per template section, drawn from the transcript by arithmetic (deterministic), marked as sandbox output. */
function draftSections(t: { sections: Array<{ title: string; instruction: string }> }, paras: ParagraphRow[], at: string): Section[] {
  const n = t.sections.length;
  return t.sections.map((s, i) => {
    const picked = paras.filter((_, k) => k % n === i).slice(0, 3);
    const lines = picked.length
      ? picked.map((p) => `- ${p.speaker ? `**${p.speaker}:** ` : ''}${firstSentence(p.content)}`)
      : ['_The note has no transcript to draw from._'];
    return { type: 'text/markdown', content: [`## ${s.title}`, SANDBOX_MARK, `_${s.instruction}_`, lines.join('\n')].join('\n\n'), createdAt: at };
  });
}


// ---------------------------------------------------------------- deep search

/** Short excerpts around each match of the keyword (case-insensitive), title first. */
export function matchedSnippets(texts: string[], keyword: string, max = SNIPPETS_PER_NOTE): string[] {
  const k = keyword.toLowerCase();
  const out: string[] = [];
  for (const text of texts) {
    const lower = text.toLowerCase();
    let at = lower.indexOf(k);
    while (at !== -1 && out.length < max) {
      // About SNIPPET_CONTEXT characters each side, widened or narrowed to whole words.
      let from = Math.max(0, at - SNIPPET_CONTEXT);
      const space = text.indexOf(' ', from);
      if (from > 0 && space !== -1 && space < at) from = space + 1;
      let to = Math.min(text.length, at + k.length + SNIPPET_CONTEXT);
      const lastSpace = text.lastIndexOf(' ', to);
      if (to < text.length && lastSpace > at + k.length) to = lastSpace;
      out.push(`${from > 0 ? '…' : ''}${text.slice(from, to).trim()}${to < text.length ? '…' : ''}`);
      at = lower.indexOf(k, to);
    }
    if (out.length >= max) break;
  }
  return out;
}

/** Cut to the deep-search budget, counting characters (code points), not UTF-16 units. */
export function cutToBudget(text: string, budget: number = LIMITS.deepSearchDocumentChars): { content: string; truncated: boolean } {
  const chars = [...text];
  return chars.length > budget ? { content: chars.slice(0, budget).join(''), truncated: true } : { content: text, truncated: false };
}

/** The primary documents (§5.5): the latest from a managed one-pager template and the latest from a custom (non-managed) template. */
function primaryDocuments(db: Db, noteGuid: string) {
  const all = documents(db, noteGuid);
  const onePager = all.find((d) => d.template_owner_type === 'MANAGED' && d.template_kind === 'one_pager');
  const custom = all.find((d) => d.template_owner_type !== 'MANAGED');
  return [onePager, custom]
    .filter((d): d is DocumentRow => d !== undefined)
    .map((d) => ({ id: d.id, templateTitle: d.template_title, ...cutToBudget(d.sections.map((s) => s.content).join('\n\n')) }));
}

function searchSize(pagination: { size?: unknown } | null | undefined): number {
  const size = pagination?.size;
  if (size === undefined || size === null) return LIMITS.deepSearchMaxSize;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > LIMITS.deepSearchMaxSize)
    throw new ApiFailure(ERROR_CODES.PAGE_SIZE, 'pagination.size out of range', `pagination.size must be an integer from 1 to ${LIMITS.deepSearchMaxSize}`);
  return size;
}

function instant(value: string | null | undefined, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw badRequest('invalid body', `filter.${field}: must be an ISO 8601 timestamp, e.g. 2026-10-01T00:00:00Z`);
  return t;
}

const DEGRADED_REASON = 'document index unavailable: primary documents were left out (sandbox fault injection)';

function deepSearch(ctx: HandlerContext<'notes.search' | 'notes.searchWorkspace'>, workspaces?: string[]) {
  const { rt, principal: p, body } = ctx;
  const size = searchSize(body.pagination);
  const keyword = body.keyword.trim();
  const from = instant(body.filter?.createdAtFrom, 'createdAtFrom');
  const to = instant(body.filter?.createdAtTo, 'createdAtTo');
  const folderId = body.filter?.folderId ?? undefined;
  // One query: visibility, filters and relevance in SQL, only the best `size` notes read.
  const found = queryNotes(rt.db, p, { scope: workspaces ? { kind: 'workspace', guid: workspaces[0] } : { kind: 'all' }, folderId, keyword, createdFrom: from, createdTo: to, limit: size });
  const notes = found.map((n) => ({
    ...noteJson(rt.db, n),
    matchedSnippets: matchedSnippets([n.title, ...paragraphs(rt.db, n.guid).map((r) => r.content)], keyword),
    documents: ctx.degraded ? [] : primaryDocuments(rt.db, n.guid),
  }));
  return { notes, nextCursor: null, degraded: ctx.degraded, degradedReason: ctx.degraded ? DEGRADED_REASON : null };
}

// ---------------------------------------------------------------- handlers

export const notesExtraHandlers = {
  'notes.paragraphs': ({ rt, note, query }) => {
    const page = keysetPage<ParagraphRow>({
      cursor: query.cursor,
      size: query.size ?? PAGE_SIZES.paragraphs.default,
      keyOf: (r) => r.position,
      fetch: (after, limit) =>
        rt.db
          .all<StoredParagraph>('SELECT * FROM paragraphs WHERE note_guid = ? AND position > ? ORDER BY position LIMIT ?', [note.guid, Number.isFinite(after) ? after : -1, limit])
          .map(decodeParagraph),
    });
    return { content: page.rows.map(paragraphJson), nextCursor: page.nextCursor };
  },

  /** The note's folder and the ancestors the caller can see, from the root down (a breadcrumb). */
  'notes.folders': ({ rt, note, principal: p }) => {
    const chain = [];
    for (let f = note.folder_id !== null ? getFolder(rt.db, note.folder_id) : undefined; f; f = f.parent_id !== null ? getFolder(rt.db, f.parent_id) : undefined) chain.unshift(f);
    // Unpaged, like every folder list: nextCursor is always null (decisions.md §1.1).
    return { content: chain.filter((f) => folderVisible(rt.db, p, f)).map((f) => folderJson(rt.db, f, p)), nextCursor: null };
  },

  'notes.shareLink.get': ({ rt, note }) => {
    const link = getShareLink(rt.db, note.guid);
    if (!link) throw notFound('share link');
    return shareLinkJson(link);
  },

  /**
   * Creates the link, or (decisions.md §3.3) updates the password setting of the existing one, which keeps its
   * shareId and shareUrl: a link already sent out keeps working. A password is made (and answered once) when one
   * is asked for and the link has none; a link that has one keeps it.
   */
  'notes.shareLink.put': (ctx) => {
    const note = requireEditable(ctx, 'change the share link');
    const existing = getShareLink(ctx.rt.db, note.guid);
    const wantsPassword = Boolean(ctx.body?.usePassword);
    const keepPassword = wantsPassword && existing?.password_hash != null;
    const password = wantsPassword && !keepPassword ? randomAlnum(SHARE_PASSWORD_LENGTH) : undefined;
    const salt = password !== undefined ? newSalt() : null;
    const shareId = existing?.share_id ?? randomAlnum(SHARE_ID_LENGTH);
    const row: ShareLinkRow = {
      note_guid: note.guid,
      share_id: shareId,
      share_url: existing?.share_url ?? `${WEB_APP_URL}/share/${shareId}`,
      password_salt: keepPassword ? existing!.password_salt : salt,
      password_hash: keepPassword ? existing!.password_hash : password !== undefined ? hashSecret(password, salt!) : null,
      created_at: existing?.created_at ?? ctx.rt.clock.now().toISOString(),
    };
    ctx.rt.db.run(
      `INSERT OR REPLACE INTO share_links (note_guid, share_id, share_url, password_salt, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
      [row.note_guid, row.share_id, row.share_url, row.password_salt, row.password_hash, row.created_at],
    );
    // The password is answered this once; only its salted hash is kept.
    return password !== undefined ? { ...shareLinkJson(row), sharePassword: password } : shareLinkJson(row);
  },

  'notes.shareLink.delete': (ctx) => {
    const note = requireEditable(ctx, 'delete the share link');
    if (ctx.rt.db.run('DELETE FROM share_links WHERE note_guid = ?', [note.guid]).changes === 0) throw notFound('share link');
    return undefined;
  },

  'notes.documents.list': ({ rt, note }) => {
    const all = documents(rt.db, note.guid);
    return { content: all.map(documentListJson), totalSize: all.length };
  },

  'notes.documents.get': ({ rt, note, params, query }) => {
    const d = documents(rt.db, note.guid).find((x) => x.id === params.documentId);
    if (!d) throw notFound('document');
    return documentJson(d, query.format ?? 'json');
  },

  'notes.documents.generate': (ctx) => {
    const { rt, principal: p, body } = ctx;
    const note = isUserKey(p) ? requireEditable(ctx, 'generate documents') : ctx.note;
    const template = getTemplate(rt.db, body.templateId);
    // decisions.md §5.3: a template id that does not exist is 404000; one the caller may not use, 403003.
    if (!template) throw notFound(`template ${body.templateId}`);
    const noteWorkspaces = note.workspace_guid !== null ? [note.workspace_guid] : [];
    if (!templateUsable(p, template, noteWorkspaces))
      throw forbidden(`template ${body.templateId} is not available for this note`, 'use a managed template, your own, one of the note\'s workspace or one of the organization');
    const at = rt.clock.now().toISOString();
    const sections = draftSections(template, paragraphs(rt.db, note.guid), at);
    const id = rt.db.tx(() => {
      const { lastInsertRowid } = rt.db.run('INSERT INTO documents (note_guid, template_id, locale, sections, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
        note.guid, template.id, body.locale, sections, at, at,
      ]);
      rt.emit('note_document.generated', { documentId: lastInsertRowid });
      return lastInsertRowid;
    });
    const d = documents(rt.db, note.guid).find((x) => x.id === id)!;
    return { documentId: d.id, noteId: note.id, document: documentJson(d), createdAt: at };
  },

  'notes.summaries.list': ({ rt, note }) => ({
    content: summaries(rt.db, note.guid).map((s) => ({ id: s.id, template: templateRef(s.template_id, s.template_title), locale: s.locale, createdAt: s.created_at })),
    // The spec shows only `content`; decisions.md §1.1 makes summary lists unpaged with nextCursor null.
    nextCursor: null,
  }),

  'notes.summaries.get': ({ rt, note, params, query }) => {
    const s = summaries(rt.db, note.guid, params.summaryId)[0];
    if (!s) throw notFound('summary');
    return summaryJson(s, query.format ?? 'text/markdown');
  },

  'notes.search': (ctx) => deepSearch(ctx),

  'notes.searchWorkspace': (ctx) => {
    const ws = ctx.params.workspaceGuid;
    if (!reachesWorkspace(ctx.rt.db, ctx.principal, ws)) throw notFound('workspace');
    return deepSearch(ctx, [ws]);
  },
} satisfies HandlerMap;
