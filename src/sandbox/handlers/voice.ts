import type { IncomingMessage } from 'node:http';
import type { Hono } from 'hono';
import type { CanonicalEndpointId } from '../../contract/endpoints.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { LIMITS } from '../../contract/limits.js';
import { reachesWorkspace } from '../access.js';
import { ApiFailure, badRequest, conflict, notFound } from '../http.js';
import { newUuid } from '../ids.js';
import type { HandlerContext, HandlerMap, Principal, SandboxRuntime } from '../types.js';
import { getJob, jobJson, jobVisible, removeUpload, signedUploadUri, UPLOAD_ROUTE, type JobRow } from '../voice/jobs.js';
import { receiveUpload } from '../voice/upload.js';
import { cancelJob, settleOrphan, startWorker } from '../voice/worker.js';

/** Voice file jobs (decisions.md §4): create, upload (signed URL), upload-complete, status, results, delete. */

/** The endpoints of one job: `{jobId}` in the path. */
type JobEndpointId = Exclude<Extract<CanonicalEndpointId, `voice.${string}`>, 'voice.create'>;

function requireVoicePermission(p: Principal): void {
  if (!p.voicePermission) throw new ApiFailure(ERROR_CODES.VOICE_PERMISSION, 'this API key lacks the voice-file permission');
}

/** The workspace a new job goes to (§4.1): required for unbound keys, the bound one otherwise; reachable and enabled. */
function jobWorkspace(ctx: HandlerContext<'voice.create'>, requested: string | null): string {
  const p = ctx.principal;
  if (p.workspaceGuid === null && !requested)
    throw new ApiFailure(ERROR_CODES.WORKSPACE_REQUIRED, 'workspaceGuid is required for workspace-unbound API keys', 'workspaceGuid: pass the workspace to create the job in');
  if (p.workspaceGuid !== null && requested && requested !== p.workspaceGuid)
    throw badRequest('workspaceGuid does not match the key', `workspaceGuid: this key is bound to workspace ${p.workspaceGuid}; leave workspaceGuid out or pass that one`);
  const guid = requested || p.workspaceGuid!;
  const ws = ctx.rt.db.get<{ voice_file_enabled: number }>('SELECT voice_file_enabled FROM workspaces WHERE guid = ?', [guid]);
  if (!ws || !reachesWorkspace(ctx.rt.db, p, guid)) throw notFound('workspace');
  if (!ws.voice_file_enabled) throw new ApiFailure(ERROR_CODES.VOICE_NOT_ENABLED, 'voice file jobs are not enabled for this workspace', `workspace ${guid}`);
  return guid;
}

/** The job of the path, checked against the key (403013, then 404 for missing, deleted or out of reach). */
function visibleJob(ctx: HandlerContext<JobEndpointId>): JobRow {
  requireVoicePermission(ctx.principal);
  const job = getJob(ctx.rt.db, String(ctx.params.jobId));
  if (!job || !jobVisible(ctx.rt.db, ctx.principal, job)) throw notFound('voice file job');
  return settleOrphan(ctx.rt, job);
}

type CompletedJob = JobRow & { transcript: NonNullable<JobRow['transcript']> };

/** Results exist only for COMPLETED jobs (409 otherwise). */
function completed(job: JobRow): CompletedJob {
  if (job.status === 'FAILED') throw new ApiFailure(ERROR_CODES.CONFLICT, 'the job FAILED and has no results', job.error_message);
  if (job.status !== 'COMPLETED' || !job.transcript) throw conflict(`the job is ${job.status}; results are available once it is COMPLETED`);
  return job as CompletedJob;
}

const completedJob = (ctx: HandlerContext<JobEndpointId>) => completed(visibleJob(ctx));

/** A locale of the path must have the form ll_CC (decisions.md §1.6): 400 before the job is looked at. */
function pathLocale(ctx: HandlerContext<'voice.translation' | 'voice.translationSummary'>): string {
  const locale = String(ctx.params.locale);
  if (!LIMITS.localePattern.test(locale)) throw badRequest('invalid path', `locale: "${locale}" is not a locale of the form ll_CC, e.g. ko_KR`);
  return locale;
}

/** The requested translation locale of the path (404 for one the job was not created with). */
function translationLocale(job: JobRow, locale: string): string {
  if (!job.translation_locales.includes(locale)) {
    const asked = job.translation_locales.length ? job.translation_locales.join(', ') : 'none';
    throw new ApiFailure(ERROR_CODES.NOT_FOUND, `translation ${locale} not found`, `the job was created with translationLocales: ${asked}`);
  }
  return locale;
}

const summaryBody = (jobId: string, locale: string, content: string) => ({ jobId, locale, summary: { type: 'text/markdown', content } });

