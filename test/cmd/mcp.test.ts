import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/commands/mcp/server.js';
import { schemasOf } from '../../src/contract/endpoint-schemas.js';
import { DEMO_FOLDERS, DEMO_NOTES, DEMO_TEMPLATES, DEMO_WIKI_PAGES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { speechLikeWav, THREE_WORDS, writeLargeWav } from '../helpers/audio.js';
import { expectNoSecrets, K, type KeyName } from '../helpers/expect.js';
import { mcpPair } from '../helpers/mcp.js';
import { commandSandbox, runCommand } from '../helpers/run-command.js';

/**
 * `notevox mcp` in process: the SDK's client and the server linked by the SDK's in-memory transport, the server
 * talking to an in-process sandbox. Every result any test sees is kept, and checked for secrets at the end.
 */

type Pair = Awaited<ReturnType<typeof mcpPair>>;
type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };

const WEBHOOK_SECRET = 'whsec_mcp_test_0123456789abcdef';
const PRODUCT = DEMO_WORKSPACES.product;
let sb: Awaited<ReturnType<typeof commandSandbox>>;
let dir: string;
const seen: string[] = [];
const pairs: Pair[] = [];

async function open(key: KeyName | null, o: Parameters<typeof mcpPair>[2] = {}): Promise<Pair> {
  const p = await mcpPair(sb, key, { ...o, env: { NOTEVOX_WEBHOOK_SECRET: WEBHOOK_SECRET, ...o.env } });
  pairs.push(p);
  return p;
}

async function call(p: Pair, name: string, args: Record<string, unknown> = {}, opts: Parameters<Pair['client']['callTool']>[1] = {}): Promise<Result> {
  const r = (await p.client.callTool({ name, arguments: args }, opts)) as Result;
  seen.push(JSON.stringify(r));
  return r;
}

const errorOf = (r: Result) => {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return JSON.parse(r.content[0]!.text!).error as { message: string; hint?: string; code?: number; status?: number; exitCode: number };
};

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

beforeAll(async () => {
  sb = await commandSandbox({ options: { jobSeconds: 0.02 } });
  dir = mkdtempSync(join(tmpdir(), 'nvx-mcp-test-'));
});
afterAll(async () => {
  for (const p of pairs) await p.close();
  await sb?.close();
  rmSync(dir, { recursive: true, force: true });
  // No result, error or notification of any test carried a key or the webhook secret.
  expectNoSecrets(...seen);
  for (const s of seen) expect(s).not.toContain(WEBHOOK_SECRET);
});

