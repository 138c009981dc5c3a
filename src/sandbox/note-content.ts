import type { Shape } from '../contract/api.js';
import { decodeRow, type Db } from './db.js';
import { markdownToPlain } from './serialize.js';

/**
 * A note's generated content (documents, summaries) as stored and as served, and the sandbox's drafting marks: read by
 * the handlers and by the events (resources.ts, live.ts), so it lives beside both rather than in the handlers.
 */

export interface Section {
  type: string;
  content: string;
  createdAt: string;
}

export interface DocumentRow {
  id: number;
  note_guid: string;
  template_id: number;
  template_title: string;
  template_owner_type: string;
  template_kind: string;
  locale: string;
  sections: Section[];
  created_at: string;
  updated_at: string;
}

export interface SummaryRow {
  id: number;
  note_guid: string;
  template_id: number | null;
  template_title: string | null;
  locale: string;
  content_markdown: string;
  created_at: string;
  updated_at: string;
}

export const SANDBOX_MARK = '> Sandbox output: drafted by the notevox sandbox from the transcript, not by a language model.';

export const firstSentence = (text: string) => (/^.*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text).trim();

const DOCUMENT_SELECT = `SELECT d.*, t.title AS template_title, t.owner_type AS template_owner_type, t.kind AS template_kind
  FROM documents d JOIN templates t ON t.id = d.template_id`;

export function documents(db: Db, noteGuid: string): DocumentRow[] {
  return db.all<DocumentRow>(`${DOCUMENT_SELECT} WHERE d.note_guid = ? ORDER BY d.created_at DESC, d.id DESC`, [noteGuid]).map((r) => decodeRow('documents', r));
}

export function documentListJson(d: DocumentRow): Shape<'documentListItem'> {
  return { id: d.id, noteGuid: d.note_guid, template: { id: d.template_id, title: d.template_title }, locale: d.locale, createdAt: d.created_at, updatedAt: d.updated_at };
}

export function summaries(db: Db, noteGuid: string, id?: number): SummaryRow[] {
  const byId = id !== undefined ? ' AND s.id = ?' : '';
  return db.all<SummaryRow>(
    `SELECT s.*, t.title AS template_title FROM summaries s LEFT JOIN templates t ON t.id = s.template_id
     WHERE s.note_guid = ?${byId} ORDER BY s.created_at DESC, s.id DESC`,
    id !== undefined ? [noteGuid, id] : [noteGuid],
  );
}

export const templateRef = (id: number | null, title: string | null) => (id !== null ? { id, title: title ?? '' } : null);

/** A summary in the asked format (text/markdown as stored, or text/plain). */
export function summaryJson(s: SummaryRow, type = 'text/markdown'): Shape<'summary'> {
  return {
    id: s.id,
    noteGuid: s.note_guid,
    template: templateRef(s.template_id, s.template_title),
    locale: s.locale,
    content: { type, content: type === 'text/plain' ? markdownToPlain(s.content_markdown) : s.content_markdown },
    createdAt: s.created_at,
    updatedAt: s.updated_at,
  };
}
