import type { BodyOf, ResponseOf } from '../../contract/api.js';
import type { ApiClient } from '../../client/client.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { ApiError, NetworkError } from '../../client/errors.js';
import { CliError, EXIT } from '../../errors.js';
import { formatDuration } from '../../io/progress.js';
import { backoffDelay, type Backoff } from '../../timing.js';
import { keyIdentity, resolveWorkspace } from '../resolve.js';
import type { Context } from '../types.js';
import type { AudioFile } from './preflight.js';

/** The life of one voice job seen from the CLI: workspace, create, upload (with retries), complete, poll. */

/** A voice job as the service answers it (the contract's schema). */
export type VoiceJob = ResponseOf<'voice.get'>;
export type JobStatus = VoiceJob['status'];

export const isFinal = (s: JobStatus) => s === 'COMPLETED' || s === 'FAILED';

export const POLL = { firstMs: 1000, capMs: 30_000, factor: 1.5, jitter: 0.2, maxConsecutiveErrors: 5 } as const;
/** Upload retries: from 1 s, doubling, each wait between half and all of it. */
const UPLOAD_BACKOFF = { firstMs: 1000, factor: 2, capMs: 60_000, jitter: [0.5, 1] } as const satisfies Backoff;
export const UPLOAD_RETRIES = 3;

/** Failures worth another try: 5xx, 429, or no response at all. */
export const isTransient = (e: unknown) => e instanceof NetworkError || (e instanceof ApiError && (e.status >= 500 || e.status === 429));


/** A function that runs `fn` once; later calls share the first call's promise. */
export function once(fn: () => Promise<void> | void): () => Promise<void> {
  let p: Promise<void> | undefined;
  return () => (p ??= Promise.resolve().then(fn));
}

/**
 * The workspaceGuid for a new job: --workspace (guid or name) when given; nothing for a key bound to a workspace
 * (the service uses that one); for an unbound key the voice-enabled workspace it reaches when there is just one,
 * else a choice among them, asked on a terminal, or exit 10 naming --workspace and listing them.
 */
export async function jobWorkspace(ctx: Context, client: ApiClient, flag: string | undefined): Promise<string | undefined> {
  if (flag) return resolveWorkspace(ctx, flag);
  const me = (await client.call('auth.me')).data;
  if (me.workspaceGuid) return undefined;
  const all = (await keyIdentity(client, 'workspaces.reachable')).content;
  const choices = all.filter((w) => w.voiceFileEnabled);
  if (choices.length === 0)
    throw new CliError('no workspace this key reaches has voice file jobs enabled', { exitCode: EXIT.FORBIDDEN, hint: 'An admin must enable voice file jobs for a workspace.' });
  if (choices.length === 1) {
    ctx.io.info(`Using workspace ${choices[0].name} (${choices[0].guid}), the only one this key reaches with voice file jobs enabled.`);
    return choices[0].guid;
  }
  const listed = choices.map((w) => `${w.guid} (${w.name})`).join(', ');
  if (!ctx.io.canPrompt) {
    throw new CliError(`this ${me.keyType.toLowerCase()} key is bound to no workspace, so the job needs one and prompting is not allowed here`, {
      exitCode: EXIT.INPUT_NEEDED,
      hint: `Pass --workspace with one of: ${listed}.`,
    });
  }
  const prompter = await ctx.prompter();
  return prompter.select({
    message: 'Workspace for the voice job',
    choices: choices.map((w) => ({ name: `${w.name} (${w.guid})`, value: w.guid })),
    flag: '--workspace',
  });
}

export interface CreateJobOptions {
  workspaceGuid?: string;
  locale?: string;
  translate: string[];
  /**
   * Without workspaceGuid: the workspace to use when the service answers that the key needs one (400004, a key
   * bound to no workspace); undefined keeps that answer as the error.
   */
  chooseWorkspace?: () => Promise<string | undefined>;
}

/**
 * Create the job. Without a workspaceGuid the request goes out as it is: a key bound to a workspace needs none (the
 * service uses that one), and for an unbound key the service says so (400004), and then `chooseWorkspace` picks one
 * and the job is created in it. Asking first which key this is (auth/me) cost every bound key one more round trip
 * (~8 ms against a local sandbox, where the whole upload of a 1 MB file takes ~60 ms after start-up).
 */
export async function createJob(client: ApiClient, o: CreateJobOptions): Promise<ResponseOf<'voice.create'>> {
  const create = async (workspaceGuid: string | undefined) => {
    const body: NonNullable<BodyOf<'voice.create'>> = { translationLocales: o.translate };
    if (o.locale) body.transcriptLocaleHints = [o.locale];
    if (workspaceGuid) body.workspaceGuid = workspaceGuid;
    return (await client.call('voice.create', { body })).data;
  };
  try {
    return await create(o.workspaceGuid);
  } catch (e) {
    if (o.workspaceGuid || !o.chooseWorkspace || !(e instanceof ApiError && e.code === ERROR_CODES.WORKSPACE_REQUIRED)) throw e;
    const chosen = await o.chooseWorkspace();
    if (!chosen) throw e;
    return create(chosen);
  }
}

