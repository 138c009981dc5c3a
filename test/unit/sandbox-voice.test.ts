import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { IncomingMessage, request } from 'node:http';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { errorEnvelopeSchema } from '../../src/contract/schemas.js';
import { LIMITS } from '../../src/contract/limits.js';
import * as schemas from '../../src/contract/schemas.js';
import { DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { uploadSignature } from '../../src/sandbox/voice/jobs.js';
import { ORPHANED_MESSAGE } from '../../src/sandbox/voice/worker.js';
import { garbageWav, speechLikeWav, THREE_WORDS, writeLargeWav } from '../helpers/audio.js';
import { inProcessSandbox, startTestSandbox } from '../helpers/sandbox.js';
import { K, expectError } from '../helpers/expect.js';

const JOBS = '/v1/external/voice-file/jobs';
const PACE_SECONDS = 0.05;
type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

let sb: Sandbox;
let tmp: string;
const speech = speechLikeWav(THREE_WORDS);

beforeAll(async () => {
  sb = await inProcessSandbox({ options: { jobSeconds: PACE_SECONDS } });
  tmp = mkdtempSync(join(tmpdir(), 'nvx-voice-test-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(tmp, { recursive: true, force: true });
});

async function create(key: string, body: unknown = {}) {
  const res = await sb.call('POST', JOBS, { key, body });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { id: string; uploadUri: string };
}

async function put(uri: string, body: Buffer | ReadableStream<Uint8Array> | null, headers: Record<string, string> = { 'content-type': 'audio/wav' }) {
  const res = await sb.app.request(uri, { method: 'PUT', body, headers, duplex: 'half' } as RequestInit);
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const get = (id: string, key = K.workspaceKey, suffix = '') => sb.call('GET', `${JOBS}/${id}${suffix}`, { key });
const complete = (id: string, key = K.workspaceKey) => sb.call('PUT', `${JOBS}/${id}/upload-complete`, { key });

async function waitFor(id: string, statuses: string[], key = K.workspaceKey, timeoutMs = 10_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await get(id, key);
    if (statuses.includes(res.json?.status)) return res.json;
    if (Date.now() > until) throw new Error(`job ${id} still ${res.json?.status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Create, upload and complete a job; returns its id. */
async function submit(bytes: Buffer, key = K.workspaceKey, body: unknown = {}) {
  const job = await create(key, body);
  expect((await put(job.uploadUri, bytes)).status).toBe(200);
  expect((await complete(job.id, key)).status).toBe(200);
  return job.id;
}

describe('voice job create', () => {
  it('answers 200 with a CREATED job and a signed upload URI valid for an hour', async () => {
    const res = await sb.call('POST', JOBS, { key: K.workspaceKey, body: { transcriptLocaleHints: ['en_US'], translationLocales: ['ko_KR', 'ja_JP'] } });
    expect(res.status).toBe(200);
    expect(schemas.voiceJobCreated.safeParse(res.json).success).toBe(true);
    expect(res.json.id).toMatch(LIMITS.uuidPattern);
    expect(res.json.workspaceGuid).toBe(DEMO_WORKSPACES.product);
    expect(res.json.translationLocales).toEqual(['ko_KR', 'ja_JP']);
    const uri = new URL(res.json.uploadUri);
    expect(uri.pathname).toBe(`/sandbox/uploads/${res.json.id}`);
    expect(uri.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    const ttl = Date.parse(res.json.uploadUriExpiresAt) - Date.parse(res.json.createdAt);
    expect(Math.abs(ttl - LIMITS.uploadUrlTtlSeconds * 1000)).toBeLessThan(1500);
    const job = await get(res.json.id);
    expect(schemas.voiceJob.safeParse(job.json).success).toBe(true);
    expect(job.json).toMatchObject({ status: 'CREATED', fileUploadedAt: null, errorMessage: null, durationSeconds: null });
  });

  it('checks the locale lists by the schema', async () => {
    expectError(await sb.call('POST', JOBS, { key: K.workspaceKey, body: { transcriptLocaleHints: ['en_US', 'ko_KR'] } }), 400, 400000);
    const six = ['ko_KR', 'en_US', 'de_DE', 'ja_JP', 'es_ES', 'fr_FR'];
    const tooMany = await sb.call('POST', JOBS, { key: K.workspaceKey, body: { translationLocales: six } });
    expectError(tooMany, 400, 400000);
    expect(tooMany.json.error.detail).toContain('translationLocales');
    expectError(await sb.call('POST', JOBS, { key: K.workspaceKey, body: { translationLocales: ['english'] } }), 400, 400000);
  });

  it('applies the workspaceGuid rules of unbound and bound keys', async () => {
    const unbound = await sb.call('POST', JOBS, { key: K.admin, body: {} });
    expectError(unbound, 400, 400004);
    expect(unbound.json.error.message).toBe('workspaceGuid is required for workspace-unbound API keys');
    expectError(await sb.call('POST', JOBS, { key: K.orgKey, body: {} }), 400, 400004);
    expect((await create(K.admin, { workspaceGuid: DEMO_WORKSPACES.support })).id).toMatch(LIMITS.uuidPattern);
    expect((await create(K.orgKey, { workspaceGuid: DEMO_WORKSPACES.product })).id).toMatch(LIMITS.uuidPattern);
    expectError(await sb.call('POST', JOBS, { key: K.workspaceKey, body: { workspaceGuid: DEMO_WORKSPACES.support } }), 400, 400000);
    expect((await create(K.boundUser, { workspaceGuid: DEMO_WORKSPACES.product })).id).toMatch(LIMITS.uuidPattern);
    // Priya is no member of Customer Support; an unknown guid is just as unreachable.
    expectError(await sb.call('POST', JOBS, { key: K.member, body: { workspaceGuid: DEMO_WORKSPACES.support } }), 404, 404000);
    expectError(await sb.call('POST', JOBS, { key: K.member, body: { workspaceGuid: 'wsDoesNotExist00' } }), 404, 404000);
  });

  it('answers 403000 when the workspace has voice jobs disabled and 403013 without the voice permission', async () => {
    expectError(await sb.call('POST', JOBS, { key: K.salesWorkspaceKey, body: {} }), 403, 403000);
    expectError(await sb.call('POST', JOBS, { key: K.admin, body: { workspaceGuid: DEMO_WORKSPACES.sales } }), 403, 403000);
    expectError(await sb.call('POST', JOBS, { key: K.noVoiceWorkspaceKey, body: {} }), 403, 403013);
    expectError(await sb.call('POST', JOBS, { key: K.orgReadOnly, body: { workspaceGuid: DEMO_WORKSPACES.product } }), 403, 403001);
  });
});

describe('visibility', () => {
  it('shows a job to keys of its workspace and organization only', async () => {
    const { id } = await create(K.workspaceKey);
    for (const key of [K.workspaceKey, K.boundUser, K.admin, K.orgKey, K.legacyScopeWorkspaceKey]) expect((await get(id, key)).status).toBe(200);
    expectError(await get(id, K.salesWorkspaceKey), 404, 404000);
    expectError(await get(id, K.noVoiceWorkspaceKey), 403, 403013);
    expectError(await get('not-a-uuid'), 404, 404000);
    expectError(await get('00000000-0000-4000-8000-000000000000'), 404, 404000);
  });
});

describe('signed upload URL', () => {
  it('refuses a missing, tampered or expired signature with 403010, and an Authorization header with 400000', async () => {
    const { id, uploadUri } = await create(K.workspaceKey);
    const bare = uploadUri.split('?')[0];
    expectError(await put(bare, speech.bytes), 403, 403010);
    // decisions.md §4.2: a key does not stand in for the signature, and a signed request that carries one is refused
    const withKey = await put(bare, speech.bytes, { 'content-type': 'audio/wav', authorization: `Bearer ${K.workspaceKey}` });
    expectError(withKey, 400, 400000);
    expect(withKey.json.error.detail).toContain('Authorization');
    expectError(await put(uploadUri, speech.bytes, { 'content-type': 'audio/wav', authorization: `Bearer ${K.workspaceKey}` }), 400, 400000);
    expectError(await put(uploadUri.replace(/signature=./, (m) => m.slice(0, -1) + (m.endsWith('0') ? '1' : '0')), speech.bytes), 403, 403010);
    expectError(await put(uploadUri.replace(/expires=\d+/, (m) => `expires=${Number(m.slice(8)) + 60}`), speech.bytes), 403, 403010);
    // a correctly signed URL whose expiry has passed
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = await put(`${bare}?expires=${past}&signature=${uploadSignature(sb.rt.signingKey, id, past)}`, speech.bytes);
    expectError(expired, 403, 403010);
    expect(expired.json.error.detail).toContain('expired');
    // the URL itself stops working once the clock passes its expiry
    const clock = sb.rt.clock;
    sb.rt.clock = { now: () => new Date(clock.now().getTime() + (LIMITS.uploadUrlTtlSeconds + 5) * 1000) };
    try {
      expectError(await put(uploadUri, speech.bytes), 403, 403010);
    } finally {
      sb.rt.clock = clock;
    }
    expect((await put(uploadUri, speech.bytes)).status).toBe(200);
  });

  it('takes the audio types, application/octet-stream or none (sniffed); any other type is 400000', async () => {
    const { uploadUri } = await create(K.workspaceKey);
    expectError(await put(uploadUri, speech.bytes, { 'content-type': 'text/plain' }), 400, 400000);
    const form = await put(uploadUri, speech.bytes, { 'content-type': 'multipart/form-data; boundary=x' });
    expectError(form, 400, 400000);
    expect(form.json.error.detail).toContain('raw bytes');
    for (const type of ['audio/mpeg', 'audio/x-wav', 'audio/mp4', 'audio/m4a', 'video/mp4', 'audio/wav; charset=binary'])
      expect((await put(uploadUri, speech.bytes, { 'content-type': type })).json).toMatchObject({ contentType: type.split(';')[0] });
    expect((await put(uploadUri, speech.bytes, { 'content-type': 'application/octet-stream' })).json).toMatchObject({ contentType: 'audio/wav' });
    expect((await put(uploadUri, speech.bytes, {})).json).toMatchObject({ contentType: 'audio/wav' });
  });

  it('streams the bytes to <job>.<extension of the sniffed format> in the upload directory', async () => {
    const { id, uploadUri } = await create(K.workspaceKey);
    const res = await put(uploadUri, speech.bytes);
    expect(res.json).toEqual({ jobId: id, bytes: speech.bytes.length, contentType: 'audio/wav' });
    expect(readdirSync(sb.rt.uploadDir).filter((f) => f.startsWith(id))).toEqual([`${id}.wav`]);
    // a new upload before upload-complete replaces the previous bytes, under its own format's name
    const mp3 = Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(64)]);
    expect((await put(uploadUri, mp3, { 'content-type': 'audio/mpeg' })).status).toBe(200);
    expect(readdirSync(sb.rt.uploadDir).filter((f) => f.startsWith(id))).toEqual([`${id}.mp3`]);
    expect((await put(uploadUri, Buffer.from('not audio at all'), {})).json).toMatchObject({ contentType: 'application/octet-stream' });
    expect(readdirSync(sb.rt.uploadDir).filter((f) => f.startsWith(id))).toEqual([`${id}.bin`]);
  });

  it('answers 413 past 500 MB: from Content-Length, and counted while streaming (the partial file removed)', async () => {
    const { id, uploadUri } = await create(K.workspaceKey);
    const declared = await put(uploadUri, null, { 'content-type': 'audio/wav', 'content-length': String(LIMITS.uploadMaxBytes + 1) });
    expectError(declared, 413, 413000);
    const chunk = new Uint8Array(4 << 20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(ctrl) {
        if (sent > LIMITS.uploadMaxBytes + chunk.length) return ctrl.close();
        sent += chunk.length;
        ctrl.enqueue(chunk);
      },
    });
    const streamed = await put(uploadUri, body);
    expectError(streamed, 413, 413000);
    expect(streamed.json.error.detail).toContain('cut off');
    expect(readdirSync(sb.rt.uploadDir).filter((f) => f.startsWith(id))).toEqual([]);
    expectError(await complete(id), 409, 409000);
  });

  it('passes through the fault injection', async () => {
    const faulty = await inProcessSandbox({ faults: '503=1@/sandbox/uploads', options: { jobSeconds: PACE_SECONDS } });
    try {
      const created = await faulty.call('POST', JOBS, { key: K.workspaceKey, body: {} });
      expect(created.status).toBe(200);
      const res = await faulty.app.request(created.json.uploadUri, { method: 'PUT', body: speech.bytes, headers: { 'content-type': 'audio/wav' } });
      expect(res.status).toBe(503);
      expect(errorEnvelopeSchema.safeParse(await res.json()).success).toBe(true);
    } finally {
      await faulty.close();
    }
  });
});

describe('job lifecycle', () => {
  it('moves CREATED → UPLOADED → PROCESSING → COMPLETED and serves the results only then', async () => {
    const job = await create(K.workspaceKey, { transcriptLocaleHints: ['en_US'], translationLocales: ['ko_KR'] });
    expectError(await complete(job.id), 409, 409000); // no bytes yet
    expectError(await get(job.id, K.workspaceKey, '/transcript'), 409, 409000);
    await put(job.uploadUri, speech.bytes);
    const uploaded = await complete(job.id);
    expect(uploaded.json.status).toBe('UPLOADED');
    expect(uploaded.json.fileUploadedAt).not.toBeNull();
    expectError(await complete(job.id), 409, 409000); // twice
    expectError(await put(job.uploadUri, speech.bytes), 409, 409000); // bytes after completion
    for (const suffix of ['/transcript', '/translations', '/paragraph-summary', '/transcript/paragraph-summary', '/translations/ko_KR/paragraph-summary'])
      expectError(await get(job.id, K.workspaceKey, suffix), 409, 409000);
    // the spec lists only 200/401/404 for one translation: not ready yet is 404000, its detail says why (decisions.md §4.5)
    const early = await get(job.id, K.workspaceKey, '/translations/ko_KR');
    expectError(early, 404, 404000);
    expect(early.json.error.detail).toMatch(/^the job is (UPLOADED|PROCESSING), not COMPLETED/);
    const done = await waitFor(job.id, ['COMPLETED', 'FAILED']);
    expect(done.status, done.errorMessage).toBe('COMPLETED');
    expect(done.processStartedAt <= done.processCompletedAt).toBe(true);
    expect(done.durationSeconds).toBeCloseTo(speech.phrase.durationMs / 1000, 1);

    const transcript = (await get(job.id, K.workspaceKey, '/transcript')).json;
    expect(schemas.transcript.safeParse(transcript).success).toBe(true);
    expect(transcript.locale).toBe('en_US');
    // one paragraph per word of the recording, at its time (within two 30 ms frames)
    expect(transcript.segments).toHaveLength(speech.phrase.words.length);
    expect(transcript.paragraphs).toEqual(transcript.segments);
    transcript.paragraphs.forEach((p: any, i: number) => {
      expect(p.index).toBe(i);
      expect(Math.abs(p.startTimeMillis - speech.phrase.words[i].startMs)).toBeLessThanOrEqual(60);
      expect(Math.abs(p.endTimeMillis - speech.phrase.words[i].endMs)).toBeLessThanOrEqual(60);
      expect(p.text).toMatch(/^\[sandbox transcript \d\d:\d\d:\d\d\.\d\d–\d\d:\d\d:\d\d\.\d\d: no speech engine in the sandbox; pass --transcriber-command to use one\]$/);
    });
    expect(transcript.text).toBe(transcript.paragraphs.map((p: any) => p.text).join('\n\n'));

    const translations = (await get(job.id, K.workspaceKey, '/translations')).json;
    expect(translations.content).toHaveLength(1);
    expect(translations.content[0]).toMatchObject({ jobId: job.id, locale: 'ko_KR' });
    expect(translations.content[0].text).toContain('sandbox translation en_US→ko_KR');
    expect((await get(job.id, K.workspaceKey, '/translations/ko_KR')).json).toEqual(translations.content[0]);
    expectError(await get(job.id, K.workspaceKey, '/translations/ja_JP'), 404, 404000);
    expectError(await get(job.id, K.workspaceKey, '/translations/ja_JP/paragraph-summary'), 404, 404000);
    // a path locale that is not of the form ll_CC is a bad request (decisions.md §1.6), not a missing translation
    for (const suffix of ['/translations/korean', '/translations/ko-KR/paragraph-summary']) {
      const bad = await get(job.id, K.workspaceKey, suffix);
      expectError(bad, 400, 400000);
      expect(bad.json.error.detail).toContain('ll_CC');
    }

    const summary = (await get(job.id, K.workspaceKey, '/paragraph-summary')).json;
    expect(schemas.paragraphSummary.safeParse(summary).success).toBe(true);
    expect(summary).toMatchObject({ jobId: job.id, locale: 'en_US', summary: { type: 'text/markdown' } });
    expect(summary.summary.content).toContain('Sandbox output');
    expect((await get(job.id, K.workspaceKey, '/transcript/paragraph-summary')).json).toEqual(summary);
    const translated = (await get(job.id, K.workspaceKey, '/translations/ko_KR/paragraph-summary')).json;
    expect(translated).toMatchObject({ jobId: job.id, locale: 'ko_KR' });
    expect(translated.summary.content).toContain('(ko_KR)');
  });

  it('ends FAILED with a clear errorMessage for unreadable or unsupported audio', async () => {
    const garbage = await submit(garbageWav());
    const failed = await waitFor(garbage, ['COMPLETED', 'FAILED']);
    expect(failed.status).toBe('FAILED');
    expect(failed.errorMessage).toMatch(/^unreadable audio: the WAV file/);
    const conflict = await get(garbage, K.workspaceKey, '/transcript');
    expectError(conflict, 409, 409000);
    expect(conflict.json.error.detail).toBe(failed.errorMessage);

    const text = await submit(Buffer.from('just some text, not audio at all\n'));
    const unsupported = await waitFor(text, ['COMPLETED', 'FAILED']);
    expect(unsupported.status).toBe('FAILED');
    expect(unsupported.errorMessage).toContain('unsupported audio format');
    expect(unsupported.errorMessage).toContain('"just some t');
  });

  it('ends FAILED for audio longer than 4 hours', async () => {
    const file = join(tmp, 'long.wav');
    const seconds = LIMITS.audioMaxSeconds + 600;
    writeLargeWav(file, seconds * 100 * 2, 100); // 100 samples per second keeps the file small
    const id = await submit(readFileSync(file));
    const failed = await waitFor(id, ['COMPLETED', 'FAILED']);
    expect(failed.status).toBe('FAILED');
    expect(failed.errorMessage).toContain('4 h 10 min long');
    expect(failed.errorMessage).toContain('at most 4 hours');
  });

  it('DELETE answers 204, removes the file, and cancels processing', async () => {
    const slow = await inProcessSandbox({ options: { jobSeconds: 0.3 } });
    try {
      const created = await slow.call('POST', JOBS, { key: K.workspaceKey, body: {} });
      const id = created.json.id;
      await slow.app.request(created.json.uploadUri, { method: 'PUT', body: speech.bytes, headers: { 'content-type': 'audio/wav' } });
      expect((await slow.call('PUT', `${JOBS}/${id}/upload-complete`, { key: K.workspaceKey })).status).toBe(200);
      expect(existsSync(join(slow.rt.uploadDir, `${id}.wav`))).toBe(true);
      const del = await slow.call('DELETE', `${JOBS}/${id}`, { key: K.workspaceKey });
      expect(del.status).toBe(204);
      expect(del.text).toBe('');
      expect(existsSync(join(slow.rt.uploadDir, `${id}.wav`))).toBe(false);
      expectError(await slow.call('GET', `${JOBS}/${id}`, { key: K.workspaceKey }), 404, 404000);
      expectError(await slow.call('DELETE', `${JOBS}/${id}`, { key: K.workspaceKey }), 404, 404000);
      await new Promise((r) => setTimeout(r, 800)); // past both stages
      expect(slow.db.get<{ status: string }>('SELECT status FROM voice_jobs WHERE id = ?', [id])?.status).toBe('UPLOADED');
    } finally {
      await slow.close();
    }
  });
});

describe('jobs a sandbox process cannot finish', () => {
  it('DELETE ends a transcriber command still running for the job', async () => {
    const slow = await inProcessSandbox({ options: { jobSeconds: 0.05 } });
    const pidFile = join(tmp, 'stt.pid');
    slow.rt.options.transcriberCommand = `sleep 30 & echo $! > '${pidFile}'; wait # {file}`;
    try {
      const created = await slow.call('POST', JOBS, { key: K.workspaceKey, body: {} });
      const id = created.json.id;
      await slow.app.request(created.json.uploadUri, { method: 'PUT', body: speech.bytes, headers: { 'content-type': 'audio/wav' } });
      expect((await slow.call('PUT', `${JOBS}/${id}/upload-complete`, { key: K.workspaceKey })).status).toBe(200);
      const until = Date.now() + 10_000;
      while (!existsSync(pidFile) || !readFileSync(pidFile, 'utf8').trim()) {
        if (Date.now() > until) throw new Error('the transcriber command never started');
        await new Promise((r) => setTimeout(r, 20));
      }
      const pid = Number(readFileSync(pidFile, 'utf8'));
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      expect(alive()).toBe(true);
      expect((await slow.call('DELETE', `${JOBS}/${id}`, { key: K.workspaceKey })).status).toBe(204);
      const gone = Date.now() + 3000;
      while (alive() && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
      expect(alive()).toBe(false);
      await new Promise((r) => setTimeout(r, 200)); // past the stage's pace
      expect(slow.db.get<{ status: string; error_message: string | null }>('SELECT status, error_message FROM voice_jobs WHERE id = ?', [id])).toEqual({
        status: 'PROCESSING',
        error_message: null,
      });
    } finally {
      await slow.close();
    }
  });

  it('a job left UPLOADED by an earlier sandbox process over the same --state ends FAILED', async () => {
    const stateFile = join(tmp, 'restart.db');
    const first = await inProcessSandbox({ stateFile, options: { jobSeconds: 60 } });
    const created = await first.call('POST', JOBS, { key: K.workspaceKey, body: {} });
    const id = created.json.id;
    await first.app.request(created.json.uploadUri, { method: 'PUT', body: speech.bytes, headers: { 'content-type': 'audio/wav' } });
    expect((await first.call('PUT', `${JOBS}/${id}/upload-complete`, { key: K.workspaceKey })).json.status).toBe('UPLOADED');
    await first.close();
    const second = await inProcessSandbox({ stateFile, options: { jobSeconds: PACE_SECONDS } });
    try {
      const job = await second.call('GET', `${JOBS}/${id}`, { key: K.workspaceKey });
      expect(job.json).toMatchObject({ status: 'FAILED', errorMessage: ORPHANED_MESSAGE });
      expect(job.json.processCompletedAt).not.toBeNull();
      expectError(await second.call('GET', `${JOBS}/${id}/transcript`, { key: K.workspaceKey }), 409, 409000);
    } finally {
      await second.close();
    }
  });
});

describe('transcriber command and word memories', () => {
  const withCommand = async (command: string, key = K.workspaceKey, body: unknown = {}) => {
    sb.rt.options.transcriberCommand = command;
    try {
      const id = await submit(speech.bytes, key, body);
      return await waitFor(id, ['COMPLETED', 'FAILED'], key);
    } finally {
      delete sb.rt.options.transcriberCommand;
    }
  };

  it('spreads plain-text paragraphs over the speech segments and applies the word memories of the key', async () => {
    const script = join(tmp, 'stt.sh');
    writeFileSync(script, `#!/bin/sh\ntest -s "$1" || exit 1\nprintf 'We moved k8s to the NWL cluster.\\n\\nThe offline-sync work, K8S included, ships Monday.\\n'\n`, { mode: 0o755 });
    const done = await withCommand(`${script} {file}`, K.member, { workspaceGuid: DEMO_WORKSPACES.product });
    expect(done.status, done.errorMessage).toBe('COMPLETED');
    const t = (await get(done.id, K.member, '/transcript')).json;
    expect(t.paragraphs.map((p: any) => p.text)).toEqual([
      'We moved Kubernetes to the Northwind cluster.', // Priya's k8s, the organization's NWL
      'The OfflineSync work, Kubernetes included, ships Monday.', // the workspace's offline-sync
    ]);
    // two paragraphs over three words: the first takes the first word, the second the other two
    const [w1, , w3] = speech.phrase.words;
    expect(Math.abs(t.paragraphs[0].startTimeMillis - w1.startMs)).toBeLessThanOrEqual(60);
    expect(Math.abs(t.paragraphs[1].endTimeMillis - w3.endMs)).toBeLessThanOrEqual(60);
  });

  it('takes JSON paragraphs with times and speakers', async () => {
    const json = JSON.stringify([
      { text: 'Hello Harbor-Freight and HFL.', startTimeMillis: 100, endTimeMillis: 900, speakerLabel: 'A' },
      { text: 'No times here.' },
    ]);
    const done = await withCommand(`printf '%s' '${json}' # {file}`, K.admin, { workspaceGuid: DEMO_WORKSPACES.product });
    expect(done.status, done.errorMessage).toBe('COMPLETED');
    const t = (await get(done.id, K.admin, '/transcript')).json;
    // Dana's user scope writes Harbor-Freight as HFL, the organization's writes HFL as Harbor-Freight-Logistics: one pass, no chaining.
    expect(t.paragraphs[0]).toEqual({ index: 0, startTimeMillis: 100, endTimeMillis: 900, speakerLabel: 'A', text: 'Hello HFL and Harbor-Freight-Logistics.' });
    expect(t.paragraphs[1]).toMatchObject({ index: 1, speakerLabel: null, text: 'No times here.' });
    expect(t.paragraphs[1].endTimeMillis).toBeGreaterThan(t.paragraphs[1].startTimeMillis);
  });

  it('ends FAILED with the first line of a failing command', async () => {
    const done = await withCommand(`echo 'model not found: base.en' >&2; echo second line >&2; exit 3 # {file}`);
    expect(done.status).toBe('FAILED');
    expect(done.errorMessage).toBe('the transcriber command failed (exit code 3): model not found: base.en');
  });
});

describe('uploads over a socket (the raw request piped to the file)', () => {
  type Running = Awaited<ReturnType<typeof startTestSandbox>>;
  let live: Running;
  beforeAll(async () => {
    live = await startTestSandbox({ options: { jobSeconds: PACE_SECONDS } });
  });
  afterAll(async () => {
    await live.close();
  });

  async function liveJob() {
    const r = await fetch(`${live.baseUrl}${JOBS}`, { method: 'POST', headers: { authorization: `Bearer ${K.workspaceKey}`, 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(200);
    return (await r.json()) as { id: string; uploadUri: string };
  }
  const partsOf = (id: string) => readdirSync(live.rt.uploadDir).filter((f) => f.startsWith(id));

  /**
   * PUT chunks of `chunk` until `total` bytes were sent or an answer came (as a client streaming a file does),
   * with backpressure. `abortAfter` destroys the socket after that many bytes instead.
   */
  function stream(uri: string, chunk: Buffer, total: number, abortAfter?: number): Promise<{ status: number; body: string; sent: number } | { aborted: number }> {
    return new Promise((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = request(uri, { method: 'PUT', headers: { 'content-type': 'audio/wav', 'transfer-encoding': 'chunked' } }, (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8').on('data', (s: string) => (body += s));
        res.on('end', () => {
          resolve({ status: res.statusCode!, body, sent });
          req.destroy();
        });
      });
      req.on('error', (e) => (answered || abortAfter !== undefined ? undefined : reject(e)));
      const pump = () => {
        while (!answered && sent < total) {
          if (abortAfter !== undefined && sent >= abortAfter) {
            req.destroy();
            return resolve({ aborted: sent });
          }
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!answered && sent >= total) req.end();
      };
      pump();
    });
  }

  it('stores every byte, counted, without a web stream between the socket and the file', async () => {
    const { id, uploadUri } = await liveJob();
    const chunk = Buffer.alloc(256 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31 + (i >> 9)) & 0xff;
    chunk.set(speech.bytes.subarray(0, 64));
    const toWeb = vi.spyOn(Readable, 'toWeb');
    const fromWeb = vi.spyOn(Readable, 'fromWeb');
    let r;
    try {
      r = await stream(uploadUri, chunk, 40 * chunk.length);
      expect(toWeb).not.toHaveBeenCalled();
      expect(fromWeb).not.toHaveBeenCalled();
    } finally {
      toWeb.mockRestore();
      fromWeb.mockRestore();
    }
    expect(r).toMatchObject({ status: 200 });
    expect(JSON.parse((r as { body: string }).body)).toMatchObject({ jobId: id, bytes: 40 * chunk.length });
    const stored = partsOf(id);
    expect(stored).toHaveLength(1);
    // The very bytes sent: each chunk's memory is released once written (upload.ts), never before.
    expect(readFileSync(join(live.rt.uploadDir, stored[0])).equals(Buffer.concat(Array.from({ length: 40 }, () => chunk)))).toBe(true);
  });

  it("releases each chunk's memory once it is on disk: the buffers of a 64 MiB upload never pile up", async () => {
    const { uploadUri } = await liveJob();
    const chunk = Buffer.alloc(256 * 1024, 7);
    chunk.set(speech.bytes.subarray(0, 64));
    const base = process.memoryUsage().arrayBuffers;
    let peak = base;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 2);
    let r;
    try {
      r = await stream(uploadUri, chunk, 256 * chunk.length);
    } finally {
      clearInterval(sample);
    }
    expect(r).toMatchObject({ status: 200 });
    // Left to the garbage collector they reached 30-60 MiB before a full collection freed them.
    expect((peak - base) / (1 << 20)).toBeLessThan(16);
  });

  it('keeps reading the socket while the file is written: paused at most once per MiB, not once per chunk', async () => {
    const { id, uploadUri } = await liveJob();
    const chunk = Buffer.alloc(256 * 1024, 7);
    chunk.set(speech.bytes.subarray(0, 64));
    const total = 40 * chunk.length;
    let pauses = 0;
    const original = Readable.prototype.pause;
    // pipe() pauses the request whenever the file's buffer is full: with the default 16 KiB, after every chunk.
    const pause = vi.spyOn(Readable.prototype, 'pause').mockImplementation(function (this: Readable) {
      if (this instanceof IncomingMessage && this.method === 'PUT') pauses++;
      return original.call(this);
    });
    let r;
    try {
      r = await stream(uploadUri, chunk, total);
    } finally {
      pause.mockRestore();
    }
    expect(r).toMatchObject({ status: 200 });
    // about once per MiB written (the first and last MiB may each add one: Node 24 paused 11 times for 10 MiB);
    // the old 16 KiB buffer paused after every one of the 40 chunks
    expect(pauses).toBeLessThanOrEqual(total / (1 << 20) + 2);
    expect(partsOf(id)).toHaveLength(1);
  });

  it('answers 413 to a client still sending past 500 MB (not a reset), and removes the partial file', async () => {
    const { id, uploadUri } = await liveJob();
    const r = await stream(uploadUri, Buffer.alloc(4 << 20), LIMITS.uploadMaxBytes + (64 << 20));
    expect(r).toMatchObject({ status: 413 });
    const body = JSON.parse((r as { body: string }).body);
    expect(body.error.code).toBe(413000);
    expect(body.error.detail).toContain('cut off');
    expect(partsOf(id)).toEqual([]);
  });

  it('removes the partial file of a client that goes away mid-upload; the job still takes an upload', async () => {
    const { id, uploadUri } = await liveJob();
    expect(await stream(uploadUri, Buffer.alloc(64 * 1024), 64 << 20, 1 << 20)).toMatchObject({ aborted: 1 << 20 });
    for (let i = 0; i < 100 && partsOf(id).length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(partsOf(id)).toEqual([]);
    expect(await stream(uploadUri, speech.bytes, speech.bytes.length)).toMatchObject({ status: 200 });
  });
});
