import { existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { ApiClient } from '../../client/client.js';
import { ApiError, explainError } from '../../client/errors.js';
import { writeFileAtomic } from '../../io/atomic-file.js';
import { fsPromises } from '../../io/require.js';
import { cannotWrite, makeDirectory } from '../../io/fs-errors.js';
import { EXIT, UsageError } from '../../errors.js';
import { paint, truncate } from '../../io/text.js';
import { readHead, sniffAudio } from '../../audio/sniff.js';
import { printList } from '../list.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import { pool } from '../../pool.js';
import type * as cmd from './index.js';
import { interactive, resumeCommand, submitFile, waitWithResumeHint, type JobEvents, type JobRequest } from './flow.js';
import { deleteJob, getJob, jobWorkspace, type VoiceJob } from './job.js';
import { shellWord, takeWaitTimeout } from './options.js';
import { COMPLETE_MARKER, fetchResults, writeResults } from './output.js';
import { preflight, type AudioFile } from './preflight.js';

/**
 * `voice transcribe FILE...|DIR --out DIR`: many recordings, a few at a time. Each file's results go to
 * DIR/<file name without extension>/; files whose results are already there are skipped, so an interrupted
 * or partly failed run is finished by running the same command again.
 */

type TranscribeFlags = Flags<typeof cmd.transcribe>;

type Outcome = 'queued' | 'SKIPPED' | 'COMPLETED' | 'FAILED' | 'ERROR';

interface Item {
  input: string;
  outDir: string;
  file?: AudioFile;
  jobId?: string;
  outcome: Outcome;
  note?: string;
  durationSeconds?: number | null;
  exitCode: number;
}

/** The files named on the command line; directories contribute the audio files directly inside them. */
async function collectInputs(ctx: Context, paths: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const p of paths) {
    const st = await fsPromises().stat(p).catch(() => undefined);
    if (!st?.isDirectory()) {
      files.push(p); // missing or unreadable files are reported by the preflight check
      continue;
    }
    const names = (await fsPromises().readdir(p)).filter((n) => !n.startsWith('.')).sort();
    for (const name of names) {
      const path = join(p, name);
      if (!(await fsPromises().stat(path)).isFile()) continue;
      if (sniffAudio(await readHead(path))) files.push(path);
      else ctx.io.info(`Skipping ${path}: not WAV, MP3 or MP4/M4A audio.`);
    }
  }
  if (files.length === 0) throw new UsageError(`no audio files in ${paths.join(', ')}`, 'Name audio files, or a directory holding some.');
  return files;
}

/** DIR/<name without extension>; names that collide keep their extension; true duplicates are an error. */
function outputDirs(files: string[], out: string): string[] {
  const stem = (f: string) => basename(f, extname(f)) || basename(f);
  const count = (names: string[], n: string) => names.filter((x) => x === n).length;
  const stems = files.map(stem);
  const names = files.map((f, i) => (count(stems, stems[i]) > 1 ? basename(f).replace(/\./g, '-') : stems[i]));
  const dup = names.find((n) => count(names, n) > 1);
  if (dup) throw new UsageError(`two files would write their results to ${join(out, dup)}`, 'Rename one of them, or transcribe them in separate runs with different --out directories.');
  return names.map((n) => join(out, n));
}

/**
 * The job of each file, recorded in DIR/<name>/JOB_RECORD once the job exists and before a byte is uploaded, so
 * that running the same command again after Ctrl-C (or a crash) waits for that job instead of uploading the file
 * as a new one (twice the processing, and the quota, on the service). Removed once the results are written.
 */
export const JOB_RECORD = '.notevox-job.json';

interface JobRecord {
  jobId: string;
  /** The recording the job was made for, as it was then: another file under the same name gets a new job. */
  file: string;
  size: number;
  mtimeMs: number;
}

function readRecord(outDir: string): JobRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(join(outDir, JOB_RECORD), 'utf8')) as Partial<JobRecord>;
    return typeof r.jobId === 'string' && typeof r.size === 'number' && typeof r.mtimeMs === 'number' ? (r as JobRecord) : undefined;
  } catch {
    return undefined; // none, or unreadable: a new job
  }
}

function writeRecord(item: Item, jobId: string): void {
  const file = item.file!;
  const path = join(item.outDir, JOB_RECORD);
  try {
    makeDirectory(item.outDir, 0o777);
    writeFileAtomic(path, JSON.stringify({ jobId, file: item.input, size: file.size, mtimeMs: file.mtimeMs } satisfies JobRecord) + '\n');
  } catch (e) {
    throw cannotWrite(path, e, 'The job is recorded there before its upload, so that running the command again resumes it: make --out writable.');
  }
}

