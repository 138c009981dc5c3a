import type { Shape } from '../../contract/api.js';
import { isUserKey, reachableWorkspaces, reachesWorkspace } from '../access.js';
import { decodeRow, type Db } from '../db.js';
import { notFound } from '../http.js';
import type { HandlerMap, Principal } from '../types.js';

/** Note document templates (service-interface.md; decisions.md §3.5, §3.6 for `me` paths). */

export interface TemplateRow {
  id: number;
  title: string;
  description: string;
  owner_type: 'MANAGED' | 'USER' | 'WORKSPACE' | 'ORGANIZATION';
  owner_user_id: number | null;
  workspace_guid: string | null;
  organization_id: string | null;
  kind: 'one_pager' | 'custom';
  sections: Array<{ id: number; title: string; instruction: string }>;
  created_at: string;
}

export function templateJson(t: TemplateRow): Shape<'template'> {
  return { id: t.id, title: t.title, description: t.description, ownerType: t.owner_type, sections: t.sections, createdAt: t.created_at };
}

export function getTemplate(db: Db, id: number): TemplateRow | undefined {
  const row = db.get<TemplateRow>('SELECT * FROM templates WHERE id = ?', [id]);
  return row ? decodeRow('templates', row) : undefined;
}

function allTemplates(db: Db, where: string, params: unknown[]): TemplateRow[] {
  return db.all<TemplateRow>(`SELECT * FROM templates WHERE ${where} ORDER BY id`, params).map((r) => decodeRow('templates', r));
}

/**
 * Whether the key may use a template: managed ones always, USER templates of the key's own user,
 * WORKSPACE templates of the given workspaces, ORGANIZATION templates of the key's organization.
 */
export function templateUsable(p: Principal, t: TemplateRow, workspaces: readonly string[]): boolean {
  switch (t.owner_type) {
    case 'MANAGED':
      return true;
    case 'USER':
      return isUserKey(p) && t.owner_user_id === p.userId;
    case 'WORKSPACE':
      return t.workspace_guid !== null && workspaces.includes(t.workspace_guid);
    case 'ORGANIZATION':
      return t.organization_id === p.organizationId;
  }
}

const workspaceTemplates = (db: Db, guids: readonly string[]) =>
  guids.length ? allTemplates(db, `owner_type = 'WORKSPACE' AND workspace_guid IN (${guids.map(() => '?').join(',')})`, [...guids]) : [];

/** Template lists are unpaged: `nextCursor` is always null (decisions.md §1.1). */
const list = (rows: TemplateRow[]) => ({ content: rows.map(templateJson), nextCursor: null });

export const templateHandlers = {
  'templates.list': ({ rt, principal: p }) => {
    const reach = reachableWorkspaces(rt.db, p);
    return list(allTemplates(rt.db, '1 = 1', []).filter((t) => templateUsable(p, t, reach)));
  },

  'templates.managed': ({ rt }) => list(allTemplates(rt.db, "owner_type = 'MANAGED'", [])),

  'templates.get': ({ rt, principal: p, params }) => {
    const t = getTemplate(rt.db, params.templateId);
    if (!t || !templateUsable(p, t, reachableWorkspaces(rt.db, p))) throw notFound('template');
    return templateJson(t);
  },

  'templates.user': ({ rt, principal: p }) => list(allTemplates(rt.db, "owner_type = 'USER' AND owner_user_id = ?", [p.userId])),

  'templates.workspaceMe': ({ rt, principal: p }) => {
    if (!p.workspaceGuid) throw notFound('bound workspace');
    return list(workspaceTemplates(rt.db, [p.workspaceGuid]));
  },

  'templates.workspace': ({ rt, principal: p, params }) => {
    if (!reachesWorkspace(rt.db, p, params.workspaceGuid)) throw notFound('workspace');
    return list(workspaceTemplates(rt.db, [params.workspaceGuid]));
  },

  'templates.allWorkspaces': ({ rt, principal: p }) => list(workspaceTemplates(rt.db, reachableWorkspaces(rt.db, p))),

  'templates.organization': ({ rt, principal: p }) => list(allTemplates(rt.db, "owner_type = 'ORGANIZATION' AND organization_id = ?", [p.organizationId])),
} satisfies HandlerMap;
