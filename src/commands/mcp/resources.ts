import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { PAGE_SIZES } from '../../contract/limits.js';
import { paragraphSpeakers, paragraphText } from '../notes/read.js';
import type { Context } from '../types.js';
import { TOOL_PAGE_SIZE } from './catalogue.js';
import { fitText } from './shape.js';

/**
 * Resources: what an agent (or its user) can attach without a tool call. A note's transcript as plain text, one
 * line per paragraph with its time and speakers: `notevox://notes/{noteGuid}/transcript`. `resources/list` offers
 * those of the notes the key sees, a page at a time.
 */

const TRANSCRIPT = /^notevox:\/\/notes\/([A-Za-z0-9]+)\/transcript$/;
export const transcriptUri = (guid: string) => `notevox://notes/${guid}/transcript`;

export function resourceTemplates() {
  return [
    {
      uriTemplate: 'notevox://notes/{noteGuid}/transcript',
      name: 'note-transcript',
      title: "A note's transcript",
      description: 'The transcript of a note as plain text: one paragraph per line, with its start time (UTC) and speakers.',
      mimeType: 'text/plain',
    },
  ];
}

export async function listResources(ctx: Context, cursor: string | undefined) {
  const client = await ctx.client();
  const res = await client.call('notes.list', { query: { size: TOOL_PAGE_SIZE, ...(cursor ? { cursor } : {}) } });
  return {
    resources: res.data.content.map((n) => ({
      uri: transcriptUri(n.guid),
      name: `transcript-${n.guid}`,
      title: `Transcript: ${n.title}`,
      mimeType: 'text/plain',
    })),
    ...(res.data.nextCursor ? { nextCursor: res.data.nextCursor } : {}),
  };
}

export async function readResource(ctx: Context, uri: string) {
  const m = TRANSCRIPT.exec(uri);
  if (!m) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource ${uri}: notevox serves notevox://notes/{noteGuid}/transcript`);
  const guid = m[1]!;
  const client = await ctx.client();
  const lines: string[] = [];
  for await (const page of client.paginate('notes.paragraphs', { path: { noteGuid: guid } }, { pageSize: PAGE_SIZES.paragraphs.max })) {
    for (const p of page.items) {
      const who = paragraphSpeakers(p).join(', ');
      lines.push(`[${new Date(p.timeFrom).toISOString().slice(11, 19)}]${who ? ` ${who}:` : ''} ${paragraphText(p)}`);
    }
  }
  const { value, note } = fitText(lines.join('\n'), `Run \`notevox notes paragraphs ${guid} --all\` for the rest.`, 100_000);
  return { contents: [{ uri, mimeType: 'text/plain', text: note ? `${value}\n\n[${note}]` : value }] };
}
