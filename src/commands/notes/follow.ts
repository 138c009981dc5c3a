import { parseRateLimit } from '../../client/retry.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';
import { PARAGRAPH_COLUMNS } from './read.js';

/**
 * `notes paragraphs GUID --follow`: tail a live note (decisions.md §6.5). Polls the note and its paragraphs, printing
 * each paragraph once as it appears, and ends with 0 once `recordingEndAt` is set (a note that is no recording ends
 * at once). Polls back off while nothing new comes, and never faster than the key's rate limit allows (the
 * `X-RateLimit-*` headers); a 429 is waited out by the client's retries. Ctrl-C ends it with 130.
 */

export const FOLLOW_POLL = { baseMs: 1000, maxMs: 10_000, factor: 2 } as const;
/** Requests one poll makes at least (the note, then the paragraphs). */
const REQUESTS_PER_POLL = 2;

/** The wait before the next poll: the backoff, stretched so that polls use at most half of what the window has left. */
export function nextPollDelay(backoffMs: number, headers: Record<string, string>, nowMs: number): number {
  const { remaining, resetEpochSeconds } = parseRateLimit(headers);
  if (remaining === undefined || resetEpochSeconds === undefined) return backoffMs;
  const untilReset = Math.max(0, resetEpochSeconds * 1000 - nowMs);
  const polls = Math.floor(remaining / (2 * REQUESTS_PER_POLL));
  return Math.max(backoffMs, polls < 1 ? untilReset : untilReset / polls);
}

/** `[h:]mm:ss` into the recording. */
function offset(from: string, start: string | null): string {
  const s = start ? Math.max(0, Math.round((Date.parse(from) - Date.parse(start)) / 1000)) : 0;
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return hh ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
}

export async function followParagraphs(ctx: Context, guid: string, flags: Flags<typeof cmd.paragraphs>): Promise<void> {
  const client = await ctx.client();
  const path = { noteGuid: guid };
  const { createListWriter } = await import('../../io/render.js');
  // A terminal gets a line per paragraph as it comes (a table would wait for the end); other formats stream as usual.
  const writer = flags.plain || (ctx.output.format === 'table' && !ctx.output.query) ? undefined : createListWriter(ctx.io, PARAGRAPH_COLUMNS, ctx.output);
  const printed = new Set<number>();
  let cursor = flags.cursor;
  let backoff: number = FOLLOW_POLL.baseMs;

  for (;;) {
    const note = (await client.call('notes.get', { path, signal: ctx.signal })).data;
    // The note is read before the paragraphs: once it says the recording ended, this drain has every paragraph.
    const ended = note.recordingEndAt !== null || note.recordingStartAt === null;
    let fresh = 0;
    let headers: Record<string, string> = {};
    for (;;) {
      const res = await client.call('notes.paragraphs', {
        path,
        query: { size: PAGE_SIZES.paragraphs.max, cursor },
        signal: ctx.signal,
      });
      headers = res.headers;
      const news = res.data.content.filter((p) => !printed.has(p.id));
      for (const p of news) printed.add(p.id);
      fresh += news.length;
      if (writer) writer.write(news);
      else
        for (const p of news) {
          const text = p.transcript.content.replace(/\s*\n\s*/g, ' ');
          ctx.io.out(flags.plain ? `${text}\n` : `[${offset(p.timeFrom, note.recordingStartAt)}] ${p.speaker ? `${p.speaker}: ` : ''}${text}\n`);
        }
      // The cursor of the last full page: its next poll starts there and skips what was printed.
      if (!res.data.nextCursor) break;
      cursor = res.data.nextCursor;
    }
    if (ended) {
      writer?.end();
      if (note.recordingStartAt === null) ctx.io.info(`Note ${guid} is not a recording: nothing more will appear.`);
      else ctx.io.info(`Recording ended at ${note.recordingEndAt}: ${printed.size} paragraph${printed.size === 1 ? '' : 's'}.`);
      return;
    }
    backoff = fresh ? FOLLOW_POLL.baseMs : Math.min(FOLLOW_POLL.maxMs, backoff * FOLLOW_POLL.factor);
    // Ctrl-C cuts the wait short; the command then ends (130, from the CLI's handler).
    await ctx.clock.sleep(nextPollDelay(backoff, headers, ctx.clock.now()), ctx.signal).catch(() => undefined);
    if (ctx.signal.aborted) return;
  }
}
