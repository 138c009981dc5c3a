import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schemas from '../../src/contract/schemas.js';
import { DEMO_KEYS, DEMO_NOTES as N, DEMO_ORGANIZATION, DEMO_TEMPLATES as T, DEMO_WORKSPACES as WS } from '../../src/sandbox/demo-seed.js';
import { speechLikeWav, THREE_WORDS } from '../helpers/audio.js';
import { startProxy } from '../helpers/proxy.js';
import { runCliInProcess as runCli } from '../helpers/run-command.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { useSandboxEnv } from '../helpers/sandbox-env.js';

/**
 * The revised decisions (decisions.md §2.2, §3.2, §3.3, §4.2, §4.5, §5.3) over HTTP against a real sandbox, as
 * clients written against the real service call it; and the CLI against answers of other service versions
 * (through a small proxy). The CLI runs in this process and talks HTTP to them.
 */

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
const API = '/v1/external';
const PACE = 0.1;

const env = useSandboxEnv('fidelity', { options: { jobSeconds: PACE } });
const speech = speechLikeWav(THREE_WORDS);


async function call(base: string, method: string, path: string, o: { key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: o.body !== undefined ? JSON.stringify(o.body) : undefined });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}
const api = (method: string, path: string, o: { key?: string; body?: unknown } = {}) => call(env.sb.baseUrl, method, API + path, o);

async function createJob(key: string, body: unknown = {}) {
  const r = await api('POST', '/voice-file/jobs', { key, body });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json as { id: string; uploadUri: string };
}

