import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import type { Db } from '../db.js';
import { liveRow } from '../events/live.js';
import { seededRandom } from '../faults.js';
import { hashSecret, newSalt, newUuid, randomAlnum, type RandomSource } from '../ids.js';
import type { TableName } from '../schema.sql.js';
import { WEB_APP_URL } from '../serialize.js';
import { analyze, liveSpecOf, type SeedIndex } from './checks.js';
import { RECORDING_SOURCE_TYPES, type NoteSeed, type Seed } from './schema.js';
import { assignIds, firstFreeId, insertWordMemories, KEPT_INDEXES, SPLIT_MARK, type WordMemoriesBuild } from './word-memories.js';
import { isRecord } from '../../io/values.js';
import { phase } from './phases.js';

/** The seed loader: reads a seed file, validates it (schema.ts, checks.ts) and inserts it in one transaction. */

const DEFAULT_TRANSCRIBE_LOCALE = 'en_US';
/** Fixed seed of the random source for generated uuids and share ids, so a seed always loads the same. */
const LOADER_RANDOM_SEED = 0x5eed;

export interface SeededKey {
  id: string;
  type: Seed['apiKeys'][number]['type'];
  label?: string;
  status: Seed['apiKeys'][number]['status'];
  /** The secret as written in the seed, for `sandbox start` to print; the store keeps only its salted hash. */
  secret: string;
  workspaceGuid?: string;
  scopes: string[];
}

export interface SeedSummary {
  keys: SeededKey[];
  /** Rows inserted, per table. */
  counts: Partial<Record<TableName, number>>;
}

/** The form toISOString gives (years 0000–9999), which a seed's instants often have already. */
const ISO_FORM = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/**
 * An instant of the seed (checked by the schema: a real date and time) as stored, in toISOString's form: one in that
 * form already is its own (a test checks it), without the round trip through a Date (a few hundred ns each, for
 * 100k notes).
 */
const iso = (s: string) => (ISO_FORM.test(s) ? s : new Date(s).toISOString());
/** `s`, an instant in toISOString's form, plus `seconds` (to the ms), in that form. */
const addSeconds = (s: string, seconds: number) => {
  const ms = Math.round(seconds * 1000);
  return ms === 0 ? s : new Date(Date.parse(s) + ms).toISOString();
};
/** The later of two instants in toISOString's form (of the same length, text order is time order). */
const later = (a: string, b: string) => (a.length === 24 && b.length === 24 ? (a >= b ? a : b) : Date.parse(a) >= Date.parse(b) ? a : b);
/** Speaking time (2.5 words a second, at least 2 s) used when a paragraph gives no duration. */
const spokenSeconds = (s: string) => Math.max(2, Math.ceil(s.split(/\s+/).length / 2.5));

class Loader {
  readonly counts: Partial<Record<TableName, number>> = {};
  private readonly rand: RandomSource = seededRandom(LOADER_RANDOM_SEED);
  /**
   * What wiki mentions take from their notes (id, last update, paragraph rows), kept for the notes they name only:
   * a map of 100k notes costs more than the rest of their loading but their inserts.
   */
  private readonly mentioned = new Map<string, { id: number; updated: string; paragraphs: Array<{ id: number; uuid: string; content: string }> } | null>();

  constructor(
    private readonly ix: SeedIndex,
    private readonly now: string,
  ) {}

  get index(): SeedIndex {
    return this.ix;
  }

  /**
   * One prepared INSERT per table and column list, reused for every row (bound from an array, stepped,
   * reset; db.ts bulk). Measured (in sql.js, before node:sqlite) on a million rows against INSERT … SELECT over json_each batches:
   * a reused statement bound from arrays costs the least CPU. Word memories go in many rows per statement
   * (wordMemories()). Rows go in the order the loader writes them, parents before children.
   */
  private readonly statements = new Map<string, (values: readonly unknown[]) => void>();
  private prepare: ((sql: string) => (values: readonly unknown[]) => void) | undefined;

