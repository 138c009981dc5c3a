import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPath, endpoint, type EndpointId, type WordMemoryScopeKey } from '../../src/contract/endpoints.js';
import * as schemas from '../../src/contract/schemas.js';
import { DEMO_ORGANIZATION, DEMO_USERS, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { K, expectError } from '../helpers/expect.js';

const { product, sales, support } = DEMO_WORKSPACES;
type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;
type Op = 'list' | 'get' | 'create' | 'update' | 'delete';

let sb: Sandbox;
beforeAll(async () => {
  sb = await inProcessSandbox();
});
afterAll(async () => {
  await sb.close();
});

/** The path of a word-memory operation; `bulk` picks the `.../bulk` variant of the writes. */
function path(scope: WordMemoryScopeKey, op: Op, o: { ws?: string; id?: number; bulk?: boolean; query?: string } = {}): string {
  const ep = endpoint(`wm.${scope}.${op}${o.bulk ? 'Bulk' : ''}` as EndpointId);
  const filled = buildPath(ep, { ...(o.ws ? { workspaceGuid: o.ws } : {}), ...(o.id !== undefined ? { id: o.id } : {}) });
  return filled + (o.query ? `?${o.query}` : '');
}
const METHOD: Record<Op, string> = { list: 'GET', get: 'GET', create: 'POST', update: 'PATCH', delete: 'DELETE' };
const call = (key: string, scope: WordMemoryScopeKey, op: Op, o: Parameters<typeof path>[2] & { body?: unknown } = {}) => sb.call(METHOD[op], path(scope, op, o), { key, body: o.body });

const entries = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ entry: `${prefix}${i}`, ...(i % 3 === 0 ? { subEntry: `${prefix}-alt-${i}` } : {}) }));

