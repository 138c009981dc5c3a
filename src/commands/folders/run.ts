import { ApiError } from '../../client/errors.js';
import type { ResponseOf } from '../../contract/api.js';
import { LIMITS, PAGE_SIZES } from '../../contract/limits.js';
import { SHARING_TYPES } from '../../contract/enums.js';
import { CliError, EXIT, InputNeededError, UsageError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printList, printObject } from '../list.js';
import { reachableWorkspaces, resolveWorkspace } from '../resolve.js';
import type { Context } from '../types.js';
import type { Flags } from '../registry.js';
import { FOLDER_MEMBER, folderMember, folderTitle, promptCheck } from '../args.js';
import type * as cmd from './index.js';

type SharingType = (typeof SHARING_TYPES)[number];
/** A folder as the service answers it (the contract's schema). */
export type Folder = ResponseOf<'folders.get'>;
type Member = NonNullable<Folder['members']>[number];

const FOLDER_COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'title', header: 'TITLE', maxWidth: 50 },
  { key: 'sharingType', header: 'SHARING' },
  { key: 'parentId', header: 'PARENT' },
  { key: 'color', header: 'COLOR' },
  { key: 'updatedAt', header: 'UPDATED', kind: 'time' },
];

const membersText = (f: { members?: Member[] }) => (f.members ?? []).map((m) => `${m.userId}:${m.role}`).join(', ');

const FOLDER_DETAIL: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'title', header: 'TITLE' },
  { key: 'description', header: 'DESCRIPTION' },
  { key: 'sharingType', header: 'SHARING' },
  { key: 'isTeamFolder', header: 'TEAM FOLDER', kind: 'bool' },
  { key: 'members', header: 'MEMBERS', get: membersText },
  { key: 'parentId', header: 'PARENT' },
  { key: 'workspaceGuid', header: 'WORKSPACE' },
  { key: 'color', header: 'COLOR' },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
  { key: 'updatedAt', header: 'UPDATED', kind: 'time' },
];

/** The create response has fewer fields (service-interface.md "Folder (as returned on create)"). */
const CREATED_DETAIL = FOLDER_DETAIL.filter((c) => ['id', 'title', 'description', 'sharingType', 'isTeamFolder', 'color', 'createdAt'].includes(c.key));

/** The choices of the sharing prompt, in the order shown. */
const SHARING_DESCRIPTIONS: Record<SharingType, string> = {
  ALL_MEMBER_VIEWER: 'every workspace member can view; no member-wide editing',
  ALL_MEMBER_EDITOR: 'every workspace member can view and edit',
  LIMITED: 'only invited members (add them with --member userId:VIEWER|EDITOR)',
  PRIVATE: 'only you',
};

/** The members typed at the prompt: `102:EDITOR, 103:viewer` (commas or spaces between them). */
const splitMembers = (text: string) => text.split(/[\s,]+/).filter(Boolean);

// ---------------------------------------------------------------- shared helpers

/** What a change did, for people (`✓ …` with colour): only in the table format (JSON users read the data). */
function say(ctx: Context, line: string): void {
  if (ctx.output.human) ctx.io.success(line);
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Run a call on a `teams/me` path. Such paths answer 404 for a key bound to no workspace: then say to pass
 * --workspace and list the workspaces the key reaches.
 */
async function onBoundWorkspace<T>(ctx: Context, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
    const client = await ctx.client();
    const me = await client.call('auth.me');
    if (me.data.workspaceGuid !== null) throw e;
    const choices = (await reachableWorkspaces(ctx)).map((w) => `${w.guid} (${w.name})`);
    throw new CliError('this key is not bound to a workspace, so there is no default workspace for folders', {
      exitCode: EXIT.USAGE,
      hint: choices.length ? `Pass --workspace with one of: ${choices.join(', ')}.` : 'This key reaches no workspace.',
    });
  }
}

async function fetchFolder(ctx: Context, id: string): Promise<Folder> {
  const client = await ctx.client();
  return (await client.call('folders.get', { path: { folderId: id } })).data;
}

