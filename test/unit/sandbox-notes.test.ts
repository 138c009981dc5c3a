import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/limits.js';
import * as schemas from '../../src/contract/schemas.js';
import { DEMO_FOLDERS, DEMO_NOTES, DEMO_TEMPLATES } from '../../src/sandbox/demo-seed.js';
import { markdownToHtml, markdownToPlain } from '../../src/sandbox/serialize.js';
import { cutToBudget, matchedSnippets } from '../../src/sandbox/handlers/notes-extra.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { K, expectError } from '../helpers/expect.js';

const N = DEMO_NOTES;
const T = DEMO_TEMPLATES;
const API = '/v1/external';
type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

let sb: Sandbox;
beforeAll(async () => {
  sb = await inProcessSandbox();
});
afterAll(() => sb.close());

const get = (path: string, key: string) => sb.call('GET', API + path, { key });
const search = (key: string, body: unknown, ws?: string) => sb.call('POST', `${API}${ws ? `/workspaces/${ws}` : ''}/notes/search`, { key, body });
const generate = (note: string, key: string, body: unknown) => sb.call('POST', `${API}/notes/${note}/documents`, { key, body });

describe('the note read scope on every sub-resource', () => {
  // A LIMITED folder's note, a PRIVATE folder's note and a note in no folder, all of the product workspace:
  // out of scope for system keys.
  const hidden = [N.leadershipSync, N.oneOnOnePrep, N.competitorTeardown];
  const requests = (guid: string): Array<[string, string, unknown?]> => [
    ['GET', `/notes/${guid}/paragraphs`],
    ['GET', `/notes/${guid}/folders`],
    ['GET', `/notes/${guid}/share-link`],
    ['PUT', `/notes/${guid}/share-link`, { usePassword: true }],
    ['DELETE', `/notes/${guid}/share-link`],
    ['GET', `/notes/${guid}/documents`],
    ['GET', `/notes/${guid}/documents/1`],
    ['POST', `/notes/${guid}/documents`, { templateId: T.onePager, locale: 'en_US' }],
    ['GET', `/notes/${guid}/summaries`],
    ['GET', `/notes/${guid}/summaries/1`],
  ];
  // orgReadOnly lacks note:write, note_document:write: visibility (404) still comes before the scope check (403001).
  for (const key of ['workspaceKey', 'orgKey', 'orgReadOnly'] as const)
    it(`is 404000 for a ${key} on notes outside its scope`, async () => {
      for (const guid of hidden)
        for (const [method, path, body] of requests(guid)) expectError(await sb.call(method, API + path, { key: K[key], body }), 404, 404000);
    });
  it('is 404000 for user keys on notes the user cannot read, before scope and key-type checks', async () => {
    // Priya: Dana's PRIVATE folder. Marco: Priya's note in no folder. Tom (note:read only): Dana's PRIVATE folder.
    const cases: Array<[keyof typeof K, string]> = [['member', N.oneOnOnePrep], ['wsAdmin', N.competitorTeardown], ['noteReadOnly', N.oneOnOnePrep]];
    for (const [key, guid] of cases)
      for (const [method, path, body] of requests(guid)) expectError(await sb.call(method, API + path, { key: K[key], body }), 404, 404000);
    // the owner reads the same sub-resources
    expect((await get(`/notes/${N.oneOnOnePrep}/paragraphs`, K.admin)).status).toBe(200);
    expect((await get(`/notes/${N.competitorTeardown}/summaries`, K.member)).status).toBe(200);
  });
  it('is 404000 for a deleted note, even for the owner', async () => {
    for (const [method, path, body] of requests(N.deletedBrainstorm)) expectError(await sb.call(method, API + path, { key: K.admin, body }), 404, 404000);
  });
  it('lets system keys read the sub-resources of in-scope notes', async () => {
    for (const key of [K.workspaceKey, K.orgKey]) {
      expect((await get(`/notes/${N.launchKickoff}/paragraphs?size=1`, key)).status).toBe(200);
      expect((await get(`/notes/${N.launchKickoff}/documents`, key)).status).toBe(200);
      expect((await get(`/notes/${N.launchKickoff}/summaries`, key)).status).toBe(200);
    }
  });
});