  private insert(table: TableName, row: Record<string, unknown>): void {
    this.flush();
    const cols = Object.keys(row);
    const key = `${table}(${cols.join(',')})`;
    let run = this.statements.get(key);
    if (!run) {
      run = this.prepare!(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
      this.statements.set(key, run);
    }
    run(Object.values(row));
    this.counts[table] = (this.counts[table] ?? 0) + 1;
  }

  /** The rows of insertRow not inserted yet, by column list, in the order the lists were first used. */
  private readonly pending = new Map<readonly string[], PendingRows>();

  /**
   * Insert a row given as its values in the order of `columns` (a constant: its rows are found by identity), for the
   * tables of a big seed's many rows (notes, their collaborators and paragraphs): no object made and taken apart again
   * for each (insert), and ROWS_PER_INSERT rows per statement (measured: a statement run costs about 0.7 µs of CPU
   * beyond its rows, 0.15 s for the bench's 200k notes and collaborators). Rows wait until their list has that many,
   * then go in after those of every list used before (their parents: a note before its collaborators and
   * paragraphs, which its foreign keys check at the end of each statement); insert() and the end of the load insert
   * every waiting row first.
   */
  private insertRow(table: TableName, columns: readonly string[], row: readonly unknown[]): void {
    let p = this.pending.get(columns);
    if (!p) this.pending.set(columns, (p = { table, columns, values: new Array(ROWS_PER_INSERT * columns.length), rows: 0, runs: new Map() }));
    const at = p.rows * columns.length;
    for (let c = 0; c < row.length; c++) p.values[at + c] = row[c];
    this.counts[table] = (this.counts[table] ?? 0) + 1;
    if (++p.rows === ROWS_PER_INSERT) this.flush(p);
  }

  /** Insert the waiting rows of every list, or of those used before `upTo` and of `upTo`. */
  private flush(upTo?: PendingRows): void {
    for (const p of this.pending.values()) {
      if (p.rows > 0) {
        let run = p.runs.get(p.rows);
        if (!run) {
          const tuple = `(${p.columns.map(() => '?').join(', ')})`;
          run = this.prepare!(`INSERT INTO ${p.table} (${p.columns.join(', ')}) VALUES ${Array.from({ length: p.rows }, () => tuple).join(', ')}`);
          p.runs.set(p.rows, run);
        }
        run(p.rows === ROWS_PER_INSERT ? p.values : p.values.slice(0, p.rows * p.columns.length));
        p.rows = 0;
      }
      if (p === upTo) return;
    }
  }

  private at = (s: string | undefined | null, fallback = this.now) => (s ? iso(s) : fallback);

  /** Insert the whole seed (inside db.bulk, whose `prepare` gives the statements). */
  load(prepare: (sql: string) => (values: readonly unknown[]) => void): SeededKey[] {
    this.prepare = prepare;
    const { seed } = this.ix;
    for (const o of seed.organizations) this.insert('organizations', { id: o.id, name: o.name, created_at: this.at(o.createdAt) });
    for (const w of seed.workspaces)
      this.insert('workspaces', {
        guid: w.guid, organization_id: w.organizationId, name: w.name, created_at: this.at(w.createdAt),
        voice_file_enabled: w.voiceFileEnabled, wiki_plan: w.wikiPlan, wiki_enabled: w.wikiEnabled,
        monthly_minutes: w.quota.monthlyMinutes, used_minutes: w.quota.usedMinutes,
      });
    for (const u of seed.users) {
      this.insert('users', { id: u.id, guid: u.guid ?? null, name: u.name, email: u.email, organization_id: u.organizationId, org_admin: u.orgAdmin });
      for (const m of u.memberships) this.insert('memberships', { user_id: u.id, workspace_guid: m.workspaceGuid, role: m.role });
    }
    const keys = seed.apiKeys.map((k) => this.apiKey(k));
    this.folders();
    for (const t of seed.templates)
      this.insert('templates', {
        id: t.id, title: t.title, description: t.description, owner_type: t.ownerType, owner_user_id: t.ownerUserId,
        workspace_guid: t.workspaceGuid, organization_id: t.organizationId, kind: t.kind,
        sections: t.sections.map((s, i) => ({ id: s.id ?? i + 1, title: s.title, instruction: s.instruction })), created_at: this.at(t.createdAt),
      });
    this.notes();
    this.wordMemories();
    this.wiki();
    for (const e of seed.webhookEndpoints)
      this.insert('webhook_endpoints', {
        id: e.id, url: e.url, secret: e.secret, event_types: [...new Set(e.eventTypes)], organization_id: e.organizationId ?? null,
        workspace_guids: e.workspaceGuids, source: 'seed', created_at: this.at(e.createdAt),
      });
    this.flush();
    return keys;
  }

  /** Word memories, the biggest table of a big seed (many rows per statement: insertWordMemories). */
  private wordMemories() {
    const items = this.ix.seed.wordMemories;
    insertWordMemories(this.prepare!, items, firstFreeId(items), this.now);
    this.counts.word_memories = (this.counts.word_memories ?? 0) + items.length;
  }

  private apiKey(k: Seed['apiKeys'][number]): SeededKey {
    const salt = newSalt();
    this.insert('api_keys', {
      id: k.id, secret_salt: salt, secret_hash: hashSecret(k.secret, salt), type: k.type, label: k.label,
      user_id: k.userId, workspace_guid: k.workspaceGuid, organization_id: this.ix.keyOrganization(k), scopes: k.scopes,
      status: k.status, expires_at: k.expiresAt ? iso(k.expiresAt) : null, created_at: this.at(k.createdAt),
      voice_permission: k.voicePermission, legacy_scope: k.legacyScope, issued_by_user_id: k.issuedByUserId ?? null,
    });
    return { id: k.id, type: k.type, label: k.label, status: k.status, secret: k.secret, workspaceGuid: k.workspaceGuid, scopes: k.scopes };
  }

  /** Parents before children (the seed may list them in any order). */
  private folders() {
    const depth = (f: Seed['folders'][number]): number => (f.parentId != null ? 1 + depth(this.ix.folders.get(f.parentId)!) : 1);
    const ordered = [...this.ix.seed.folders].sort((a, b) => depth(a) - depth(b));
    for (const f of ordered) {
      const created = this.at(f.createdAt);
      this.insert('folders', {
        id: f.id, workspace_guid: f.workspaceGuid, owner_user_id: f.ownerUserId, parent_id: f.parentId ?? null, title: f.title,
        description: f.description, color: f.color, sharing_type: f.sharingType, created_at: created, updated_at: this.at(f.updatedAt, created),
      });
      for (const m of f.members) this.insert('folder_members', { folder_id: f.id, user_id: m.userId, role: m.role });
    }
  }

  private notes() {
    const notes = this.ix.seed.notes;
    const { mentions, generatedMentions } = this.ix.seed.wiki;
    for (const m of mentions) this.mentioned.set(m.noteGuid, null);
    for (const g of generatedMentions) for (const guid of g.noteGuids) this.mentioned.set(guid, null);
    const ids = assignIds(notes);
    const summaryIds = assignIds(notes.flatMap((n) => n.summaries));
    const documentIds = assignIds(notes.flatMap((n) => n.documents));
    const paragraphIds = assignIds(notes.flatMap((n) => n.paragraphs));
    // each note's children take the next ids of their lists, in order
    const next = { summaries: 0, documents: 0, paragraphs: 0 };
    const take = (list: number[], kind: keyof typeof next, count: number) => (count === 0 ? NO_IDS : list.slice(next[kind], (next[kind] += count)));
    for (let i = 0; i < notes.length; i++) {
      const n = notes[i];
      this.note(n, ids[i], {
        summaries: take(summaryIds, 'summaries', n.summaries.length),
        documents: take(documentIds, 'documents', n.documents.length),
        paragraphs: take(paragraphIds, 'paragraphs', n.paragraphs.length),
      });
    }
  }

  private note(n: NoteSeed, id: number, childIds: { summaries: readonly number[]; documents: readonly number[]; paragraphs: readonly number[] }) {
    const created = this.at(n.createdAt);
    const rec = n.recording ?? (RECORDING_SOURCE_TYPES.has(n.sourceType) ? {} : undefined);
    const start = rec ? this.at(rec.startAt, created) : null;
    const base = start ?? created;
    // Paragraph timing: each starts where the previous ended unless given.
    let cursor = 0;
    const timed = n.paragraphs.map((p) => {
      // A locked paragraph is stored without its text: the plan hides it everywhere (decisions.md §3.2).
      const content = p.locked ? '' : p.text?.trim() ? p.text : p.diarizedSegments.map((d) => d.content).join(' ');
      const from = p.offsetSeconds ?? cursor;
      const length = p.durationSeconds ?? spokenSeconds(content);
      cursor = from + length;
      return { ...p, content, from, to: from + length };
    });
    const duration = rec ? (rec.durationSeconds ?? Math.ceil(Math.max(0, ...timed.map((p) => p.to)))) : 0;
    // A live note is still recording: no end yet (the live engine sets it after its last paragraph).
    const end = start && !n.live ? addSeconds(start, duration) : null;
    const updated = this.at(n.updatedAt, end ? later(end, created) : created);

    this.insertRow('notes', NOTE_COLUMNS, [
      n.guid, id, n.title, n.ownerUserId, this.ix.noteWorkspace(n), n.folderId ?? null, n.sourceType, created, updated, start, end, duration,
      rec ? (rec.transcribeLocale ?? DEFAULT_TRANSCRIBE_LOCALE) : null, rec?.translateLocale ?? null, n.deleted,
    ]);
    n.participants.forEach((p, position) => this.insert('note_participants', { note_guid: n.guid, position, name: p.name, email: p.email ?? null }));
    // the owner first, unless it is one of them
    if (!n.collaborators.some((c) => c.userId === n.ownerUserId)) this.insertRow('note_collaborators', COLLABORATOR_COLUMNS, [n.guid, n.ownerUserId, 'OWNER']);
    for (const c of n.collaborators) this.insertRow('note_collaborators', COLLABORATOR_COLUMNS, [n.guid, c.userId, c.role]);

    const rows = timed.map((p, position) => {
      const row = { id: childIds.paragraphs[position], uuid: p.uuid ?? newUuid(this.rand), content: p.content };
      const summary = typeof p.summary === 'string' ? { type: 'text/markdown', content: p.summary } : (p.summary ?? null);
      const diarized = p.diarizedSegments.map((d) => ({ content: d.content, speaker: { label: d.speaker.label, personName: d.speaker.personName ?? null } }));
      this.insertRow('paragraphs', PARAGRAPH_COLUMNS, [
        row.id, row.uuid, row.content, n.guid, position, addSeconds(base, p.from), addSeconds(base, p.to), p.speaker ?? null, p.locked, diarized, summary,
      ]);
      return row;
    });
    if (this.mentioned.size > 0 && this.mentioned.has(n.guid)) this.mentioned.set(n.guid, { id, updated, paragraphs: rows });

    n.summaries.forEach((s, j) => {
      const at = this.at(s.createdAt, updated);
      this.insert('summaries', {
        id: childIds.summaries[j], note_guid: n.guid, template_id: s.templateId ?? null, locale: s.locale, content_markdown: s.content,
        created_at: at, updated_at: this.at(s.updatedAt, at),
      });
    });
    n.documents.forEach((d, j) => {
      const at = this.at(d.createdAt, updated);
      const sections = d.sections.map((sec) =>
        typeof sec === 'string' ? { type: 'text/markdown', content: sec, createdAt: at } : { type: sec.content.type, content: sec.content.content, createdAt: this.at(sec.createdAt, at) },
      );
      this.insert('documents', { id: childIds.documents[j], note_guid: n.guid, template_id: d.templateId, locale: d.locale, sections, created_at: at, updated_at: at });
    });
    if (n.live) this.insert('live_notes', liveRow(n.guid, liveSpecOf(n.live), duration, this.now));
    if (n.shareLink) {
      const shareId = n.shareLink.shareId ?? randomAlnum(22, this.rand);
      const salt = n.shareLink.password !== undefined ? newSalt() : null;
      this.insert('share_links', {
        note_guid: n.guid, share_id: shareId, share_url: `${WEB_APP_URL}/share/${shareId}`, password_salt: salt,
        password_hash: salt !== null ? hashSecret(n.shareLink.password!, salt) : null, created_at: this.at(n.shareLink.createdAt, updated),
      });
    }
  }

  private wiki() {
    const { pages, mentions, generatedMentions } = this.ix.seed.wiki;
    for (const p of pages) {
      const created = this.at(p.createdAt);
      this.insert('wiki_pages', {
        guid: p.guid, workspace_guid: p.workspaceGuid, canonical_name: p.canonicalName, page_type: p.pageType, description: p.description,
        aliases: p.aliases, links: p.links, created_at: created, updated_at: this.at(p.updatedAt, created),
      });
    }
    for (const m of mentions) this.mention({ ...m, guid: m.guid ?? newUuid(this.rand), createdAt: m.createdAt ? iso(m.createdAt) : undefined });
    for (const g of generatedMentions) {
      const page = this.ix.pages.get(g.pageGuid)!;
      const names = [page.canonicalName, ...page.aliases].map((n) => n.toLowerCase());
      const naming = (content: string) => names.some((n) => content.toLowerCase().includes(n));
      // Per note, the paragraphs that name the page (all of them when none does).
      const candidates = g.noteGuids.map((guid) => {
        const rows = this.mentioned.get(guid)!.paragraphs.map((p, index) => ({ index, content: p.content }));
        // Locked paragraphs have no text to extract (unless the note has nothing else).
        const shown = rows.filter((p) => p.content !== '');
        const all = shown.length ? shown : rows;
        const named = all.filter((p) => naming(p.content));
        return named.length ? named : all;
      });
      for (let i = 0; i < g.count; i++) {
        const n = i % g.noteGuids.length;
        const noteGuid = g.noteGuids[n];
        const paragraph = candidates[n][Math.floor(i / g.noteGuids.length) % candidates[n].length];
        const sentences = paragraph.content.match(/[^.!?]+[.!?]*/g) ?? [paragraph.content];
        this.mention({
          guid: newUuid(this.rand), pageGuid: g.pageGuid, noteGuid, paragraphIndex: paragraph.index,
          kind: i % 4 === 3 ? 'IMPLICIT' : 'EXPLICIT',
          extractedText: clip((sentences.find(naming) ?? sentences[0]).trim()),
          confidence: Math.round((0.55 + ((i * 37) % 45) / 100) * 100) / 100,
          createdAt: addSeconds(this.mentioned.get(noteGuid)!.updated, i),
        });
      }
    }
  }

  private mention(m: {
    guid: string; pageGuid: string; noteGuid: string; paragraphIndex: number; kind: string; extractedText: string;
    confidence: number; sourceUserId?: number; createdAt?: string;
  }) {
    const note = this.mentioned.get(m.noteGuid)!;
    const paragraph = note.paragraphs[m.paragraphIndex];
    this.insert('wiki_mentions', {
      guid: m.guid, page_guid: m.pageGuid, note_guid: m.noteGuid, note_id: note.id, kind: m.kind,
      source_user_id: m.sourceUserId ?? this.ix.notes.get(m.noteGuid)!.ownerUserId, extracted_text: m.extractedText,
      created_at: m.createdAt ?? note.updated, paragraph_id: paragraph.id, paragraph_uuid: paragraph.uuid, confidence: m.confidence,
    });
  }
}

const NO_IDS: readonly number[] = [];
const NOTE_COLUMNS = [
  'guid', 'id', 'title', 'owner_user_id', 'workspace_guid', 'folder_id', 'source_type', 'created_at', 'updated_at', 'recording_start_at',
  'recording_end_at', 'recording_duration_seconds', 'transcribe_locale', 'translate_locale', 'deleted',
] as const;
const COLLABORATOR_COLUMNS = ['note_guid', 'user_id', 'role'] as const;
const PARAGRAPH_COLUMNS = ['id', 'uuid', 'content', 'note_guid', 'position', 'time_from', 'time_to', 'speaker', 'locked', 'diarized_segments', 'summary'] as const;
/** Rows per statement of insertRow (at most 15 values each: SQLite allows 32766). */
const ROWS_PER_INSERT = 64;

interface PendingRows {
  table: TableName;
  columns: readonly string[];
  values: unknown[];
  rows: number;
  /** The statement for each number of rows used. */
  runs: Map<number, (values: readonly unknown[]) => void>;
}

const clip = (s: string) => (s.length > 200 ? s.slice(0, 199) + '…' : s);

/**
 * Validate a seed and insert it in one transaction. Secrets are stored only as salted hashes; they are
 * returned in `keys` so that `sandbox start` can print usable keys.
 */
export function loadSeed(db: Db, input: unknown, source?: string): SeedSummary {
  const { seed, index } = analyze(input, source);
  const now = seed.now ? iso(seed.now) : new Date().toISOString();
  let loader = new Loader(index, now);
  let keys: SeededKey[];
  try {
    keys = insertSeed(db, () => (loader = new Loader(index, now)));
  } catch (e) {
    // An entry given twice in a scope, found by the table's unique index as bulk builds it after the rows (analyze
    // leaves it to it; the error is the one a row's insert gives): the checks again, with it, name every problem
    // as they would have (nothing else found: the error as it is).
    if (/UNIQUE constraint failed: word_memories\./.test((e as Error).message)) analyze(input, source, { wordMemoryEntries: true });
    throw e;
  }
  return { keys, counts: loader.counts };
}

/**
 * Insert a seed's rows (`loader()` makes a new Loader, which inserts the same rows each time). Its CHECK constraints
 * are not evaluated row by row but once over the finished tables (quick_check, in the same transaction): with an IN
 * list, SQLite builds a lookup table of its values again for every row it checks, about two thirds of the CPU of
 * inserting a note. The checks of the seed (analyze) leave nothing for them to find; should they find anything,
 * the rows are taken back and inserted again with the constraints checked row by row, which fails as it always did.
 */
export function insertSeed(db: Db, loader: () => Pick<Loader, 'load'>): SeededKey[] {
  let keys: SeededKey[] | undefined;
  db.run('PRAGMA ignore_check_constraints = ON');
  try {
    db.tx(() => {
      let inserted: SeededKey[];
      try {
        inserted = db.bulk((prepare) => loader().load(prepare), KEPT_INDEXES);
        phase('inserted rows and built indexes');
      } finally {
        // quick_check leaves out the CHECK constraints while they are ignored
        db.run('PRAGMA ignore_check_constraints = OFF');
      }
      if (!quickCheckOk(db)) throw new ChecksFound();
      phase('quick_check');
      keys = inserted;
    });
  } catch (e) {
    if (!(e instanceof ChecksFound)) throw e;
  } finally {
    db.run('PRAGMA ignore_check_constraints = OFF');
  }
  return keys ?? db.bulk((prepare) => loader().load(prepare), KEPT_INDEXES);
}

class ChecksFound extends Error {}

/** The database passes quick_check: its CHECK and NOT NULL constraints hold (and its b-trees are sound). */
function quickCheckOk(db: Db): boolean {
  const rows = db.all<Record<string, unknown>>('PRAGMA quick_check');
  return rows.length === 1 && Object.values(rows[0])[0] === 'ok';
}

/** A split seed (word-memories.ts) that is not vouched for: it is to be loaded whole (loadSeed), which names its problems. */
export class LoadWhole extends Error {
  override name = 'LoadWhole';
}

/**
 * Load a seed split by splitWordMemories: `head`, the seed's parsed text without its word memories, into `db`,
 * while `wordMemories` builds them in a file of their own; then the rest is copied into that file, which becomes
 * the seed's database (`file`): the smaller part is copied (SQLite's transfer of whole tables, their indexes with
 * them), not the million word memories. Throws LoadWhole for anything not vouched for (nothing is then reported
 * from here: loading the seed whole reports it, exactly as a start always has); `db` is then to be discarded.
 */
export async function loadSplitSeed(db: Db, head: unknown, wordMemories: WordMemoriesBuild, source?: string): Promise<SeedSummary & { file: string }> {
  if (!isRecord(head) || head.wordMemories !== SPLIT_MARK) throw new LoadWhole('the wordMemories array was not the top-level one');
  let loader: Loader;
  let keys: SeededKey[];
  // The word memories' rows wait for `now` (the createdAt of those without one): it goes first, taken from the
  // seed's `now` as written; the checks then must find the same.
  const now = typeof head.now === 'string' && !Number.isNaN(Date.parse(head.now)) ? iso(head.now) : new Date().toISOString();
  wordMemories.start(now);
  // The tail of the word memories first: the worker copies it in once its own rows are done (word-memories.ts).
  await wordMemories.buildTail();
  try {
    const { seed, index } = analyze({ ...head, wordMemories: [] }, source);
    phase('checked the rest (schema and references)');
    if (seed.now !== undefined && iso(seed.now) !== now) throw new Error('`now` is not what it was taken to be');
    loader = new Loader(index, now);
    keys = insertSeed(db, () => (loader = new Loader(index, now)));
  } catch (e) {
    throw new LoadWhole((e as Error).message);
  }
  phase('inserted the rest');
  const built = await wordMemories.result();
  phase('word memories done');
  if (!built.ok) throw new LoadWhole(built.why);
  // said here, by the start's thread: the worker's own lines may not be through when the start ends
  if (built.tailCopied) phase('(their tail copied in by the worker)');
  const { organizations, workspaces, users } = loader.index;
  for (const s of built.scopes) {
    const known = s.scope === 'user' ? /^\d+$/.test(s.id) && users.has(Number(s.id)) : s.scope === 'workspace' ? workspaces.has(s.id) : organizations.has(s.id);
    if (!known) throw new LoadWhole(`unknown ${s.scope} ${s.id}`);
  }
  copyInto(db, built.file);
  phase('copied the rest into their file');
  loader.counts.word_memories = built.count;
  return { keys, counts: loader.counts, file: built.file };
}

/**
 * Copy every table of `db` but word_memories (empty there) into the database file `file` (the same schema, those
 * tables empty), and the AUTOINCREMENT counters of those tables. `SELECT *` of a table of the same definition into
 * an empty one: SQLite copies the records in order, index by index (its transfer optimization), which it does only
 * with foreign keys off: the rows were checked when they went into `db`.
 */
function copyInto(db: Db, file: string): void {
  const to = 'nvx_seed_base';
  const tables = db
    .all<{ name: string }>("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'word_memories' ORDER BY rowid")
    .map((t) => t.name);
  db.run('ATTACH DATABASE ? AS nvx_seed_base', [file]);
  db.run('PRAGMA foreign_keys = OFF');
  try {
    db.run(`PRAGMA ${to}.journal_mode = OFF`);
    db.run(`PRAGMA ${to}.synchronous = OFF`);
    db.run(`PRAGMA ${to}.cache_size = -${256 << 10}`);
    db.tx(() => {
      for (const t of tables) db.run(`INSERT INTO ${to}."${t}" SELECT * FROM main."${t}"`);
      // The counters in the order a split load always left them: the word memories' last (it copied them in last).
      const wordMemories = db.get<{ seq: number }>(`SELECT seq FROM ${to}.sqlite_sequence WHERE name = 'word_memories'`);
      db.run(`DELETE FROM ${to}.sqlite_sequence`);
      db.run(`INSERT INTO ${to}.sqlite_sequence (name, seq) SELECT name, seq FROM main.sqlite_sequence WHERE name <> 'word_memories' ORDER BY rowid`);
      if (wordMemories) db.run(`INSERT INTO ${to}.sqlite_sequence (name, seq) VALUES ('word_memories', ?)`, [wordMemories.seq]);
    });
  } finally {
    db.run('PRAGMA foreign_keys = ON');
    db.run(`DETACH DATABASE ${to}`);
  }
}

/** Read a seed file as JSON; errors name the file and, for bad JSON, the line and column. */
export async function readSeedFile(path: string): Promise<unknown> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `seed file ${path} not found` : `cannot read seed file ${path}: ${(e as Error).message}`);
  }
  return parseSeedText(raw, path);
}

/** A seed file's text as JSON; errors name the file and, for bad JSON, the line and column. */
export function parseSeedText(raw: string, path: string): unknown {
  try {
    return JSON.parse(raw.replace(/^\uFEFF/, ''));
  } catch (e) {
    const msg = (e as Error).message;
    const pos = /position (\d+)/.exec(msg);
    let where = '';
    if (pos && !/line \d+/.test(msg)) {
      const before = raw.slice(0, Number(pos[1])).split('\n');
      where = ` (line ${before.length} column ${before[before.length - 1].length + 1})`;
    }
    throw new UsageError(`seed file ${path} is not valid JSON: ${msg}${where}`, 'the seed format is described in docs/sandbox-seed.md');
  }
}
