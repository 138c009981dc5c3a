import { readFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPath, endpoint, ENDPOINTS, type EndpointId } from '../../src/contract/endpoints.js';
import { LIMITS, PAGE_SIZES } from '../../src/contract/limits.js';
import { SCOPE_NAMES } from '../../src/contract/scopes.js';
import { DEMO_FOLDERS, DEMO_NOTES, DEMO_TEMPLATES, DEMO_WIKI_PAGES, DEMO_WORKSPACES } from '../../src/sandbox/demo-seed.js';
import { speechLikeWav, THREE_WORDS } from '../helpers/audio.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { K } from '../helpers/expect.js';

/**
 * docs/openapi.json against an OpenAPI 3.1 validator, and against the sandbox: a successful call of every endpoint
 * of the contract, each answer validated with the response schema the document declares for it (ajv, JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1). A new endpoint without a call here fails the test by name.
 * (That the committed document is the generated one is checked in docs.test.ts.)
 */

const DOC_TEXT = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
const DOC = JSON.parse(DOC_TEXT);
const PRODUCT = DEMO_WORKSPACES.product;
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** JSON Pointer escaping of one segment. */
const seg = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every operation of the document by operationId, with its JSON Pointer. */
const OPERATIONS = new Map<string, { pointer: string; op: any }>();
for (const [path, item] of Object.entries<any>(DOC.paths))
  for (const method of METHODS) if (item[method]) OPERATIONS.set(item[method].operationId, { pointer: `/paths/${seg(path)}/${method}`, op: item[method] });

/** ajv over the whole document: `openapi.json#/pointer` compiles any schema in it, its `$ref`s resolved in place. */
function documentAjv(doc: unknown): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats.default(ajv); // a CommonJS module: its function is also its `default`
  // The document's own keywords are not JSON Schema: known to ajv, so strict mode accepts the root, and not validated.
  ajv.addVocabulary(Object.keys(doc as object));
  ajv.addSchema(doc as object, 'openapi.json');
  return ajv;
}

describe('docs/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser), without warnings', async () => {
    const result = await validate(structuredClone(DOC));
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.warnings).toEqual([]);
    expect(DOC.openapi).toMatch(/^3\.1\./);
  });

  it('has schemas that all compile as strict JSON Schema 2020-12', () => {
    const ajv = documentAjv(DOC);
    const pointers: string[] = Object.keys(DOC.components.schemas).map((name) => `/components/schemas/${seg(name)}`);
    for (const { pointer, op } of OPERATIONS.values()) {
      (op.parameters ?? []).forEach((_: unknown, i: number) => pointers.push(`${pointer}/parameters/${i}/schema`));
      if (op.requestBody) pointers.push(`${pointer}/requestBody/content/application~1json/schema`);
      for (const [status, r] of Object.entries<any>(op.responses)) if (r.content) pointers.push(`${pointer}/responses/${status}/content/application~1json/schema`);
    }
    const failures = pointers.flatMap((p) => {
      try {
        ajv.compile({ $ref: `openapi.json#${p}` });
        return [];
      } catch (e) {
        return [`${p}: ${(e as Error).message}`];
      }
    });
    expect(failures).toEqual([]);
    expect(pointers.length).toBeGreaterThan(ENDPOINTS.length);
  });

  it('the strict compile catches a schema that is not JSON Schema (the check above can fail)', () => {
    const broken = structuredClone(DOC);
    broken.components.schemas.Note.properties.title.type = 'strnig';
    expect(() => documentAjv(broken).compile({ $ref: 'openapi.json#/components/schemas/Note' })).toThrow(/strnig|type/);
  });

  it('types path parameters as decisions.md §1.7 says, and carries what OpenAPI has no field for in x- extensions', () => {
    const op = (id: string) => OPERATIONS.get(id)!.op;
    const param = (id: string, name: string) => op(id).parameters.find((p: { name: string }) => p.name === name);
    expect(param('notes.get', 'noteGuid').schema).toEqual({ type: 'string', pattern: LIMITS.noteGuidPattern.source });
    expect(param('folders.get', 'folderId').schema).toEqual({ type: 'string', pattern: LIMITS.folderIdPattern.source });
    expect(param('voice.translation', 'jobId').schema).toEqual({ type: 'string', format: 'uuid' });
    expect(param('voice.translation', 'locale').schema).toEqual({ type: 'string', pattern: LIMITS.localePattern.source });
    expect(param('notes.summaries.get', 'summaryId').schema).toEqual({ type: 'integer' });
    expect(param('wm.user.get', 'id').schema).toEqual({ type: 'integer' });
    expect(param('notes.update', 'updateMask')).toMatchObject({ in: 'query', required: true });
    expect(op('notes.update')['x-update-mask']).toEqual(['title']);
    expect(param('notes.list', 'size').schema).toEqual({ type: 'integer', minimum: 1, maximum: 1000, default: PAGE_SIZES.notes.default });
    expect(op('wiki.pages')['x-page']).toEqual(PAGE_SIZES.wiki);
    expect(op('notes.search').deprecated).toBe(true);
    expect(op('notes.search')['x-idempotent']).toBe(true);
    expect(op('notes.shareLink.put').requestBody.required).toBe(false);
    expect(op('folders.delete').responses['204']).toEqual({ description: 'No Content' });
    expect(op('notes.list').responses.default).toEqual({ $ref: '#/components/responses/Error' });
    expect(DOC.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: '{id}.{secret}' });
    expect(DOC['x-scopes'].map((s: { scope: string }) => s.scope)).toEqual(SCOPE_NAMES);
  });

  it('has one operation per endpoint of the contract, with its method, path, scope and key types', () => {
    expect([...OPERATIONS.keys()].sort()).toEqual(ENDPOINTS.map((e) => e.id).sort());
    for (const ep of ENDPOINTS) {
      const op = DOC.paths[ep.path]?.[ep.method.toLowerCase()];
      expect(op?.operationId, ep.id).toBe(ep.id);
      expect(op['x-scope']).toBe(ep.scope);
      expect(op.security).toEqual(ep.auth ? [{ apiKey: ep.scope ? [ep.scope] : [] }] : []);
      if (ep.auth) expect(op['x-key-types']).toEqual(ep.keyTypes);
      expect(Object.keys(op.responses)).toContain(String(ep.successStatus));
    }
  });

});

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;
interface Answer {
  status: number;
  json: unknown;
  text: string;
}