describe('paragraphs', () => {
  it('pages in position order with the paragraph shape, default 100', async () => {
    const all = await get(`/notes/${N.launchKickoff}/paragraphs`, K.admin);
    expect(all.status).toBe(200);
    const page = schemas.pageOf(schemas.paragraph).parse(all.json);
    expect(page.content).toHaveLength(32);
    expect(page.nextCursor).toBeNull();
    const times = page.content.map((p) => Date.parse(p.timeFrom));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(page.content[0].speaker).toBe('Marco Reyes');

    const walked: number[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await get(`/notes/${N.launchKickoff}/paragraphs?size=5${cursor ? `&cursor=${cursor}` : ''}`, K.admin);
      expect(r.json.content.length).toBeLessThanOrEqual(5);
      walked.push(...r.json.content.map((p: any) => p.id));
      cursor = r.json.nextCursor;
    } while (cursor);
    expect(walked).toEqual(page.content.map((p) => p.id));
  });
  it('rejects sizes outside 1–1000 with 400003', async () => {
    for (const size of ['0', '1001', 'x']) expectError(await get(`/notes/${N.launchKickoff}/paragraphs?size=${size}`, K.admin), 400, 400003);
    expect((await get(`/notes/${N.launchKickoff}/paragraphs?size=1000`, K.admin)).status).toBe(200);
  });
});

describe('note folders', () => {
  it('lists the folder chain from the root down for a user who sees it all', async () => {
    const r = await get(`/notes/${N.harborInterview}/folders`, K.admin);
    const list = schemas.pageOf(schemas.folder).parse(r.json).content;
    expect(r.json.nextCursor).toBeNull();
    expect(list.map((f) => f.id)).toEqual([String(DEMO_FOLDERS.danasDrafts), String(DEMO_FOLDERS.customerInterviews)]);
    expect(list[1].parentId).toBe(String(DEMO_FOLDERS.danasDrafts));
  });
  it('drops folders the caller cannot see and then reports parentId null', async () => {
    const list = (await get(`/notes/${N.harborInterview}/folders`, K.workspaceKey)).json.content;
    expect(list.map((f: any) => f.id)).toEqual([String(DEMO_FOLDERS.customerInterviews)]);
    expect(list[0].parentId).toBeNull();
  });
  it('answers an empty list for a note in no folder', async () => {
    expect((await get(`/notes/${N.competitorTeardown}/folders`, K.member)).json).toEqual({ content: [], nextCursor: null });
  });
});

describe('share links', () => {
  const path = (guid: string) => `${API}/notes/${guid}/share-link`;
  it('reads an existing link without any password', async () => {
    const r = await get(`/notes/${N.launchKickoff}/share-link`, K.admin);
    const link = schemas.shareLink.parse(r.json);
    expect(link.hasPassword).toBe(true);
    expect(link.sharePassword).toBeUndefined();
  });
  it('creates a password link, returns the password once, and stores only a hash', async () => {
    const put = await sb.call('PUT', path(N.designCritique), { key: K.wsAdmin, body: { usePassword: true } });
    expect(put.status).toBe(200);
    const created = schemas.shareLink.parse(put.json);
    expect(created.hasPassword).toBe(true);
    expect(created.sharePassword).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(created.shareUrl).toContain(created.shareId);
    const again = (await get(`/notes/${N.designCritique}/share-link`, K.wsAdmin)).json;
    expect(again).toEqual({ ...created, sharePassword: undefined, createdAt: created.createdAt });
    expect('sharePassword' in again).toBe(false);
    expect(Buffer.from(sb.db.export()).includes(Buffer.from(created.sharePassword!))).toBe(false);
  });
  it('PUT on an existing link keeps its share id and URL and updates only the password setting (decisions.md §3.3)', async () => {
    const before = (await get(`/notes/${N.designCritique}/share-link`, K.wsAdmin)).json;
    expect(before.hasPassword).toBe(true);
    const kept = await sb.call('PUT', path(N.designCritique), { key: K.wsAdmin, body: { usePassword: true } });
    expect(kept.json).toEqual(before); // it has a password already: no new one
    const r = await sb.call('PUT', path(N.designCritique), { key: K.wsAdmin });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ...before, hasPassword: false });
    expect(r.json.sharePassword).toBeUndefined();
    const again = await sb.call('PUT', path(N.designCritique), { key: K.wsAdmin, body: { usePassword: true } });
    expect(again.json).toMatchObject({ shareId: before.shareId, shareUrl: before.shareUrl, createdAt: before.createdAt, hasPassword: true });
    expect(again.json.sharePassword).toMatch(/^[A-Za-z0-9]{16}$/);
  });
  it('deletes with 204, then GET and DELETE are 404, and a later PUT makes a new share id', async () => {
    const before = (await get(`/notes/${N.designCritique}/share-link`, K.wsAdmin)).json;
    const del = await sb.call('DELETE', path(N.designCritique), { key: K.wsAdmin });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectError(await get(`/notes/${N.designCritique}/share-link`, K.wsAdmin), 404, 404000);
    expectError(await sb.call('DELETE', path(N.designCritique), { key: K.wsAdmin }), 404, 404000);
    const fresh = await sb.call('PUT', path(N.designCritique), { key: K.wsAdmin });
    expect(fresh.json.shareId).not.toBe(before.shareId);
    expect((await sb.call('DELETE', path(N.designCritique), { key: K.wsAdmin })).status).toBe(204);
  });
  it('needs edit rights (403003) and a user key (403002)', async () => {
    // Priya is a VIEWER of the LIMITED folder of the leadership sync.
    expect((await get(`/notes/${N.leadershipSync}`, K.member)).status).toBe(200);
    expectError(await sb.call('PUT', path(N.leadershipSync), { key: K.member, body: {} }), 403, 403003);
    expectError(await sb.call('DELETE', path(N.leadershipSync), { key: K.member }), 403, 403003);
    expectError(await sb.call('PUT', path(N.launchKickoff), { key: K.workspaceKey, body: {} }), 403, 403002);
    expectError(await sb.call('PUT', path(N.launchKickoff), { key: K.orgKey, body: {} }), 403, 403001); // the org key has no note:write
  });
});

