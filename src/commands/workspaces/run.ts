import { ApiError, withBetterHint } from '../../client/errors.js';
import { ERROR_CODES } from '../../contract/errors.js';
import type { ResponseOf } from '../../contract/api.js';
import { CliError, EXIT, InputNeededError, UsageError } from '../../errors.js';
import type { Column } from '../../io/render.js';
import { printList, printObject } from '../list.js';
import { keyIdentity } from '../resolve.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';

/** Organization management: the organization's workspaces (workspaces.*) and `org show`. */

type Workspace = ResponseOf<'workspaces.get'>;

const minutesText = (q: Workspace['quota'] | undefined) => (q ? `${q.usedMinutes} / ${q.monthlyMinutes ?? 'unlimited'}` : '');
const wikiText = (w: Workspace) => (w.isWikiEnabled ? 'active' : w.wikiPlan ? 'not activated' : 'no plan');

export const WORKSPACE_COLUMNS: Column<Workspace>[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'name', header: 'NAME', maxWidth: 40 },
  { key: 'wiki', header: 'WIKI', get: wikiText },
  { key: 'voiceFileEnabled', header: 'VOICE', kind: 'bool' },
  { key: 'quota', header: 'MINUTES USED', get: (w) => minutesText(w.quota) },
];

const WORKSPACE_DETAIL: Column<Workspace>[] = [
  { key: 'guid', header: 'GUID' },
  { key: 'name', header: 'Name' },
  { key: 'organizationId', header: 'Organization' },
  { key: 'wikiPlan', header: 'Wiki plan', kind: 'bool' },
  { key: 'isWikiEnabled', header: 'Wiki activated', kind: 'bool' },
  { key: 'voiceFileEnabled', header: 'Voice file jobs', kind: 'bool' },
  { key: 'quota.monthlyMinutes', header: 'Monthly quota', get: (w) => (w.quota?.monthlyMinutes ?? 'unlimited') },
  { key: 'quota.usedMinutes', header: 'Minutes used', kind: 'number' },
  { key: 'createdAt', header: 'Created', kind: 'time' },
];


/** Every workspace of the organization (workspaces.list: org admin or organization key). */
async function orgWorkspaces(ctx: Context): Promise<Workspace[]> {
  const client = await ctx.client();
  const out: Workspace[] = [];
  for await (const page of client.paginate('workspaces.list')) out.push(...page.items);
  return out;
}

const WHO_MAY =
  "Managing workspaces needs an organization admin's account key, or an organization key (with workspace:read to read, workspace:write to change).";

/** Run an organization-management request; a wrong key type (403002) or a non-admin user (403003) says which key would do. */
function managing<T>(run: () => Promise<T>): Promise<T> {
  return withBetterHint(run, (e) => {
    if (e.code === ERROR_CODES.PERMISSION_DENIED) return 'This account is not an organization admin. ' + WHO_MAY;
    if (e.code === ERROR_CODES.KEY_TYPE_FORBIDDEN) return 'This key type cannot manage workspaces. ' + WHO_MAY;
    return undefined;
  });
}

/** A workspace guid or exact name, looked up in the organization's list. */
export async function resolveOrgWorkspace(ctx: Context, value: string): Promise<Workspace> {
  const list = await managing(() => orgWorkspaces(ctx));
  const byGuid = list.find((w) => w.guid === value);
  if (byGuid) return byGuid;
  const byName = list.filter((w) => w.name === value);
  if (byName.length === 1) return byName[0];
  if (byName.length > 1)
    throw new CliError(`workspace name "${value}" is ambiguous`, { exitCode: EXIT.USAGE, hint: `Pass the guid: ${byName.map((w) => w.guid).join(', ')}.` });
  const choices = list.map((w) => `${w.guid} (${w.name})`).join(', ');
  throw new CliError(`no workspace "${value}" in the organization`, {
    exitCode: EXIT.NOT_FOUND,
    hint: choices ? `Use a guid or exact name: ${choices}.` : 'The organization has no workspace yet: `notevox workspaces create NAME`.',
  });
}

export async function list(ctx: Context): Promise<void> {
  await printList(ctx, await managing(() => orgWorkspaces(ctx)), WORKSPACE_COLUMNS);
}

export async function get(ctx: Context, workspace: string): Promise<void> {
  const ws = await resolveOrgWorkspace(ctx, workspace);
  const client = await ctx.client();
  const res = await client.call('workspaces.get', { path: { workspaceGuid: ws.guid } });
  await printObject(ctx, res.data, WORKSPACE_DETAIL);
}

export async function create(ctx: Context, name: string): Promise<void> {
  const client = await ctx.client();
  const res = await managing(() => client.call('workspaces.create', { body: { name } }));
  if (ctx.output.human) ctx.io.success(`Created workspace "${res.data.name}" (${res.data.guid}).`);
  await printObject(ctx, res.data, WORKSPACE_DETAIL);
}

