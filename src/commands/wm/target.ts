import { endpoint, wordMemoryEndpoint, type WordMemoryScopeKey } from '../../contract/endpoints.js';
import type { Endpoint, PathParams } from '../../contract/types.js';
import { UsageError } from '../../errors.js';
import { resolveWorkspace } from '../resolve.js';
import type { Context } from '../types.js';
import { SCOPE_CHOICES } from './rules.js';

/** Which word memories a command addresses: `--scope user|workspace|org` and `--workspace WS`. */

export interface ScopeFlags {
  scope?: string;
  workspace?: string;
}

export interface Target {
  /** Contract scope key of the endpoints (`wm.<scope>.<op>`). */
  scope: WordMemoryScopeKey;
  params: PathParams;
  /** For messages: "user", "workspace wsProductTeam001", "organization". */
  label: string;
  /** Stable name of the scope instance (journal keys): `users/me`, `workspaces/<guid>`, `organizations/me`. */
  id: string;
}

export function endpointFor(t: Target, op: 'list' | 'get' | 'create' | 'update' | 'delete'): Endpoint {
  return wordMemoryEndpoint(t.scope, op);
}

/** Resolve the flags; a workspace name is looked up, and `--scope workspace` alone means the key's own workspace. */
export async function resolveTarget(ctx: Context, flags: ScopeFlags): Promise<Target> {
  const scope = flags.scope ?? (flags.workspace !== undefined ? 'workspace' : 'user');
  if (flags.workspace !== undefined && scope !== 'workspace') throw new UsageError(`--workspace cannot be combined with --scope ${scope}`, 'Drop --workspace, or use --scope workspace.');
  if (scope === 'user') return { scope: 'user', params: {}, label: 'user', id: 'users/me' };
  if (scope === 'org') return { scope: 'organization', params: {}, label: 'organization', id: 'organizations/me' };
  if (scope !== 'workspace') throw new UsageError(`--scope "${scope}" is not one of ${SCOPE_CHOICES.join(', ')}`);
  if (flags.workspace !== undefined) {
    const guid = await resolveWorkspace(ctx, flags.workspace);
    return { scope: 'workspace', params: { workspaceGuid: guid }, label: `workspace ${guid}`, id: `workspaces/${guid}` };
  }
  const client = await ctx.client();
  const me = (await client.call<{ workspaceGuid: string | null }>(endpoint('auth.me'), { signal: ctx.signal })).data;
  if (!me.workspaceGuid)
    throw new UsageError('--scope workspace needs --workspace: this key is not bound to a workspace', 'Pass --workspace <guid or name> (a workspace this key reaches).');
  return { scope: 'workspaceMe', params: {}, label: `workspace ${me.workspaceGuid}`, id: `workspaces/${me.workspaceGuid}` };
}