const removeRecord = (item: Item) => rmSync(join(item.outDir, JOB_RECORD), { force: true });

/**
 * The job an earlier run recorded for this file, when waiting for it is right: it exists, is not FAILED and was
 * uploaded (a CREATED job never got its file: it is deleted, and the file uploaded again). Undefined: a new job.
 */
async function earlierJob(ctx: Context, client: ApiClient, item: Item, view: BatchView): Promise<VoiceJob | undefined> {
  const record = readRecord(item.outDir);
  if (!record) return undefined;
  const file = item.file!;
  if (record.size !== file.size || record.mtimeMs !== file.mtimeMs) {
    view.say(`${basename(item.input)}: changed since job ${record.jobId} was made for it; uploading it as a new job.`);
    return undefined;
  }
  let job: VoiceJob;
  try {
    job = await getJob(client, record.jobId);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return undefined; // gone (deleted, or expired)
    throw e;
  }
  if (job.status === 'FAILED') return undefined;
  if (job.status === 'CREATED') {
    await deleteJob(client, job.id).catch(() => undefined); // never started; it would expire anyway
    return undefined;
  }
  return job;
}

/** One status line per file: redrawn in place on a terminal, printed when its phase changes otherwise. */
class BatchView {
  private readonly lines: string[];
  private readonly phases: string[];
  private readonly width: number;
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly live: boolean;

  constructor(
    private readonly ctx: Context,
    private readonly items: Item[],
  ) {
    const rows = (ctx.io.stderr as { rows?: number }).rows ?? 24;
    this.live = interactive(ctx) && items.length < rows - 1;
    this.width = Math.min(40, Math.max(...items.map((i) => basename(i.input).length)));
    this.lines = items.map(() => 'queued');
    this.phases = items.map(() => 'queued');
    if (this.live) {
      this.timer = setInterval(() => this.draw(), 150);
      this.timer.unref();
    }
  }

  /**
   * A message about the batch (the command that resumes a job, …). On a terminal it goes above the status lines,
   * which are drawn again below it: the next redraw moves up over its own lines only, never over a message.
   */
  say(line: string): void {
    if (!this.live) return this.ctx.io.info(line);
    const up = this.drawn ? `\u001b[${this.drawn}A\r\u001b[J` : '';
    this.drawn = 0;
    this.ctx.io.err(`${up}${line}\n`);
    this.draw();
  }

  /** `phase` names the step (a line is printed when it changes); `detail` adds what a live line shows. */
  update(item: Item, phase: string, detail = ''): void {
    const i = this.items.indexOf(item);
    this.lines[i] = detail ? `${phase} ${detail}` : phase;
    if (this.live || this.phases[i] === phase) return;
    this.phases[i] = phase;
    this.ctx.io.info(`${basename(item.input)}: ${phase}`);
  }

  private draw(): void {
    const { io } = this.ctx;
    let text = this.drawn ? `\u001b[${this.drawn}A` : '';
    this.items.forEach((item, i) => {
      const name = truncate(basename(item.input), this.width).padEnd(this.width);
      text += `\r\u001b[2K${truncate(`${paint(io.color, 'bold', name)}  ${this.lines[i]}`, io.columns - 1)}\n`;
    });
    this.drawn = this.items.length;
    io.err(text);
  }

  end(): void {
    if (!this.live) return;
    clearInterval(this.timer);
    this.draw();
  }
}

const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;

