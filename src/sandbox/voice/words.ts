import type { Db } from '../db.js';

/**
 * Word memories in transcription (decisions.md §4.6): an entry's `subEntry` spelling, found as a whole
 * word (case-insensitive), is written as the entry. The user's scope wins over the workspace's, which
 * wins over the organization's, when two scopes register the same spelling.
 */

export interface WordScopes {
  userId: number | null;
  workspaceGuid: string;
  organizationId: string;
}

/** spelling (lower case) → entry, from the scopes of a job's key. */
export function loadReplacements(db: Db, s: WordScopes): Map<string, string> {
  const rows = db.all<{ scope_type: string; entry: string; sub_entry: string }>(
    `SELECT scope_type, entry, sub_entry FROM word_memories
     WHERE sub_entry IS NOT NULL AND ((scope_type = 'organization' AND scope_id = ?) OR (scope_type = 'workspace' AND scope_id = ?) OR (scope_type = 'user' AND scope_id = ?))
     ORDER BY CASE scope_type WHEN 'organization' THEN 0 WHEN 'workspace' THEN 1 ELSE 2 END, id`,
    [s.organizationId, s.workspaceGuid, s.userId === null ? null : String(s.userId)],
  );
  const out = new Map<string, string>();
  for (const r of rows) out.set(r.sub_entry.toLowerCase(), r.entry);
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Letters, digits, marks, underscore and hyphen make up a word (entries carry hyphens, e.g. offline-sync). */
const WORD = '[\\p{L}\\p{N}\\p{M}_-]';

/** A replacer for a set of spellings: one pass, longest spelling first, so replacements never chain. */
export function wordReplacer(replacements: Map<string, string>): (text: string) => string {
  if (replacements.size === 0) return (text) => text;
  const alternatives = [...replacements.keys()].sort((a, b) => b.length - a.length).map(escape);
  const re = new RegExp(`(?<!${WORD})(?:${alternatives.join('|')})(?!${WORD})`, 'giu');
  return (text) => text.replace(re, (m) => replacements.get(m.toLowerCase()) ?? m);
}
