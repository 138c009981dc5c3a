import type { ResponseOf } from '../../contract/api.js';
import { CliError, EXIT } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printList, printObject } from '../list.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import { SUMMARY_FORMATS } from './formats.js';
import type { summariesGet } from './index.js';
import { checkOut, emitText } from './output.js';

/** notes summaries list and get (and the newest summary, which export uses). */

export type Summary = ResponseOf<'notes.summaries.get'>;
type SummaryFormat = (typeof SUMMARY_FORMATS)[keyof typeof SUMMARY_FORMATS];

const SUMMARY_COLUMNS: Column<ResponseOf<'notes.summaries.list'>['content'][number]>[] = [
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'template.title', header: 'TEMPLATE', get: (s) => s.template?.title ?? '-' },
  { key: 'locale', header: 'LOCALE' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];

export async function list(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('notes.summaries.list', { path: { noteGuid: guid } });
  await printList(ctx, res.data.content, SUMMARY_COLUMNS);
}

type SummaryItem = ResponseOf<'notes.summaries.list'>['content'][number];

const language = (locale: string) => locale.split(/[_-]/)[0].toLowerCase();

/**
 * The summary to show for a note spoken in `noteLocale`: the newest in that locale, else the newest in its language
 * (en_GB for en_US), else the newest of all (a translated summary is better than none); the newest of all when the
 * note's locale is unknown.
 */
export function pickSummary<S extends Pick<SummaryItem, 'id' | 'locale' | 'createdAt'>>(all: readonly S[], noteLocale?: string | null): S | undefined {
  const newestFirst = [...all].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
  if (!noteLocale) return newestFirst[0];
  return newestFirst.find((s) => s.locale === noteLocale) ?? newestFirst.find((s) => language(s.locale) === language(noteLocale)) ?? newestFirst[0];
}

/** The newest summary of a note (in the note's language when `noteLocale` is given: pickSummary), in the given format; undefined when it has none. */
export async function latestSummary(ctx: Context, guid: string, format: SummaryFormat, noteLocale?: string | null): Promise<Summary | undefined> {
  const client = await ctx.client();
  const all = (await client.call('notes.summaries.list', { path: { noteGuid: guid } })).data.content;
  const newest = pickSummary(all, noteLocale);
  if (!newest) return undefined;
  if (noteLocale && language(newest.locale) !== language(noteLocale))
    ctx.io.info(`Note ${guid} has no summary in its language (${noteLocale}); using the ${newest.locale} one.`);
  return (await client.call('notes.summaries.get', { path: { noteGuid: guid, summaryId: newest.id }, query: { format } })).data;
}

export async function get(ctx: Context, guid: string, summaryId: number | undefined, flags: Flags<typeof summariesGet>): Promise<void> {
  await checkOut(flags.out);
  const format = SUMMARY_FORMATS[flags.format];
  let summary: Summary | undefined;
  if (summaryId === undefined) {
    summary = await latestSummary(ctx, guid, format);
    if (!summary) throw new CliError(`note ${guid} has no summaries`, { exitCode: EXIT.NOT_FOUND, hint: 'Summaries are made in the app; see `notevox notes documents generate` for documents.' });
  } else {
    const client = await ctx.client();
    summary = (await client.call('notes.summaries.get', { path: { noteGuid: guid, summaryId }, query: { format } })).data;
  }
  if (flags.out !== undefined || ctx.output.human) return emitText(ctx, summary.content.content, flags.out, `summary ${summary.id}`);
  await printObject(ctx, summary);
}