async function processItem(ctx: Context, client: ApiClient, item: Item, req: JobRequest, timeoutMs: number, view: BatchView): Promise<void> {
  const file = item.file!;
  const events: JobEvents = {
    created: (id) => {
      item.jobId = id;
      writeRecord(item, id); // before the upload: a rerun finds the job whatever happens from here
      view.update(item, 'uploading', '0%');
    },
    upload: {
      progress: (sent) => view.update(item, 'uploading', `${Math.floor((100 * sent) / file.size)}%`),
      retry: (attempt) => view.update(item, `uploading (attempt ${attempt})`),
      done: () => undefined, // `uploaded` follows with the job's status
    },
    uploaded: (job) => view.update(item, job.status),
    // the final status is shown with its outcome below
    status: (job, elapsedMs) => (job.status === 'COMPLETED' || job.status === 'FAILED' ? undefined : view.update(item, job.status, seconds(elapsedMs))),
    deleted: () => {
      removeRecord(item);
      view.update(item, 'upload incomplete: job deleted');
    },
  };
  try {
    let job = await earlierJob(ctx, client, item, view);
    if (job) {
      item.jobId = job.id;
      view.update(item, `resuming job ${job.id}: ${job.status}`);
    } else job = await submitFile(ctx, client, file, req, events);
    const resume = resumeCommand(job.id, ` --out ${shellWord(item.outDir)}`);
    const done = await waitWithResumeHint(ctx, client, job.id, { timeoutMs, resume, onStatus: events.status, say: (line) => view.say(line) });
    item.durationSeconds = done.durationSeconds;
    if (done.status === 'FAILED') {
      Object.assign(item, { outcome: 'FAILED', note: done.errorMessage ?? 'no reason given', exitCode: EXIT.JOB_FAILED });
    } else {
      await writeResults(item.outDir, await fetchResults(client, done, { summary: true }), ctx.io);
      removeRecord(item);
      item.outcome = 'COMPLETED';
    }
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    const why = explainError(e);
    Object.assign(item, { outcome: 'ERROR', note: why.message, exitCode: why.exitCode });
  }
  view.update(item, item.outcome === 'COMPLETED' ? `COMPLETED → ${item.outDir}` : `${item.outcome}: ${item.note}`);
}


export async function transcribe(ctx: Context, paths: string[], flags: TranscribeFlags): Promise<number> {
  if (!flags.out) throw new UsageError('--out DIR is required', 'Each file gets DIR/<name>/ with its transcript, translations and summary; files already done there are skipped.');
  const out = flags.out;
  const timeoutMs = takeWaitTimeout(ctx, flags.waitTimeout);
  const concurrency = flags.concurrency ?? 2;
  const req: JobRequest = { locale: flags.locale, translate: flags.translate ?? [] };
  const inputs = await collectInputs(ctx, paths);
  const items: Item[] = outputDirs(inputs, out).map((outDir, i) => ({ input: inputs[i], outDir, outcome: 'queued', exitCode: EXIT.OK }));

  for (const item of items) {
    if (existsSync(join(item.outDir, COMPLETE_MARKER))) Object.assign(item, { outcome: 'SKIPPED', note: 'results already there' });
    else {
      try {
        item.file = await preflight(item.input);
      } catch (e) {
        const why = explainError(e);
        Object.assign(item, { outcome: 'ERROR', note: why.message, exitCode: why.exitCode });
      }
    }
  }
  const todo = items.filter((i) => i.file && i.outcome === 'queued');
  const view = new BatchView(ctx, items);
  for (const item of items) if (item.outcome !== 'queued') view.update(item, item.outcome === 'SKIPPED' ? 'skipped: results already there' : `ERROR: ${item.note}`);
  // Registered first, so said last on Ctrl-C (after each job's own line).
  const unregister = ctx.onInterrupt(() => {
    if (items.some((i) => i.jobId && i.outcome === 'queued'))
      view.say('Or run the same command again: it waits for the jobs already uploaded and uploads only the files that have none.');
  });
  try {
    if (todo.length) {
      const client = await ctx.client();
      req.workspaceGuid = await jobWorkspace(ctx, client, flags.workspace);
      await pool(todo, concurrency, (item) => processItem(ctx, client, item, req, timeoutMs, view));
    }
  } finally {
    unregister();
    view.end();
  }

  await printList(
    ctx,
    items.map((i) => ({
      file: i.input,
      job: i.jobId ?? null,
      status: i.outcome,
      durationSeconds: i.durationSeconds ?? null,
      output: i.outcome === 'COMPLETED' || i.outcome === 'SKIPPED' ? i.outDir : null,
      note: i.note ?? null,
    })),
    [
      { key: 'file', header: 'FILE', maxWidth: 40 },
      { key: 'job', header: 'JOB' },
      { key: 'status', header: 'STATUS' },
      { key: 'durationSeconds', header: 'SECONDS', kind: 'number' },
      { key: 'output', header: 'OUTPUT', maxWidth: 40 },
      { key: 'note', header: 'NOTE', maxWidth: 60 },
    ],
  );
  const worst = Math.max(EXIT.OK, ...items.map((i) => i.exitCode));
  const failed = items.filter((i) => i.exitCode !== EXIT.OK).length;
  if (failed) ctx.io.info(`${failed} of ${items.length} file${items.length === 1 ? '' : 's'} did not complete; run the same command again to retry them.`);
  return worst;
}
