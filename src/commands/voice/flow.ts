import type { ApiClient } from '../../client/client.js';
import { isCI } from '../../io/iostreams.js';
import { formatBytes, formatDuration, type Progress, type Spinner } from '../../io/progress.js';
import type { Context } from '../types.js';
import { completeUpload, createJob, deleteJob, once, uploadWithRetries, waitForJob, type CreateJobOptions, type UploadReporter, type VoiceJob } from './job.js';
import type { AudioFile } from './preflight.js';

/**
 * One file through a job, with Ctrl-C handled: before upload-complete the job is deleted (nothing is left
 * behind); after it the job keeps running and the command to resume is printed.
 */

export interface JobEvents {
  /** The job exists and nothing is uploaded yet; a throw here deletes the job and fails the file. */
  created(id: string): void;
  upload: UploadReporter & { done(): void };
  uploaded(job: VoiceJob): void;
  status(job: VoiceJob, elapsedMs: number): void;
  /** The job was deleted because its upload did not complete (interrupt or failure). */
  deleted(id: string): void;
}

export type JobRequest = CreateJobOptions;

export const resumeCommand = (id: string, extra = '') => `notevox voice wait ${id}${extra}`;

/** Create, upload and complete; returns the job as upload-complete left it (UPLOADED or later). */
export async function submitFile(ctx: Context, client: ApiClient, file: AudioFile, req: JobRequest, ev: JobEvents): Promise<VoiceJob> {
  const created = await createJob(client, req);
  const discard = once(async () => {
    try {
      await deleteJob(client, created.id);
      ev.deleted(created.id);
    } catch {
      // best effort: the job was never started and expires with its upload URL
    }
  });
  const unregister = ctx.onInterrupt(discard);
  // Start the DELETE the moment Ctrl-C aborts, before anything else of the shutdown runs.
  const onAbort = () => void discard();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    ev.created(created.id);
    await uploadWithRetries(ctx, client, created.uploadUri, file, ev.upload);
    ev.upload.done();
    const job = await completeUpload(client, created.id);
    ev.uploaded(job);
    return job;
  } catch (e) {
    await discard();
    throw e;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    unregister();
  }
}

/** Poll to the end; on Ctrl-C say how to resume. */
export async function waitWithResumeHint(
  ctx: Context,
  client: ApiClient,
  id: string,
  o: { timeoutMs: number; resume: string; onStatus: JobEvents['status']; say?: (line: string) => void },
): Promise<VoiceJob> {
  const say = o.say ?? ((line: string) => ctx.io.info(line));
  const hint = once(() => say(`Job ${id} keeps running on the service. Resume with: ${o.resume}`));
  const unregister = ctx.onInterrupt(hint);
  try {
    return await waitForJob(ctx, client, id, { timeoutMs: o.timeoutMs, onStatus: o.onStatus, resume: o.resume });
  } catch (e) {
    if (ctx.signal.aborted) await hint();
    throw e;
  } finally {
    unregister();
  }
}

/** Whether stderr redraws (spinners and progress bars) rather than printing lines: the rule of src/io's status sink. */
export function interactive(ctx: Context): boolean {
  const sized = ((ctx.io.stderr as { columns?: number }).columns ?? 0) > 0;
  return ctx.io.isStderrTTY && sized && ctx.io.env.TERM !== 'dumb' && !isCI(ctx.io.env);
}

const seconds = (ms: number) => formatDuration(ms / 1000);
const audioLength = (job: VoiceJob) => (job.durationSeconds !== null ? `${job.durationSeconds.toFixed(1)} s of audio` : 'length unknown');

/**
 * The display of one job on stderr: the upload progress bar (bytes, rate, ETA, retries), then a spinner with the
 * status and the time waited — or, on a non-interactive stderr, a line per step.
 */
export function singleJobView(ctx: Context, file?: AudioFile) {
  const live = interactive(ctx);
  let bar: Progress | undefined;
  let sent = 0;
  let uploadStarted = 0;
  let spinner: Spinner | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let current = { id: '', status: '' };
  let since = 0;
  let printed: string | undefined;
  const line = () => `Job ${current.id}: ${current.status} · ${seconds(ctx.clock.now() - since)}`;

  // A fresh bar per attempt: its rate and ETA are those of the attempt under way, not diluted by a failed one.
  const startBar = (label: string) => file && ctx.io.progress({ total: file.size, unit: 'bytes', label });
  const events: JobEvents = {
    created(id) {
      ctx.io.success(`Created voice job ${id}`);
      uploadStarted = ctx.clock.now();
      bar = startBar(`Uploading ${file?.name}`);
    },
    upload: {
      progress(n) {
        bar?.tick(n - sent);
        sent = n;
      },
      retry(attempt, reason) {
        bar?.done();
        sent = 0;
        ctx.io.info(`Upload failed (${reason}); starting over (attempt ${attempt})`);
        bar = startBar(`Uploading ${file?.name} (attempt ${attempt})`);
      },
      done() {
        if (file) bar?.done(`Uploaded ${file.name} (${formatBytes(file.size)}) in ${seconds(ctx.clock.now() - uploadStarted)}`);
      },
    },
    uploaded: () => undefined, // the wait, when there is one, shows the status from here
    status(job) {
      current = { id: job.id, status: job.status };
      if (live) spinner?.text(line());
      else if (job.status !== printed && job.status !== 'COMPLETED' && job.status !== 'FAILED') ctx.io.info(line());
      printed = job.status;
    },
    deleted(id) {
      bar?.done();
      ctx.io.info(`Job ${id} was deleted: its upload did not complete.`);
    },
  };

  return {
    events,
    /** Start showing the wait for job `id`, last seen in `status`. */
    watch(id: string, status: string) {
      current = { id, status };
      since = ctx.clock.now();
      // Off a terminal the spinner prints its text every 10 s (and the status changes their own lines): never silent.
      spinner = ctx.io.spinner(line());
      ticker = setInterval(() => spinner?.text(line()), 1000);
      ticker.unref();
    },
    /** Stop showing the wait: the outcome, or nothing when the wait failed. */
    finish(job: VoiceJob | undefined) {
      if (ticker) clearInterval(ticker);
      if (!job || !live) spinner?.stop();
      if (!job) return;
      if (!live) spinner = undefined;
      const outcome = `Job ${job.id} ${job.status} after ${seconds(ctx.clock.now() - since)} (${audioLength(job)})`;
      if (job.status === 'COMPLETED') {
        if (spinner) spinner.succeed(outcome);
        else ctx.io.success(outcome);
      } else if (spinner) spinner.fail(outcome);
      else ctx.io.info(outcome);
    },
  };
}
