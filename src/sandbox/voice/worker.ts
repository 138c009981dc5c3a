import type { SandboxRuntime } from '../types.js';
import { analyzeAudio, AudioRejected } from './analyze.js';
import { getJob, type JobRow } from './jobs.js';
import { buildResults, DEFAULT_TRANSCRIPT_LOCALE, placeholderParagraphs, placeParagraphs, type JobResults } from './results.js';
/** transcriber.ts (zod), loaded for the first job with a --transcriber-command. */
let transcriber: typeof import('./transcriber.js') | undefined;
import { loadReplacements, wordReplacer } from './words.js';

/**
 * The job worker: UPLOADED → PROCESSING → COMPLETED or FAILED. Each stage lasts `--job-seconds`
 * (default 2) so that clients exercise their polling; the real work (reading the file, finding the
 * speech, running the transcriber command) happens during PROCESSING and may take longer than that.
 * A job deleted in the meantime is left alone, and a transcriber command still running for it is ended
 * (DELETE cancels processing). A job found UPLOADED or PROCESSING that this sandbox process is not working
 * on (the sandbox restarted over a --state file; the uploads lived in a temporary directory) ends FAILED.
 */

export const DEFAULT_JOB_SECONDS = 2;

export function paceMs(rt: SandboxRuntime): number {
  const s = rt.options.jobSeconds;
  return typeof s === 'number' && s >= 0 ? s * 1000 : DEFAULT_JOB_SECONDS * 1000;
}

type Outcome = { ok: true; durationSeconds: number; results: JobResults } | { ok: false; durationSeconds: number | null; errorMessage: string };

/** The jobs this sandbox process is moving on, per runtime, each with a way to cancel its processing. */
const working = new WeakMap<SandboxRuntime, Map<string, AbortController>>();
const workingOn = (rt: SandboxRuntime) => {
  let m = working.get(rt);
  if (!m) working.set(rt, (m = new Map()));
  return m;
};

/** DELETE: stop whatever is running for the job (its transcriber command). */
export function cancelJob(rt: SandboxRuntime, id: string): void {
  const c = workingOn(rt).get(id);
  workingOn(rt).delete(id);
  c?.abort();
}

export const ORPHANED_MESSAGE = 'the sandbox restarted while the job was being processed and its upload was not kept: upload the file again';

/** A job left UPLOADED or PROCESSING by an earlier sandbox process can never finish: it ends FAILED (and the row read is updated). */
export function settleOrphan(rt: SandboxRuntime, job: JobRow): JobRow {
  if ((job.status !== 'UPLOADED' && job.status !== 'PROCESSING') || workingOn(rt).has(job.id)) return job;
  const now = rt.clock.now().toISOString();
  rt.db.run(`UPDATE voice_jobs SET status = 'FAILED', process_completed_at = ?, error_message = ? WHERE id = ?`, [now, ORPHANED_MESSAGE, job.id]);
  return { ...job, status: 'FAILED', process_completed_at: now, error_message: ORPHANED_MESSAGE };
}

/** Read the file, find the speech, transcribe (command or placeholders), apply word memories, derive the rest. */
export async function processJob(rt: SandboxRuntime, job: JobRow, signal?: AbortSignal): Promise<Outcome> {
  let durationSeconds: number | null = null;
  try {
    const file = job.upload_path ?? '';
    const audio = await analyzeAudio(file);
    durationSeconds = Math.round(audio.durationMs) / 1000;
    const command = rt.options.transcriberCommand;
    const raw = typeof command === 'string' && command.trim() ? await (transcriber ??= await import('./transcriber.js')).runTranscriber(command, file, undefined, signal) : placeholderParagraphs(audio.segments);
    const replace = wordReplacer(loadReplacements(rt.db, { userId: job.user_id, workspaceGuid: job.workspace_guid, organizationId: job.organization_id }));
    const paragraphs = placeParagraphs(raw, audio.segments, audio.durationMs).map((p) => ({ ...p, text: replace(p.text) }));
    const locale = job.transcript_locale_hints[0] ?? DEFAULT_TRANSCRIPT_LOCALE;
    return { ok: true, durationSeconds, results: buildResults(paragraphs, locale, job.translation_locales) };
  } catch (e) {
    if (e instanceof AudioRejected || (transcriber !== undefined && e instanceof transcriber.TranscriberFailed)) return { ok: false, durationSeconds, errorMessage: e.message };
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') return { ok: false, durationSeconds, errorMessage: 'the uploaded file is gone' };
    return { ok: false, durationSeconds, errorMessage: `processing failed: ${err.message}` };
  }
}

/** Whether the job is still in `status` (not deleted, not moved on). */
function stillIn(rt: SandboxRuntime, id: string, status: JobRow['status']): JobRow | undefined {
  const job = getJob(rt.db, id);
  return job && !job.deleted && job.status === status ? job : undefined;
}

function finish(rt: SandboxRuntime, id: string, outcome: Outcome): void {
  workingOn(rt).delete(id);
  if (!stillIn(rt, id, 'PROCESSING')) return;
  const now = rt.clock.now().toISOString();
  if (outcome.ok) {
    const r = outcome.results;
    rt.db.run(
      `UPDATE voice_jobs SET status = 'COMPLETED', process_completed_at = ?, duration_seconds = ?, transcript = ?, translations = ?, summary = ? WHERE id = ?`,
      [now, outcome.durationSeconds, r.transcript, r.translations, r.summary, id],
    );
  } else {
    rt.db.run(`UPDATE voice_jobs SET status = 'FAILED', process_completed_at = ?, duration_seconds = ?, error_message = ? WHERE id = ?`, [
      now,
      outcome.durationSeconds,
      outcome.errorMessage,
      id,
    ]);
  }
}

async function startProcessing(rt: SandboxRuntime, id: string): Promise<void> {
  const job = stillIn(rt, id, 'UPLOADED');
  const control = workingOn(rt).get(id);
  if (!job || !control) return;
  rt.db.run(`UPDATE voice_jobs SET status = 'PROCESSING', process_started_at = ? WHERE id = ?`, [rt.clock.now().toISOString(), id]);
  const started = Date.now();
  const outcome = await processJob(rt, job, control.signal);
  if (control.signal.aborted) return;
  rt.schedule(() => finish(rt, id, outcome), Math.max(0, paceMs(rt) - (Date.now() - started)));
}

/** Called once the upload is complete: the job moves on by itself from here. */
export function startWorker(rt: SandboxRuntime, id: string): void {
  workingOn(rt).set(id, new AbortController());
  rt.schedule(() => startProcessing(rt, id), paceMs(rt));
}