describe('documents', () => {
  it('lists documents newest first with totalSize', async () => {
    const r = await get(`/notes/${N.launchKickoff}/documents`, K.admin);
    const list = schemas.documentList.parse(r.json);
    expect(list.totalSize).toBe(list.content.length);
    expect(list.content.length).toBeGreaterThanOrEqual(3);
    const created = list.content.map((d) => d.createdAt);
    expect(created).toEqual([...created].sort().reverse());
  });
  it('reads a document as json, markdown and html', async () => {
    const id = (await get(`/notes/${N.launchKickoff}/documents`, K.admin)).json.content.find((d: any) => d.template.id === T.onePager && d.locale === 'en_US').id;
    const json = schemas.noteDocument.parse((await get(`/notes/${N.launchKickoff}/documents/${id}`, K.admin)).json);
    expect(json.sections[0].content).toEqual({ type: 'text/markdown', content: expect.stringContaining('## Overview') });
    const md = (await get(`/notes/${N.launchKickoff}/documents/${id}?format=markdown`, K.admin)).json;
    expect(md.sections.map((s: any) => s.content.type)).toEqual(json.sections.map(() => 'text/markdown'));
    const html = (await get(`/notes/${N.launchKickoff}/documents/${id}?format=html`, K.admin)).json;
    expect(html.sections.every((s: any) => s.content.type === 'text/html')).toBe(true);
    expect(html.sections[0].content.content).toContain('<h2>Overview</h2>');
    expect(html.sections[1].content.content).toMatch(/<ul><li>Offline sync is the critical path<\/li>/);
    expectError(await get(`/notes/${N.launchKickoff}/documents/${id}?format=pdf`, K.admin), 400, 400000);
  });
  it('is 404 for a document of another note', async () => {
    const other = (await get(`/notes/${N.harborInterview}/documents`, K.admin)).json.content[0].id;
    expectError(await get(`/notes/${N.launchKickoff}/documents/${other}`, K.admin), 404, 404000);
  });
});

