import { readFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/contract/endpoints.js';
import { LIMITS, PAGE_SIZES } from '../../src/contract/limits.js';
import { SCOPE_NAMES } from '../../src/contract/scopes.js';
import { callEveryEndpoint } from '../helpers/every-endpoint.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

/**
 * docs/openapi.json against an OpenAPI 3.1 validator, and against the sandbox: a successful call of every endpoint
 * of the contract, each answer validated with the response schema the document declares for it (ajv, JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1). A new endpoint without a call in test/helpers/every-endpoint.ts fails the
 * test by name.
 * (That the committed document is the generated one is checked in docs.test.ts.)
 */

const DOC_TEXT = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
const DOC = JSON.parse(DOC_TEXT);
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

describe('the sandbox against docs/openapi.json', () => {
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await inProcessSandbox({ options: { jobSeconds: 0.05 } });
  });
  afterAll(() => sb.close());

  it('serves the document at GET /openapi.json without a key, outside /v1/', async () => {
    const res = await sb.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.text).toBe(DOC_TEXT);
    expect((await sb.call('POST', '/openapi.json')).json.error.code).toBe(404001);
  });

  it('every endpoint is exercised, and every answer validates against its response schema', async () => {
    const { answers, problems } = await callEveryEndpoint(sb);
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
