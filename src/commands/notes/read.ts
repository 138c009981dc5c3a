import type { ItemOf, ResponseOf, Tolerant } from '../../contract/api.js';
import { PAGE_SIZES } from '../../contract/limits.js';
import { UsageError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printList, printObject, printPaged } from '../list.js';
import type { Flags } from '../registry.js';
import { resolveWorkspace } from '../resolve.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';

/** notes list, get, rename, search, paragraphs and folders. */

export const NOTE_COLUMNS: Column<ItemOf<'notes.list'>>[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'title', header: 'TITLE', maxWidth: 60 },
  { key: 'sourceType', header: 'SOURCE' },
  { key: 'recordingDurationSeconds', header: 'SECONDS', kind: 'number' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];

const NOTE_DETAIL: Column<ResponseOf<'notes.get'>>[] = [
  ...NOTE_COLUMNS,
  { key: 'updatedAt', header: 'UPDATED', kind: 'time' },
  { key: 'workspaceGuid', header: 'WORKSPACE' },
  { key: 'transcribeLocale', header: 'LOCALE' },
  { key: 'participants', header: 'PARTICIPANTS', get: (n) => (n.participants ?? []).map((p) => p.name).join(', ') },
  { key: 'collaborators', header: 'COLLABORATORS', get: (n) => (n.collaborators ?? []).map((c) => `${c.name} (${c.role})`).join(', ') },
  { key: 'webUrl', header: 'URL' },
];

// ---------------------------------------------------------------- paragraphs as shown

type FullParagraph = ItemOf<'notes.paragraphs'>;
/** decisions.md §3.2; read tolerantly: `locked`, `diarizedSegments` and even `transcript` may be missing. */
export type Paragraph = Pick<FullParagraph, 'id' | 'timeFrom' | 'timeTo' | 'speaker'> & Tolerant<Pick<FullParagraph, 'locked' | 'diarizedSegments' | 'transcript'>>;
type Segment = NonNullable<Paragraph['diarizedSegments']>[number];

/** What stands for the text of a locked paragraph (content hidden by the plan). */
export const LOCKED_TEXT = '[locked: hidden by your plan]';

export const segmentSpeaker = (d: Segment) => d.speaker?.personName || d.speaker?.label || '';

/** Who speaks in a paragraph: the speakers of its diarizedSegments in order (tagged name, else label), else `speaker`. */
export function paragraphSpeakers(p: Paragraph): string[] {
  const split = (p.diarizedSegments ?? []).map(segmentSpeaker).filter(Boolean);
  if (split.length) return [...new Set(split)];
  return p.speaker ? [p.speaker] : [];
}

/** The paragraph's text, or the locked marker. */
export function paragraphText(p: Paragraph): string {
  return p.locked ? LOCKED_TEXT : (p.transcript?.content ?? '');
}

const time = (iso: string) => new Date(iso).toISOString().slice(11, 19);
export const PARAGRAPH_COLUMNS: Column<Paragraph>[] = [
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'timeFrom', header: 'FROM (UTC)', get: (p) => time(p.timeFrom) },
  { key: 'timeTo', header: 'TO', get: (p) => time(p.timeTo) },
  { key: 'speaker', header: 'SPEAKER', get: (p) => paragraphSpeakers(p).join(', ') },
  { key: 'transcript.content', header: 'TEXT', maxWidth: 80, get: (p) => paragraphText(p) },
];
const FOLDER_COLUMNS: Column<ResponseOf<'notes.folders'>['content'][number]>[] = [
  { key: 'id', header: 'ID' },
  { key: 'title', header: 'TITLE', maxWidth: 50 },
  { key: 'sharingType', header: 'SHARING' },
  { key: 'parentId', header: 'PARENT', get: (f) => f.parentId ?? '-' },
  { key: 'workspaceGuid', header: 'WORKSPACE' },
];
const SEARCH_COLUMNS: Column<ResponseOf<'notes.search'>['notes'][number]>[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'title', header: 'TITLE', maxWidth: 40 },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
  { key: 'matchedSnippets', header: 'SNIPPET', maxWidth: 80, get: (n) => n.matchedSnippets?.[0] ?? '' },
];