describe('document generation', () => {
  it('answers 201 with one section per template section, marked as sandbox output, listed afterwards', async () => {
    const r = await generate(N.launchKickoff, K.admin, { templateId: T.meetingMinutes, locale: 'de_DE' });
    expect(r.status).toBe(201);
    const out = schemas.generatedDocument.parse(r.json);
    expect(out.noteId).toBe(40101);
    expect(out.document.id).toBe(out.documentId);
    expect(out.document.template).toEqual({ id: T.meetingMinutes, title: 'Meeting minutes' });
    expect(out.document.locale).toBe('de_DE');
    expect(out.document.sections).toHaveLength(4);
    expect(out.document.sections[0].content.content).toMatch(/^## Attendees\n\n> Sandbox output/);
    const again = await generate(N.launchKickoff, K.admin, { templateId: T.meetingMinutes, locale: 'de_DE' });
    expect(again.json.document.sections.map((s: any) => s.content.content)).toEqual(out.document.sections.map((s) => s.content.content));
    const listed = (await get(`/notes/${N.launchKickoff}/documents`, K.admin)).json.content.map((d: any) => d.id);
    expect(listed).toContain(out.documentId);
  });
  it('requires both fields and a document locale (400000)', async () => {
    for (const body of [{ locale: 'en_US' }, { templateId: T.onePager }, { templateId: T.onePager, locale: 'en-US' }, { templateId: T.onePager, locale: 'pt_BR' }, {}]) {
      const r = await generate(N.launchKickoff, K.admin, body);
      expectError(r, 400, 400000);
    }
  });
  it('refuses templates the caller may not use with 403003, and a template id that does not exist with 404000', async () => {
    // Marco (product admin, owner of the note): Dana's USER template, the support workspace's template.
    for (const templateId of [T.interviewDebrief, T.escalationReport]) expectError(await generate(N.launchKickoff, K.wsAdmin, { templateId, locale: 'en_US' }), 403, 403003);
    // decisions.md §5.3: an unknown id is 404000
    const unknown = await generate(N.launchKickoff, K.wsAdmin, { templateId: 999, locale: 'en_US' });
    expectError(unknown, 404, 404000);
    expect(unknown.json.error.message).toContain('template 999');
    // …but the workspace's and the organization's templates are fine
    for (const templateId of [T.designReview, T.customerCallReport]) expect((await generate(N.launchKickoff, K.wsAdmin, { templateId, locale: 'en_US' })).status).toBe(201);
    // a user's own template
    expect((await generate(N.harborInterview, K.admin, { templateId: T.interviewDebrief, locale: 'en_US' })).status).toBe(201);
  });
  it('needs UPDATE_CONTENT on the note (403003 for a viewer)', async () => {
    const r = await generate(N.leadershipSync, K.member, { templateId: T.onePager, locale: 'en_US' });
    expectError(r, 403, 403003);
    expect(r.json.error.detail).toMatch(/UPDATE_CONTENT/);
  });
  it('key types: organization keys for in-scope notes yes (no USER templates), workspace keys 403002, scopes 403001', async () => {
    expect((await generate(N.launchKickoff, K.orgKey, { templateId: T.onePager, locale: 'en_US' })).status).toBe(201);
    expect((await generate(N.pipelineReview, K.orgKey, { templateId: T.customerCallReport, locale: 'en_US' })).status).toBe(201);
    expectError(await generate(N.harborInterview, K.orgKey, { templateId: T.interviewDebrief, locale: 'en_US' }), 403, 403003);
    expectError(await generate(N.launchKickoff, K.workspaceKey, { templateId: T.onePager, locale: 'en_US' }), 403, 403002);
    expectError(await generate(N.launchKickoff, K.orgReadOnly, { templateId: T.onePager, locale: 'en_US' }), 403, 403001);
  });
});

describe('summaries', () => {
  it('lists summary items and reads one as Markdown by default', async () => {
    const res = (await get(`/notes/${N.launchKickoff}/summaries`, K.admin)).json;
    expect(res.nextCursor).toBeNull(); // unpaged (decisions.md §1.1)
    const list = schemas.listOf(schemas.summaryListItem).parse(res).content;
    expect(list.length).toBe(2);
    const en = list.find((s) => s.locale === 'en_US')!;
    expect(en.template).toBeNull();
    const one = schemas.summary.parse((await get(`/notes/${N.launchKickoff}/summaries/${en.id}`, K.admin)).json);
    expect(one.content.type).toBe('text/markdown');
    expect(one.content.content).toMatch(/^## Summary/);
  });
  it('format=text/plain strips the Markdown', async () => {
    const id = (await get(`/notes/${N.launchKickoff}/summaries`, K.admin)).json.content.find((s: any) => s.locale === 'en_US').id;
    const r = (await get(`/notes/${N.launchKickoff}/summaries/${id}?format=text/plain`, K.admin)).json;
    expect(r.content.type).toBe('text/plain');
    expect(r.content.content).toMatch(/^Summary\n/);
    expect(r.content.content).not.toMatch(/#/);
    expectError(await get(`/notes/${N.launchKickoff}/summaries/${id}?format=text/html`, K.admin), 400, 400000);
  });
  it('is 404 for a summary of another note', async () => {
    const other = (await get(`/notes/${N.roadmapReview}/summaries`, K.admin)).json.content[0].id;
    expectError(await get(`/notes/${N.launchKickoff}/summaries/${other}`, K.admin), 404, 404000);
  });
});

describe('deep search', () => {
  const guids = (r: { json: any }) => r.json.notes.map((n: any) => n.guid);
  it('answers the documented shape; the old path carries Deprecation: true', async () => {
    const old = await search(K.admin, { keyword: 'harbor' });
    expect(old.status).toBe(200);
    expect(old.headers.get('deprecation')).toBe('true');
    const body = schemas.searchResponse.parse(old.json);
    expect(body.nextCursor).toBeNull();
    expect(body.degraded).toBe(false);
    expect(body.degradedReason).toBeNull();
    const ws = await search(K.admin, { keyword: 'harbor' }, 'wsProductTeam001');
    expect(ws.headers.get('deprecation')).toBeNull();
    expect(ws.json.notes.every((n: any) => n.workspaceGuid === 'wsProductTeam001')).toBe(true);
  });
  it('matches title and transcript case-insensitively, with snippets around the match', async () => {
    const byTitle = await search(K.member, { keyword: 'LOOMLY PRICING' });
    expect(guids(byTitle)).toEqual([N.competitorTeardown]);
    // "relocation budget" is only said in the leadership sync's transcript
    const byText = await search(K.admin, { keyword: 'Relocation Budget' });
    expect(guids(byText)).toEqual([N.leadershipSync]);
    const snippets: string[] = byText.json.notes[0].matchedSnippets;
    expect(snippets.length).toBeGreaterThan(0);
    for (const s of snippets) expect(s.toLowerCase()).toContain('relocation budget');
  });
  it('drops notes outside the scope silently for every key type', async () => {
    expect(guids(await search(K.member, { keyword: 'relocation budget' }))).toEqual([N.leadershipSync]);
    for (const key of [K.workspaceKey, K.orgKey, K.noteReadOnly]) {
      const r = await search(key, { keyword: 'relocation budget' });
      expect(r.status).toBe(200);
      expect(r.json.notes).toEqual([]);
    }
    const ws = await search(K.workspaceKey, { keyword: 'harbor' }, 'wsProductTeam001');
    expect(guids(ws)).not.toContain(N.oneOnOnePrep);
    expect(guids(ws)).toContain(N.harborInterview);
  });
  it('filters by folder (sub-folders included) and creation time', async () => {
    const inRoadmap = guids(await search(K.admin, { keyword: 'the', filter: { folderId: String(DEMO_FOLDERS.roadmap) } })).sort();
    expect(inRoadmap).toEqual([N.launchKickoff, N.pressBriefing, N.roadmapReview, N.sprintRetro].sort());
    const october20s = guids(await search(K.admin, { keyword: 'the', filter: { createdAtFrom: '2026-10-20T00:00:00Z', createdAtTo: '2026-10-22T23:59:59Z' } })).sort();
    expect(october20s).toEqual([N.androidEscalation, N.designCritique, N.roadmapReview].sort());
    expectError(await search(K.admin, { keyword: 'the', filter: { createdAtFrom: 'yesterday' } }), 400, 400000);
  });
  it('pagination.size: 1–30, otherwise 400003; keyword required (400000); unreachable workspace 404', async () => {
    expect((await search(K.admin, { keyword: 'the', pagination: { size: 2 } })).json.notes).toHaveLength(2);
    expect((await search(K.admin, { keyword: 'the', pagination: { size: 30 } })).status).toBe(200);
    for (const size of [31, 0, 2.5, 'ten']) expectError(await search(K.admin, { keyword: 'the', pagination: { size } }), 400, 400003);
    expectError(await search(K.admin, { filter: {} }), 400, 400000);
    expectError(await search(K.admin, { keyword: '  ' }), 400, 400000);
    expectError(await search(K.wsAdmin, { keyword: 'the' }, 'wsSupportDesk003'), 404, 404000);
    expectError(await search(K.workspaceKey, { keyword: 'the' }, 'wsSalesTeam00002'), 404, 404000);
  });
  it('adds the primary documents: the latest one-pager and the latest from a custom template', async () => {
    const launch = (await search(K.admin, { keyword: 'launch plan kickoff' })).json.notes[0];
    expect(launch.guid).toBe(N.launchKickoff);
    const onePager = launch.documents.find((d: any) => d.templateTitle === 'One-pager');
    expect(onePager.content).toMatch(/^## Overview/); // the en_US one (newest), not the ko_KR one
    expect(onePager.truncated).toBe(false);
    expect(launch.documents.some((d: any) => d.templateTitle === 'Meeting minutes')).toBe(false); // managed, not a one-pager
    const harbor = (await search(K.admin, { keyword: 'Customer interview: Harbor' })).json.notes[0];
    expect(harbor.documents.map((d: any) => d.templateTitle)).toContain('Interview debrief');
  });
  it('cuts document content at exactly 5,000 characters and flags it', async () => {
    const insert = (guid: string, content: string, at: string) =>
      sb.db.run('INSERT INTO documents (note_guid, template_id, locale, sections, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
        guid, T.designReview, 'en_US', [{ type: 'text/markdown', content, createdAt: at }], at, at,
      ]);
    const budget = LIMITS.deepSearchDocumentChars;
    insert(N.designCritique, '가'.repeat(budget - 1) + 'xyz', '2030-01-01T00:00:00.000Z');
    const doc = (await search(K.admin, { keyword: 'Design critique' })).json.notes[0].documents.find((d: any) => d.templateTitle === 'Design review record');
    expect([...doc.content]).toHaveLength(budget);
    expect(doc.content.endsWith('가x')).toBe(true);
    expect(doc.truncated).toBe(true);
    insert(N.designCritique, 'y'.repeat(budget), '2030-01-02T00:00:00.000Z');
    const exact = (await search(K.admin, { keyword: 'Design critique' })).json.notes[0].documents.find((d: any) => d.templateTitle === 'Design review record');
    expect(exact.content).toHaveLength(budget);
    expect(exact.truncated).toBe(false);
  });
  it('answers degraded under fault injection, without documents', async () => {
    const faulty = await inProcessSandbox({ faults: 'degraded=1@/notes/search', faultSeed: 7 });
    try {
      const r = await faulty.call('POST', `${API}/workspaces/wsProductTeam001/notes/search`, { key: K.admin, body: { keyword: 'launch' } });
      expect(r.status).toBe(200);
      expect(r.json.degraded).toBe(true);
      expect(r.json.degradedReason).toMatch(/\w+/);
      expect(r.json.notes.length).toBeGreaterThan(0);
      expect(r.json.notes.every((n: any) => n.documents.length === 0)).toBe(true);
      // other routes are unaffected
      expect((await faulty.call('GET', `${API}/notes/${N.launchKickoff}/documents`, { key: K.admin })).status).toBe(200);
    } finally {
      await faulty.close();
    }
  });
});

describe('text helpers', () => {
  it('matchedSnippets cuts around each match with ellipses', () => {
    const text = `${'a'.repeat(100)} needle ${'b'.repeat(100)}`;
    const [s] = matchedSnippets([text], 'NEEDLE');
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    expect(s).toContain('needle');
    const far = Array.from({ length: 4 }, () => `needle ${'c'.repeat(200)}`).join(' ');
    expect(matchedSnippets([far], 'needle', 2)).toHaveLength(2);
    // matches inside one excerpt's context are not repeated
    expect(matchedSnippets(['needle needle needle'], 'needle')).toEqual(['needle needle needle']);
  });
  it('cutToBudget counts characters, not UTF-16 units', () => {
    expect(cutToBudget('😀'.repeat(3), 2)).toEqual({ content: '😀😀', truncated: true });
    expect(cutToBudget('ab', 2)).toEqual({ content: 'ab', truncated: false });
  });
  it('renders Markdown to HTML and plain text', () => {
    expect(markdownToHtml('# T\n\n1. a\n2. **b**\n\n> q <x>')).toBe('<h1>T</h1>\n<ol><li>a</li><li><strong>b</strong></li></ol>\n<blockquote><p>q &lt;x&gt;</p></blockquote>');
    expect(markdownToHtml('## A\ntext\n- x')).toBe('<h2>A</h2>\n<p>text<br>- x</p>');
    expect(markdownToPlain('## Head\n\n- [ ] **do** [it](https://x.example) `now`')).toBe('Head\n\n- do it now');
  });
});