describe('tools/list', () => {
  it('lists every tool, with valid JSON Schemas and the four annotations; reads only by default', async () => {
    const all = await open('admin', { allowWrites: true, allowDestructive: true });
    const { tools } = await all.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(allTools().map((t) => t.name).sort());
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    for (const t of tools) {
      expect(t.name, t.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(t.description!.length, t.name).toBeGreaterThan(10);
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(() => ajv.compile(t.inputSchema), `${t.name} inputSchema`).not.toThrow();
      if (t.outputSchema) expect(() => ajv.compile(t.outputSchema!), `${t.name} outputSchema`).not.toThrow();
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) expect(typeof t.annotations?.[hint], `${t.name} ${hint}`).toBe('boolean');
      expect(JSON.stringify(t)).not.toMatch(/apiKey|api_key|authorization/i);
      // Said once, in words the model reads: a change (annotations may not reach the model), and a grouped tool's
      // method and every endpoint's path in its endpoint argument.
      if (!t.annotations?.readOnlyHint) expect(t.description, t.name).toMatch(t.annotations?.destructiveHint ? /Deletes or replaces data\.$/ : /Changes data\.$/);
      const tool = allTools().find((x) => x.name === t.name)!;
      if (tool.kind === 'api' && tool.endpoints.length > 1) {
        const said = (t.inputSchema.properties as Record<string, { description: string }>).endpoint.description;
        expect(said, t.name).toContain(`which ${tool.endpoints[0]!.method} to call`);
        for (const ep of tool.endpoints) expect(said, t.name).toContain(`${ep.id} ${ep.path.replace('/v1/external', '')}`);
      }
    }
    const reads = await open('admin');
    const listed = (await reads.client.listTools()).tools;
    expect(listed.length).toBeGreaterThan(20);
    expect(listed.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(listed.length).toBe(tools.filter((t) => t.annotations?.readOnlyHint).length);
    const writes = (await (await open('admin', { allowWrites: true })).client.listTools()).tools;
    expect(writes.some((t) => t.name === 'notes_update')).toBe(true);
    expect(writes.some((t) => t.annotations?.destructiveHint)).toBe(false);
    const narrowed = (await (await open('admin', { allowWrites: true, tools: ['notes_*', 'wm_list'] })).client.listTools()).tools.map((t) => t.name);
    expect(narrowed).toContain('wm_list');
    expect(narrowed).toContain('notes_update');
    expect(narrowed.every((n) => n.startsWith('notes_') || n === 'wm_list')).toBe(true);
  });
});

describe('read tools', () => {
  let job: string;
  let wmId: number;
  beforeAll(async () => {
    // What some reads need: a share link, a completed voice job, a word memory id.
    await sb.call('PUT', `/v1/external/notes/${DEMO_NOTES.roadmapReview}/share-link`, { key: K.admin, body: { usePassword: false } });
    const created = await sb.call('POST', '/v1/external/voice-file/jobs', { key: K.workspaceKey, body: { transcriptLocaleHints: ['en_US'], translationLocales: ['ko_KR'] } });
    job = created.json.id;
    await sb.app.request(created.json.uploadUri, { method: 'PUT', body: speechLikeWav(THREE_WORDS).bytes, headers: { 'content-type': 'audio/wav' } });
    await sb.call('PUT', `/v1/external/voice-file/jobs/${job}/upload-complete`, { key: K.workspaceKey });
    for (let i = 0; i < 200; i++) {
      const s = (await sb.call('GET', `/v1/external/voice-file/jobs/${job}`, { key: K.workspaceKey })).json.status;
      if (s === 'COMPLETED') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    wmId = (await sb.call('GET', '/v1/external/users/me/word-memories?size=1', { key: K.admin })).json.content[0].id;
  });

  it('calls every read tool once; each result is what the contract says', async () => {
    const note = { noteGuid: DEMO_NOTES.launchKickoff };
    const docs = (await sb.call('GET', `/v1/external/notes/${note.noteGuid}/documents`, { key: K.admin })).json.content;
    const sums = (await sb.call('GET', `/v1/external/notes/${note.noteGuid}/summaries`, { key: K.admin })).json.content;
    const calls: Record<string, [KeyName, Record<string, unknown>]> = {
      scopes_list: ['admin', {}],
      auth_me: ['admin', {}],
      organizations_me: ['admin', {}],
      workspaces_reachable: ['admin', {}],
      workspaces_me: ['boundUser', {}],
      notes_list: ['admin', { size: 3 }],
      notes_search: ['admin', { workspaceGuid: PRODUCT, body: { keyword: 'launch' } }],
      notes_get: ['admin', note],
      notes_folders: ['admin', note],
      notes_paragraphs: ['admin', note],
      notes_shareLink_get: ['admin', { noteGuid: DEMO_NOTES.roadmapReview }],
      notes_documents_list: ['admin', note],
      notes_documents_get: ['admin', { ...note, documentId: docs[0].id }],
      notes_summaries_list: ['admin', note],
      notes_summaries_get: ['admin', { ...note, summaryId: sums[0].id }],
      templates_list: ['admin', {}],
      templates_get: ['admin', { templateId: DEMO_TEMPLATES.onePager }],
      folders_list: ['boundUser', {}],
      folders_get: ['admin', { folderId: String(DEMO_FOLDERS.leadershipSync) }],
      wm_list: ['admin', {}],
      wm_get: ['admin', { id: wmId }],
      wiki_pages: ['admin', { workspaceGuid: PRODUCT }],
      wiki_page: ['admin', { workspaceGuid: PRODUCT, pageGuid: DEMO_WIKI_PAGES.harborFreight }],
      wiki_mentions: ['admin', { workspaceGuid: PRODUCT, pageGuid: DEMO_WIKI_PAGES.harborFreight }],
      wiki_search: ['admin', { workspaceGuid: PRODUCT, q: 'Harbor' }],
      workspaces_list: ['admin', {}],
      voice_get: ['workspaceKey', { jobId: '' }],
      voice_transcript: ['workspaceKey', { jobId: '' }],
      voice_translations: ['workspaceKey', { jobId: '' }],
      voice_translation: ['workspaceKey', { jobId: '', locale: 'ko_KR' }],
      voice_summary: ['workspaceKey', { jobId: '' }],
      notes_export_markdown: ['admin', note],
      notes_find: ['admin', { keyword: 'launch', workspace: PRODUCT }],
    };
    const reads = allTools().filter((t) => t.annotations.readOnlyHint);
    expect(Object.keys(calls).sort(), 'every read tool has a call here').toEqual(reads.map((t) => t.name).sort());
    const byKey = new Map<KeyName, Pair>();
    for (const t of reads) {
      const [key, args] = calls[t.name]!;
      if ('jobId' in args) args.jobId = job;
      if (!byKey.has(key)) byKey.set(key, await open(key));
      const r = await call(byKey.get(key)!, t.name, args);
      expect(r.isError, `${t.name}: ${JSON.stringify(r)}`).toBeFalsy();
      if (t.outputSchema) {
        expect(r.structuredContent, t.name).toBeDefined();
        const valid = ajv.compile(t.outputSchema);
        expect(valid(r.structuredContent), `${t.name}: ${JSON.stringify(valid.errors)}`).toBe(true);
      }
      if (t.kind === 'api') {
        // The structured result is the service's answer, as the endpoint's zod schema reads it.
        const ep = schemasOf((args.endpoint as string | undefined) ?? t.endpoints[0]!.id)!;
        const parsed = ep.response!.safeParse(r.structuredContent);
        expect(parsed.success, `${t.name}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
        expect(JSON.parse(r.content[0]!.text!)).toEqual(r.structuredContent);
      }
    }
  });

  it('pages lists with a cursor in the result', async () => {
    const p = await open('admin');
    const first = await call(p, 'notes_list', { size: 2 });
    const page = first.structuredContent as { content: Array<{ guid: string }>; nextCursor: string };
    expect(page.content).toHaveLength(2);
    expect(page.nextCursor).toEqual(expect.any(String));
    const second = (await call(p, 'notes_list', { size: 2, cursor: page.nextCursor })).structuredContent as typeof page;
    expect(second.content[0]!.guid).not.toBe(page.content[0]!.guid);
  });

  it('API errors are tool errors with the service code, message and the CLI hint; bad arguments name the field', async () => {
    const p = await open('admin');
    const e = errorOf(await call(p, 'notes_get', { noteGuid: 'ntNoSuchNote1' }));
    expect(e).toMatchObject({ status: 404, code: expect.any(Number), exitCode: 5 });
    expect(e.message).toMatch(/404/);
    expect(e.hint).toMatch(/notevox notes list/);
    expect(errorOf(await call(p, 'notes_list', { size: 100000 })).message).toMatch(/size/);
    expect(errorOf(await call(p, 'notes_get', {})).message).toMatch(/noteGuid/);
    expect(errorOf(await call(p, 'notes_get', { noteGuid: DEMO_NOTES.launchKickoff, bogus: 1 })).message).toMatch(/bogus/);
    const noKey = await open(null);
    expect(errorOf(await call(noKey, 'notes_list')).exitCode).toBe(3);
  });

  it('offers transcripts as resources', async () => {
    const p = await open('admin');
    const { resources } = await p.client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const { resourceTemplates } = await p.client.listResourceTemplates();
    expect(resourceTemplates[0]!.uriTemplate).toBe('notevox://notes/{noteGuid}/transcript');
    const read = await p.client.readResource({ uri: `notevox://notes/${DEMO_NOTES.launchKickoff}/transcript` });
    const text = (read.contents[0] as { text: string }).text;
    seen.push(text);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] /);
    expect(text.split('\n').length).toBeGreaterThan(3);
  });
});

describe('safety', () => {
  it('refuses flags that allow nothing before it serves', async () => {
    const r = await runCommand(['mcp', '--allow-destructive'], { stdin: '' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--allow-destructive needs --allow-writes/);
    const none = await runCommand(['mcp', '--tools', 'no_such_*'], { stdin: '' });
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/matches no tool/);
    expect(none.stderr).toMatch(/"no_such_\*" names no tool/);
    expect(r.stdout + none.stdout).toBe('');
  });

  it('refuses writes without --allow-writes, naming the flag; they work with it', async () => {
    const ro = await open('admin');
    const refused = errorOf(await call(ro, 'notes_update', { noteGuid: DEMO_NOTES.roadmapReview, body: { title: 'Renamed by an agent' } }));
    expect(refused.message).toMatch(/--allow-writes/);
    expect((await sb.call('GET', `/v1/external/notes/${DEMO_NOTES.roadmapReview}`, { key: K.admin })).json.title).not.toBe('Renamed by an agent');
    const rw = await open('admin', { allowWrites: true });
    const r = await call(rw, 'notes_update', { noteGuid: DEMO_NOTES.roadmapReview, body: { title: 'Renamed by an agent' } });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ title: 'Renamed by an agent' });
    expect((await sb.call('GET', `/v1/external/notes/${DEMO_NOTES.roadmapReview}`, { key: K.admin })).json.title).toBe('Renamed by an agent');
  });

  it('destructive tools also need --allow-destructive', async () => {
    const rw = await open('admin', { allowWrites: true });
    const made = await call(rw, 'folders_createWorkspace', { workspaceGuid: PRODUCT, body: { title: 'Agent scratch' } });
    expect(made.isError, JSON.stringify(made)).toBeFalsy();
    const folderId = String(made.structuredContent!.id);
    expect(errorOf(await call(rw, 'folders_delete', { folderId })).message).toMatch(/--allow-destructive/);
    expect((await sb.call('GET', `/v1/external/folders/${folderId}`, { key: K.admin })).status).toBe(200);
    const all = await open('admin', { allowWrites: true, allowDestructive: true });
    const gone = await call(all, 'folders_delete', { folderId });
    expect(gone.isError, JSON.stringify(gone)).toBeFalsy();
    expect((await sb.call('GET', `/v1/external/folders/${folderId}`, { key: K.admin })).status).toBe(404);
    const narrowed = await open('admin', { allowWrites: true, tools: ['notes_*'] });
    expect(errorOf(await call(narrowed, 'folders_get', { folderId })).message).toMatch(/--tools/);
  });

  it('never sends the key or a webhook secret, even inside an error that quotes it', async () => {
    const p = await open('admin', { allowWrites: true });
    const secretPath = join(dir, `${K.admin}-${WEBHOOK_SECRET}.csv`);
    const r = await call(p, 'wm_import', { file: secretPath });
    const e = errorOf(r);
    expect(e.message).toContain('****');
    expect(JSON.stringify(r)).not.toContain(K.admin.split('.')[1]!);
    expect(JSON.stringify(r)).not.toContain(WEBHOOK_SECRET);
  });
});

describe('composite tools', () => {
  it('voice_transcribe uploads, waits and returns the transcript, with progress', async () => {
    const p = await open('workspaceKey', { allowWrites: true });
    const file = join(dir, 'speech.wav');
    writeFileSync(file, speechLikeWav(THREE_WORDS).bytes);
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const r = await call(p, 'voice_transcribe', { file, locale: 'en_US' }, { onprogress: (x) => progress.push(x) });
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ jobId: expect.any(String), text: expect.any(String) });
    expect(progress.some((x) => /Created voice job/.test(x.message ?? ''))).toBe(true);
    expect(progress.some((x) => x.total !== undefined && x.progress === x.total)).toBe(true);
  });

  it('voice_transcribe cancelled during the upload deletes the job', async () => {
    const p = await open('workspaceKey', { allowWrites: true });
    const file = join(dir, 'long.wav');
    writeLargeWav(file, 40 * 1024 * 1024);
    const ac = new AbortController();
    let jobId: string | undefined;
    const done = call(p, 'voice_transcribe', { file }, {
      signal: ac.signal,
      onprogress: (x) => {
        jobId ??= /Created voice job (\S+)/.exec(x.message ?? '')?.[1];
        if (x.total !== undefined && x.progress > 0 && x.progress < x.total) ac.abort();
      },
    });
    await expect(done).rejects.toThrow();
    expect(jobId).toBeDefined();
    let status = 0;
    for (let i = 0; i < 100 && status !== 404; i++) {
      status = (await sb.call('GET', `/v1/external/voice-file/jobs/${jobId}`, { key: K.workspaceKey })).status;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(404);
  });

  it('wm_import reports progress, honours cancellation, and resumes from its journal', async () => {
    const p = await open('admin', { allowWrites: true });
    const file = join(dir, 'words.csv');
    writeFileSync(file, 'entry,subEntry\n' + Array.from({ length: 20_000 }, (_, i) => `McpTerm${i},MT${i}`).join('\n') + '\n');
    const ac = new AbortController();
    const progress: Array<{ progress: number; total?: number }> = [];
    const first = call(p, 'wm_import', { file }, {
      signal: ac.signal,
      onprogress: (x) => {
        progress.push(x);
        if (x.total === 20_000 && x.progress >= 1000) ac.abort();
      },
    });
    await expect(first).rejects.toThrow();
    expect(progress.some((x) => x.total === 20_000 && x.progress >= 1000)).toBe(true);
    // The cancelled run's confirmed batches are in its journal: the rerun skips them.
    // No batch is sent after the cancellation.
    await new Promise((r) => setTimeout(r, 300));
    let imported = 0;
    for (let cursor = ''; ; ) {
      const page = (await sb.call('GET', `/v1/external/users/me/word-memories?size=1000${cursor}`, { key: K.admin })).json;
      imported += page.content.filter((x: { entry: string }) => x.entry.startsWith('McpTerm')).length;
      if (!page.nextCursor) break;
      cursor = `&cursor=${page.nextCursor}`;
    }
    expect(imported).toBeGreaterThanOrEqual(1000);
    expect(imported).toBeLessThan(20_000);
    const again = await call(p, 'wm_import', { file });
    expect(again.isError, JSON.stringify(again)).toBeFalsy();
    const summary = again.structuredContent as { doneEarlier: number; created: number; alreadyPresent: number; valid: number };
    expect(summary.doneEarlier, JSON.stringify(summary)).toBeGreaterThanOrEqual(1000);
    expect(summary.doneEarlier, 'the cancelled run stopped early').toBeLessThan(20_000);
    expect(summary.doneEarlier + summary.created + summary.alreadyPresent).toBe(20_000);
  });
});
