import type { Db } from '../db.js';
import { isUserKey } from '../access.js';
import { forbidden, notFound, unprocessable } from '../http.js';
import { newWorkspaceGuid } from '../ids.js';
import { workspaceJson, type WorkspaceRow } from '../serialize.js';
import type { HandlerContext, HandlerMap, Principal } from '../types.js';

/**
 * Organization management: the organization's workspaces (decisions.md §2.4, §3.8).
 * The contract lets user and organization keys in (workspace keys get 403002 there); of the user keys,
 * only an organization admin's may manage the organization (403003).
 */

function requireOrgManager(p: Principal): void {
  if (isUserKey(p) && !p.orgAdmin)
    throw forbidden('organization admin permission required', 'managing workspaces needs an organization admin user key or an organization key');
}

/** A workspace of the caller's organization; others are 404 like unknown ones. */
function orgWorkspace(db: Db, p: Principal, guid: string): WorkspaceRow {
  const w = db.get<WorkspaceRow>('SELECT * FROM workspaces WHERE guid = ? AND organization_id = ?', [guid, p.organizationId]);
  if (!w) throw notFound('workspace');
  return w;
}

function freshGuid(db: Db): string {
  for (;;) {
    const guid = newWorkspaceGuid();
    if (!db.get('SELECT 1 AS x FROM workspaces WHERE guid = ?', [guid])) return guid;
  }
}

/** Guard, change the workspace with `sql` (bound to `values` then the guid), answer its new state. */
function update(ctx: HandlerContext<'workspaces.rename' | 'workspaces.quota'>, sql: string, values: unknown[]) {
  const { principal: p, rt, params } = ctx;
  requireOrgManager(p);
  const w = orgWorkspace(rt.db, p, params.workspaceGuid);
  rt.db.run(`UPDATE workspaces SET ${sql} WHERE guid = ?`, [...values, w.guid]);
  return workspaceJson(orgWorkspace(rt.db, p, w.guid));
}

function count(db: Db, sql: string, guid: string): number {
  return db.get<{ n: number }>(sql, [guid])?.n ?? 0;
}

export const workspaceHandlers = {
  'workspaces.list': ({ principal: p, rt }) => {
    requireOrgManager(p);
    const rows = rt.db.all<WorkspaceRow>('SELECT * FROM workspaces WHERE organization_id = ? ORDER BY created_at, guid', [p.organizationId]);
    return { content: rows.map(workspaceJson), nextCursor: null };
  },

  'workspaces.get': ({ principal: p, rt, params }) => {
    requireOrgManager(p);
    return workspaceJson(orgWorkspace(rt.db, p, params.workspaceGuid));
  },

  'workspaces.create': ({ principal: p, rt, body }) => {
    requireOrgManager(p);
    const guid = freshGuid(rt.db);
    rt.db.tx(() => {
      rt.db.run(
        `INSERT INTO workspaces (guid, organization_id, name, created_at, voice_file_enabled, wiki_plan, wiki_enabled, monthly_minutes, used_minutes)
         VALUES (?, ?, ?, ?, 1, 0, 0, NULL, 0)`,
        [guid, p.organizationId, body.name, rt.clock.now().toISOString()],
      );
      // The admin who creates a workspace owns it, so their user key reaches it at once.
      if (isUserKey(p) && p.userId !== null) rt.db.run(`INSERT INTO memberships (user_id, workspace_guid, role) VALUES (?, ?, 'OWNER')`, [p.userId, guid]);
    });
    return workspaceJson(orgWorkspace(rt.db, p, guid));
  },

  'workspaces.rename': (ctx) => update(ctx, 'name = ?', [ctx.body.name]),

  'workspaces.quota': (ctx) => update(ctx, 'monthly_minutes = ?', [ctx.body.monthlyMinutes]),

  'workspaces.delete': ({ principal: p, rt, params }) => {
    requireOrgManager(p);
    const w = orgWorkspace(rt.db, p, params.workspaceGuid);
    const notes = count(rt.db, 'SELECT COUNT(*) AS n FROM notes WHERE workspace_guid = ? AND deleted = 0', w.guid);
    const folders = count(rt.db, 'SELECT COUNT(*) AS n FROM folders WHERE workspace_guid = ?', w.guid);
    if (notes > 0 || folders > 0)
      throw unprocessable('the workspace is not empty', `${notes} note(s) and ${folders} folder(s) remain; move or delete them first`);
    rt.db.tx(() => {
      // Deleted notes leave with the workspace; memberships, keys, templates, jobs and wiki pages cascade.
      rt.db.run('DELETE FROM notes WHERE workspace_guid = ?', [w.guid]);
      rt.db.run(`DELETE FROM word_memories WHERE scope_type = 'workspace' AND scope_id = ?`, [w.guid]);
      rt.db.run('DELETE FROM memberships WHERE workspace_guid = ?', [w.guid]);
      rt.db.run('DELETE FROM workspaces WHERE guid = ?', [w.guid]);
    });
    return undefined;
  },
} satisfies HandlerMap;
