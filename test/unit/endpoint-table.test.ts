// The endpoint table (src/contract/endpoints.ts) is built by group, each when first asked for: endpoint() builds the
// group of the id it is given, ENDPOINTS every group. Both give the same rows, the very same objects.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { aliasOf, ENDPOINTS, endpoint, type EndpointId } from '../../src/contract/endpoints.js';

afterEach(() => {
  vi.resetModules();
});

describe('the endpoint table', () => {
  it('endpoint(id) is the row of ENDPOINTS with that id, for every id', () => {
    expect(new Set(ENDPOINTS.map((e) => e.id)).size).toBe(ENDPOINTS.length);
    for (const e of ENDPOINTS) expect(endpoint(e.id), e.id).toBe(e);
  });

  it('an id looked up before ENDPOINTS is read is the same object ENDPOINTS holds, in the order of the docs', async () => {
    vi.resetModules();
    const fresh = await import('../../src/contract/endpoints.js');
    // ENDPOINTS is built when the module loads; a lookup still returns its rows, not copies
    const got = fresh.endpoint('notes.get');
    expect(fresh.ENDPOINTS.find((e) => e.id === 'notes.get')).toBe(got);
    expect(fresh.ENDPOINTS.map((e) => e.id)).toEqual(ENDPOINTS.map((e) => e.id));
    expect(fresh.ENDPOINTS.map((e) => e.id).slice(0, 3)).toEqual(['scopes.list', 'auth.me', 'organizations.me']);
  });

  it('an unknown id is a programming error', () => {
    expect(() => endpoint('notes.nope' as EndpointId)).toThrow('unknown endpoint id notes.nope');
    expect(() => endpoint('nope' as EndpointId)).toThrow('unknown endpoint id nope');
  });

  it('aliasOf names the older path of an endpoint, and nothing for the others', () => {
    expect(aliasOf('organizations.me')?.id).toBe('auth.organization');
    expect(aliasOf('workspaces.reachable')?.id).toBe('auth.workspaces');
    expect(aliasOf('workspaces.me')?.id).toBe('auth.workspace');
    expect(aliasOf('notes.get')).toBeUndefined();
    for (const e of ENDPOINTS) if (e.aliasOf) expect(aliasOf(e.aliasOf)).toBe(e);
  });
});
