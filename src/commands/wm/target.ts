import type { CallRequest } from '../../client/client.js';
import type { WordMemoryOp, WordMemoryScopeKey } from '../../contract/endpoints.js';
import { UsageError } from '../../errors.js';
import { resolveWorkspace } from '../resolve.js';
import type { Context } from '../types.js';
import type { Flags } from '../registry.js';
import type * as cmd from './index.js';

/** Which word memories a command addresses: `--scope user|workspace|org` and `--workspace WS`. */

export type ScopeFlags = Pick<Flags<typeof cmd.list>, 'scope' | 'workspace'>;

export interface Target {
  /** Contract scope key of the endpoints (`wm.<scope>.<op>`). */
  scope: WordMemoryScopeKey;
  params: { workspaceGuid?: string };
  /** For messages: "user", "workspace wsProductTeam001", "organization". */
  label: string;
  /** Stable name of the scope instance (journal keys): `users/me`, `workspaces/<guid>`, `organizations/me`. */
  id: string;
}

/** The user scope's twin of an operation: every scope's endpoint of it takes the same query and body and answers the same (endpoint-schemas.ts). */
type Twin<Op extends WordMemoryOp> = `wm.user.${Op}`;

/**
 * The endpoint id and request of an operation on the target's scope, for `client.call(...wmRequest(t, op, req))` and
 * `paginate`: the target's path parameters are added to `req`. Typed as the user scope's endpoint, whose schemas
 * every scope shares; only the path differs.
 */
export function wmRequest<Op extends WordMemoryOp>(t: Target, op: Op, req: CallRequest<Twin<Op>>): [Twin<Op>, CallRequest<Twin<Op>>] {
  const path = { ...t.params, ...(req.path as object | undefined) };
  return [`wm.${t.scope}.${op}` as Twin<Op>, { ...req, path } as CallRequest<Twin<Op>>];
}

/** Resolve the flags; a workspace name is looked up, and `--scope workspace` alone means the key's own workspace. */
export async function resolveTarget(ctx: Context, flags: ScopeFlags): Promise<Target> {
  const scope = flags.scope ?? (flags.workspace !== undefined ? 'workspace' : 'user');
  if (flags.workspace !== undefined && scope !== 'workspace') throw new UsageError(`--workspace cannot be combined with --scope ${scope}`, 'Drop --workspace, or use --scope workspace.');
  if (scope === 'user') return { scope: 'user', params: {}, label: 'user', id: 'users/me' };
  if (scope === 'org') return { scope: 'organization', params: {}, label: 'organization', id: 'organizations/me' };
  if (flags.workspace !== undefined) {
    const guid = await resolveWorkspace(ctx, flags.workspace);
    return { scope: 'workspace', params: { workspaceGuid: guid }, label: `workspace ${guid}`, id: `workspaces/${guid}` };
  }
  const client = await ctx.client();
  const me = (await client.call('auth.me', { signal: ctx.signal })).data;
  if (!me.workspaceGuid)
    throw new UsageError('--scope workspace needs --workspace: this key is not bound to a workspace', 'Pass --workspace <guid or name> (a workspace this key reaches).');
  return { scope: 'workspaceMe', params: {}, label: `workspace ${me.workspaceGuid}`, id: `workspaces/${me.workspaceGuid}` };
}
