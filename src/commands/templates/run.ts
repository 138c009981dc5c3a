import { ApiError } from '../../client/errors.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import type { ResponseOf } from '../../contract/api.js';
import type { Column } from '../../io/render.js';

type Template = ResponseOf<'templates.get'>;
import { printList, printObject } from '../list.js';
import { resolveWorkspace } from '../resolve.js';
import type { Context } from '../types.js';
import type { Flags } from '../registry.js';
import type * as cmd from './index.js';

const TEMPLATE_COLUMNS: Column<Template>[] = [
  { key: 'id', header: 'ID', kind: 'number' },
  { key: 'title', header: 'TITLE', maxWidth: 40 },
  { key: 'ownerType', header: 'OWNER' },
  { key: 'sections', header: 'SECTIONS', kind: 'number', get: (t) => (t.sections ?? []).length },
  { key: 'createdAt', header: 'CREATED', kind: 'time' },
];

const TEMPLATE_DETAIL: Column<Template>[] = [
  { key: 'id', header: 'ID' },
  { key: 'title', header: 'Title' },
  { key: 'description', header: 'Description' },
  { key: 'ownerType', header: 'Owner' },
  { key: 'sections', header: 'Sections', get: (t) => (t.sections ?? []).map((s) => s.title).join(', ') },
  { key: 'createdAt', header: 'Created', kind: 'time' },
];

type ListFlags = Flags<typeof cmd.list>;
type TemplateList = { id: 'templates.managed' | 'templates.allWorkspaces' | 'templates.user' | 'templates.workspaceMe' | 'templates.organization' | 'templates.list'; path?: undefined } | { id: 'templates.workspace'; path: { workspaceGuid: string } };

/** Which of the eight template lists the flags ask for. */
async function pickList(ctx: Context, flags: ListFlags): Promise<TemplateList> {
  if (flags.managed && (flags.owner || flags.workspace !== undefined)) throw new UsageError('--managed cannot be combined with --owner or --workspace', 'Managed templates have no owner; pick one list.');
  if (flags.workspace !== undefined && flags.owner && flags.owner !== 'workspace')
    throw new UsageError(`--workspace lists workspace templates; it cannot be combined with --owner ${flags.owner}`, 'Drop one of the two.');
  if (flags.managed) return { id: 'templates.managed' };
  if (flags.workspace === '-') return { id: 'templates.allWorkspaces' };
  if (flags.workspace !== undefined) return { id: 'templates.workspace', path: { workspaceGuid: await resolveWorkspace(ctx, flags.workspace) } };
  if (flags.owner === 'user') return { id: 'templates.user' };
  if (flags.owner === 'workspace') return { id: 'templates.workspaceMe' };
  if (flags.owner === 'org') return { id: 'templates.organization' };
  return { id: 'templates.list' };
}

export async function list(ctx: Context, flags: ListFlags): Promise<void> {
  const which = await pickList(ctx, flags);
  const client = await ctx.client();
  const res = await client.call(which.id, which).catch((e: unknown) => {
    if (which.id === 'templates.workspaceMe' && e instanceof ApiError && e.status === 404)
      throw new CliError('this key is bound to no workspace', { exitCode: EXIT.NOT_FOUND, hint: 'Name one with --workspace WS, or pass --workspace - for every workspace the key reaches.' });
    throw e;
  });
  await printList(ctx, res.data.content, TEMPLATE_COLUMNS);
}

export async function get(ctx: Context, templateId: number): Promise<void> {
  const client = await ctx.client();
  const res = await client.call('templates.get', { path: { templateId } });
  await printObject(ctx, res.data, TEMPLATE_DETAIL);
}