/** PUT to the signed URL as an S3 client would: the bytes, and only the headers given. */
async function putUpload(uri: string, body: Uint8Array, headers: Record<string, string> = {}) {
  const res = await fetch(uri, { method: 'PUT', body, headers });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

async function waitDone(id: string, key: string) {
  const until = Date.now() + 20_000;
  for (;;) {
    const job = (await api('GET', `/voice-file/jobs/${id}`, { key })).json;
    if (job.status === 'COMPLETED' || job.status === 'FAILED') return job;
    if (Date.now() > until) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('§2.2 the key\'s organization and workspaces: plain paths and auth/ aliases, every key type', () => {
  // Before the legacy-key cutoff (2026-06-30), so that every key type answers.
  let early: Sandbox;
  beforeAll(async () => {
    early = await startTestSandbox({ now: '2026-06-01T00:00:00Z' });
  });
  afterAll(async () => {
    await early?.close();
  });

  const KEYS = [
    { name: 'user key', key: DEMO_KEYS.admin.token, bound: null, reaches: [WS.product, WS.sales, WS.support] },
    { name: 'user key bound to a workspace', key: DEMO_KEYS.boundUser.token, bound: WS.product, reaches: [WS.product] },
    { name: 'workspace key', key: DEMO_KEYS.workspaceKey.token, bound: WS.product, reaches: [WS.product] },
    { name: 'organization key', key: DEMO_KEYS.orgKey.token, bound: null, reaches: [WS.product, WS.sales, WS.support] },
    { name: 'legacy personal key', key: DEMO_KEYS.legacyPersonal.token, bound: null, reaches: [WS.product, WS.sales, WS.support] },
  ];

  for (const k of KEYS) {
    it(`${k.name}: the same answers under /workspaces… and /auth/workspaces…`, async () => {
      for (const prefix of ['', '/auth']) {
        const get = (path: string) => call(early.baseUrl, 'GET', `${API}${prefix}${path}`, { key: k.key });
        const org = await get('/organizations/me');
        expect(org.status, `${prefix}/organizations/me`).toBe(200);
        expect(schemas.organization.parse(org.json).id).toBe(DEMO_ORGANIZATION);
        const list = await get('/workspaces');
        expect(list.status).toBe(200);
        expect(schemas.listOf(schemas.workspace).parse(list.json).content.map((w) => w.guid).sort()).toEqual([...k.reaches].sort());
        const me = await get('/workspaces/me');
        if (k.bound) {
          expect(me.status).toBe(200);
          expect(schemas.workspace.parse(me.json).guid).toBe(k.bound);
        } else {
          expect(me.status).toBe(404);
          expect(me.json.error.code).toBe(404000);
        }
      }
    });
  }
});

describe('§4.2 the signed upload URL, as S3 takes it', () => {
  it('stores raw WAV bytes sent without a Content-Type, and the job COMPLETES', async () => {
    const key = DEMO_KEYS.workspaceKey.token;
    const job = await createJob(key);
    const put = await putUpload(job.uploadUri, speech.bytes);
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(put.json).toMatchObject({ bytes: speech.bytes.length, contentType: 'audio/wav' });
    expect((await api('PUT', `/voice-file/jobs/${job.id}/upload-complete`, { key })).status).toBe(200);
    expect((await waitDone(job.id, key)).status).toBe('COMPLETED');
  });

  it('stores a multipart body (application/octet-stream or no type): the job ends FAILED with an errorMessage', async () => {
    const key = DEMO_KEYS.workspaceKey.token;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(speech.bytes)], { type: 'audio/wav' }), 'speech.wav');
    const encoded = new Response(form);
    const formType = encoded.headers.get('content-type')!;
    const bytes = new Uint8Array(await encoded.arrayBuffer());
    // the form's own Content-Type is not one the URL takes
    const typed = await putUpload((await createJob(key)).uploadUri, bytes, { 'content-type': formType });
    expect(typed.status).toBe(400);
    expect(typed.json.error.code).toBe(400000);
    for (const headers of [{ 'content-type': 'application/octet-stream' }, {}] as Array<Record<string, string>>) {
      const job = await createJob(key);
      expect((await putUpload(job.uploadUri, bytes, headers)).status).toBe(200);
      expect((await api('PUT', `/voice-file/jobs/${job.id}/upload-complete`, { key })).status).toBe(200);
      const done = await waitDone(job.id, key);
      expect(done.status).toBe('FAILED');
      expect(done.errorMessage).toMatch(/multipart\/form-data body, not audio: PUT the raw bytes/);
    }
  });

  it('refuses a request that carries Authorization with 400000', async () => {
    const key = DEMO_KEYS.workspaceKey.token;
    const job = await createJob(key);
    const r = await putUpload(job.uploadUri, speech.bytes, { authorization: `Bearer ${key}`, 'content-type': 'audio/wav' });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 400000, errorType: 'bad_request' });
    expect(JSON.stringify(r.json)).not.toContain(DEMO_KEYS.workspaceKey.secret);
    // nothing was stored: upload-complete has no bytes to start from
    expect((await api('PUT', `/voice-file/jobs/${job.id}/upload-complete`, { key })).json.error.code).toBe(409000);
  });
});

describe('§4.5 results', () => {
  let job: { id: string };
  const key = DEMO_KEYS.workspaceKey.token;
  beforeAll(async () => {
    job = await createJob(key, { translationLocales: ['ko_KR'] });
    await putUpload((job as any).uploadUri, speech.bytes, { 'content-type': 'audio/wav' });
  });

  it('a translation of a job that is not COMPLETED is 404000, its detail saying so; other results stay 409000', async () => {
    const early = await api('GET', `/voice-file/jobs/${job.id}/translations/ko_KR`, { key });
    expect(early.status).toBe(404);
    expect(early.json.error).toMatchObject({ code: 404000, detail: 'the job is CREATED, not COMPLETED: the translation exists once it is' });
    expect((await api('GET', `/voice-file/jobs/${job.id}/transcript`, { key })).json.error.code).toBe(409000);
    const other = await api('GET', `/voice-file/jobs/${job.id}/translations/ja_JP`, { key });
    expect(other.json.error.detail).toContain('translationLocales: ko_KR');
  });

  it('the transcript has segments, and the same array as paragraphs', async () => {
    await api('PUT', `/voice-file/jobs/${job.id}/upload-complete`, { key });
    expect((await waitDone(job.id, key)).status).toBe('COMPLETED');
    const t = (await api('GET', `/voice-file/jobs/${job.id}/transcript`, { key })).json;
    expect(schemas.transcript.parse(t).segments).toHaveLength(speech.phrase.words.length);
    expect(t.paragraphs).toEqual(t.segments);
    expect((await api('GET', `/voice-file/jobs/${job.id}/translations/ko_KR`, { key })).status).toBe(200);
  });
});

