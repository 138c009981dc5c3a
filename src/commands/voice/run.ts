import type { ApiClient } from '../../client/client.js';
import { renderObject, type Column } from '../../io/render.js';
import { printList, printObject } from '../list.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';
import { resumeCommand, singleJobView, submitFile, waitWithResumeHint } from './flow.js';
import { deleteJob, getJob, jobFailed, jobWorkspace, type VoiceJob } from './job.js';
import { outputMode, shellWord, takeWaitTimeout, type OutputMode } from './options.js';
import { fetchResults, fetchTranscript, printResults, writeResults } from './output.js';
import { preflight } from './preflight.js';

export { transcribe } from './batch.js';

export const JOB_COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'status', header: 'STATUS' },
  { key: 'workspaceGuid', header: 'WORKSPACE' },
  { key: 'durationSeconds', header: 'SECONDS', kind: 'number' },
  { key: 'transcriptLocaleHints', header: 'LOCALE', kind: 'list' },
  { key: 'translationLocales', header: 'TRANSLATIONS', kind: 'list' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
  { key: 'fileUploadedAt', header: 'UPLOADED', kind: 'time' },
  { key: 'processStartedAt', header: 'STARTED', kind: 'time' },
  { key: 'processCompletedAt', header: 'FINISHED', kind: 'time' },
  { key: 'errorMessage', header: 'ERROR' },
];

/** The flags that shape a finished job's output (upload and wait). */
export type ResultFlags = Flags<typeof cmd.wait>;


/** The flags that shape the output, repeated in the resume command. */
function resumeFlags(flags: ResultFlags): string {
  return [flags.format ? ` --format ${flags.format}` : '', flags.out ? ` --out ${shellWord(flags.out)}` : '', flags.summary ? ' --summary' : ''].join('');
}

/** Wait for the job (last seen in `status`), then print and write its results (exit 9 when it FAILED). */
async function finish(ctx: Context, client: ApiClient, o: { id: string; status: string; flags: ResultFlags; mode: OutputMode; timeoutMs: number; view: ReturnType<typeof singleJobView> }) {
  const { id, flags, mode, view } = o;
  view.watch(id, o.status);
  let job: VoiceJob | undefined;
  try {
    job = await waitWithResumeHint(ctx, client, id, { timeoutMs: o.timeoutMs, resume: resumeCommand(id, resumeFlags(flags)), onStatus: view.events.status });
  } finally {
    view.finish(job);
  }
  if (job.status === 'FAILED') {
    if (mode === 'json') renderObject(ctx.io, job, { ...ctx.output, format: 'json' });
    throw jobFailed(job);
  }
  const results = await fetchResults(client, job, { summary: Boolean(flags.summary || flags.out) });
  if (flags.out) {
    const names = await writeResults(flags.out, results, ctx.io);
    ctx.io.success(`Wrote ${names.join(', ')} to ${flags.out}`);
  }
  printResults(ctx, { ...results, summary: flags.summary ? results.summary : undefined }, mode);
  if (mode !== 'json' && !flags.out && results.translations.length) {
    const locales = results.translations.map((t) => t.locale).join(', ');
    ctx.io.info(`Translations (${locales}): \`notevox voice translation ${job.id} <locale>\`, or use --out DIR or --json.`);
  }
}

export async function upload(ctx: Context, file: string, flags: Flags<typeof cmd.upload>): Promise<void> {
  const mode = outputMode(ctx, flags.format);
  const timeoutMs = takeWaitTimeout(ctx, flags.waitTimeout);
  const { locale, translate = [] } = flags;
  const audio = await preflight(file);
  const client = await ctx.client();
  // Without --workspace, the workspace is looked for only if the service says the key needs one (createJob).
  const workspaceGuid = flags.workspace ? await jobWorkspace(ctx, client, flags.workspace) : undefined;
  const chooseWorkspace = () => jobWorkspace(ctx, client, undefined);
  const view = singleJobView(ctx, audio);
  const job = await submitFile(ctx, client, audio, { workspaceGuid, locale, translate, chooseWorkspace }, view.events);
  if (flags.wait) return finish(ctx, client, { id: job.id, status: job.status, flags, mode, timeoutMs, view });
  if (mode === 'json') renderObject(ctx.io, job, { ...ctx.output, format: 'json' });
  else ctx.io.out(job.id + '\n');
  ctx.io.info(`Job ${job.id} is ${job.status}. Wait for it with: ${resumeCommand(job.id, resumeFlags(flags))}`);
}

export async function wait(ctx: Context, jobId: string, flags: ResultFlags): Promise<void> {
  const mode = outputMode(ctx, flags.format);
  const timeoutMs = takeWaitTimeout(ctx, flags.waitTimeout);
  const client = await ctx.client();
  return finish(ctx, client, { id: jobId, status: 'waiting', flags, mode, timeoutMs, view: singleJobView(ctx) });
}

export async function status(ctx: Context, jobId: string): Promise<void> {
  const client = await ctx.client();
  await printObject(ctx, await getJob(client, jobId), JOB_COLUMNS);
}

export async function transcript(ctx: Context, jobId: string, flags: Flags<typeof cmd.transcript>): Promise<void> {
  const mode = outputMode(ctx, flags.format);
  const client = await ctx.client();
  printResults(ctx, { transcript: await fetchTranscript(client, jobId), translations: [] }, mode);
}

export async function translations(ctx: Context, jobId: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('voice.translations', { path: { jobId } });
  await printList(ctx, res.data.content, [
    { key: 'locale', header: 'LOCALE' },
    { key: 'text', header: 'TEXT', maxWidth: 100 },
  ]);
}

export async function translation(ctx: Context, jobId: string, locale: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('voice.translation', { path: { jobId, locale } });
  if (ctx.output.json) return printObject(ctx, res.data);
  ctx.io.out(res.data.text.endsWith('\n') ? res.data.text : res.data.text + '\n');
}

export async function summary(ctx: Context, jobId: string, flags: Flags<typeof cmd.summary>): Promise<void> {
  const client = await ctx.client();
  const res = flags.locale !== undefined ? await client.call('voice.translationSummary', { path: { jobId, locale: flags.locale } }) : await client.call('voice.summary', { path: { jobId } });
  if (ctx.output.json) return printObject(ctx, res.data);
  const content = res.data.summary.content;
  ctx.io.out(content.endsWith('\n') ? content : content + '\n');
}

export async function remove(ctx: Context, jobId: string): Promise<void> {
  const client = await ctx.client();
  await deleteJob(client, jobId);
  if (ctx.output.json) return printObject(ctx, { id: jobId, deleted: true });
  ctx.io.success(`Deleted voice job ${jobId}.`);
}
