/**
 * The sandbox's data model (service-interface.md resources, decisions.md §3–§4).
 *
 * Conventions: timestamps are ISO 8601 text (`Date#toISOString()`); columns declared `BOOLEAN` hold 0/1;
 * every table has a rowid;
 * columns declared `JSON_TEXT` hold JSON (TEXT affinity). `decodeRow` in db.ts maps both back, using
 * BOOLEAN_COLUMNS / JSON_COLUMNS below (a unit test checks they match the DDL).
 */

import { LIMITS } from '../contract/limits.js';
import { JOB_STATUSES, SHARING_TYPES, SOURCE_TYPES, TEMPLATE_OWNER_TYPES } from '../contract/enums.js';
import { KEY_TYPES } from '../contract/types.js';

export const MEMBERSHIP_ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export const FOLDER_MEMBER_ROLES = ['VIEWER', 'EDITOR'] as const;
export const COLLABORATOR_ROLES = ['OWNER', 'EDITOR', 'VIEWER'] as const;
export const KEY_STATUSES = ['active', 'inactive', 'expired', 'deleted'] as const;
export const TEMPLATE_KINDS = ['one_pager', 'custom'] as const;
export const MENTION_KINDS = ['EXPLICIT', 'IMPLICIT'] as const;
export const WORD_MEMORY_SCOPES = ['user', 'workspace', 'organization'] as const;

const bool = (name: string, dflt: 0 | 1) => `${name} BOOLEAN NOT NULL DEFAULT ${dflt} CHECK (${name} IN (0, 1))`;
const json = (name: string, dflt: string | null) =>
  dflt === null ? `${name} JSON_TEXT CHECK (${name} IS NULL OR json_valid(${name}))` : `${name} JSON_TEXT NOT NULL DEFAULT '${dflt}' CHECK (json_valid(${name}))`;
const oneOf = (name: string, values: readonly string[]) => `CHECK (${name} IN (${values.map((v) => `'${v}'`).join(', ')}))`;