describe('§3.2, §3.3, §5.3 notes', () => {
  const admin = DEMO_KEYS.admin.token;

  it('paragraphs carry locked, diarizedSegments and summary', async () => {
    const page = schemas.pageOf(schemas.paragraph).parse((await api('GET', `/notes/${N.designCritique}/paragraphs`, { key: admin })).json);
    const [first, , split] = page.content;
    expect(first).toMatchObject({ locked: false, diarizedSegments: [], summary: { type: 'text/markdown', content: 'Marco opens the critique of onboarding flow v3.' } });
    expect(split.diarizedSegments.map((d) => d.speaker)).toEqual([{ label: 'SPEAKER_1', personName: 'Marco Reyes' }, { label: 'SPEAKER_2', personName: null }]);
    expect(split.diarizedSegments.map((d) => d.content).join(' ')).toBe(split.transcript.content);
    const locked = page.content.at(-1)!;
    expect(locked).toMatchObject({ locked: true, diarizedSegments: [], transcript: { type: 'text/plain', content: '' } });
    expect(page.content.filter((p) => p.locked)).toHaveLength(1);
    expect(page.content[5]).toMatchObject({ locked: false, diarizedSegments: [], summary: null });
  });

  it('two share-link PUTs make one shareId; DELETE and PUT make a new one', async () => {
    const path = `/notes/${N.pipelineReview}/share-link`;
    expect((await api('GET', path, { key: admin })).status).toBe(404);
    const one = (await api('PUT', path, { key: admin, body: {} })).json;
    const two = (await api('PUT', path, { key: admin, body: {} })).json;
    expect(two).toEqual(one);
    const withPassword = (await api('PUT', path, { key: admin, body: { usePassword: true } })).json;
    expect(withPassword).toMatchObject({ shareId: one.shareId, shareUrl: one.shareUrl, hasPassword: true });
    expect(typeof withPassword.sharePassword).toBe('string');
    expect((await api('DELETE', path, { key: admin })).status).toBe(204);
    expect((await api('PUT', path, { key: admin, body: {} })).json.shareId).not.toBe(one.shareId);
  });

  it('document generation: an unknown template id is 404000, a template the caller may not use 403003', async () => {
    const generate = (templateId: number) => api('POST', `/notes/${N.launchKickoff}/documents`, { key: DEMO_KEYS.wsAdmin.token, body: { templateId, locale: 'en_US' } });
    const unknown = await generate(424242);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe(404000);
    expect((await generate(T.interviewDebrief)).json.error.code).toBe(403003);
  });
});

