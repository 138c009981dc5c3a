import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/client/errors.js';
import { networkHint } from '../../src/client/hints.js';
import { DEMO_FOLDERS, DEMO_KEYS, DEMO_NOTES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

/**
 * Issue 13 item 9: 404 and 422 hints name the resource the call was about and the case, from the sandbox's real
 * answers (the endpoint id comes from the client, the message and detail from the service).
 */

let sb: Awaited<ReturnType<typeof inProcessSandbox>>;
beforeAll(async () => {
  sb = await inProcessSandbox();
});
afterAll(async () => {
  await sb?.close();
});

const token = (k: { id: string; secret: string }) => `${k.id}.${k.secret}`;
const ADMIN = token(DEMO_KEYS.admin);

async function hintOf(endpoint: string, method: string, path: string, body?: unknown, key = ADMIN) {
  const r = await sb.call(method, `/v1/external${path}`, { key, body });
  const headers: Record<string, string> = {};
  r.headers.forEach((v: string, k: string) => (headers[k] = v));
  const e = ApiError.fromResponse({ status: r.status, headers, rawBody: r.text }, { endpoint, key });
  return { status: r.status, hint: e.hint ?? '' };
}

describe('404 hints by resource', () => {
  it('a note without a share link: create one (not "check the id")', async () => {
    await sb.call('DELETE', `/v1/external/notes/${DEMO_NOTES.roadmapReview}/share-link`, { key: ADMIN });
    const r = await hintOf('notes.shareLink.get', 'GET', `/notes/${DEMO_NOTES.roadmapReview}/share-link`);
    expect(r.status).toBe(404);
    expect(r.hint).toBe('The note has no share link: create one with `notevox notes share-link create NOTE`.');
    // A note that does not exist is another matter
    const missing = await hintOf('notes.shareLink.get', 'GET', '/notes/ntZZZZZZZZZZZ/share-link');
    expect(missing.hint).toMatch(/^No such note for this key/);
  });

  it('a voice job, a translation locale not requested, a word memory, a wiki page, a parent folder', async () => {
    const job = await hintOf('voice.get', 'GET', '/voice-file/jobs/00000000-0000-4000-8000-000000000000', undefined, token(DEMO_KEYS.workspaceKey));
    expect(job.hint).toMatch(/^No such voice job here/);
    const wm = await hintOf('wm.user.get', 'GET', '/users/me/word-memories/999999');
    expect(wm.status).toBe(404);
    expect(wm.hint).toMatch(/^No such word memory in this scope: list them with `notevox wm list`/);
    const page = await hintOf('wiki.page', 'GET', `/workspaces/${DEMO_WORKSPACES.product}/wiki/pages/wp_nothing_here`);
    expect(page.status).toBe(404);
    expect(page.hint).toMatch(/^No such wiki page/);
    const parent = await hintOf('folders.createWorkspace', 'POST', `/workspaces/${DEMO_WORKSPACES.product}/folders`, { title: 'Child', sharingType: 'PRIVATE', parentId: '999999' });
    expect(parent.status).toBe(404);
    expect(parent.hint).toMatch(/^The parent folder \(--parent\) does not exist/);
  });

  it('a translation locale the job was not created with', () => {
    const e = ApiError.fromResponse(
      { status: 404, headers: {}, rawBody: JSON.stringify({ error: { status: 404, errorType: 'not_found', code: 404000, message: 'translation de_DE not found', detail: 'the job was created with translationLocales: ko_KR' } }) },
      { endpoint: 'voice.translation' },
    );
    expect(e.hint).toMatch(/^The job was not created with this translation locale/);
  });
});

describe('422 hints by case', () => {
  it('an unknown member id, a non-empty workspace, a folder nested too deep', async () => {
    const member = await hintOf('folders.createWorkspace', 'POST', `/workspaces/${DEMO_WORKSPACES.product}/folders`, {
      title: 'Limited',
      sharingType: 'LIMITED',
      members: [{ userId: 987654, role: 'VIEWER' }],
    });
    expect(member.status).toBe(422);
    expect(member.hint).toMatch(/^A --member user id is not a member of the folder's workspace/);
    const ws = await hintOf('workspaces.delete', 'DELETE', `/organizations/me/workspaces/${DEMO_WORKSPACES.product}`, undefined, token(DEMO_KEYS.orgKey));
    expect(ws.status).toBe(422);
    expect(ws.hint).toMatch(/^The workspace still has notes or folders: move or delete them first/);
    const move = await hintOf('folders.move', 'PUT', `/folders/${DEMO_FOLDERS.roadmap}/move`, { newParentId: String(DEMO_FOLDERS.planning2027) });
    expect(move.status).toBe(422);
    expect(move.hint).toBe('A folder cannot move into itself or one of its sub-folders: choose another parent.');
  });
});

describe('network hints', () => {
  it('a refused loopback connection asks whether the sandbox runs, and never says to raise --timeout', () => {
    const hint = networkHint({ code: 'ECONNREFUSED', loopback: true, proxied: false, timeout: '30s' });
    expect(hint).toContain('Is `notevox sandbox start` running?');
    expect(hint).not.toContain('--timeout');
    expect(networkHint({ code: 'ECONNREFUSED', loopback: false, proxied: false, timeout: '30s' })).not.toContain('--timeout');
  });
});