export interface UploadReporter {
  /** Bytes sent so far in this attempt. */
  progress(sent: number): void;
  /** The attempt failed and the upload restarts from the first byte. */
  retry(attempt: number, reason: string): void;
}

/** PUT the file to the signed URL, streamed from disk; a failed attempt restarts from the start (the URL stays valid). */
export async function uploadWithRetries(ctx: Context, client: ApiClient, uri: string, file: AudioFile, report: UploadReporter): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.upload(uri, { file: file.path, size: file.size, contentType: file.contentType, onProgress: report.progress, signal: ctx.signal });
      return;
    } catch (e) {
      if (ctx.signal.aborted || !isTransient(e) || attempt > UPLOAD_RETRIES) throw e;
      report.retry(attempt + 1, (e as Error).message);
      await ctx.clock.sleep(backoffDelay(UPLOAD_BACKOFF, attempt - 1), ctx.signal);
    }
  }
}

/** upload-complete; a 409 after a lost response means the first attempt landed: the job's status tells. */
export async function completeUpload(client: ApiClient, id: string): Promise<VoiceJob> {
  try {
    return (await client.call('voice.uploadComplete', { path: { jobId: id } })).data;
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 409)) throw e;
    const job = await getJob(client, id);
    if (job.status === 'CREATED') throw e;
    return job;
  }
}

export async function getJob(client: ApiClient, id: string): Promise<VoiceJob> {
  return (await client.call('voice.get', { path: { jobId: id } })).data;
}

export async function deleteJob(client: ApiClient, id: string): Promise<void> {
  await client.call('voice.delete', { path: { jobId: id } });
}

/** Delay before the next poll: ×1.5 from 1 s up to 30 s, ±20 % jitter. */
export function nextPollDelay(previousMs: number | undefined, random: () => number = Math.random): { base: number; wait: number } {
  const base = previousMs === undefined ? POLL.firstMs : Math.min(POLL.capMs, previousMs * POLL.factor);
  return { base, wait: Math.round(backoffDelay({ firstMs: base, factor: 1, capMs: base, jitter: [1 - POLL.jitter, 1 + POLL.jitter] }, 0, random)) };
}

/**
 * Poll until COMPLETED or FAILED. The delay grows from 1 s to a 30 s cap and starts over when the status changes;
 * transient failures are tolerated (up to 5 in a row); after a last look at `timeoutMs` the job is left running (exit 12).
 * Time, waited and measured, is the context's clock.
 */
export async function waitForJob(
  ctx: Context,
  client: ApiClient,
  id: string,
  o: { timeoutMs: number; onStatus: (job: VoiceJob, elapsedMs: number) => void; resume?: string },
): Promise<VoiceJob> {
  const { clock } = ctx;
  const started = clock.now();
  let delay: number | undefined;
  let last: JobStatus | undefined;
  let errors = 0;
  for (;;) {
    try {
      const job = await getJob(client, id);
      errors = 0;
      if (job.status !== last) delay = undefined;
      last = job.status;
      o.onStatus(job, clock.now() - started);
      if (isFinal(job.status)) return job;
      if (job.status === 'CREATED')
        throw new CliError(`job ${id} is CREATED: its upload was never completed, so it will not start`, { exitCode: EXIT.REJECTED, hint: 'Upload the file again with `notevox voice upload`.' });
    } catch (e) {
      if (ctx.signal.aborted || !isTransient(e) || ++errors >= POLL.maxConsecutiveErrors) throw e;
    }
    const next = nextPollDelay(delay);
    delay = next.base;
    // The last look is at the deadline itself: a job that finishes just in time is not given up on.
    const remaining = o.timeoutMs - (clock.now() - started);
    if (remaining <= 0) {
      throw new CliError(`gave up waiting after ${formatDuration(o.timeoutMs / 1000)}: job ${id} is still ${last ?? 'unknown'}`, {
        exitCode: EXIT.WAIT_TIMEOUT,
        hint: `It keeps running; resume with \`${o.resume ?? `notevox voice wait ${id}`}\` (raise --wait-timeout to wait longer).`,
      });
    }
    await clock.sleep(Math.min(next.wait, remaining), ctx.signal);
  }
}

/** Exit 9 with the job's errorMessage. */
export function jobFailed(job: VoiceJob): CliError {
  return new CliError(`voice job ${job.id} FAILED: ${job.errorMessage ?? 'no reason given'}`, { exitCode: EXIT.JOB_FAILED });
}