describe('word memories: reading', () => {
  it('lists each scope in id order with the documented item shape', async () => {
    const user = await call(K.admin, 'user', 'list');
    expect(user.status).toBe(200);
    expect(schemas.pageOf(schemas.wordMemory).safeParse(user.json).success).toBe(true);
    expect(user.json.content.map((w: any) => w.entry)).toEqual(['Whitfield', 'HFL', 'Lighthouse']);
    expect(user.json.content[1]).toMatchObject({ entry: 'HFL', subEntry: 'Harbor-Freight' });
    expect(user.json.content[0].subEntry).toBeNull();
    expect(user.json.nextCursor).toBeNull();
    const ws = await call(K.member, 'workspace', 'list', { ws: product });
    expect(ws.json.content.map((w: any) => w.entry)).toEqual(['Notevox', 'Loomly', 'OfflineSync']);
    const org = await call(K.orgReadOnly, 'organization', 'list');
    expect(org.json.content.map((w: any) => w.entry)).toEqual(['Northwind', 'Harbor-Freight-Logistics', 'Okafor']);
    const ids = org.json.content.map((w: any) => w.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('pages with cursor and size (default 1000, 1–1000)', async () => {
    const created = await call(K.wsAdmin, 'user', 'create', { body: { entries: entries('page', 1000) } });
    expect(created.json.content).toHaveLength(1000);
    await call(K.wsAdmin, 'user', 'create', { body: { entries: entries('more', 200) } });
    const first = await call(K.wsAdmin, 'user', 'list');
    expect(first.json.content).toHaveLength(1000);
    expect(first.json.nextCursor).toEqual(expect.any(String));
    const second = await call(K.wsAdmin, 'user', 'list', { query: `cursor=${first.json.nextCursor}` });
    expect(second.json.content).toHaveLength(200);
    expect(second.json.nextCursor).toBeNull();
    expect(second.json.content[0].id).toBeGreaterThan(first.json.content[999].id);
    const small: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await call(K.wsAdmin, 'user', 'list', { query: `size=450${cursor ? `&cursor=${cursor}` : ''}` });
      small.push(...r.json.content.map((w: any) => w.entry));
      cursor = r.json.nextCursor;
    } while (cursor);
    expect(small).toEqual([...first.json.content, ...second.json.content].map((w: any) => w.entry));
    expectError(await call(K.wsAdmin, 'user', 'list', { query: 'size=0' }), 400, 400003);
    expectError(await call(K.wsAdmin, 'user', 'list', { query: 'size=1001' }), 400, 400003);
    expectError(await call(K.wsAdmin, 'user', 'list', { query: 'cursor=garbage' }), 400, 400000);
  });

  it('gets one item of the scope, 404 for an id of another scope', async () => {
    const list = await call(K.admin, 'user', 'list');
    const hfl = list.json.content[1];
    const got = await call(K.admin, 'user', 'get', { id: hfl.id });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(hfl);
    expectError(await call(K.wsAdmin, 'user', 'get', { id: hfl.id }), 404, 404000);
    expectError(await call(K.admin, 'organization', 'get', { id: hfl.id }), 404, 404000);
  });
});

describe('word memories: bulk writes', () => {
  it('creates, skips entries that exist, and creates a repeated entry once', async () => {
    const body = { entries: [{ entry: 'Acme' }, { entry: 'Whitfield' }, { entry: 'Acme', subEntry: 'second' }, { entry: 'Zeta', subEntry: 'Z' }] };
    const r = await call(K.admin, 'user', 'create', { body });
    expect(r.status).toBe(200);
    expect(schemas.wmCreateResponse.safeParse(r.json).success).toBe(true);
    expect(r.json.content.map((w: any) => [w.entry, w.subEntry])).toEqual([
      ['Acme', null],
      ['Zeta', 'Z'],
    ]);
    const again = await call(K.admin, 'user', 'create', { body, bulk: true });
    expect(again.json.content).toEqual([]);
    const all = await call(K.admin, 'user', 'list');
    expect(all.json.content.filter((w: any) => w.entry === 'Acme')).toHaveLength(1);
  });

  it('answers a create with the rows as stored: ids, text, subEntry and createdAt read back the same', async () => {
    const odd = ['q"uote', 'back\\slash', 'nul\u0000in', 'ctl\u0001x', 'emoji\u{1F600}', 'é', '</script>'];
    const bodies = [
      // all new (the answer is built from the request)
      { entries: odd.map((e, i) => ({ entry: `rb-${e}`, ...(i % 2 ? { subEntry: `s-${e}` } : { subEntry: null }) })) },
      // all new, no subEntry at all (the entries go in as a flat array)
      { entries: odd.map((e) => ({ entry: `rc-${e}` })) },
      // repeated and existing entries, a repeat last (the new rows are read back)
      { entries: [{ entry: 'rb-q"uote' }, { entry: 'rb-new1', subEntry: 'x' }, { entry: 'rb-new2' }, { entry: 'rb-new1' }] },
      // after a request whose last item was skipped, ids still increase
      { entries: [{ entry: 'rb-new3' }, { entry: 'rb-new4', subEntry: 'y' }] },
    ];
    let last = 0;
    for (const body of bodies) {
      const r = await call(K.admin, 'user', 'create', { body });
      expect(r.status).toBe(200);
      const ids = r.json.content.map((w: any) => w.id);
      expect(ids.every((id: number) => id > last)).toBe(true);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      last = ids.at(-1) ?? last;
      for (const w of r.json.content) expect((await call(K.admin, 'user', 'get', { id: w.id })).json).toEqual(w);
    }
  });

  it('keeps scopes apart: the same entry may exist in each', async () => {
    for (const [key, scope, ws] of [
      [K.admin, 'workspace', sales],
      [K.admin, 'organization', undefined],
      [K.member, 'user', undefined],
    ] as const) {
      const r = await call(key, scope, 'create', { ws, body: { entries: [{ entry: 'SharedTerm' }] } });
      expect(r.json.content).toHaveLength(1);
    }
    const salesList = await call(K.admin, 'workspace', 'list', { ws: sales });
    expect(salesList.json.content.map((w: any) => w.entry)).toEqual(['SharedTerm']);
  });

  it('rejects the whole request naming the index of the first bad item', async () => {
    const bad = entries('bad', 30);
    bad[17] = { entry: 'has space' };
    bad[20] = { entry: 'x'.repeat(64) };
    const r = await call(K.admin, 'user', 'create', { body: { entries: bad } });
    expectError(r, 400, 400000);
    expect(r.json.error.detail).toBe('entries[17].entry: must not contain whitespace');
    const long = await call(K.admin, 'user', 'create', { body: { entries: [{ entry: 'ok' }, { entry: 'fine', subEntry: 'y'.repeat(64) }] } });
    expect(long.json.error.detail).toMatch(/^entries\[1\]\.subEntry: /);
    expect((await call(K.admin, 'user', 'create', { body: { entries: [{ entry: '' }] } })).json.error.detail).toMatch(/^entries\[0\]\.entry/);
    const tooMany = await call(K.admin, 'user', 'create', { body: { entries: entries('many', 1001) } });
    expectError(tooMany, 400, 400000);
    expect(tooMany.json.error.detail).toMatch(/^entries: /);
    expectError(await call(K.admin, 'user', 'create', { body: { entries: [] } }), 400, 400000);
    expectError(await call(K.admin, 'user', 'update', { body: { entries: [{ id: 1, subEntry: 'a b' }] } }), 400, 400000);
    expectError(await call(K.admin, 'user', 'delete', { body: { ids: Array.from({ length: 1001 }, (_, i) => i) } }), 400, 400000);
    const list = await call(K.admin, 'user', 'list');
    expect(list.json.content.some((w: any) => w.entry.startsWith('bad'))).toBe(false);
  });

  it('updates entry and subEntry (null clears it), reporting unknown ids', async () => {
    const made = await call(K.admin, 'workspace', 'create', { ws: support, body: { entries: [{ entry: 'Jira', subEntry: 'JIRA' }, { entry: 'Slack' }] } });
    const [jira, slack] = made.json.content;
    const r = await call(K.admin, 'workspace', 'update', {
      ws: support,
      bulk: true,
      body: { entries: [{ id: jira.id, subEntry: null }, { id: slack.id, entry: 'Slack-HQ', subEntry: 'slack' }, { id: 999999 }] },
    });
    expect(r.status).toBe(200);
    expect(schemas.wmUpdateResponse.safeParse(r.json).success).toBe(true);
    expect(r.json.content.map((w: any) => [w.id, w.entry, w.subEntry])).toEqual([
      [jira.id, 'Jira', null],
      [slack.id, 'Slack-HQ', 'slack'],
    ]);
    expect(r.json.notFound).toEqual([999999]);
    const unchanged = await call(K.admin, 'workspace', 'update', { ws: support, body: { entries: [{ id: jira.id, entry: 'Jira' }] } });
    expect(unchanged.json.content[0].subEntry).toBeNull();
    const clash = await call(K.admin, 'workspace', 'update', { ws: support, body: { entries: [{ id: jira.id, entry: 'Zendesk' }] } });
    expectError(clash, 409, 409000);
    expect(clash.json.error.message).toMatch(/^entries\[0\]\.entry: "Zendesk" already exists/);
    expect((await call(K.admin, 'workspace', 'get', { ws: support, id: jira.id })).json.entry).toBe('Jira');
  });

  it('applies the items of an update in order: a rename may take an entry an earlier item freed', async () => {
    const made = await call(K.admin, 'workspace', 'create', { ws: support, body: { entries: [{ entry: 'Alpha' }, { entry: 'Beta' }] } });
    const [alpha, beta] = made.json.content;
    const r = await call(K.admin, 'workspace', 'update', {
      ws: support,
      body: { entries: [{ id: beta.id, entry: 'Gamma' }, { id: alpha.id, entry: 'Beta' }, { id: beta.id, subEntry: 'G' }] },
    });
    expect(r.status).toBe(200);
    expect(r.json.content.map((w: any) => [w.id, w.entry, w.subEntry])).toEqual([
      [beta.id, 'Gamma', 'G'],
      [alpha.id, 'Beta', null],
    ]);
    // The other way round the first item clashes, and nothing of the request is kept.
    const clash = await call(K.admin, 'workspace', 'update', { ws: support, body: { entries: [{ id: alpha.id, entry: 'Gamma' }, { id: beta.id, entry: 'Delta' }] } });
    expectError(clash, 409, 409000);
    expect(clash.json.error.message).toBe(`entries[0].entry: "Gamma" already exists in this scope (id ${beta.id})`);
    expect((await call(K.admin, 'workspace', 'get', { ws: support, id: beta.id })).json.entry).toBe('Gamma');
  });

  it('deletes in bulk with 200 and a body, reporting unknown ids', async () => {
    const made = await call(K.admin, 'organization', 'create', { body: { entries: entries('gone', 5) } });
    const ids = made.json.content.map((w: any) => w.id);
    const r = await call(K.admin, 'organization', 'delete', { body: { ids: [...ids.slice(0, 3), ids[0], 424242] } });
    expect(r.status).toBe(200);
    expect(schemas.wmDeleteResponse.safeParse(r.json).success).toBe(true);
    expect(r.json).toEqual({ deleted: 3, notFound: [424242] });
    const bulk = await call(K.orgKey, 'organization', 'delete', { bulk: true, body: { ids: ids.slice(3) } });
    expect(bulk.json).toEqual({ deleted: 2, notFound: [] });
    // another scope's id is not found here
    const user = await call(K.admin, 'user', 'list');
    expect((await call(K.admin, 'organization', 'delete', { body: { ids: [user.json.content[0].id] } })).json).toEqual({ deleted: 0, notFound: [user.json.content[0].id] });
  });

  it('creates 1000 items in one request quickly', async () => {
    const started = performance.now();
    const r = await call(K.wsAdmin, 'user', 'create', { body: { entries: entries('fast', 1000) } });
    expect(r.json.content).toHaveLength(1000);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('word memories: every scope path, both bulk paths', () => {
  // [scope, key, workspace path parameter, where the rows live]
  const SCOPES: Array<[WordMemoryScopeKey, string, string | undefined, string]> = [
    ['user', K.member, undefined, `user:${DEMO_USERS.priya}`],
    ['workspace', K.admin, sales, `workspace:${sales}`],
    ['workspaceMe', K.boundUser, undefined, `workspace:${product}`],
    ['teamMe', K.boundUser, undefined, `workspace:${product}`],
    ['organization', K.orgKey, undefined, `organization:${DEMO_ORGANIZATION}`],
  ];
  const rowsOf = (where: string) => {
    const [type, id] = where.split(':');
    return sb.db.all<{ id: number; entry: string; sub_entry: string | null }>('SELECT id, entry, sub_entry FROM word_memories WHERE scope_type = ? AND scope_id = ? ORDER BY id', [type, id]);
  };

  for (const [scope, key, ws, where] of SCOPES)
    for (const bulk of [false, true])
      it(`${scope}${bulk ? ' (…/bulk)' : ''}: create, update, delete with notFound, read back`, async () => {
        const tag = `M${scope}${bulk ? 'B' : 'P'}`;
        const made = await call(key, scope, 'create', { ws, bulk, body: { entries: [{ entry: `${tag}1` }, { entry: `${tag}2`, subEntry: 'two' }] } });
        expect(made.status, JSON.stringify(made.json)).toBe(200);
        const [one, two] = made.json.content;
        expect([one.entry, two.subEntry]).toEqual([`${tag}1`, 'two']);
        expect(rowsOf(where).filter((r) => r.entry.startsWith(tag)).map((r) => r.id)).toEqual([one.id, two.id]);
        const skipped = await call(key, scope, 'create', { ws, bulk, body: { entries: [{ entry: `${tag}1`, subEntry: 'ignored' }] } });
        expect(skipped.json).toEqual({ content: [] });

        const updated = await call(key, scope, 'update', { ws, bulk, body: { entries: [{ id: one.id, subEntry: 'uno' }, { id: 987_654 }] } });
        expect(updated.status).toBe(200);
        expect(updated.json).toMatchObject({ content: [{ id: one.id, entry: `${tag}1`, subEntry: 'uno' }], notFound: [987_654] });
        expect((await call(key, scope, 'get', { ws, id: one.id })).json).toMatchObject({ id: one.id, subEntry: 'uno' });

        const deleted = await call(key, scope, 'delete', { ws, bulk, body: { ids: [two.id, 987_654] } });
        expect(deleted.status).toBe(200);
        expect(deleted.json).toEqual({ deleted: 1, notFound: [987_654] });
        expectError(await call(key, scope, 'get', { ws, id: two.id }), 404, 404000);
        const listed = await call(key, scope, 'list', { ws });
        expect(listed.json.content.filter((w: any) => w.entry.startsWith(tag)).map((w: any) => [w.entry, w.subEntry])).toEqual([[`${tag}1`, 'uno']]);

        const tooMany = Array.from({ length: 1001 }, (_, i) => ({ id: i + 1 }));
        expect((await call(key, scope, 'update', { ws, bulk, body: { entries: tooMany } })).json.error.detail).toMatch(/^entries: /);
        expectError(await call(key, scope, 'list', { ws, query: 'size=1001' }), 400, 400003);
        expectError(await call(key, scope, 'list', { ws, query: 'size=abc' }), 400, 400003);
      });

  it('names the first bad item of an update or delete, and changes nothing', async () => {
    const made = await call(K.admin, 'user', 'create', { body: { entries: [{ entry: 'FirstBad' }] } });
    const id = made.json.content[0].id;
    const update = await call(K.admin, 'user', 'update', { body: { entries: [{ id, subEntry: 'fine' }, { id, entry: 'x'.repeat(64) }, { id, subEntry: 'a b' }] } });
    expectError(update, 400, 400000);
    expect(update.json.error.detail).toMatch(/^entries\[1\]\.entry: /);
    expect((await call(K.admin, 'user', 'get', { id })).json.subEntry).toBeNull();
    const del = await call(K.admin, 'user', 'delete', { body: { ids: [id, 2.5, 'x'] } });
    expectError(del, 400, 400000);
    expect(del.json.error.detail).toMatch(/^ids\[1\]: /);
    expect((await call(K.admin, 'user', 'get', { id })).status).toBe(200);
  });
});

describe('word memories: who may do what', () => {
  it('user scope: user keys only', async () => {
    expect((await call(K.member, 'user', 'list')).status).toBe(200);
    expectError(await call(K.workspaceKey, 'user', 'list'), 403, 403002);
    expectError(await call(K.orgKey, 'user', 'create', { body: { entries: [{ entry: 'x' }] } }), 403, 403002);
    expectError(await call(K.noteReadOnly, 'user', 'list'), 403, 403001);
  });

  it('workspace scope: members read and write; the workspace key reads its own workspace', async () => {
    expect((await call(K.member, 'workspace', 'create', { ws: product, body: { entries: [{ entry: 'PriyaTerm' }] } })).status).toBe(200);
    expectError(await call(K.member, 'workspace', 'list', { ws: support }), 404, 404000);
    expectError(await call(K.member, 'workspace', 'list', { ws: 'wsUnknown0000000' }), 404, 404000);
    const viaKey = await call(K.workspaceKey, 'workspaceMe', 'list');
    expect(viaKey.status).toBe(200);
    expect(viaKey.json.content.map((w: any) => w.entry)).toContain('PriyaTerm');
    expect((await call(K.workspaceKey, 'teamMe', 'list')).json.content).toEqual(viaKey.json.content);
    expect((await call(K.workspaceKey, 'workspace', 'list', { ws: product })).status).toBe(200);
    expectError(await call(K.workspaceKey, 'workspace', 'list', { ws: sales }), 404, 404000);
    expectError(await call(K.workspaceKey, 'workspaceMe', 'create', { body: { entries: [{ entry: 'nope' }] } }), 403, 403002);
    expectError(await call(K.orgKey, 'workspace', 'list', { ws: product }), 403, 403002);
  });

  it('workspaces/me and teams/me are the key’s bound workspace, 404 for unbound keys', async () => {
    const bound = await call(K.boundUser, 'teamMe', 'create', { body: { entries: [{ entry: 'BoundTerm' }] } });
    expect(bound.status).toBe(200);
    const productList = await call(K.admin, 'workspace', 'list', { ws: product });
    expect(productList.json.content.map((w: any) => w.entry)).toContain('BoundTerm');
    expectError(await call(K.boundUser, 'workspace', 'list', { ws: sales }), 404, 404000);
    expectError(await call(K.admin, 'workspaceMe', 'list'), 404, 404000);
    expectError(await call(K.admin, 'teamMe', 'create', { body: { entries: [{ entry: 'x' }] } }), 404, 404000);
  });

  it('organization scope: org admins and organization keys', async () => {
    expect((await call(K.admin, 'organization', 'list')).status).toBe(200);
    expectError(await call(K.wsAdmin, 'organization', 'list'), 403, 403003);
    const viaOrgKey = await call(K.orgKey, 'organization', 'create', { body: { entries: [{ entry: 'OrgKeyTerm' }] } });
    expect(viaOrgKey.json.content).toHaveLength(1);
    expectError(await call(K.orgReadOnly, 'organization', 'create', { body: { entries: [{ entry: 'x' }] } }), 403, 403001);
    expectError(await call(K.workspaceKey, 'organization', 'list'), 403, 403002);
  });
});