export async function list(ctx: Context, flags: Flags<typeof cmd.list>): Promise<void> {
  if (flags.workspace && flags.org) throw new UsageError('--workspace and --org cannot be combined', 'Pick one list.');
  const query = { folderId: flags.folder, keyword: flags.keyword };
  if (flags.workspace) {
    const ws = await resolveWorkspace(ctx, flags.workspace);
    return printPaged(ctx, 'notes.listWorkspace', { path: { workspaceGuid: ws }, query }, NOTE_COLUMNS, flags, 'notes');
  }
  return printPaged(ctx, flags.org ? 'notes.listOrganization' : 'notes.list', { query }, NOTE_COLUMNS, flags, 'notes');
}

export async function get(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('notes.get', { path: { noteGuid: guid } });
  await printObject(ctx, res.data, NOTE_DETAIL);
}

export async function rename(ctx: Context, guid: string, title: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('notes.update', { path: { noteGuid: guid }, query: { updateMask: 'title' }, body: { title } });
  if (ctx.output.human) ctx.io.success(`Renamed ${guid} to "${res.data.title}".`);
  await printObject(ctx, res.data, NOTE_DETAIL);
}

export async function search(ctx: Context, keyword: string, flags: Flags<typeof cmd.search>): Promise<void> {
  const { from, to } = flags;
  if (from && to && from > to) throw new UsageError(`--from ${from} is after --to ${to}`, 'Swap them.');
  const body = { keyword, filter: { folderId: flags.folder, createdAtFrom: from, createdAtTo: to }, pagination: flags.size !== undefined ? { size: flags.size } : undefined };
  const client = await ctx.client();
  let res;
  if (flags.workspace !== undefined) {
    const ws = await resolveWorkspace(ctx, flags.workspace);
    res = await client.call('notes.searchWorkspace', { path: { workspaceGuid: ws }, body });
  } else {
    res = await client.call('notes.search', { body });
    ctx.io.info('note: the service marks this all-workspace search (POST /notes/search) as deprecated; pass --workspace to use the workspace search.');
  }
  const data = res.data;
  if (data.degraded) ctx.io.warn(`the search answered degraded: ${data.degradedReason ?? 'no reason given'}. Results may be incomplete.`);
  if (ctx.output.json) return printObject(ctx, data);
  await printList(ctx, data.notes, SEARCH_COLUMNS);
}

export async function paragraphs(ctx: Context, guid: string, flags: Flags<typeof cmd.paragraphs>): Promise<void> {
  const req = { path: { noteGuid: guid } };
  if (flags.follow) return (await import('./follow.js')).followParagraphs(ctx, guid, flags);
  if (!flags.plain) return printPaged(ctx, 'notes.paragraphs', req, PARAGRAPH_COLUMNS, flags, 'paragraphs');
  const limit = flags.all ? undefined : flags.limit;
  const client = await ctx.client();
  let shown = 0;
  let next: string | null = null;
  for await (const page of client.paginate('notes.paragraphs', req, { pageSize: Math.min(PAGE_SIZES.paragraphs.max, limit ?? PAGE_SIZES.paragraphs.max), limit, cursor: flags.cursor })) {
    for (const p of page.items) ctx.io.out(paragraphText(p).replace(/\s*\n\s*/g, ' ') + '\n');
    shown += page.items.length;
    next = page.nextCursor;
  }
  if (next && !flags.all) ctx.io.info(`Showing ${shown} paragraphs; more are available. Use --all for every page, or --cursor ${next} to continue.`);
}

export async function folders(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('notes.folders', { path: { noteGuid: guid } });
  if (res.data.content.length === 0 && ctx.output.human) ctx.io.info(`Note ${guid} is in no folder you can see.`);
  else await printList(ctx, res.data.content, FOLDER_COLUMNS);
}
