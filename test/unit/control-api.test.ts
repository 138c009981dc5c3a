import { readFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_ENDPOINTS, type ControlId } from '../../src/contract/control.js';
import * as control from '../../src/contract/control-schemas.js';
import * as sql from '../../src/sandbox/schema.sql.js';
import { startReceiver } from '../helpers/receiver.js';
import { inProcessSandbox } from '../helpers/sandbox.js';

/**
 * Issue 29 item 6: the sandbox's control API (/_sandbox/) is in the contract (contract/control.ts and its schemas).
 * docs/sandbox-control.openapi.json is a valid OpenAPI 3.1 document (that it is the generated one: docs.test.ts),
 * the sandbox serves it, registers exactly the routes of the table, and answers each of them in the shape the
 * document declares.
 */

const DOC_TEXT = readFileSync(new URL('../../docs/sandbox-control.openapi.json', import.meta.url), 'utf8');
const DOC = JSON.parse(DOC_TEXT);

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;
let sb: Sandbox;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  sb = await inProcessSandbox();
  receiver = await startReceiver();
});
afterAll(async () => {
  await sb?.close();
  await receiver?.close();
});

/** The response schema the document declares for an operation and status. */
function responseValidator(id: ControlId, status: number) {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats.default(ajv);
  ajv.addVocabulary(Object.keys(DOC));
  ajv.addSchema(DOC, 'doc');
  for (const [path, item] of Object.entries<any>(DOC.paths))
    for (const [method, op] of Object.entries<any>(item)) {
      if (op.operationId !== id) continue;
      const seg = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
      return ajv.getSchema(`doc#/paths/${seg(path)}/${method}/responses/${status}/content/application~1json/schema`)!;
    }
  throw new Error(`no operation ${id}`);
}

describe('the control API in the contract', () => {
  it('docs/sandbox-control.openapi.json is a valid OpenAPI 3.1 document with an operation per row of the table', async () => {
    const result = await validate(structuredClone(DOC));
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.warnings).toEqual([]);
    const ops = Object.values<any>(DOC.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId));
    expect(ops.sort()).toEqual(CONTROL_ENDPOINTS.map((e) => e.id).sort());
  });

  it('the sandbox serves the document at GET /_sandbox/openapi.json', async () => {
    const r = await sb.call('GET', '/_sandbox/openapi.json');
    expect(r.status).toBe(200);
    expect(r.json).toEqual(DOC);
  });

  it('the sandbox registers exactly the routes of the table under /_sandbox/', () => {
    const routes = (sb.app as unknown as { routes: Array<{ method: string; path: string }> }).routes
      .filter((r) => r.path.startsWith('/_sandbox/') && r.method !== 'ALL')
      .map((r) => `${r.method} ${r.path}`);
    expect(new Set(routes)).toEqual(new Set(CONTROL_ENDPOINTS.map((e) => `${e.method} ${e.path.replace(/\{(\w+)\}/g, ':$1')}`)));
  });

  it('answers every route in the shape its document declares', async () => {
    const check = (id: ControlId, r: { status: number; json: unknown; text: string }, status: number) => {
      expect(r.status, `${id}: ${r.text}`).toBe(status);
      const v = responseValidator(id, status);
      expect(v(r.json), `${id}: ${JSON.stringify(v.errors)}`).toBe(true);
    };
    const created = await sb.call('POST', '/_sandbox/webhook-endpoints', { body: { url: receiver.url } });
    check('control.webhookEndpoints.create', created, 201);
    expect(created.json.secret).toMatch(/^whsec_/);
    check('control.webhookEndpoints.list', await sb.call('GET', '/_sandbox/webhook-endpoints'), 200);
    const fired = await sb.call('POST', '/_sandbox/events', { body: { type: 'note.ended', noteGuid: 'nt1LaunchPlan' } });
    check('control.events.trigger', fired, 201);
    check('control.events.list', await sb.call('GET', '/_sandbox/events?tail=5'), 200);
    check('control.events.get', await sb.call('GET', `/_sandbox/events/${fired.json.id}`), 200);
    check('control.events.redeliver', await sb.call('POST', `/_sandbox/events/${fired.json.id}/redeliver`), 202);
    check('control.liveNotes.create', await sb.call('POST', '/_sandbox/live-notes', { body: { workspaceGuid: 'wsProductTeam001', count: 1, paragraphIntervalSeconds: 0.01 } }), 201);
    const removed = await sb.call('DELETE', `/_sandbox/webhook-endpoints/${created.json.id}`);
    expect(removed.status).toBe(204);
    check('control.openapi', await sb.call('GET', '/_sandbox/openapi.json'), 200);
  });

  it('refuses a body its schema refuses, naming the field (the service’s envelope, 400)', async () => {
    const r = await sb.call('POST', '/_sandbox/live-notes', { body: { workspaceGuid: 'nope' } });
    expect(r.status).toBe(400);
    expect(r.json.error.detail).toContain('workspaceGuid');
  });

  it('states each enumeration once: the sandbox’s tables hold the contract’s values', () => {
    expect([...sql.WEBHOOK_ENDPOINT_SOURCES]).toEqual([...control.WEBHOOK_ENDPOINT_SOURCES]);
    expect([...sql.EVENT_ORIGINS]).toEqual([...control.EVENT_ORIGINS]);
    expect([...sql.DELIVERY_STATUSES]).toEqual([...control.DELIVERY_STATUSES]);
  });

  it('`sandbox trigger|events|live-note` call it through the typed calls, restating no path or shape', () => {
    const src = readFileSync(new URL('../../src/commands/sandbox/events.ts', import.meta.url), 'utf8');
    expect(src).toContain("call('control.events.list'");
    expect(src).not.toMatch(/['"`]\/_sandbox|client\.request\(|interface (Attempt|Delivery|LoggedEvent)\b/);
  });
});
