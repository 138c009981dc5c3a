/** The assignable API-key scopes (service-interface.md, Scopes). */
export const SCOPES = [
  { scope: 'note:read', description: 'Read note metadata, lists and transcripts' },
  { scope: 'note:write', description: 'Update note metadata such as the title; manage share links' },
  { scope: 'note_summary:read', description: 'Read note summaries' },
  { scope: 'note_document:read', description: 'Read generated documents' },
  { scope: 'note_document:write', description: 'Create documents from custom templates' },
  { scope: 'note_document_template:read', description: 'List and read note document templates' },
  { scope: 'folder:read', description: 'Read folders' },
  { scope: 'folder:write', description: 'Create, update, delete folders' },
  { scope: 'wiki:read', description: 'Read and search wiki' },
  { scope: 'word_memory:read', description: 'Read word memories' },
  { scope: 'word_memory:write', description: 'Create, update, delete word memories' },
  { scope: 'workspace:read', description: 'List and read workspaces in the organization' },
  { scope: 'workspace:write', description: 'Create, rename, set usage limits for, delete workspaces in the organization' },
  { scope: 'voice_file_job:read', description: 'Read job status, transcripts, translations, summaries' },
  { scope: 'voice_file_job:write', description: 'Create, start, delete voice file jobs' },
] as const;

export type Scope = (typeof SCOPES)[number]['scope'];
export const SCOPE_NAMES: readonly Scope[] = SCOPES.map((s) => s.scope);

export function isScope(value: string): value is Scope {
  return (SCOPE_NAMES as readonly string[]).includes(value);
}

/**
 * Whether a key holding `granted` scopes may call an API requiring `required`.
 * No scopes at all means every API; a `write` scope includes `read` of the same resource.
 */
export function scopeAllows(granted: readonly string[], required: Scope | null): boolean {
  if (required === null || granted.length === 0) return true;
  if (granted.includes(required)) return true;
  if (required.endsWith(':read')) {
    const write = required.slice(0, -':read'.length) + ':write';
    return granted.includes(write);
  }
  return false;
}
