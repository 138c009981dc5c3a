import { DOCUMENT_LOCALES } from '../../contract/limits.js';
import type { NoteRow } from '../access.js';
import { decodeRow, type Db } from '../db.js';
import { firstSentence, SANDBOX_MARK } from '../note-content.js';
import { newNoteGuid, newUuid } from '../ids.js';
import { noteJson } from '../serialize.js';
import type { Clock } from '../types.js';
import type { Emit } from './bus.js';

/**
 * Live notes (decisions.md §6.5): a note still recording. Its paragraphs appear one every `interval` of the sandbox
 * clock (visible through GET /notes/{guid}/paragraphs) while `recordingEndAt` stays null and
 * `recordingDurationSeconds` grows; at each stop `note.recording.completed`; after the last paragraph a summary
 * (`note_summary.generated`), then `recordingEndAt` and `note.ended`, exactly once. The paragraphs' own times run in
 * recording time (each lasts its `durationSeconds`, by default its speaking time), so a fast interval still gives a
 * plausible transcript. A live note is a row of `live_notes`: it resumes after a restart on `--state`.
 */

export interface LiveParagraph {
  speaker: string | null;
  text: string;
  durationSeconds: number;
}

export interface LiveSpec {
  paragraphs: LiveParagraph[];
  intervalSeconds: number;
  /** Paragraph counts (of the live run, 1-based) after which a recording stops; the last paragraph always ends one. */
  stops: number[];
}

export const LIVE_LIMITS = { maxParagraphs: 10_000, minIntervalSeconds: 0.001, maxIntervalSeconds: 3600 } as const;
export const DEFAULT_LIVE = { count: 6, intervalSeconds: 2 } as const;

const LIVE_SENTENCES = [
  'Thanks everyone for joining, let us get started.',
  'First item: where are we on the launch checklist?',
  'The build is green and the release notes are drafted.',
  'We still need sign-off from support before Friday.',
  'I can take that and follow up with the team today.',
  'One risk is the migration of older accounts.',
  'Let us add a rollback step to the plan, just in case.',
  'Agreed. Anything else before we wrap up?',
  'Quick reminder that the retro is on Thursday.',
  'Great, thanks all. I will send the notes afterwards.',
];

/** Speaking time (2.5 words a second, at least 2 s), as the seed uses. */
export const spokenSeconds = (s: string) => Math.max(2, Math.ceil(s.split(/\s+/).length / 2.5));

/** `count` made-up paragraphs, two speakers taking turns. */
export function generatedParagraphs(count: number): LiveParagraph[] {
  return Array.from({ length: count }, (_, i) => {
    const text = LIVE_SENTENCES[i % LIVE_SENTENCES.length];
    return { speaker: `Speaker ${(i % 2) + 1}`, text, durationSeconds: spokenSeconds(text) };
  });
}

/** A problem with a live spec (for the field named `at`), or undefined. */
export function liveSpecProblem(spec: { paragraphs: unknown[]; intervalSeconds: number; stops: number[] }, at = ''): string | undefined {
  const n = spec.paragraphs.length;
  if (n < 1 || n > LIVE_LIMITS.maxParagraphs) return `${at}paragraphs: a live note needs 1 to ${LIVE_LIMITS.maxParagraphs} paragraphs to come (${n} given)`;
  if (!(spec.intervalSeconds >= LIVE_LIMITS.minIntervalSeconds && spec.intervalSeconds <= LIVE_LIMITS.maxIntervalSeconds))
    return `${at}paragraphIntervalSeconds: must be from ${LIVE_LIMITS.minIntervalSeconds} to ${LIVE_LIMITS.maxIntervalSeconds}`;
  for (let i = 0; i < spec.stops.length; i++) {
    const s = spec.stops[i];
    if (!Number.isInteger(s) || s < 1 || s > n) return `${at}stops[${i}]: must be a paragraph count from 1 to ${n}`;
    if (i > 0 && s <= spec.stops[i - 1]) return `${at}stops[${i}]: stops must increase`;
  }
  return undefined;
}

interface LiveRow {
  note_guid: string;
  interval_ms: number;
  pending: LiveParagraph[];
  stops: number[];
  appended: number;
  offset_seconds: number;
  started: boolean;
  next_at: string;
}

export interface NewLiveNote {
  workspaceGuid: string;
  ownerUserId: number;
  folderId: number | null;
  title: string;
  spec: LiveSpec;
}

