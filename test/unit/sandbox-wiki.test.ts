import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schemas from '../../src/contract/schemas.js';
import { DEMO_BUSY_PAGE, DEMO_NOTES, DEMO_WIKI_PAGES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { K, expectError } from '../helpers/expect.js';

const wiki = (ws: string, rest = '') => `/v1/external/workspaces/${ws}/wiki${rest}`;
const PRODUCT = DEMO_WORKSPACES.product;
const BUSY = DEMO_BUSY_PAGE.guid;
type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

const PAGE_FIELDS = ['canonicalName', 'createdAt', 'description', 'guid', 'mentionCount', 'pageType', 'updatedAt'];
const MENTION_FIELDS = ['confidence', 'createdAt', 'extractedText', 'guid', 'kind', 'noteId', 'paragraphId', 'paragraphUuid', 'sourceUserId'];

describe('workspace wiki', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await inProcessSandbox({ now: '2026-11-01T09:00:00Z' });
  });
  afterAll(() => sb.close());

  /** Every mention of a page for a key, following nextCursor; checks each page's size. */
  async function allMentions(key: string, limit?: number) {
    const out: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q = new URLSearchParams();
      if (limit) q.set('limit', String(limit));
      if (cursor) q.set('cursor', cursor);
      const r: any = await sb.call('GET', wiki(PRODUCT, `/pages/${BUSY}/mentions?${q}`), { key });
      expect(r.status).toBe(200);
      schemas.pageOf(schemas.wikiMention).parse(r.json);
      expect(r.json.content.length).toBeLessThanOrEqual(limit ?? 50);
      if (r.json.nextCursor) expect(r.json.content).toHaveLength(limit ?? 50);
      out.push(...r.json.content);
      cursor = r.json.nextCursor;
      pages++;
    } while (cursor);
    return { mentions: out, pages };
  }
  const noteIdsOf = (guids: string[]) => guids.map((g) => sb.db.get<{ id: number }>('SELECT id FROM notes WHERE guid = ?', [g])!.id);

  describe('gates', () => {
    it('answers on the activated Product Team wiki', async () => {
      const r = await sb.call('GET', wiki(PRODUCT, '/pages'), { key: K.admin });
      expect(r.status).toBe(200);
      expect(schemas.pageOf(schemas.wikiPage).parse(r.json).content.length).toBeGreaterThan(0);
    });
    it('403005 WIKI_NOT_ACTIVATED on Sales (plan, not activated); 403004 WIKI_PLAN_REQUIRED on Customer Support', async () => {
      for (const path of ['/pages', `/pages/${DEMO_WIKI_PAGES.enterprisePipeline}`, `/pages/${DEMO_WIKI_PAGES.enterprisePipeline}/mentions`, '/search?q=pipeline']) {
        const sales = await sb.call('GET', wiki(DEMO_WORKSPACES.sales, path), { key: K.admin });
        expectError(sales, 403, 403005);
        expect(sales.json.error.detail).toBe('WIKI_NOT_ACTIVATED');
        const support = await sb.call('GET', wiki(DEMO_WORKSPACES.support, path), { key: K.admin });
        expectError(support, 403, 403004);
        expect(support.json.error.detail).toBe('WIKI_PLAN_REQUIRED');
      }
      expectError(await sb.call('GET', wiki(DEMO_WORKSPACES.sales, '/pages'), { key: K.salesWorkspaceKey }), 403, 403005);
    });
    it('404 for a workspace the key does not reach, before the gates', async () => {
      expectError(await sb.call('GET', wiki(DEMO_WORKSPACES.sales, '/pages'), { key: K.workspaceKey }), 404, 404000);
      expectError(await sb.call('GET', wiki(PRODUCT, '/pages'), { key: K.salesWorkspaceKey }), 404, 404000);
      expectError(await sb.call('GET', wiki('wsNoSuchSpace0001', '/pages'), { key: K.orgKey }), 404, 404000);
      expectError(await sb.call('GET', wiki(PRODUCT, '/pages/wp_nope'), { key: K.admin }), 404, 404000);
      expectError(await sb.call('GET', wiki(PRODUCT, '/pages/wp_nope/mentions'), { key: K.admin }), 404, 404000);
      // a page of another workspace is not found through this one
      expectError(await sb.call('GET', wiki(PRODUCT, `/pages/${DEMO_WIKI_PAGES.enterprisePipeline}`), { key: K.admin }), 404, 404000);
    });
    it('needs wiki:read (403001) and lets every key type read', async () => {
      expectError(await sb.call('GET', wiki(PRODUCT, '/pages'), { key: K.noteReadOnly }), 403, 403001);
      // the scope is checked first: before the reach (404) and the plan and activation gates
      for (const ws of [DEMO_WORKSPACES.sales, DEMO_WORKSPACES.support, 'wsNoSuchSpace0001']) {
        const r = await sb.call('GET', wiki(ws, `/pages/${BUSY}/mentions`), { key: K.noteReadOnly });
        expectError(r, 403, 403001);
        expect(r.json.error.detail).toBe('insufficient_scope: requires wiki:read');
      }
      for (const key of [K.admin, K.member, K.boundUser, K.workspaceKey, K.orgKey, K.orgReadOnly]) expect((await sb.call('GET', wiki(PRODUCT, '/pages'), { key })).status).toBe(200);
    });
  });

  describe('pages', () => {
    it('filters by type, since and q', async () => {
      const names = async (query: string) => (await sb.call('GET', wiki(PRODUCT, `/pages?${query}`), { key: K.admin })).json.content.map((p: any) => p.canonicalName);
      expect(await names('type=feature')).toEqual(['Offline Sync', 'Onboarding Flow v3']);
      expect(await names('type=FEATURE')).toEqual(['Offline Sync', 'Onboarding Flow v3']);
      expect(await names('since=2026-10-31T17:00:00Z')).toEqual(['Harbor Freight Logistics', 'Q1 2027 Launch']);
      expect(await names('since=2026-10-31T16:00:00Z&type=feature')).toEqual(['Offline Sync']);
      expect(await names('q=HFL')).toEqual(['Harbor Freight Logistics']); // alias
      expect(await names('q=pricing')).toEqual(['Loomly', 'Q1 2027 Launch']); // description
      expect(await names('q=offline')).toEqual(['Harbor Freight Logistics', 'Offline Sync', 'Q1 2027 Launch']);
      expect(await names('q=zzz-nothing')).toEqual([]);
      // empty filters filter nothing
      const everything = await names('');
      expect(everything.length).toBeGreaterThan(2);
      expect(await names('q=&type=')).toEqual(everything);
    });
    it('since is inclusive and compares instants on updatedAt, not createdAt', async () => {
      const names = async (since: string) =>
        (await sb.call('GET', wiki(PRODUCT, `/pages?since=${encodeURIComponent(since)}`), { key: K.admin })).json.content.map((p: any) => p.canonicalName);
      // both were updated at 18:00 exactly; Harbor Freight was created two weeks earlier
      expect(await names('2026-10-31T18:00:00Z')).toEqual(['Harbor Freight Logistics', 'Q1 2027 Launch']);
      expect(await names('2026-10-31T20:00:00+02:00')).toEqual(['Harbor Freight Logistics', 'Q1 2027 Launch']);
      expect(await names('2026-10-31T18:00:00.001Z')).toEqual([]);
      expect(await names('2026-10-27T16:00:00Z')).not.toContain('Marco Reyes'); // created 10-22, never updated
    });
    it('answers exactly the page fields of decisions.md §3.9', async () => {
      const list = await sb.call('GET', wiki(PRODUCT, '/pages'), { key: K.admin });
      for (const p of list.json.content) expect(Object.keys(p).sort()).toEqual(PAGE_FIELDS);
      const found = await sb.call('GET', wiki(PRODUCT, '/search?q=launch'), { key: K.admin });
      expect(found.json.content.length).toBeGreaterThan(0);
      expect(Object.keys(found.json)).toEqual(['content']);
      for (const p of found.json.content) expect(Object.keys(p).sort()).toEqual(PAGE_FIELDS);
      const one = await sb.call('GET', wiki(PRODUCT, `/pages/${DEMO_WIKI_PAGES.q1Launch}`), { key: K.admin });
      expect(Object.keys(one.json).sort()).toEqual([...PAGE_FIELDS, 'aliases', 'links'].sort());
      for (const l of one.json.links) expect(Object.keys(l).sort()).toEqual(['canonicalName', 'guid']);
    });
    it('rejects an invalid since (400000) and limits out of range (400003)', async () => {
      for (const since of ['yesterday', '2026-13-01T00:00:00Z', '2026-11-01']) {
        const r = await sb.call('GET', wiki(PRODUCT, `/pages?since=${since}`), { key: K.admin });
        expectError(r, 400, 400000);
        expect(r.json.error.detail).toMatch(/^since/);
      }
      for (const limit of ['0', '201', 'x', '1.5']) expectError(await sb.call('GET', wiki(PRODUCT, `/pages?limit=${limit}`), { key: K.admin }), 400, 400003);
    });
    it('pages through with a cursor, in name order, without duplicates', async () => {
      const all = (await sb.call('GET', wiki(PRODUCT, '/pages?limit=200'), { key: K.admin })).json;
      expect(all.nextCursor).toBeNull();
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r: any = await sb.call('GET', wiki(PRODUCT, `/pages?limit=2${cursor ? `&cursor=${cursor}` : ''}`), { key: K.admin });
        seen.push(...r.json.content.map((p: any) => p.guid));
        cursor = r.json.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all.content.map((p: any) => p.guid));
      const names = all.content.map((p: any) => p.canonicalName);
      expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
    });
    it('a page adds aliases and links; search finds pages by text', async () => {
      const r = await sb.call('GET', wiki(PRODUCT, `/pages/${DEMO_WIKI_PAGES.harborFreight}`), { key: K.orgKey });
      const page = schemas.wikiPageDetail.parse(r.json);
      expect(page.aliases).toEqual(['Harbor Freight', 'HFL']);
      expect(page.links).toEqual([
        { guid: DEMO_WIKI_PAGES.q1Launch, canonicalName: 'Q1 2027 Launch' },
        { guid: DEMO_WIKI_PAGES.offlineSync, canonicalName: 'Offline Sync' },
      ]);
      const s = await sb.call('GET', wiki(PRODUCT, '/search?q=offline'), { key: K.workspaceKey });
      expect(s.status).toBe(200);
      const found = schemas.listOf(schemas.wikiPage).parse(s.json).content.map((p) => p.canonicalName);
      expect(found[0]).toBe('Offline Sync'); // the name match ranks first
      expect(found).toContain('Harbor Freight Logistics');
      expectError(await sb.call('GET', wiki(PRODUCT, '/search'), { key: K.admin }), 400, 400000);
    });
  });

  describe('mentions', () => {
    it('walks all 250 mentions of the busy page with limit 200 and with limit 50, with no duplicates', async () => {
      // the legacy-scope workspace key reads every note of its workspace
      const big = await allMentions(K.legacyScopeWorkspaceKey, 200);
      expect(big.pages).toBe(2);
      expect(big.mentions).toHaveLength(DEMO_BUSY_PAGE.mentions);
      const small = await allMentions(K.legacyScopeWorkspaceKey, 50);
      expect(small.pages).toBe(5);
      expect(small.mentions.map((m) => m.guid)).toEqual(big.mentions.map((m) => m.guid));
      expect(new Set(big.mentions.map((m) => m.guid)).size).toBe(DEMO_BUSY_PAGE.mentions);
      const byDefault = await allMentions(K.legacyScopeWorkspaceKey);
      expect(byDefault.pages).toBe(5);
    });

    it('ends with a null nextCursor when the visible mentions exactly fill the last page, hidden ones after them', async () => {
      // Dana sees 200 of the 250; the 50 she cannot read are interleaved and also come last
      const once = await allMentions(K.admin, 200);
      expect(once.pages).toBe(1);
      expect(once.mentions).toHaveLength(200);
      const r = await sb.call('GET', wiki(PRODUCT, `/pages/${BUSY}/mentions?limit=200`), { key: K.admin });
      expect(r.json.nextCursor).toBeNull();
      // the system keys see 150: 200 per page is one page, 100 per page two
      expect((await allMentions(K.orgKey, 100)).pages).toBe(2);
    });

    it('has exactly the fields of the spec, with kind EXPLICIT or IMPLICIT', async () => {
      const { mentions } = await allMentions(K.admin, 200);
      for (const m of mentions) {
        expect(Object.keys(m).sort()).toEqual(MENTION_FIELDS);
        expect(['EXPLICIT', 'IMPLICIT']).toContain(m.kind);
        expect(m.confidence).toBeGreaterThanOrEqual(0);
        expect(m.confidence).toBeLessThanOrEqual(1);
      }
      expect(new Set(mentions.map((m) => m.kind))).toEqual(new Set(['EXPLICIT', 'IMPLICIT']));
    });

    it('drops mentions from notes the caller cannot read, for system and user keys alike', async () => {
      const [danaPrivate, tomPrivate] = noteIdsOf([DEMO_NOTES.oneOnOnePrep, DEMO_NOTES.warehouseWalkthrough]);
      // a shared folder under Dana's private folder stays in the system keys' scope (decisions.md §5.2)
      const [sharedUnderPrivate] = noteIdsOf([DEMO_NOTES.harborInterview]);
      const ids = (ms: any[]) => new Set(ms.map((m) => m.noteId));

      for (const key of [K.workspaceKey, K.orgKey]) {
        const { mentions } = await allMentions(key, 200);
        expect(mentions).toHaveLength(150);
        expect(ids(mentions).has(danaPrivate)).toBe(false);
        expect(ids(mentions).has(tomPrivate)).toBe(false);
        expect(ids(mentions).has(sharedUnderPrivate)).toBe(true);
      }
      const dana = (await allMentions(K.admin, 50)).mentions; // her own private note, not Tom's
      expect(dana).toHaveLength(200);
      expect(ids(dana).has(danaPrivate)).toBe(true);
      expect(ids(dana).has(tomPrivate)).toBe(false);
      const priya = (await allMentions(K.member, 200)).mentions;
      expect(priya).toHaveLength(150);
      expect(ids(priya).has(danaPrivate)).toBe(false);
    });

    it('mentionCount counts the mentions the caller can see', async () => {
      const count = async (key: string) =>
        (await sb.call('GET', wiki(PRODUCT, `/pages/${BUSY}`), { key })).json.mentionCount as number;
      expect(await count(K.legacyScopeWorkspaceKey)).toBe(250);
      expect(await count(K.admin)).toBe(200);
      expect(await count(K.workspaceKey)).toBe(150);
      const listed = (await sb.call('GET', wiki(PRODUCT, '/pages?q=harbor'), { key: K.orgKey })).json.content[0];
      expect(listed.mentionCount).toBe(150);
    });

    it('drops mentions from deleted notes for every key, the legacy-scope key included', async () => {
      const own = await inProcessSandbox({ now: '2026-11-01T09:00:00Z' });
      try {
        const path = wiki(PRODUCT, `/pages/${DEMO_WIKI_PAGES.q1Launch}/mentions?limit=200`);
        const [kickoff] = [DEMO_NOTES.launchKickoff].map((g) => own.db.get<{ id: number }>('SELECT id FROM notes WHERE guid = ?', [g])!.id);
        const before = (await own.call('GET', path, { key: K.legacyScopeWorkspaceKey })).json.content.map((m: any) => m.noteId);
        expect(before).toContain(kickoff);
        own.db.run('UPDATE notes SET deleted = 1 WHERE guid = ?', [DEMO_NOTES.launchKickoff]);
        for (const key of [K.legacyScopeWorkspaceKey, K.admin, K.orgKey]) {
          const after = (await own.call('GET', path, { key })).json.content.map((m: any) => m.noteId);
          expect(after).not.toContain(kickoff);
        }
        const page = await own.call('GET', wiki(PRODUCT, `/pages/${DEMO_WIKI_PAGES.q1Launch}`), { key: K.legacyScopeWorkspaceKey });
        expect(page.json.mentionCount).toBe(before.length - before.filter((id: number) => id === kickoff).length);
      } finally {
        own.close();
      }
    });

    it('rejects limits out of range (400003) and forged cursors (400000)', async () => {
      for (const limit of ['0', '201', 'many']) expectError(await sb.call('GET', wiki(PRODUCT, `/pages/${BUSY}/mentions?limit=${limit}`), { key: K.admin }), 400, 400003);
      expectError(await sb.call('GET', wiki(PRODUCT, `/pages/${BUSY}/mentions?cursor=garbage`), { key: K.admin }), 400, 400000);
    });
  });
});
