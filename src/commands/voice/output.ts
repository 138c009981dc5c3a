import { join } from 'node:path';
import type { ResponseOf } from '../../contract/api.js';
import type { ApiClient } from '../../client/client.js';
import { writeDataFile } from '../../io/data-file.js';
import { cannotWrite, makeDirectory } from '../../io/fs-errors.js';
import type { IOStreams } from '../../io/iostreams.js';
import { renderObject } from '../../io/render.js';
import { isRecord } from '../../io/values.js';
import type { Context } from '../types.js';
import type { VoiceJob } from './job.js';
import type { OutputMode } from './options.js';

/** A finished job's results: fetched, printed as text/json/srt, and written to --out DIR. */

/** A transcript segment as the contract defines it (decisions.md §4.5). */
export type Segment = ResponseOf<'voice.transcript'>['segments'][number];

/**
 * A transcript as the service answered it (every field kept, for `-o json` and transcript.json), with `jobId`,
 * `locale`, `text` and `segments` always present: read by `readTranscript`.
 */
export interface Transcript {
  jobId: string;
  locale: string;
  text: string;
  segments: Segment[];
  [field: string]: unknown;
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Read a transcript answer tolerantly (decisions.md §4.5: clients read `segments` and fall back to `paragraphs`):
 * items missing fields get what can be inferred (their position, the previous end, no speaker, no text), items that
 * are not objects are left out, a missing `text` is the segments' texts, and an answer with neither array has no
 * segments. Nothing here throws: a transcript is shown with what it has.
 */
export function readTranscript(raw: unknown, jobId: string): Transcript {
  const t = isRecord(raw) ? raw : {};
  const items = Array.isArray(t.segments) ? t.segments : Array.isArray(t.paragraphs) ? t.paragraphs : [];
  let previousEnd = 0;
  const segments = items.filter(isRecord).map((p, i): Segment => {
    const startTimeMillis = finite(p.startTimeMillis) ? p.startTimeMillis : previousEnd;
    const endTimeMillis = finite(p.endTimeMillis) && p.endTimeMillis >= startTimeMillis ? p.endTimeMillis : startTimeMillis;
    previousEnd = endTimeMillis;
    return {
      index: Number.isInteger(p.index) ? (p.index as number) : i,
      startTimeMillis,
      endTimeMillis,
      speakerLabel: typeof p.speakerLabel === 'string' ? p.speakerLabel : null,
      text: typeof p.text === 'string' ? p.text : '',
    };
  });
  return {
    ...t,
    jobId: typeof t.jobId === 'string' ? t.jobId : jobId,
    locale: typeof t.locale === 'string' ? t.locale : '',
    text: typeof t.text === 'string' ? t.text : segments.map((p) => p.text.trim()).filter(Boolean).join('\n\n'),
    segments,
  };
}

/** GET the transcript of a job, read tolerantly. */
export async function fetchTranscript(client: ApiClient, jobId: string): Promise<Transcript> {
  return readTranscript((await client.call('voice.transcript', { path: { jobId } })).data, jobId);
}

export type Translation = ResponseOf<'voice.translation'>;
export type ParagraphSummary = ResponseOf<'voice.summary'>;

export interface Results {
  transcript: Transcript;
  /** Every translation the job was created with. */
  translations: Translation[];
  summary?: ParagraphSummary;
}

/** The transcript, the job's translations, and (when asked) the paragraph summary. */
export async function fetchResults(client: ApiClient, job: VoiceJob, o: { summary: boolean }): Promise<Results> {
  const params = { jobId: job.id };
  const [transcript, translations, summary] = await Promise.all([
    fetchTranscript(client, job.id),
    job.translationLocales.length ? client.call('voice.translations', { path: params }) : undefined,
    o.summary ? client.call('voice.summary', { path: params }) : undefined,
  ]);
  return { transcript, translations: translations?.data.content ?? [], summary: summary?.data };
}

/** 1200 → "00:00:01,200" (SubRip). */
export function srtTime(ms: number): string {
  const t = Math.max(0, Math.round(ms));
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(t / 3_600_000))}:${pad(Math.floor(t / 60_000) % 60)}:${pad(Math.floor(t / 1000) % 60)},${pad(t % 1000, 3)}`;
}

/** Segments as SubRip cues, speakers as a "Label: " prefix; a segment without text makes no cue (a cue needs a text line). */
export function toSrt(t: Transcript): string {
  return t.segments
    .filter((p) => p.text.trim() !== '')
    .map((p, i) => `${i + 1}\n${srtTime(p.startTimeMillis)} --> ${srtTime(p.endTimeMillis)}\n${p.speakerLabel ? `${p.speakerLabel}: ` : ''}${p.text.trim()}\n`)
    .join('\n');
}

const withNewline = (s: string) => (s === '' || s.endsWith('\n') ? s : s + '\n');

/** The JSON document of `-o json`: the transcript, plus translations and summary when there are any. */
export function resultsJson(r: Results): Record<string, unknown> {
  const out: Record<string, unknown> = { ...r.transcript };
  if (r.translations.length) out.translations = r.translations.map(({ locale, text }) => ({ locale, text }));
  if (r.summary) out.summary = { locale: r.summary.locale, ...r.summary.summary };
  return out;
}

export function printResults(ctx: Context, r: Results, mode: OutputMode): void {
  if (mode === 'json') return renderObject(ctx.io, resultsJson(r), { ...ctx.output, format: 'json' });
  const { segments, text } = r.transcript;
  if (segments.length === 0 && text.trim() === '') ctx.io.info('The transcript is empty: no speech was found in the recording.');
  else if (segments.length === 0 && mode === 'srt') ctx.io.warn('the transcript has text but no timed segments, so there are no SubRip cues: use -o text for its text.');
  if (mode === 'srt') return ctx.io.out(toSrt(r.transcript));
  ctx.io.out(withNewline(r.transcript.text));
  if (r.summary) ctx.io.out('\n' + withNewline(r.summary.summary.content));
}

/** The file that is written last: when it exists, the directory holds complete results. */
export const COMPLETE_MARKER = 'transcript.json';

/**
 * transcript.txt/.srt/.json, translation-<locale>.txt and summary.md in `dir`; transcript.json last, so that a
 * directory with it is complete (batch runs skip such files). Returns the names written.
 */
export async function writeResults(dir: string, r: Results, io: IOStreams): Promise<string[]> {
  try {
    makeDirectory(dir, 0o777);
  } catch (e) {
    throw cannotWrite(`--out ${dir}`, e);
  }
  const files: Array<[string, string]> = [
    ...r.translations.map((t): [string, string] => [`translation-${t.locale.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`, withNewline(t.text)]),
    ...(r.summary ? [['summary.md', withNewline(r.summary.summary.content)] as [string, string]] : []),
    ['transcript.txt', withNewline(r.transcript.text)],
    ['transcript.srt', toSrt(r.transcript)],
    [COMPLETE_MARKER, JSON.stringify(r.transcript, null, 2) + '\n'],
  ];
  for (const [name, text] of files) {
    try {
      writeDataFile(io, join(dir, name), text);
    } catch (e) {
      throw cannotWrite(join(dir, name), e);
    }
  }
  return files.map(([name]) => name);
}
