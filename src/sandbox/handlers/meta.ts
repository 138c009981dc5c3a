import { SCOPES } from '../../contract/scopes.js';
import { reachableWorkspaces } from '../access.js';
import { notFound } from '../http.js';
import { workspaceJson, type WorkspaceRow } from '../serialize.js';
import type { HandlerMap } from '../types.js';

/**
 * api-key-scopes, auth/me, and the key's organization and workspaces (decisions.md §2.1–§2.2); the `auth/` forms of
 * the last three are aliases in the contract, served by these handlers.
 */
export const metaHandlers = {
  'scopes.list': () => ({ content: SCOPES.map((s) => ({ scope: s.scope, description: s.description })) }),

  'auth.me': ({ principal: p, rt }) => {
    const user = p.userId !== null ? rt.db.get<{ id: number; name: string; email: string }>('SELECT id, name, email FROM users WHERE id = ?', [p.userId]) : undefined;
    return {
      keyId: p.keyId,
      keyType: p.keyType,
      scopes: p.scopes,
      user: user ? { id: user.id, name: user.name, email: user.email } : null,
      workspaceGuid: p.workspaceGuid,
      organizationId: p.organizationId || null,
      createdAt: p.createdAt,
      expiresAt: p.expiresAt,
    };
  },

  'organizations.me': ({ principal: p, rt }) => {
    const org = rt.db.get<{ id: string; name: string; created_at: string }>('SELECT * FROM organizations WHERE id = ?', [p.organizationId]);
    if (!org) throw notFound('organization');
    return { id: org.id, name: org.name, createdAt: org.created_at };
  },

  'workspaces.reachable': ({ principal: p, rt }) => {
    const guids = reachableWorkspaces(rt.db, p);
    const rows = guids.map((g) => rt.db.get<WorkspaceRow>('SELECT * FROM workspaces WHERE guid = ?', [g])!).filter(Boolean);
    return { content: rows.map(workspaceJson) };
  },

  'workspaces.me': ({ principal: p, rt }) => {
    if (!p.workspaceGuid) throw notFound('bound workspace');
    const w = rt.db.get<WorkspaceRow>('SELECT * FROM workspaces WHERE guid = ?', [p.workspaceGuid]);
    if (!w) throw notFound('workspace');
    return workspaceJson(w);
  },
} satisfies HandlerMap;