describe('the sandbox against docs/openapi.json', () => {
  let sb: Sandbox;
  const answers = new Map<string, Answer[]>();
  const problems: string[] = [];

  beforeAll(async () => {
    sb = await inProcessSandbox({ options: { jobSeconds: 0.05 } });
  });
  afterAll(() => sb.close());

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

  /** Every endpoint, called successfully with a demo key that may make the call. */
  async function exerciseEveryEndpoint(): Promise<void> {
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
  }

  it('serves the document at GET /openapi.json without a key, outside /v1/', async () => {
    const res = await sb.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.text).toBe(DOC_TEXT);
    expect((await sb.call('POST', '/openapi.json')).json.error.code).toBe(404001);
  });

  it('every endpoint is exercised, and every answer validates against its response schema', async () => {
    await exerciseEveryEndpoint();
    const ajv = documentAjv(DOC);
    const validators = new Map<string, ValidateFunction>();
    for (const [id, list] of answers) {
      const found = OPERATIONS.get(id);
      if (!found) {
        problems.push(`${id}: no operation in docs/openapi.json (run npm run docs)`);
        continue;
      }
      for (const answer of list) {
        const response = found.op.responses[String(answer.status)];
        if (!response) {
          problems.push(`${id}: status ${answer.status} is not declared`);
          continue;
        }
        if (!response.content) {
          if (answer.text !== '') problems.push(`${id}: ${answer.status} declares no body but the answer has one: ${answer.text}`);
          continue;
        }
        const pointer = `${found.pointer}/responses/${answer.status}/content/application~1json/schema`;
        let check = validators.get(pointer);
        if (!check) validators.set(pointer, (check = ajv.compile({ $ref: `openapi.json#${pointer}` })));
        if (!check(answer.json)) problems.push(`${id}: ${ajv.errorsText(check.errors, { dataVar: 'answer' })}`);
      }
    }
    const missed = ENDPOINTS.map((e) => e.id).filter((id) => !answers.has(id));
    expect(problems, problems.join('\n')).toEqual([]);
    expect(missed, `endpoints this test does not call successfully: ${missed.join(', ')}`).toEqual([]);
  }, 60_000);

  it('an unauthenticated call of every endpoint answers its declared 401, whose schema the body validates against', async () => {
    const ajv = documentAjv(DOC);
    const failures: string[] = [];
    for (const ep of ENDPOINTS.filter((e) => e.auth)) {
      const res = await sb.call(ep.method, ep.path.replace(/\{(\w+)\}/g, '1'));
      const declared = OPERATIONS.get(ep.id)?.op.responses['401']?.$ref as string | undefined;
      if (res.status !== 401 || !declared) {
        failures.push(`${ep.id}: without a key it answered ${res.status}; 401 declared: ${declared ?? 'no'}`);
        continue;
      }
      const check = ajv.compile({ $ref: `openapi.json${declared}/content/application~1json/schema` });
      if (!check(res.json)) failures.push(`${ep.id}: ${ajv.errorsText(check.errors, { dataVar: 'answer' })}`);
    }
    expect(failures).toEqual([]);
  });
});