async function workspaceFolders(ctx: Context, workspaceGuid: string): Promise<Folder[]> {
  const client = await ctx.client();
  return (await client.call('folders.listWorkspace', { path: { workspaceGuid } })).data.content;
}

/** The folders of --workspace (guid or name), or of the key's own workspace. */
async function listFolders(ctx: Context, workspace: string | undefined): Promise<Folder[]> {
  if (workspace !== undefined) return workspaceFolders(ctx, await resolveWorkspace(ctx, workspace));
  const client = await ctx.client();
  return onBoundWorkspace(ctx, async () => (await client.call('folders.listTeam')).data.content);
}

/** Ids of every folder below `rootId` in a flat list (by parentId). */
export function descendants(folders: Folder[], rootId: string): string[] {
  const children = new Map<string, string[]>();
  for (const f of folders) if (f.parentId !== null) children.set(f.parentId, [...(children.get(f.parentId) ?? []), f.id]);
  const out: string[] = [];
  const queue = [...(children.get(rootId) ?? [])];
  while (queue.length) {
    const id = queue.shift()!;
    if (out.includes(id) || id === rootId) continue;
    out.push(id);
    queue.push(...(children.get(id) ?? []));
  }
  return out;
}

/**
 * The hierarchy drawn with box-drawing characters, siblings by title. A folder whose parent is not in the
 * list (hidden from the caller) is drawn at the top level.
 */
export function renderTree(folders: Folder[]): string {
  const ids = new Set(folders.map((f) => f.id));
  const byTitle = (a: Folder, b: Folder) => a.title.localeCompare(b.title) || Number(a.id) - Number(b.id);
  const childrenOf = (id: string | null) => folders.filter((f) => (id === null ? f.parentId === null || !ids.has(f.parentId) : f.parentId === id)).sort(byTitle);
  const lines: string[] = [];
  const seen = new Set<string>();
  const walk = (f: Folder, prefix: string, connector: string, childPrefix: string) => {
    if (seen.has(f.id)) return;
    seen.add(f.id);
    lines.push(`${prefix}${connector}${f.title} [${f.id}] ${f.sharingType}`);
    const kids = childrenOf(f.id);
    kids.forEach((k, i) => {
      const last = i === kids.length - 1;
      walk(k, prefix + childPrefix, last ? '└─ ' : '├─ ', last ? '   ' : '│  ');
    });
  };
  for (const root of childrenOf(null)) walk(root, '', '', '');
  return lines.length ? lines.join('\n') + '\n' : '';
}

// ---------------------------------------------------------------- commands

export async function list(ctx: Context, flags: Flags<typeof cmd.list>): Promise<void> {
  const folders = await listFolders(ctx, flags.workspace);
  if (flags.tree && ctx.output.human) {
    if (folders.length === 0) ctx.io.info('No folders.');
    else ctx.io.out(renderTree(folders));
    return;
  }
  await printList(ctx, folders, FOLDER_COLUMNS);
}

export async function get(ctx: Context, id: string): Promise<void> {
  await printObject(ctx, await fetchFolder(ctx, id), FOLDER_DETAIL);
}

type CreateFlags = Flags<typeof cmd.create>;

/**
 * On a terminal, ask for what was not given (title, description, colour, sharing type, and the members of a
 * LIMITED folder); otherwise leave the optional values to the service's defaults. A missing title without a
 * terminal is exit 10.
 */