const SCHEMA_V1 = `
CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TABLE workspaces (
  guid TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  ${bool('voice_file_enabled', 1)},
  ${bool('wiki_plan', 0)},
  ${bool('wiki_enabled', 0)},
  monthly_minutes INTEGER CHECK (monthly_minutes IS NULL OR monthly_minutes >= 0), -- NULL = unlimited
  used_minutes INTEGER NOT NULL DEFAULT 0 CHECK (used_minutes >= 0)
);
CREATE INDEX workspaces_by_org ON workspaces(organization_id);

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  ${bool('org_admin', 0)}
);

CREATE TABLE memberships (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  workspace_guid TEXT NOT NULL REFERENCES workspaces(guid) ON DELETE CASCADE,
  role TEXT NOT NULL DEFAULT 'MEMBER' ${oneOf('role', MEMBERSHIP_ROLES)},
  PRIMARY KEY (user_id, workspace_guid)
);
CREATE INDEX memberships_by_workspace ON memberships(workspace_guid);

-- Only a salted hash of each secret is kept: secret_hash = hex HMAC-SHA256(key = secret_salt, secret).
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  secret_salt TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  type TEXT NOT NULL ${oneOf('type', KEY_TYPES)},
  label TEXT,
  user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  workspace_guid TEXT REFERENCES workspaces(guid) ON DELETE CASCADE, -- the bound workspace
  organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
  ${json('scopes', '[]')}, -- '[]' = every API
  status TEXT NOT NULL DEFAULT 'active' ${oneOf('status', KEY_STATUSES)},
  expires_at TEXT,
  created_at TEXT NOT NULL,
  ${bool('voice_permission', 1)},
  ${bool('legacy_scope', 0)} -- workspace keys from before the note read scope: see every note of their workspace
);

CREATE TABLE folders (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- exposed as a numeric string
  workspace_guid TEXT NOT NULL REFERENCES workspaces(guid) ON DELETE CASCADE,
  owner_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  parent_id INTEGER REFERENCES folders(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  color TEXT NOT NULL DEFAULT '${LIMITS.folderDefaultColor}',
  sharing_type TEXT NOT NULL ${oneOf('sharing_type', SHARING_TYPES)},
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX folders_by_workspace ON folders(workspace_guid);
CREATE INDEX folders_by_parent ON folders(parent_id);

CREATE TABLE folder_members (
  folder_id INTEGER NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL ${oneOf('role', FOLDER_MEMBER_ROLES)},
  PRIMARY KEY (folder_id, user_id)
);

CREATE TABLE notes (
  guid TEXT PRIMARY KEY,
  id INTEGER NOT NULL UNIQUE, -- the noteId of documents and wiki mentions
  title TEXT NOT NULL,
  owner_user_id INTEGER NOT NULL REFERENCES users(id),
  workspace_guid TEXT REFERENCES workspaces(guid), -- NULL: a note without a workspace
  folder_id INTEGER REFERENCES folders(id) ON DELETE SET NULL,
  source_type TEXT NOT NULL ${oneOf('source_type', SOURCE_TYPES)},
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  recording_start_at TEXT,
  recording_end_at TEXT,
  recording_duration_seconds INTEGER NOT NULL DEFAULT 0,
  transcribe_locale TEXT,
  translate_locale TEXT,
  ${bool('deleted', 0)}
);
CREATE INDEX notes_by_workspace ON notes(workspace_guid, created_at);
CREATE INDEX notes_by_folder ON notes(folder_id);
CREATE INDEX notes_by_owner ON notes(owner_user_id);

CREATE TABLE note_participants (
  note_guid TEXT NOT NULL REFERENCES notes(guid) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  name TEXT NOT NULL,
  email TEXT,
  PRIMARY KEY (note_guid, position)
);

CREATE TABLE note_collaborators (
  note_guid TEXT NOT NULL REFERENCES notes(guid) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL ${oneOf('role', COLLABORATOR_ROLES)},
  PRIMARY KEY (note_guid, user_id)
);
CREATE INDEX note_collaborators_by_user ON note_collaborators(user_id);

CREATE TABLE paragraphs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid TEXT NOT NULL UNIQUE,
  note_guid TEXT NOT NULL REFERENCES notes(guid) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  time_from TEXT NOT NULL,
  time_to TEXT NOT NULL,
  speaker TEXT,
  content TEXT NOT NULL
);
CREATE INDEX paragraphs_by_note ON paragraphs(note_guid, position);

CREATE TABLE templates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  owner_type TEXT NOT NULL ${oneOf('owner_type', TEMPLATE_OWNER_TYPES)},
  owner_user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
  workspace_guid TEXT REFERENCES workspaces(guid) ON DELETE CASCADE,
  organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
  kind TEXT NOT NULL DEFAULT 'custom' ${oneOf('kind', TEMPLATE_KINDS)},
  ${json('sections', '[]')}, -- [{id, title, instruction}]
  created_at TEXT NOT NULL
);

CREATE TABLE summaries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  note_guid TEXT NOT NULL REFERENCES notes(guid) ON DELETE CASCADE,
  template_id INTEGER REFERENCES templates(id),
  locale TEXT NOT NULL,
  content_markdown TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX summaries_by_note ON summaries(note_guid);

CREATE TABLE documents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  note_guid TEXT NOT NULL REFERENCES notes(guid) ON DELETE CASCADE,
  template_id INTEGER NOT NULL REFERENCES templates(id),
  locale TEXT NOT NULL,
  ${json('sections', '[]')}, -- [{type: 'text/plain'|'text/markdown', content, createdAt}], content as source markdown
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX documents_by_note ON documents(note_guid, created_at);

CREATE TABLE share_links (
  note_guid TEXT PRIMARY KEY REFERENCES notes(guid) ON DELETE CASCADE,
  share_id TEXT NOT NULL UNIQUE,
  share_url TEXT NOT NULL,
  password_salt TEXT,
  password_hash TEXT, -- hashSecret(password, password_salt); NULL = no password
  created_at TEXT NOT NULL
);

CREATE TABLE word_memories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scope_type TEXT NOT NULL ${oneOf('scope_type', WORD_MEMORY_SCOPES)},
  scope_id TEXT NOT NULL, -- user id (as text), workspace guid or organization id
  entry TEXT NOT NULL,
  sub_entry TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (scope_type, scope_id, entry)
);
CREATE INDEX word_memories_page ON word_memories(scope_type, scope_id, id);

CREATE TABLE wiki_pages (
  guid TEXT PRIMARY KEY,
  workspace_guid TEXT NOT NULL REFERENCES workspaces(guid) ON DELETE CASCADE,
  canonical_name TEXT NOT NULL,
  page_type TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  ${json('aliases', '[]')}, -- [string]
  ${json('links', '[]')}, -- [page guid]
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX wiki_pages_by_workspace ON wiki_pages(workspace_guid, canonical_name);

CREATE TABLE wiki_mentions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- stable paging key
  guid TEXT NOT NULL UNIQUE,
  page_guid TEXT NOT NULL REFERENCES wiki_pages(guid) ON DELETE CASCADE,
  note_guid TEXT NOT NULL REFERENCES notes(guid) ON DELETE CASCADE,
  note_id INTEGER NOT NULL,
  kind TEXT NOT NULL ${oneOf('kind', MENTION_KINDS)},
  source_user_id INTEGER NOT NULL,
  extracted_text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  paragraph_id INTEGER NOT NULL REFERENCES paragraphs(id) ON DELETE CASCADE,
  paragraph_uuid TEXT NOT NULL,
  confidence REAL NOT NULL CHECK (confidence >= 0 AND confidence <= 1)
);
CREATE INDEX wiki_mentions_page ON wiki_mentions(page_guid, id);
CREATE INDEX wiki_mentions_by_note ON wiki_mentions(note_guid);

CREATE TABLE voice_jobs (
  id TEXT PRIMARY KEY, -- UUID
  workspace_guid TEXT NOT NULL REFERENCES workspaces(guid) ON DELETE CASCADE,
  key_id TEXT NOT NULL,
  user_id INTEGER,
  organization_id TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT '${JOB_STATUSES[0]}' ${oneOf('status', JOB_STATUSES)},
  created_at TEXT NOT NULL,
  file_uploaded_at TEXT,
  process_started_at TEXT,
  process_completed_at TEXT,
  error_message TEXT,
  duration_seconds REAL,
  ${json('transcript_locale_hints', '[]')},
  ${json('translation_locales', '[]')},
  upload_path TEXT,
  upload_bytes INTEGER,
  content_type TEXT,
  ${json('transcript', null)},
  ${json('translations', null)},
  ${json('summary', null)},
  ${bool('deleted', 0)}
);
CREATE INDEX voice_jobs_by_workspace ON voice_jobs(workspace_guid, created_at);

-- Every request the sandbox answered (tests use it to prove a dry run sent nothing).
CREATE TABLE request_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  key_id TEXT,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  status INTEGER NOT NULL
);
`;

