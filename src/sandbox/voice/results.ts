import type { z } from 'zod';
import type { transcriptSegment } from '../../contract/schemas.js';
import type { Segment } from './segments.js';
import { spreadOverSegments } from './segments.js';
import type { RawParagraph } from './transcriber.js';

/**
 * A job's results as stored (voice_jobs.transcript/translations/summary) and served (decisions.md §4.5).
 * Everything the sandbox makes up itself says so in its text.
 */

/** A transcript segment as the contract defines it (decisions.md §4.5). */
export type TranscriptParagraph = z.infer<typeof transcriptSegment>;

/** As stored: the handler serves `paragraphs` as `segments` and as `paragraphs` (decisions.md §4.5). */
export interface Transcript {
  locale: string;
  text: string;
  paragraphs: TranscriptParagraph[];
}

export interface Translation {
  locale: string;
  text: string;
}

export interface StoredSummaries {
  /** Markdown summary of the transcript. */
  transcript: string;
  /** Markdown summary per translation locale. */
  translations: Record<string, string>;
}

export interface JobResults {
  transcript: Transcript;
  translations: Translation[];
  summary: StoredSummaries;
}

/** Transcript locale when the job gave no hint (choice). */
export const DEFAULT_TRANSCRIPT_LOCALE = 'en_US';

/** 1234 ms → "00:00:01.23". */
export function clockTime(ms: number): string {
  const cs = Math.round(ms / 10);
  const h = Math.floor(cs / 360000);
  const m = Math.floor((cs % 360000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(cs % 100)}`;
}

/** The paragraphs the sandbox writes without a speech engine: one per speech segment, saying what it is. */
export function placeholderParagraphs(segments: Segment[]): RawParagraph[] {
  return segments.map((s) => ({
    startTimeMillis: s.startMs,
    endTimeMillis: s.endMs,
    text: `[sandbox transcript ${clockTime(s.startMs)}–${clockTime(s.endMs)}: no speech engine in the sandbox; pass --transcriber-command to use one]`,
  }));
}

/** Give every paragraph a time range (its own, else spread over the speech segments) and an index. */
export function placeParagraphs(raw: RawParagraph[], segments: Segment[], durationMs: number): TranscriptParagraph[] {
  const spread = spreadOverSegments(raw.length, segments, durationMs);
  const end = Math.round(durationMs);
  return raw.map((p, i) => {
    const startTimeMillis = Math.min(end, p.startTimeMillis ?? spread[i].startMs);
    const endTimeMillis = Math.max(startTimeMillis, Math.min(end, p.endTimeMillis ?? spread[i].endMs));
    return { index: i, startTimeMillis, endTimeMillis, speakerLabel: p.speakerLabel ?? null, text: p.text };
  });
}

const SUMMARY_WORDS = 12;

function gist(text: string): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length > SUMMARY_WORDS ? `${words.slice(0, SUMMARY_WORDS).join(' ')}…` : words.join(' ');
}

/** The paragraph summary: one bullet per paragraph with its time range and its opening words. */
export function paragraphSummary(paragraphs: TranscriptParagraph[], locale: string, of: string): string {
  const lines = [
    `# Paragraph summary (${locale})`,
    '',
    `_Sandbox output: no summarization engine in the sandbox; each item quotes the opening words of a paragraph of the ${of}._`,
    '',
  ];
  if (paragraphs.length === 0) lines.push('- (no speech was found in the recording)');
  for (const p of paragraphs) lines.push(`- **${clockTime(p.startTimeMillis)}–${clockTime(p.endTimeMillis)}** ${gist(p.text)}`);
  return lines.join('\n') + '\n';
}

/** A translation as the sandbox can make one: the transcript, marked as untranslated sandbox output. */
function translate(paragraphs: TranscriptParagraph[], locale: string, from: string): TranscriptParagraph[] {
  return paragraphs.map((p) => ({ ...p, text: `[sandbox translation ${from}→${locale}: no translation engine in the sandbox] ${p.text}` }));
}

const joinText = (paragraphs: TranscriptParagraph[]) => paragraphs.map((p) => p.text).join('\n\n');

export function buildResults(paragraphs: TranscriptParagraph[], locale: string, translationLocales: string[]): JobResults {
  const translations: Translation[] = [];
  const summaries: Record<string, string> = {};
  for (const target of translationLocales) {
    const translated = translate(paragraphs, target, locale);
    translations.push({ locale: target, text: joinText(translated) });
    summaries[target] = paragraphSummary(translated, target, `${target} translation`);
  }
  return {
    transcript: { locale, text: joinText(paragraphs), paragraphs },
    translations,
    summary: { transcript: paragraphSummary(paragraphs, locale, 'transcript'), translations: summaries },
  };
}