async function askMissing(ctx: Context, title: string | undefined, flags: CreateFlags, sharing: SharingType | undefined, members: Member[] | undefined) {
  let { description, color } = flags;
  if (!ctx.io.canPrompt) {
    if (title === undefined) throw new InputNeededError('a folder title', 'the title as the argument, e.g. notevox folders create "Q3 planning"');
    return { title, description, color, sharing, members };
  }
  const prompter = await ctx.prompter();
  title ??= await prompter.input({ message: `Title (${LIMITS.folderTitle.min}–${LIMITS.folderTitle.max} characters)`, validate: promptCheck(folderTitle), flag: 'TITLE' });
  description ??= await prompter.input({ message: 'Description (optional)', default: '', flag: '--description' });
  color ??= await prompter.input({
    message: 'Colour (#RRGGBB)',
    default: LIMITS.folderDefaultColor,
    validate: (v) => LIMITS.folderColorPattern.test(v) || 'Use the form #RRGGBB, e.g. #4A90D9',
    flag: '--color',
  });
  // PRIVATE is only allowed when creating in a named workspace.
  const types = (Object.keys(SHARING_DESCRIPTIONS) as SharingType[]).filter((t) => t !== 'PRIVATE' || flags.workspace !== undefined);
  sharing ??= await prompter.select<SharingType>({
    message: 'Sharing',
    choices: types.map((t) => ({ name: t, value: t, description: SHARING_DESCRIPTIONS[t] })),
    default: LIMITS.folderDefaultSharing,
    flag: '--sharing',
  });
  // A LIMITED folder chosen at the prompt without --member would be seen by its owner alone: ask whom to invite.
  if (sharing === 'LIMITED' && members === undefined) {
    const typed = await prompter.input({
      message: 'Members (USER_ID:VIEWER or USER_ID:EDITOR, separated by commas; empty for none)',
      default: '',
      validate: (v) => splitMembers(v).every((m) => FOLDER_MEMBER.test(m)) || 'Write each member as USER_ID:VIEWER or USER_ID:EDITOR, e.g. 102:EDITOR, 103:VIEWER',
      flag: '--member',
    });
    const list = splitMembers(typed).map(folderMember);
    members = list.length ? list : undefined;
  }
  return { title, description, color, sharing, members };
}