export async function rename(ctx: Context, workspace: string, name: string): Promise<void> {
  const ws = await resolveOrgWorkspace(ctx, workspace);
  const client = await ctx.client();
  const res = await client.call('workspaces.rename', { path: { workspaceGuid: ws.guid }, body: { name } });
  if (ctx.output.human) ctx.io.success(`Renamed workspace ${ws.guid} from "${ws.name}" to "${res.data.name}".`);
  await printObject(ctx, res.data, WORKSPACE_DETAIL);
}

export async function quota(ctx: Context, workspace: string, flags: Flags<typeof cmd.quota>): Promise<void> {
  if ((flags.minutes === undefined) === !flags.unlimited)
    throw new UsageError('pass exactly one of --minutes <n> and --unlimited', 'For example: --minutes 600 (a monthly limit), or --unlimited (no limit).');
  const monthlyMinutes = flags.unlimited ? null : flags.minutes!;
  const ws = await resolveOrgWorkspace(ctx, workspace);
  const client = await ctx.client();
  const res = await client.call('workspaces.quota', { path: { workspaceGuid: ws.guid }, body: { monthlyMinutes } });
  if (ctx.output.human) ctx.io.success(`Monthly quota of "${ws.name}" is now ${monthlyMinutes === null ? 'unlimited' : `${monthlyMinutes} minutes`}.`);
  await printObject(ctx, res.data, WORKSPACE_DETAIL);
}

/** The service refuses to delete a workspace with notes or folders (422): the same error, found before or after asking. */
function notEmpty(ws: Workspace, what: string, e?: ApiError): CliError {
  return new CliError(`workspace "${ws.name}" was not deleted: it still holds ${what}${e?.detail ? ` (${e.detail})` : ''}`, {
    exitCode: e?.exitCode ?? EXIT.REJECTED,
    errorType: e?.errorType,
    code: e?.code,
    hint: `Move or delete its notes and folders first (\`notevox notes list --workspace ${ws.guid}\`, \`notevox folders list --workspace ${ws.guid}\`), then run this again.`,
  });
}

/**
 * What the workspace still holds, looked up before asking the user to type its name; undefined where this key
 * cannot look (no note:read or folder:read): the service's 422 then says it.
 */
async function contents(ctx: Context, guid: string): Promise<string | undefined> {
  const client = await ctx.client();
  const path = { workspaceGuid: guid };
  const look = async (list: () => Promise<{ data: { content: unknown[] } }>) => {
    try {
      return (await list()).data.content.length > 0;
    } catch (e) {
      if (e instanceof ApiError && (e.status === 403 || e.status === 404)) return undefined;
      throw e;
    }
  };
  const notes = await look(() => client.call('notes.listWorkspace', { path, query: { size: 1 } }));
  const folders = await look(() => client.call('folders.listWorkspace', { path }));
  const held = [notes ? 'notes' : '', folders ? 'folders' : ''].filter(Boolean);
  return held.length ? held.join(' and ') : undefined;
}

export async function remove(ctx: Context, workspace: string, flags: Flags<typeof cmd.remove>): Promise<void> {
  if (!flags.yes && !ctx.io.canPrompt) throw new InputNeededError(`confirmation to delete workspace "${workspace}"`, '--yes');
  const ws = await resolveOrgWorkspace(ctx, workspace);
  if (!flags.yes) {
    // Not asking to type a name for a deletion the service would refuse.
    const held = await contents(ctx, ws.guid);
    if (held) throw notEmpty(ws, held);
    const prompter = await ctx.prompter();
    const typed = await prompter.input({ message: `Type the workspace name "${ws.name}" to delete it`, flag: '--yes' });
    if (typed.trim() !== ws.name.trim())
      throw new CliError(`"${typed}" does not match the workspace name: cancelled, nothing was deleted`, { exitCode: EXIT.INTERRUPTED, hint: `Type "${ws.name}" exactly, or pass --yes.` });
  }
  const client = await ctx.client();
  try {
    await client.call('workspaces.delete', { path: { workspaceGuid: ws.guid } });
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 422)) throw e;
    throw notEmpty(ws, 'notes or folders', e);
  }
  if (ctx.output.json) await printObject(ctx, { guid: ws.guid, name: ws.name, deleted: true });
  else ctx.io.success(`Deleted workspace "${ws.name}" (${ws.guid}).`);
}

const ORG_COLUMNS: Column<ResponseOf<'organizations.me'> & { workspaceCount: number | null }>[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'createdAt', header: 'Created', kind: 'time' },
  { key: 'workspaceCount', header: 'Workspaces', get: (o) => o.workspaceCount ?? 'not visible to this key' },
];

export async function orgShow(ctx: Context): Promise<void> {
  const client = await ctx.client();
  const org = await keyIdentity(client, 'organizations.me');
  let workspaceCount: number | null = null;
  try {
    workspaceCount = (await orgWorkspaces(ctx)).length;
  } catch (e) {
    // Only org admins and organization keys may list the workspaces; others still see the organization.
    if (!(e instanceof ApiError && e.status === 403)) throw e;
  }
  await printObject(ctx, { ...org, workspaceCount }, ORG_COLUMNS);
}
