import { buildPath, endpoint, type EndpointId } from '../../src/contract/endpoints.js';
import { DEMO_FOLDERS, DEMO_NOTES, DEMO_TEMPLATES, DEMO_WIKI_PAGES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { speechLikeWav, THREE_WORDS } from './audio.js';
import { K } from './expect.js';
import type { inProcessSandbox } from './sandbox.js';

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

/** One success answer of the sandbox. */
export interface RecordedAnswer {
  status: number;
  json: unknown;
  text: string;
}

const PRODUCT = DEMO_WORKSPACES.product;

/**
 * Every endpoint of the contract, called successfully against `sb` (an in-process sandbox started with
 * `{ options: { jobSeconds: 0.05 } }`) with a demo key that may make the call: the answers by endpoint id, and
 * what went wrong (a call that did not answer its success status, or could not be made). Used by openapi.test.ts
 * (the answers against docs/openapi.json) and answers-differential.test.ts (the answer check against zod).
 */
export async function callEveryEndpoint(sb: Sandbox): Promise<{ answers: Map<string, RecordedAnswer[]>; problems: string[] }> {
  const answers = new Map<string, RecordedAnswer[]>();
  const problems: string[] = [];

  /** Call an endpoint by contract id (path from the contract, never restated) and record the answer. */
  async function call(id: string, o: { key?: string; path?: Record<string, string | number>; query?: Record<string, string>; body?: unknown } = {}): Promise<any> {
    const ep = endpoint(id as EndpointId);
    let url: string;
    try {
      url = buildPath(ep, o.path);
    } catch (e) {
      problems.push(`${id}: not called: ${(e as Error).message} (an earlier call failed?)`);
      return undefined;
    }
    if (o.query) url += `?${new URLSearchParams(o.query)}`;
    const res = await sb.call(ep.method, url, { key: o.key, body: o.body });
    if (res.status !== ep.successStatus) problems.push(`${id}: ${ep.method} ${url} answered ${res.status}, not ${ep.successStatus}: ${res.text}`);
    else answers.set(id, [...(answers.get(id) ?? []), { status: res.status, json: res.json, text: res.text }]);
    return res.json;
  }

  const N = DEMO_NOTES;
  const ws = { workspaceGuid: PRODUCT };

  // ---- meta and identity ----
  await call('scopes.list');
  await call('auth.me', { key: K.admin });
  // decisions.md §2.2: the plain paths, and their auth/ aliases
  await call('organizations.me', { key: K.admin });
  await call('workspaces.reachable', { key: K.admin });
  await call('workspaces.me', { key: K.boundUser });
  await call('auth.organization', { key: K.admin });
  await call('auth.workspaces', { key: K.admin });
  await call('auth.workspace', { key: K.boundUser });

  // ---- notes ----
  const note = { noteGuid: N.launchKickoff };
  const owned = { noteGuid: N.roadmapReview };
  await call('notes.list', { key: K.admin, query: { size: '3' } });
  await call('notes.search', { key: K.admin, body: { keyword: 'launch' } });
  await call('notes.listWorkspace', { key: K.admin, path: ws, query: { size: '3' } });
  await call('notes.searchWorkspace', { key: K.admin, path: ws, body: { keyword: 'launch' } });
  await call('notes.listOrganization', { key: K.admin, query: { size: '3' } });
  await call('notes.get', { key: K.admin, path: note });
  await call('notes.update', { key: K.admin, path: owned, query: { updateMask: 'title' }, body: { title: 'Roadmap review (renamed)' } });
  await call('notes.folders', { key: K.admin, path: note });
  await call('notes.paragraphs', { key: K.admin, path: note, query: { size: '3' } });
  await call('notes.shareLink.put', { key: K.admin, path: owned, body: { usePassword: true } });
  await call('notes.shareLink.get', { key: K.admin, path: owned });
  await call('notes.shareLink.delete', { key: K.admin, path: owned });
  const documents = await call('notes.documents.list', { key: K.admin, path: note });
  await call('notes.documents.get', { key: K.admin, path: { ...note, documentId: documents?.content?.[0]?.id }, query: { format: 'markdown' } });
  await call('notes.documents.generate', { key: K.admin, path: note, body: { templateId: DEMO_TEMPLATES.onePager, locale: 'en_US' } });
  const summaries = await call('notes.summaries.list', { key: K.admin, path: note });
  await call('notes.summaries.get', { key: K.admin, path: { ...note, summaryId: summaries?.content?.[0]?.id } });

  // ---- templates ----
  await call('templates.list', { key: K.admin });
  await call('templates.managed', { key: K.admin });
  await call('templates.get', { key: K.admin, path: { templateId: DEMO_TEMPLATES.onePager } });
  await call('templates.user', { key: K.admin });
  await call('templates.workspaceMe', { key: K.boundUser });
  await call('templates.allWorkspaces', { key: K.admin });
  await call('templates.workspace', { key: K.admin, path: ws });
  await call('templates.organization', { key: K.admin });

  // ---- folders ----
  await call('folders.listTeam', { key: K.boundUser });
  await call('folders.listWorkspace', { key: K.admin, path: ws });
  await call('folders.get', { key: K.admin, path: { folderId: DEMO_FOLDERS.leadershipSync } });
  await call('folders.createTeam', { key: K.boundUser, body: { title: 'Drift test (team)' } });
  const folder = await call('folders.createWorkspace', { key: K.admin, path: ws, body: { title: 'Drift test', sharingType: 'LIMITED', members: [{ userId: 102, role: 'EDITOR' }] } });
  await call('folders.update', { key: K.admin, path: { folderId: folder?.id }, body: { title: 'Drift test (updated)', color: '#123456' } });
  await call('folders.move', { key: K.admin, path: { folderId: folder?.id }, body: { newParentId: String(DEMO_FOLDERS.roadmap) } });
  await call('folders.delete', { key: K.admin, path: { folderId: folder?.id } });

  // ---- word memories: every scope path, each operation on both of its paths ----
  const wmScopes = [
    ['user', K.admin, {}],
    ['workspace', K.admin, ws],
    ['workspaceMe', K.boundUser, {}],
    ['teamMe', K.boundUser, {}],
    ['organization', K.admin, {}],
  ] as const;
  for (const [scope, key, path] of wmScopes) {
    const list = await call(`wm.${scope}.list`, { key, path, query: { size: '2' } });
    await call(`wm.${scope}.get`, { key, path: { ...path, id: list?.content?.[0]?.id } });
    const a = await call(`wm.${scope}.create`, { key, path, body: { entries: [{ entry: `Drift-${scope}-a` }] } });
    const b = await call(`wm.${scope}.createBulk`, { key, path, body: { entries: [{ entry: `Drift-${scope}-b`, subEntry: 'DB' }] } });
    const [idA, idB] = [a?.content?.[0]?.id, b?.content?.[0]?.id];
    await call(`wm.${scope}.update`, { key, path, body: { entries: [{ id: idA, entry: `Drift-${scope}-a2` }] } });
    await call(`wm.${scope}.updateBulk`, { key, path, body: { entries: [{ id: idB, subEntry: null }, { id: 999_999_999 }] } });
    await call(`wm.${scope}.delete`, { key, path, body: { ids: [idA] } });
    await call(`wm.${scope}.deleteBulk`, { key, path, body: { ids: [idB, 999_999_999] } });
  }

  // ---- wiki ----
  const page = { ...ws, pageGuid: DEMO_WIKI_PAGES.harborFreight };
  await call('wiki.pages', { key: K.admin, path: ws, query: { limit: '3' } });
  await call('wiki.page', { key: K.admin, path: page });
  await call('wiki.mentions', { key: K.admin, path: page, query: { limit: '3' } });
  await call('wiki.search', { key: K.admin, path: ws, query: { q: 'Harbor' } });

  // ---- organization management ----
  await call('workspaces.list', { key: K.admin });
  await call('workspaces.get', { key: K.admin, path: ws });
  const created = await call('workspaces.create', { key: K.admin, body: { name: 'Drift test workspace' } });
  const mine = { workspaceGuid: created?.guid };
  await call('workspaces.rename', { key: K.admin, path: mine, body: { name: 'Drift test workspace (renamed)' } });
  await call('workspaces.quota', { key: K.admin, path: mine, body: { monthlyMinutes: 120 } });
  await call('workspaces.delete', { key: K.admin, path: mine });

  // ---- voice file jobs: create, upload (the signed URL is the sandbox's own route), run to COMPLETED ----
  const job = await call('voice.create', { key: K.workspaceKey, body: { transcriptLocaleHints: ['en_US'], translationLocales: ['ko_KR'] } });
  const jobPath = { jobId: job?.id };
  if (job?.uploadUri) {
    const upload = await sb.app.request(job.uploadUri, { method: 'PUT', body: speechLikeWav(THREE_WORDS).bytes, headers: { 'content-type': 'audio/wav' } });
    if (upload.status !== 200) problems.push(`upload to ${job.uploadUri} answered ${upload.status}: ${await upload.text()}`);
  }
  await call('voice.uploadComplete', { key: K.workspaceKey, path: jobPath });
  for (let i = 0; i < 500; i++) {
    const status = (await call('voice.get', { key: K.workspaceKey, path: jobPath }))?.status;
    if (status !== 'UPLOADED' && status !== 'PROCESSING') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const translated = { ...jobPath, locale: 'ko_KR' };
  await call('voice.transcript', { key: K.workspaceKey, path: jobPath });
  await call('voice.translations', { key: K.workspaceKey, path: jobPath });
  await call('voice.translation', { key: K.workspaceKey, path: translated });
  await call('voice.summary', { key: K.workspaceKey, path: jobPath });
  await call('voice.transcriptSummary', { key: K.workspaceKey, path: jobPath });
  await call('voice.translationSummary', { key: K.workspaceKey, path: translated });
  await call('voice.delete', { key: K.workspaceKey, path: jobPath });
  return { answers, problems };
}