/**
 * Fields real clients read and third-party seeds carry (decisions.md §3.2 revised; docs/sandbox-seed.md):
 * paragraph `locked`, `diarizedSegments` and `summary`; a user's `guid` (the collaborator guid; NULL serves
 * `user-<id>`); the user who issued an organization key.
 */
const SCHEMA_V2 = `
ALTER TABLE paragraphs ADD COLUMN ${bool('locked', 0)};
ALTER TABLE paragraphs ADD COLUMN ${json('diarized_segments', '[]')}; -- [{content, speaker: {label, personName}}]
ALTER TABLE paragraphs ADD COLUMN ${json('summary', null)}; -- {type, content} or NULL
ALTER TABLE users ADD COLUMN guid TEXT;
CREATE UNIQUE INDEX users_by_guid ON users(guid);
ALTER TABLE api_keys ADD COLUMN issued_by_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL;
`;

export const WEBHOOK_ENDPOINT_SOURCES = ['seed', 'flag', 'control'] as const;
export const EVENT_ORIGINS = ['api', 'live', 'test'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;

/** Events (decisions.md §6): webhook endpoints, the event log, deliveries with their attempts, and live notes. */
const SCHEMA_V3 = `
-- The secret is kept as given: the sandbox sends it as the Bearer value of every delivery (the state file is 0600).
-- It is never answered by the control API nor written to a log.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  ${json('event_types', '[]')}, -- '[]' = every type
  organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE, -- every workspace of the organization
  ${json('workspace_guids', '[]')}, -- these workspaces; '[]' with no organization = every event of the sandbox
  source TEXT NOT NULL ${oneOf('source', WEBHOOK_ENDPOINT_SOURCES)},
  created_at TEXT NOT NULL
);

CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, -- log order
  id TEXT NOT NULL UNIQUE, -- evt_…
  type TEXT NOT NULL,
  created_at TEXT NOT NULL,
  workspace_guid TEXT,
  organization_id TEXT,
  resource_type TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  ${json('envelope', '{}')}, -- the body every delivery of the event sends
  origin TEXT NOT NULL ${oneOf('origin', EVENT_ORIGINS)}
);
CREATE INDEX events_by_type ON events(type, seq);

CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_seq INTEGER NOT NULL REFERENCES events(seq) ON DELETE CASCADE,
  endpoint_id TEXT NOT NULL, -- no reference: the log keeps deliveries of endpoints removed since
  endpoint_url TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' ${oneOf('status', DELIVERY_STATUSES)},
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT, -- sandbox clock; NULL once finished
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries(event_seq);

CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL, -- 1-based
  at TEXT NOT NULL,
  status INTEGER, -- HTTP status; NULL when no answer came
  error TEXT, -- timeout, connection refused, …
  duration_ms INTEGER NOT NULL,
  next_retry_at TEXT -- NULL when no retry follows
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts(delivery_id, attempt);

-- A note still recording (decisions.md §6.5): paragraphs to come, in recording time.
CREATE TABLE live_notes (
  note_guid TEXT PRIMARY KEY REFERENCES notes(guid) ON DELETE CASCADE,
  interval_ms INTEGER NOT NULL CHECK (interval_ms > 0),
  ${json('pending', '[]')}, -- [{speaker, text, durationSeconds}] still to appear
  ${json('stops', '[]')}, -- paragraph counts (of this live run) after which a recording stops
  appended INTEGER NOT NULL DEFAULT 0, -- paragraphs appeared so far
  offset_seconds REAL NOT NULL DEFAULT 0, -- recording time so far
  ${bool('started', 0)}, -- note.created was emitted
  next_at TEXT NOT NULL -- sandbox clock: when the next paragraph appears
);
`;

/**
 * Version 4: indexes for keyset paging (note lists newest first, per workspace and per folder; wiki pages by
 * name); request_log leaves the state file (it lives in memory, TEMP_SCHEMA) so that reads do not change
 * the state; state_meta held the journal generation a notevox 0.1 snapshot included (emptied when old-state.ts converts one).
 */
const SCHEMA_V4 = `
DROP TABLE request_log;
DROP INDEX notes_by_workspace;
DROP INDEX notes_by_folder;
CREATE INDEX notes_by_time ON notes(created_at, id);
CREATE INDEX notes_by_workspace ON notes(workspace_guid, created_at, id);
CREATE INDEX notes_by_folder ON notes(folder_id, created_at, id);
CREATE INDEX wiki_pages_by_name ON wiki_pages(workspace_guid, canonical_name COLLATE NOCASE, guid);
CREATE TABLE state_meta (
  key TEXT PRIMARY KEY,
  value
);
`;

/**
 * Version 5, for the CPU of word-memory inserts (a 1000-row create, a seed's million rows), with the same rules:
 * - scope_type is checked with comparisons instead of an IN list: SQLite builds an IN list's lookup table again for
 *   every row it tests a CHECK on (a temporary b-tree of the three values), a fifth of such an insert's CPU;
 * - the unique key is (entry, scope_type, scope_id), the same constraint with the entry first: the entries of a scope
 *   share its type and id, so each comparison of a key on (scope_type, scope_id, entry) decoded three fields where
 *   one now decides (a quarter less CPU for the insert). Reads by scope and id use word_memories_page.
 * A table's constraints cannot be altered, so the table is rebuilt: the same rows and ids, AUTOINCREMENT's counter
 * as it was (the copy's is replaced by it; DROP TABLE removes the old one's sqlite_sequence row, RENAME renames the
 * new one's), the paging index made again.
 */
const WM_SCOPE_CHECK = `CHECK (${WORD_MEMORY_SCOPES.map((v) => `scope_type = '${v}'`).join(' OR ')})`;
const SCHEMA_V5 = `
CREATE TABLE word_memories_v5 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scope_type TEXT NOT NULL ${WM_SCOPE_CHECK},
  scope_id TEXT NOT NULL, -- user id (as text), workspace guid or organization id
  entry TEXT NOT NULL,
  sub_entry TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (entry, scope_type, scope_id)
);
INSERT INTO word_memories_v5 (id, scope_type, scope_id, entry, sub_entry, created_at)
  SELECT id, scope_type, scope_id, entry, sub_entry, created_at FROM word_memories ORDER BY id;
DELETE FROM sqlite_sequence WHERE name = 'word_memories_v5';
INSERT INTO sqlite_sequence (name, seq) SELECT 'word_memories_v5', max(seq, coalesce((SELECT max(id) FROM word_memories), 0))
  FROM sqlite_sequence WHERE name = 'word_memories';
DROP TABLE word_memories;
ALTER TABLE word_memories_v5 RENAME TO word_memories;
CREATE INDEX word_memories_page ON word_memories(scope_type, scope_id, id);
`;

/**
 * Version 6: the unique key of word_memories, the same (entry, scope_type, scope_id), is a named unique index
 * (word_memories_entry) instead of the table's inline constraint, so that a bulk load (Db.bulk: a seed's million word
 * memories) builds it once after the rows, with SQLite's sorter, like every other secondary index, instead of
 * updating it row by row in the entries' random order. Rows, writes and conflicts are the same: an insert still
 * fails with `UNIQUE constraint failed: word_memories.entry, word_memories.scope_type, word_memories.scope_id`, and an
 * upsert's `ON CONFLICT (scope_type, scope_id, entry)` names the index's columns. The table is rebuilt as for version 5.
 */
const SCHEMA_V6 = `
CREATE TABLE word_memories_v6 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scope_type TEXT NOT NULL ${WM_SCOPE_CHECK},
  scope_id TEXT NOT NULL, -- user id (as text), workspace guid or organization id
  entry TEXT NOT NULL,
  sub_entry TEXT,
  created_at TEXT NOT NULL
);
INSERT INTO word_memories_v6 (id, scope_type, scope_id, entry, sub_entry, created_at)
  SELECT id, scope_type, scope_id, entry, sub_entry, created_at FROM word_memories ORDER BY id;
DELETE FROM sqlite_sequence WHERE name = 'word_memories_v6';
INSERT INTO sqlite_sequence (name, seq) SELECT 'word_memories_v6', max(seq, coalesce((SELECT max(id) FROM word_memories), 0))
  FROM sqlite_sequence WHERE name = 'word_memories';
DROP TABLE word_memories;
ALTER TABLE word_memories_v6 RENAME TO word_memories;
CREATE UNIQUE INDEX word_memories_entry ON word_memories(entry, scope_type, scope_id);
CREATE INDEX word_memories_page ON word_memories(scope_type, scope_id, id);
`;

/**
 * Migrations: MIGRATIONS[n] brings a store at `PRAGMA user_version = n` to n + 1.
 * Append a new entry for every change; never edit a shipped one.
 */
export const MIGRATIONS: readonly string[] = [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6];

/**
 * Tables created in memory on every open, never stored: every request the sandbox answered (tests use it
 * to prove a dry run sent nothing). Pruned to the newest rows by the app.
 */
export const TEMP_SCHEMA = `
CREATE TEMP TABLE request_log (
  id INTEGER PRIMARY KEY, -- not AUTOINCREMENT: a temp.sqlite_sequence would hide main.sqlite_sequence from unqualified names
  at TEXT NOT NULL,
  key_id TEXT,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  status INTEGER NOT NULL
);
`;
export const SCHEMA_VERSION = MIGRATIONS.length;
/** `PRAGMA application_id` of notevox sandbox state files ("NVXS"). */
export const APPLICATION_ID = 0x4e565853;

/** Columns holding booleans as 0/1, per table. */
export const BOOLEAN_COLUMNS = {
  workspaces: ['voice_file_enabled', 'wiki_plan', 'wiki_enabled'],
  users: ['org_admin'],
  api_keys: ['voice_permission', 'legacy_scope'],
  notes: ['deleted'],
  paragraphs: ['locked'],
  voice_jobs: ['deleted'],
  live_notes: ['started'],
} as const;

/** Columns holding JSON text, per table. */
export const JSON_COLUMNS = {
  api_keys: ['scopes'],
  paragraphs: ['diarized_segments', 'summary'],
  templates: ['sections'],
  documents: ['sections'],
  wiki_pages: ['aliases', 'links'],
  voice_jobs: ['transcript_locale_hints', 'translation_locales', 'transcript', 'translations', 'summary'],
  webhook_endpoints: ['event_types', 'workspace_guids'],
  events: ['envelope'],
  live_notes: ['pending', 'stops'],
} as const;

/** The tables of the state file. */
export const TABLES = [
  'organizations', 'workspaces', 'users', 'memberships', 'api_keys', 'folders', 'folder_members', 'notes',
  'note_participants', 'note_collaborators', 'paragraphs', 'templates', 'summaries', 'documents', 'share_links',
  'word_memories', 'wiki_pages', 'wiki_mentions', 'voice_jobs', 'state_meta',
  'webhook_endpoints', 'events', 'webhook_deliveries', 'webhook_attempts', 'live_notes',
] as const;
/** The tables held in memory only (TEMP_SCHEMA). */
export const TEMP_TABLES = ['request_log'] as const;
export type TableName = (typeof TABLES)[number] | (typeof TEMP_TABLES)[number];