describe('the CLI against other versions of the service', () => {
  const cli = (args: string[], baseUrl: string, key: string) => runCli(args, { baseUrl, key, configDir: env.config.dir });

  it('prints text and SRT from a transcript that has only segments', async () => {
    const proxy = await startProxy(env.sb.baseUrl, {
      rewrite: (method, path, body) => {
        if (!path.endsWith('/transcript') || !body?.segments) return undefined;
        const { paragraphs: _, ...rest } = body;
        return rest;
      },
    });
    try {
      const key = DEMO_KEYS.workspaceKey.token;
      const file = join(env.dir, 'speech.wav');
      writeFileSync(file, speech.bytes);
      const srt = await cli(['voice', 'upload', file, '--format', 'srt'], proxy.baseUrl, key);
      expect(srt.exitCode, srt.stderr).toBe(0);
      const cues = srt.stdout.trim().split('\n\n');
      expect(cues).toHaveLength(speech.phrase.words.length);
      cues.forEach((cue, i) => expect(cue).toMatch(new RegExp(`^${i + 1}\\n\\d\\d:\\d\\d:\\d\\d,\\d{3} --> \\d\\d:\\d\\d:\\d\\d,\\d{3}\\n\\[sandbox transcript `)));
      expect(proxy.requests.some((r) => r.endsWith('/transcript'))).toBe(true);
      const id = /Created voice job ([0-9a-f-]{36})/.exec(srt.stderr)![1];
      const stripped = (await call(proxy.baseUrl, 'GET', `${API}/voice-file/jobs/${id}/transcript`, { key })).json;
      expect(stripped.paragraphs).toBeUndefined();
      const text = await cli(['voice', 'transcript', id, '-o', 'text'], proxy.baseUrl, key);
      expect(text.exitCode, text.stderr).toBe(0);
      expect(text.stdout.trimEnd()).toBe(stripped.text.trimEnd());
      expect(text.stdout.trim().split('\n\n')).toHaveLength(speech.phrase.words.length);
      const again = await cli(['voice', 'transcript', id, '-o', 'srt'], proxy.baseUrl, key);
      expect(again.stdout).toBe(srt.stdout);
      const json = JSON.parse((await cli(['voice', 'transcript', id, '--json'], proxy.baseUrl, key)).stdout);
      expect(json.segments).toEqual(stripped.segments);
    } finally {
      await proxy.close();
    }
  });

  it('shows a transcript with neither array, or with items missing fields, with what it has (exit 0)', async () => {
    const key = DEMO_KEYS.workspaceKey.token;
    const job = await createJob(key);
    await putUpload(job.uploadUri, speech.bytes);
    await api('PUT', `/voice-file/jobs/${job.id}/upload-complete`, { key });
    await waitDone(job.id, key);
    const sparse = await startProxy(env.sb.baseUrl, {
      rewrite: (_m, path, body) => (path.endsWith('/transcript') ? { text: body.text, segments: body.segments.map((s: any) => ({ text: s.text })) } : undefined),
    });
    const neither = await startProxy(env.sb.baseUrl, { rewrite: (_m, path, body) => (path.endsWith('/transcript') ? { jobId: body.jobId, text: body.text } : undefined) });
    try {
      const srt = await cli(['voice', 'transcript', job.id, '-o', 'srt'], sparse.baseUrl, key);
      expect(srt.exitCode, srt.stderr).toBe(0);
      expect(srt.stdout.trim().split('\n\n')).toHaveLength(speech.phrase.words.length);
      expect(srt.stdout).toMatch(/^1\n00:00:00,000 --> 00:00:00,000\n\[sandbox transcript/);
      const text = await cli(['voice', 'transcript', job.id], neither.baseUrl, key);
      expect(text.exitCode, text.stderr).toBe(0);
      expect(text.stdout.trim().split('\n\n')).toHaveLength(speech.phrase.words.length);
      const noCues = await cli(['voice', 'transcript', job.id, '-o', 'srt'], neither.baseUrl, key);
      expect(noCues.exitCode).toBe(0);
      expect(noCues.stdout).toBe('');
      expect(noCues.stderr).toMatch(/no timed segments.*-o text/);
    } finally {
      await sparse.close();
      await neither.close();
    }
  });

  it('documents generate with a template id that does not exist: exit 5, pointing at templates list', async () => {
    const r = await cli(['notes', 'documents', 'generate', N.launchKickoff, '--template', '424242', '--locale', 'en_US'], env.sb.baseUrl, DEMO_KEYS.wsAdmin.token);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/template 424242 not found/);
    expect(r.stderr).toMatch(/There is no template 424242: `notevox templates list` shows the ones you may use/);
  });

  it('--debug shows workspace lookups on the plain paths, never auth/workspaces…', async () => {
    const byName = await cli(['notes', 'list', '--workspace', 'Product Team', '--limit', '1', '--debug'], env.sb.baseUrl, DEMO_KEYS.admin.token);
    expect(byName.exitCode, byName.stderr).toBe(0);
    expect(byName.stderr).toMatch(/> GET \S*\/v1\/external\/workspaces\b(?!\/)/);
    const file = join(env.dir, 'speech.wav');
    writeFileSync(file, speech.bytes);
    const unbound = await cli(['voice', 'upload', file, '--no-wait', '--debug'], env.sb.baseUrl, DEMO_KEYS.member.token);
    expect(unbound.exitCode, unbound.stderr).toBe(0);
    expect(unbound.stderr).toMatch(/> GET \S*\/v1\/external\/workspaces\b(?!\/)/);
    const status = await cli(['auth', 'status', '--debug', '--json'], env.sb.baseUrl, DEMO_KEYS.workspaceKey.token);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stderr).toMatch(/> GET \S*\/v1\/external\/workspaces\/me\b/);
    expect(JSON.parse(status.stdout)).toMatchObject({ workspaceGuid: WS.product, workspaceName: 'Product Team' });
    const org = await cli(['org', 'show', '--debug'], env.sb.baseUrl, DEMO_KEYS.admin.token);
    expect(org.exitCode, org.stderr).toBe(0);
    expect(org.stderr).toMatch(/> GET \S*\/v1\/external\/organizations\/me\b/);
    for (const r of [byName, unbound, status, org]) expect(r.stderr).not.toContain('/auth/workspaces');
    expect(org.stderr).not.toContain('/auth/organizations');
  });

  it('falls back to the auth/ paths on 404001 from an older sandbox, and only then', async () => {
    const older = await startProxy(env.sb.baseUrl, {
      answer: (_m, path) =>
        ['/workspaces', '/workspaces/me', '/organizations/me'].some((p) => path === API + p)
          ? { status: 404, body: { error: { code: 404001, errorType: 'not_found', message: `no route GET ${path}`, detail: null } } }
          : undefined,
    });
    try {
      const byName = await cli(['notes', 'list', '--workspace', 'Product Team', '--limit', '1', '--json'], older.baseUrl, DEMO_KEYS.admin.token);
      expect(byName.exitCode, byName.stderr).toBe(0);
      expect(older.requests.filter((r) => r.includes('workspaces') && !r.includes('/notes'))).toEqual([`GET ${API}/workspaces`, `GET ${API}/auth/workspaces`]);
      const status = await cli(['auth', 'status', '--json'], older.baseUrl, DEMO_KEYS.workspaceKey.token);
      expect(JSON.parse(status.stdout).workspaceName).toBe('Product Team');
      const org = await cli(['org', 'show', '--json'], older.baseUrl, DEMO_KEYS.admin.token);
      expect(JSON.parse(org.stdout).id).toBe(DEMO_ORGANIZATION);
    } finally {
      await older.close();
    }
    // 404000 is an answer (the workspace is gone, say), not a missing route: no fallback, and status shows the rest.
    const gone = await startProxy(env.sb.baseUrl, {
      answer: (_m, path) => (path === `${API}/workspaces/me` ? { status: 404, body: { error: { code: 404000, errorType: 'not_found', message: 'bound workspace not found', detail: null } } } : undefined),
    });
    try {
      const status = await cli(['auth', 'status', '--json'], gone.baseUrl, DEMO_KEYS.workspaceKey.token);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ workspaceGuid: WS.product, workspaceName: null });
      expect(gone.requests.filter((r) => r.includes('workspaces'))).toEqual([`GET ${API}/workspaces/me`]);
    } finally {
      await gone.close();
    }
  });
});
