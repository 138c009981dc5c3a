import { endpoint } from '../contract/endpoints.js';
import { LIMITS } from '../contract/limits.js';
import { CliError, EXIT } from '../errors.js';
import type { Context } from './types.js';

interface WorkspaceLite {
  guid: string;
  name: string;
}

/** The workspaces the key reaches (auth/workspaces), fetched once per command. */
export async function reachableWorkspaces(ctx: Context): Promise<WorkspaceLite[]> {
  const client = await ctx.client();
  const res = await client.call<{ content: WorkspaceLite[] }>(endpoint('auth.workspaces'));
  return res.data.content;
}

/** Accept a workspace guid or an exact name; names are resolved through the list of reachable workspaces. */
export async function resolveWorkspace(ctx: Context, value: string): Promise<string> {
  let list: WorkspaceLite[];
  try {
    list = await reachableWorkspaces(ctx);
  } catch (e) {
    if (LIMITS.workspaceGuidPattern.test(value)) return value;
    throw e;
  }
  const byGuid = list.find((w) => w.guid === value);
  if (byGuid) return byGuid.guid;
  const byName = list.filter((w) => w.name === value);
  if (byName.length === 1) return byName[0].guid;
  if (byName.length > 1)
    throw new CliError(`workspace name "${value}" is ambiguous`, { exitCode: EXIT.USAGE, hint: `Pass the guid: ${byName.map((w) => w.guid).join(', ')}.` });
  if (LIMITS.workspaceGuidPattern.test(value)) return value;
  const choices = list.map((w) => `${w.guid} (${w.name})`).join(', ');
  throw new CliError(`no workspace "${value}" among those this key reaches`, {
    exitCode: EXIT.NOT_FOUND,
    hint: choices ? `Use one of: ${choices}.` : 'This key reaches no workspace.',
  });
}