function transcriptSummary(ctx: HandlerContext<'voice.summary' | 'voice.transcriptSummary'>) {
  const job = completedJob(ctx);
  return summaryBody(job.id, job.transcript.locale, job.summary?.transcript ?? '');
}

export const voiceHandlers = {
  'voice.create': (ctx) => {
    requireVoicePermission(ctx.principal);
    const body: NonNullable<typeof ctx.body> = ctx.body ?? {};
    const workspaceGuid = jobWorkspace(ctx, body.workspaceGuid ?? null);
    const id = newUuid();
    const now = ctx.rt.clock.now();
    const createdAt = now.toISOString();
    const transcriptLocaleHints: string[] = body.transcriptLocaleHints ?? [];
    const translationLocales: string[] = [...new Set<string>(body.translationLocales ?? [])];
    ctx.rt.db.run(
      `INSERT INTO voice_jobs (id, workspace_guid, key_id, user_id, organization_id, status, created_at, transcript_locale_hints, translation_locales)
       VALUES (?, ?, ?, ?, ?, 'CREATED', ?, ?, ?)`,
      [id, workspaceGuid, ctx.principal.keyId, ctx.principal.userId, ctx.principal.organizationId, createdAt, transcriptLocaleHints, translationLocales],
    );
    return { id, status: 'CREATED', ...signedUploadUri(ctx.rt, id, now), workspaceGuid, transcriptLocaleHints, translationLocales, createdAt };
  },

  'voice.get': (ctx) => jobJson(visibleJob(ctx)),

  'voice.uploadComplete': (ctx) => {
    const job = visibleJob(ctx);
    if (job.status !== 'CREATED') throw conflict(`the upload was already completed (status ${job.status})`);
    if (!job.upload_path || !job.upload_bytes) throw conflict('no bytes were uploaded for this job: PUT the file to its uploadUri first');
    ctx.rt.db.run(`UPDATE voice_jobs SET status = 'UPLOADED', file_uploaded_at = ? WHERE id = ?`, [ctx.rt.clock.now().toISOString(), job.id]);
    startWorker(ctx.rt, job.id);
    return jobJson(getJob(ctx.rt.db, job.id)!);
  },

  'voice.delete': (ctx) => {
    const job = visibleJob(ctx);
    ctx.rt.db.run('UPDATE voice_jobs SET deleted = 1 WHERE id = ?', [job.id]);
    cancelJob(ctx.rt, job.id);
    removeUpload(job);
    return undefined;
  },

  /** decisions.md §4.5: `segments`, and the same array as `paragraphs` for clients of the earlier reading. */
  'voice.transcript': (ctx) => {
    const job = completedJob(ctx);
    const { locale, text, paragraphs: segments } = job.transcript;
    return { jobId: job.id, locale, text, segments, paragraphs: segments };
  },

  'voice.translations': (ctx) => {
    const job = completedJob(ctx);
    return { content: (job.translations ?? []).map((t) => ({ jobId: job.id, ...t })) };
  },

  /**
   * The spec lists only 200, 401 and 404 for this call (decisions.md §4.5): a job that is not COMPLETED yet is
   * 404000 too, its `detail` saying so (a real client polls it and reads 404 as "not ready").
   */
  'voice.translation': (ctx) => {
    const requested = pathLocale(ctx);
    const job = visibleJob(ctx);
    const locale = translationLocale(job, requested);
    if (job.status !== 'COMPLETED' || !job.transcript) {
      const why = job.status === 'FAILED' ? `the job FAILED (${job.error_message ?? 'no errorMessage'}) and has no results` : `the job is ${job.status}, not COMPLETED: the translation exists once it is`;
      throw new ApiFailure(ERROR_CODES.NOT_FOUND, `translation ${locale} not found`, why);
    }
    const t = (completed(job).translations ?? []).find((x) => x.locale === locale);
    if (!t) throw notFound(`translation ${locale}`);
    return { jobId: job.id, ...t };
  },

  'voice.summary': transcriptSummary,
  'voice.transcriptSummary': transcriptSummary,

  'voice.translationSummary': (ctx) => {
    const requested = pathLocale(ctx);
    const job = visibleJob(ctx);
    const locale = translationLocale(job, requested);
    return summaryBody(job.id, locale, completed(job).summary?.translations[locale] ?? '');
  },
} satisfies HandlerMap;

/** The sandbox's signed upload URL (passes through the fault injection like every route). */
export function voiceRoutes(app: Hono, rt: SandboxRuntime): void {
  // The raw Node request (under a server socket) is piped to the file as it is.
  app.put(`${UPLOAD_ROUTE}/:jobId`, (c) => receiveUpload(rt, c.req.param('jobId'), c.req.raw, c.req.query(), (c.env as { incoming?: IncomingMessage } | undefined)?.incoming));
}