export class LiveNotes {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly emit: Emit,
    private readonly log: (line: string) => void,
  ) {}

  /** Start (or, after a restart, resume) every live note of the state. */
  resume(): void {
    for (const row of this.rows()) this.begin(row);
  }

  /** Create a live note (control API) and start it; answers the note. */
  create(o: NewLiveNote) {
    const guid = this.db.tx(() => {
      let g = newNoteGuid();
      while (this.db.get('SELECT 1 AS x FROM notes WHERE guid = ?', [g])) g = newNoteGuid();
      const id = (this.db.get<{ n: number | null }>('SELECT max(id) AS n FROM notes')?.n ?? 0) + 1;
      const now = this.clock.now().toISOString();
      this.db.run(
        `INSERT INTO notes (guid, id, title, owner_user_id, workspace_guid, folder_id, source_type, created_at, updated_at, recording_start_at, recording_end_at, recording_duration_seconds, transcribe_locale)
         VALUES (?, ?, ?, ?, ?, ?, 'live-voice', ?, ?, ?, NULL, 0, 'en_US')`,
        [g, id, o.title, o.ownerUserId, o.workspaceGuid, o.folderId, now, now, now],
      );
      this.db.run(`INSERT INTO note_collaborators (note_guid, user_id, role) VALUES (?, ?, 'OWNER')`, [g, o.ownerUserId]);
      const row = liveRow(g, o.spec, 0, now);
      const cols = Object.keys(row);
      this.db.run(`INSERT INTO live_notes (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, Object.values(row));
      return g;
    });
    this.begin(this.row(guid)!);
    return noteJson(this.db, this.note(guid));
  }

  private rows(): LiveRow[] {
    return this.db.all<LiveRow>('SELECT * FROM live_notes ORDER BY rowid').map((r) => decodeRow('live_notes', r) as LiveRow);
  }

  private row(guid: string): LiveRow | undefined {
    const r = this.db.get<LiveRow>('SELECT * FROM live_notes WHERE note_guid = ?', [guid]);
    return r ? (decodeRow('live_notes', r) as LiveRow) : undefined;
  }

  private note(guid: string): NoteRow {
    return this.db.get<NoteRow>('SELECT * FROM notes WHERE guid = ?', [guid])!;
  }

  /** note.created (and folder.note.added) the first time; then the next paragraph on its time. */
  private begin(row: LiveRow): void {
    if (!row.started) {
      const next = new Date(this.clock.now().getTime() + row.interval_ms).toISOString();
      this.db.tx(() => {
        this.db.run('UPDATE live_notes SET started = 1, next_at = ? WHERE note_guid = ?', [next, row.note_guid]);
        this.emit('note.created', { noteGuid: row.note_guid }, 'live');
        const n = this.note(row.note_guid);
        if (n.folder_id !== null) this.emit('folder.note.added', { noteGuid: n.guid, folderId: n.folder_id }, 'live');
      });
      row = { ...row, started: true, next_at: next };
    }
    this.schedule(row.note_guid, Date.parse(row.next_at) - this.clock.now().getTime());
  }

  private schedule(guid: string, delayMs: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(guid);
      try {
        this.tick(guid);
      } catch (e) {
        if (!this.stopped) this.log(`sandbox: live note ${guid}: ${(e as Error).message}`);
      }
    }, Math.max(0, delayMs));
    t.unref();
    this.timers.set(guid, t);
  }

  /** One paragraph appears; at a stop the recording completes; after the last one the note ends. */
  private tick(guid: string): void {
    if (this.stopped) return;
    const row = this.row(guid);
    if (!row) return; // the note is gone
    const note = this.note(guid);
    const [p, ...rest] = row.pending;
    const now = this.clock.now();
    const start = Date.parse(note.recording_start_at ?? note.created_at);
    const from = row.offset_seconds;
    const to = from + p.durationSeconds;
    const appended = row.appended + 1;
    const last = rest.length === 0;
    this.db.tx(() => {
      const position = (this.db.get<{ n: number | null }>('SELECT max(position) AS n FROM paragraphs WHERE note_guid = ?', [guid])?.n ?? -1) + 1;
      this.db.run('INSERT INTO paragraphs (uuid, note_guid, position, time_from, time_to, speaker, content) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        newUuid(), guid, position, new Date(start + from * 1000).toISOString(), new Date(start + to * 1000).toISOString(), p.speaker, p.text,
      ]);
      this.db.run('UPDATE notes SET recording_duration_seconds = ?, updated_at = ? WHERE guid = ?', [Math.round(to), now.toISOString(), guid]);
      if (last || row.stops.includes(appended)) this.emit('note.recording.completed', { noteGuid: guid }, 'live');
      if (last) {
        this.db.run('DELETE FROM live_notes WHERE note_guid = ?', [guid]);
        const summaryId = this.summarize(note, now.toISOString());
        this.emit('note_summary.generated', { summaryId }, 'live');
        this.db.run('UPDATE notes SET recording_end_at = ?, updated_at = ? WHERE guid = ?', [new Date(start + to * 1000).toISOString(), now.toISOString(), guid]);
        this.emit('note.ended', { noteGuid: guid }, 'live');
      } else {
        const next = new Date(now.getTime() + row.interval_ms).toISOString();
        this.db.run('UPDATE live_notes SET pending = ?, appended = ?, offset_seconds = ?, next_at = ? WHERE note_guid = ?', [rest, appended, to, next, guid]);
      }
    });
    if (!last) this.schedule(guid, row.interval_ms);
  }

  /** The sandbox's summary of the whole transcript: its first sentences, marked as sandbox output. */
  private summarize(note: NoteRow, at: string): number {
    const paras = this.db.all<{ speaker: string | null; content: string }>('SELECT speaker, content FROM paragraphs WHERE note_guid = ? ORDER BY position LIMIT 5', [note.guid]);
    const lines = paras.map((p) => `- ${p.speaker ? `**${p.speaker}:** ` : ''}${firstSentence(p.content)}`);
    const content = ['## Summary', SANDBOX_MARK, lines.join('\n')].join('\n\n');
    const locale = (DOCUMENT_LOCALES as readonly string[]).includes(note.transcribe_locale ?? '') ? note.transcribe_locale : 'en_US';
    return this.db.run('INSERT INTO summaries (note_guid, template_id, locale, content_markdown, created_at, updated_at) VALUES (?, NULL, ?, ?, ?, ?)', [
      note.guid, locale, content, at, at,
    ]).lastInsertRowid;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }
}

/**
 * The `live_notes` row of a note about to go live (seed loader and control API): its paragraphs continue the
 * recording at `offsetSeconds`; `next_at` is set when it starts.
 */
export function liveRow(guid: string, spec: LiveSpec, offsetSeconds: number, at: string) {
  return {
    note_guid: guid,
    interval_ms: Math.max(1, Math.round(spec.intervalSeconds * 1000)),
    pending: spec.paragraphs,
    stops: spec.stops,
    appended: 0,
    offset_seconds: offsetSeconds,
    started: false,
    next_at: at,
  };
}
