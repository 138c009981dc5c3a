import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelopeSchema } from '../../src/contract/schemas.js';
import * as schemas from '../../src/contract/schemas.js';
import { DEMO_TEMPLATES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { K } from '../helpers/expect.js';

const T = DEMO_TEMPLATES;
const W = DEMO_WORKSPACES;
const API = '/v1/external';

let sb: Awaited<ReturnType<typeof inProcessSandbox>>;
beforeAll(async () => {
  sb = await inProcessSandbox();
});
afterAll(() => sb.close());

async function ids(path: string, key: string): Promise<number[]> {
  const r = await sb.call('GET', API + path, { key });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  // Template lists are unpaged: nextCursor is always null (decisions.md §1.1).
  expect(r.json.nextCursor).toBeNull();
  return schemas.listOf(schemas.template).parse(r.json).content.map((t) => t.id);
}
async function expectError(path: string, key: string, status: number, code: number) {
  const r = await sb.call('GET', API + path, { key });
  expect(r.status).toBe(status);
  expect(errorEnvelopeSchema.parse(r.json).error.code).toBe(code);
}

const MANAGED = [T.onePager, T.meetingMinutes, T.salesCall];

describe('templates', () => {
  it('list: everything the key can use, per key', async () => {
    // Dana: member of all three workspaces and owner of the interview debrief
    expect(await ids('/note-document-templates', K.admin)).toEqual([...MANAGED, T.interviewDebrief, T.designReview, T.escalationReport, T.customerCallReport]);
    // Marco: product and sales, not support; not Dana's own template
    expect(await ids('/note-document-templates', K.wsAdmin)).toEqual([...MANAGED, T.designReview, T.customerCallReport]);
    // Priya's key bound to the product workspace; the product workspace key
    expect(await ids('/note-document-templates', K.boundUser)).toEqual([...MANAGED, T.designReview, T.customerCallReport]);
    expect(await ids('/note-document-templates', K.workspaceKey)).toEqual([...MANAGED, T.designReview, T.customerCallReport]);
    // the organization key reaches every workspace
    expect(await ids('/note-document-templates', K.orgKey)).toEqual([...MANAGED, T.designReview, T.escalationReport, T.customerCallReport]);
  });
  it('managed and organization lists', async () => {
    expect(await ids('/note-document-templates/managed', K.workspaceKey)).toEqual(MANAGED);
    for (const key of [K.admin, K.workspaceKey, K.orgKey]) expect(await ids('/organizations/me/note-document-templates', key)).toEqual([T.customerCallReport]);
  });
  it('get: the template shape, 404 when the caller may not use it', async () => {
    const r = await sb.call('GET', `${API}/note-document-templates/${T.interviewDebrief}`, { key: K.admin });
    const t = schemas.template.parse(r.json);
    expect(t).toMatchObject({ id: T.interviewDebrief, ownerType: 'USER', title: 'Interview debrief' });
    expect(t.sections.map((s) => s.title)).toEqual(['Context', 'Pain points', 'Quotes', 'Follow-ups']);
    expect(t.sections[0].id).toBe(1);
    await expectError(`/note-document-templates/${T.interviewDebrief}`, K.wsAdmin, 404, 404000);
    await expectError(`/note-document-templates/${T.escalationReport}`, K.wsAdmin, 404, 404000);
    await expectError(`/note-document-templates/${T.interviewDebrief}`, K.orgKey, 404, 404000);
    await expectError('/note-document-templates/999', K.admin, 404, 404000);
    await expectError('/note-document-templates/abc', K.admin, 400, 400000);
  });
  it("users/me: the user's own templates; system keys 403002", async () => {
    expect(await ids('/users/me/note-document-templates', K.admin)).toEqual([T.interviewDebrief]);
    expect(await ids('/users/me/note-document-templates', K.wsAdmin)).toEqual([]);
    await expectError('/users/me/note-document-templates', K.workspaceKey, 403, 403002);
    await expectError('/users/me/note-document-templates', K.orgKey, 403, 403002);
  });
  it('workspaces/me: the bound workspace, 404 for a key bound to none', async () => {
    expect(await ids('/workspaces/me/note-document-templates', K.workspaceKey)).toEqual([T.designReview]);
    expect(await ids('/workspaces/me/note-document-templates', K.boundUser)).toEqual([T.designReview]);
    await expectError('/workspaces/me/note-document-templates', K.admin, 404, 404000);
    await expectError('/workspaces/me/note-document-templates', K.orgKey, 404, 404000);
  });
  it('workspaces/{ws}: 404 for a workspace the key does not reach', async () => {
    expect(await ids(`/workspaces/${W.support}/note-document-templates`, K.admin)).toEqual([T.escalationReport]);
    expect(await ids(`/workspaces/${W.sales}/note-document-templates`, K.admin)).toEqual([]);
    await expectError(`/workspaces/${W.support}/note-document-templates`, K.wsAdmin, 404, 404000);
    await expectError(`/workspaces/${W.sales}/note-document-templates`, K.workspaceKey, 404, 404000);
    await expectError(`/workspaces/${W.support}/note-document-templates`, K.boundUser, 404, 404000);
  });
  it('workspaces/-: the templates of every workspace the key reaches', async () => {
    expect(await ids('/workspaces/-/note-document-templates', K.admin)).toEqual([T.designReview, T.escalationReport]);
    expect(await ids('/workspaces/-/note-document-templates', K.wsAdmin)).toEqual([T.designReview]);
    expect(await ids('/workspaces/-/note-document-templates', K.orgKey)).toEqual([T.designReview, T.escalationReport]);
  });
  it('needs note_document_template:read (403001)', async () => {
    await expectError('/note-document-templates', K.noteReadOnly, 403, 403001);
    await expectError('/note-document-templates/managed', K.orgReadOnly, 403, 403001);
  });
});
