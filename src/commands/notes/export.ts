import { ApiError } from '../../client/errors.js';
import type { ResponseOf } from '../../contract/api.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';
import { checkOut, emitText } from './output.js';
import { LOCKED_TEXT, segmentSpeaker, type Paragraph } from './read.js';
import { latestSummary, type Summary } from './summaries.js';

/** notes export: one Markdown or JSON file with the note, its latest summary and the timed transcript. */

type Note = ResponseOf<'notes.get'>;


const hms = (seconds: number) => {
  const s = Math.max(0, Math.floor(seconds));
  return [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, '0')).join(':');
};

/** Summary headings one level down, so they sit under the export's "## Summary". */
const demoteHeadings = (md: string) => md.replace(/^(#{1,5}) /gm, '#$1 ');

/** The Markdown export: title, metadata, participants, latest summary, and the transcript with times from the recording start. */
export function exportMarkdown(note: Note, summary: Summary | null, paras: Paragraph[]): string {
  const start = Date.parse(note.recordingStartAt ?? paras[0]?.timeFrom ?? note.createdAt);
  const offset = (iso: string) => hms((Date.parse(iso) - start) / 1000);
  const locale = note.transcribeLocale ? note.transcribeLocale + (note.translateLocale ? ` (translated to ${note.translateLocale})` : '') : 'n/a';
  const meta = [
    ['GUID', note.guid],
    ['Created', note.createdAt],
    ['Source', note.sourceType],
    ['Duration', note.recordingStartAt ? hms(note.recordingDurationSeconds) : 'n/a (not a recording)'],
    ['Locale', locale],
    ['Workspace', note.workspaceGuid ?? 'none'],
    ['URL', note.webUrl],
  ];
  const participants = note.participants.length ? note.participants.map((p) => `- ${p.name}${p.email ? ` <${p.email}>` : ''}`).join('\n') : '_No participants tagged._';
  const spoken = (p: Paragraph) => {
    if (p.locked) return `_${LOCKED_TEXT}_`;
    const split = (p.diarizedSegments ?? []).filter((d) => d.content);
    // A paragraph split by speaker reads as one turn per speaker.
    if (split.length) return split.map((d) => `${segmentSpeaker(d) ? `${segmentSpeaker(d)}: ` : ''}${d.content}`).join(' ');
    return `${p.speaker ? `${p.speaker}: ` : ''}${p.transcript?.content ?? ''}`;
  };
  const transcript = paras.length ? paras.map((p) => `[${offset(p.timeFrom)}–${offset(p.timeTo)}] ${spoken(p)}`).join('\n\n') : '_No transcript._';
  return [
    `# ${note.title}`,
    meta.map(([k, v]) => `- **${k}:** ${v}`).join('\n'),
    '## Participants',
    participants,
    '## Summary',
    summary ? demoteHeadings(summary.content.content.trim()) : '_No summary._',
    '## Transcript',
    transcript,
  ].join('\n\n');
}

export async function exportNote(ctx: Context, guid: string, flags: Flags<typeof cmd.exportNote>): Promise<void> {
  await checkOut(flags.out);
  const client = await ctx.client();
  const note = (await client.call('notes.get', { path: { noteGuid: guid } })).data;
  const paras: Paragraph[] = [];
  for await (const page of client.paginate('notes.paragraphs', { path: { noteGuid: guid } }, { pageSize: PAGE_SIZES.paragraphs.max })) paras.push(...page.items);
  let summary: Summary | null = null;
  try {
    summary = (await latestSummary(ctx, guid, 'text/markdown', note.transcribeLocale)) ?? null;
  } catch (e) {
    // A key without note_summary:read still exports the rest.
    if (!(e instanceof ApiError && e.status === 403)) throw e;
    ctx.io.warn(`the summary is left out: ${e.apiMessage}${e.detail ? ` (${e.detail})` : ''}.`);
  }
  const text =
    flags.format === 'json' ? JSON.stringify({ note, participants: note.participants, summary, paragraphs: paras }, null, 2) : exportMarkdown(note, summary, paras);
  await emitText(ctx, text, flags.out, `note ${guid} (${paras.length} paragraphs, ${flags.format})`);
}
