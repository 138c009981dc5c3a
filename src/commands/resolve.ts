import type { ApiClient } from '../client/client.js';
import { ApiError } from '../client/errors.js';
import type { ResponseOf } from '../contract/api.js';
import { aliasOf, endpoint } from '../contract/endpoints.js';
import type { Endpoint } from '../contract/types.js';
import { ERROR_CODES } from '../contract/errors.js';
import { LIMITS } from '../contract/limits.js';
import { CliError, EXIT } from '../errors.js';
import type { Context } from './types.js';

interface WorkspaceLite {
  guid: string;
  name: string;
}

/**
 * The key's organization, the workspaces it reaches, or its bound workspace, from the plain paths
 * (`/organizations/me`, `/workspaces`, `/workspaces/me`: decisions.md §2.2). A sandbox older than that answers
 * 404001 (no route) there; then the `auth/` form of the path is asked. Every other error is the caller's.
 */
export async function keyIdentity<Id extends 'organizations.me' | 'workspaces.reachable' | 'workspaces.me'>(client: ApiClient, id: Id): Promise<ResponseOf<Id>> {
  // Both paths answer with the schema of `id` (the older one's row is an alias of it).
  const ask = async (ep: Endpoint) => (await client.callEndpoint(ep)).data as ResponseOf<Id>;
  try {
    return await ask(endpoint(id));
  } catch (e) {
    const older = aliasOf(id);
    if (!(older && e instanceof ApiError && e.code === ERROR_CODES.NO_ROUTE)) throw e;
    return ask(older);
  }
}

/** The workspaces the key reaches (`GET /workspaces`), fetched once per command. */
export async function reachableWorkspaces(ctx: Context): Promise<WorkspaceLite[]> {
  const client = await ctx.client();
  return (await keyIdentity(client, 'workspaces.reachable')).content;
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
