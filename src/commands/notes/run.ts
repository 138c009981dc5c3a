import { endpoint } from '../../contract/endpoints.js';
import { LIMITS } from '../../contract/limits.js';
import { UsageError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printObject, printPaged } from '../list.js';
import { resolveWorkspace } from '../resolve.js';
import type { ListFlags } from '../shared.js';
import type { Context } from '../types.js';

export const NOTE_COLUMNS: Column[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'title', header: 'TITLE', maxWidth: 60 },
  { key: 'sourceType', header: 'SOURCE' },
  { key: 'recordingDurationSeconds', header: 'SECONDS', kind: 'number' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];

const NOTE_DETAIL: Column[] = [
  ...NOTE_COLUMNS,
  { key: 'updatedAt', header: 'UPDATED', kind: 'time' },
  { key: 'workspaceGuid', header: 'WORKSPACE' },
  { key: 'transcribeLocale', header: 'LOCALE' },
  { key: 'participants', header: 'PARTICIPANTS', get: (n) => (n.participants ?? []).map((p: any) => p.name).join(', ') },
  { key: 'collaborators', header: 'COLLABORATORS', get: (n) => (n.collaborators ?? []).map((c: any) => `${c.name} (${c.role})`).join(', ') },
  { key: 'webUrl', header: 'URL' },
];

export function checkNoteGuid(guid: string): string {
  if (!LIMITS.noteGuidPattern.test(guid)) throw new UsageError(`"${guid}" is not a note guid`, 'A note guid is 13 letters and digits, e.g. from `notevox notes list`.');
  return guid;
}

export function checkNoteTitle(title: string): string {
  const { min, max } = LIMITS.noteTitle;
  if (title.trim().length === 0) throw new UsageError('the title is blank', `Give a title of ${min} to ${max} characters with at least one non-space character.`);
  const len = [...title].length;
  if (len < min || len > max) throw new UsageError(`the title is ${len} characters long`, `A note title has ${min} to ${max} characters.`);
  return title;
}

interface NotesListFlags extends ListFlags {
  workspace?: string;
  org?: boolean;
  folder?: string;
  keyword?: string;
}

export async function list(ctx: Context, flags: NotesListFlags): Promise<void> {
  if (flags.workspace && flags.org) throw new UsageError('--workspace and --org cannot be combined', 'Pick one list.');
  if (flags.folder !== undefined && !/^\d+$/.test(flags.folder)) throw new UsageError(`--folder "${flags.folder}" is not a folder id`, 'Folder ids are numbers; see `notevox folders list`.');
  const query = { folderId: flags.folder, keyword: flags.keyword };
  if (flags.workspace) {
    const ws = await resolveWorkspace(ctx, flags.workspace);
    return printPaged(ctx, endpoint('notes.listWorkspace'), { params: { workspaceGuid: ws }, query }, NOTE_COLUMNS, flags, 'notes');
  }
  return printPaged(ctx, endpoint(flags.org ? 'notes.listOrganization' : 'notes.list'), { query }, NOTE_COLUMNS, flags, 'notes');
}

export async function get(ctx: Context, guid: string): Promise<void> {
  const client = await ctx.client();
  const res = await client.call<Record<string, unknown>>(endpoint('notes.get'), { params: { noteGuid: checkNoteGuid(guid) } });
  await printObject(ctx, res.data, NOTE_DETAIL);
}

export async function rename(ctx: Context, guid: string, title: string): Promise<void> {
  checkNoteGuid(guid);
  checkNoteTitle(title);
  const client = await ctx.client();
  const res = await client.call<Record<string, unknown>>(endpoint('notes.update'), { params: { noteGuid: guid }, query: { updateMask: 'title' }, body: { title } });
  if (!ctx.output.format || ctx.output.format === 'table') ctx.io.info(`Renamed ${guid} to "${res.data.title}".`);
  await printObject(ctx, res.data, NOTE_DETAIL);
}