/** A word for a POSIX shell: as is when plain, else in single quotes. */
const shellWord = (v: string) => (/^[\w./:@%+=,-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);

/** `notevox folders create …` with every answer as a flag. */
function createCommand(a: { title: string; description?: string; color?: string; sharing?: SharingType; members?: Member[] }, flags: CreateFlags): string {
  const words = ['notevox', 'folders', 'create', shellWord(a.title)];
  if (a.description) words.push('--description', shellWord(a.description));
  if (a.color) words.push('--color', shellWord(a.color));
  if (a.sharing) words.push('--sharing', a.sharing);
  for (const m of a.members ?? []) words.push('--member', `${m.userId}:${m.role}`);
  if (flags.parent !== undefined) words.push('--parent', shellWord(flags.parent));
  if (flags.workspace !== undefined) words.push('--workspace', shellWord(flags.workspace));
  return words.join(' ');
}

export async function create(ctx: Context, titleArg: string | undefined, flags: CreateFlags): Promise<void> {
  const members = flags.member;
  let sharing: SharingType | undefined = flags.sharing ?? (members ? 'LIMITED' : undefined);
  if (sharing === 'PRIVATE' && flags.workspace === undefined)
    throw new UsageError('--sharing PRIVATE needs --workspace', 'Private folders can only be created in a named workspace: add --workspace WS.');
  if (members && sharing !== 'LIMITED') throw new UsageError(`--member needs --sharing LIMITED (not ${sharing})`, 'Only LIMITED folders have members.');
  const answers = await askMissing(ctx, titleArg, flags, sharing, members);
  sharing = answers.sharing;
  const body = { title: answers.title, description: answers.description, color: answers.color, parentId: flags.parent, members: answers.members };
  const client = await ctx.client();
  const asked = ctx.io.canPrompt && (titleArg === undefined || flags.description === undefined || flags.color === undefined || flags.sharing === undefined);
  let res;
  try {
    if (flags.workspace !== undefined) {
      res = await client.call('folders.createWorkspace', { path: { workspaceGuid: await resolveWorkspace(ctx, flags.workspace) }, body: { ...body, sharingType: sharing } });
    } else {
      // Checked above, and not offered at the prompt: only a named workspace takes a private folder.
      if (sharing === 'PRIVATE') throw new UsageError('--sharing PRIVATE needs --workspace');
      const sharingType = sharing;
      res = await onBoundWorkspace(ctx, () => client.call('folders.createTeam', { body: { ...body, sharingType } }));
    }
  } catch (e) {
    // The answers typed at the prompts are not lost to a refusal: the same folder as one command to fix and rerun.
    if (asked && e instanceof CliError) ctx.io.info(`Your answers, as one command to change and run again:\n  ${createCommand(answers, flags)}`);
    throw e;
  }
  say(ctx, `Created folder "${res.data.title}" (${res.data.id}).`);
  await printObject(ctx, res.data, CREATED_DETAIL);
}

export async function update(ctx: Context, id: string, flags: Flags<typeof cmd.update>): Promise<void> {
  const body = { title: flags.title, description: flags.description, color: flags.color, sharingType: flags.sharing, members: flags.member };
  if (Object.values(body).every((v) => v === undefined))
    throw new UsageError('nothing to change', 'Pass at least one of --title, --description, --color, --sharing, --member.');
  const client = await ctx.client();
  const res = await client.call('folders.update', { path: { folderId: id }, body });
  say(ctx, `Updated folder "${res.data.title}" (${res.data.id}).`);
  await printObject(ctx, res.data, FOLDER_DETAIL);
}

export async function move(ctx: Context, id: string, flags: Flags<typeof cmd.move>): Promise<void> {
  if ((flags.to === undefined) === !flags.root) throw new UsageError('pass exactly one of --to PARENT and --root', 'Say where the folder goes: under another folder (--to ID) or to the top level (--root).');
  const newParentId = flags.to ?? null;
  if (newParentId !== null && Number(newParentId) === Number(id)) throw new UsageError(`--to ${flags.to}: a folder cannot move into itself`, 'Pick another parent, or --root for the top level.');
  if (flags.root && flags.inheritSharing) ctx.io.info('note: at the top level there is no parent to inherit from; the folder keeps its sharing type and members.');
  const client = await ctx.client();
  const res = await client.call('folders.move', {
    path: { folderId: id },
    body: { newParentId, sharingTypeUpdateStrategy: flags.inheritSharing ? 'INHERIT_FROM_PARENT' : 'KEEP_EXISTING' },
  });
  say(ctx, `Moved folder "${res.data.title}" (${res.data.id}) ${newParentId === null ? 'to the top level' : `under folder ${newParentId}`}; sharing ${res.data.sharingType}.`);
  await printObject(ctx, res.data, FOLDER_DETAIL);
}

/** Notes in a folder and its sub-folders that the key can read; null when the key may not list notes. */
async function countNotes(ctx: Context, folderId: string): Promise<number | null> {
  const client = await ctx.client();
  let n = 0;
  try {
    for await (const page of client.paginate('notes.list', { query: { folderId } }, { pageSize: PAGE_SIZES.notes.max })) n += page.items.length;
  } catch (e) {
    if (e instanceof ApiError && e.status === 403) return null;
    throw e;
  }
  return n;
}

export async function remove(ctx: Context, id: string, flags: Flags<typeof cmd.remove>): Promise<void> {
  const folder = await fetchFolder(ctx, id);
  const subFolders = descendants(await workspaceFolders(ctx, folder.workspaceGuid), folder.id).length;
  const notes = await countNotes(ctx, folder.id);
  const notesText = notes === null ? 'an unknown number of notes' : plural(notes, 'note');
  const name = `folder "${folder.title}" (${folder.id})`;
  if (!flags.yes) {
    ctx.io.info(`Deleting ${name}: ${plural(subFolders, 'sub-folder')} and ${notesText} affected (notes become folder-less).`);
    if (!ctx.io.canPrompt) throw new InputNeededError(`confirmation to delete ${name}`, '--yes');
    const prompter = await ctx.prompter();
    const typed = await prompter.input({ message: `Type the folder title "${folder.title}" to confirm`, flag: '--yes' });
    if (typed !== folder.title) throw new CliError('the typed title does not match: cancelled, nothing was deleted', { exitCode: EXIT.INTERRUPTED, hint: `Type exactly "${folder.title}", or pass --yes.` });
  }
  const client = await ctx.client();
  await client.call('folders.delete', { path: { folderId: folder.id } });
  if (ctx.output.human) {
    ctx.io.success(`Deleted ${name} and ${plural(subFolders, 'sub-folder')}; ${notesText} ${notes === 1 ? 'is' : 'are'} now folder-less.`);
    return;
  }
  await printObject(ctx, { id: folder.id, title: folder.title, deleted: true, subFolders, notes });
}
