import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_TYPES } from '../../src/contract/enums.js';
import { note as noteSchema } from '../../src/contract/schemas.js';
import { getNote } from '../../src/sandbox/access.js';
import { createApp } from '../../src/sandbox/app.js';
import { DEMO_NOTES } from '../../src/sandbox/demo-seed.js';
import { noteJson, oneOf } from '../../src/sandbox/serialize.js';
import { prepareSandbox } from '../../src/sandbox/server.js';
import { reply, type HandlerMap } from '../../src/sandbox/types.js';
import { K, expectError } from '../helpers/expect.js';

/**
 * What a handler answers reaches the client as the contract says (the types are checked by tsc in
 * test/types/contract.types.ts): a body with the endpoint's success status, `reply(...)` with its own status and
 * headers, and a stored value outside the contract's enum fails the request instead of being answered.
 */

type Prepared = Awaited<ReturnType<typeof prepareSandbox>>;
let p: Prepared;
beforeAll(async () => {
  p = await prepareSandbox({ rateLimit: '0', log: () => {} });
});
afterAll(() => p.shutdown());

const NOTE = DEMO_NOTES.roadmapReview;

describe('oneOf (a stored enum value narrowed to the contract)', () => {
  it('passes a value of the contract and names the column, the value and the allowed ones otherwise', () => {
    const kind: (typeof SOURCE_TYPES)[number] = oneOf(SOURCE_TYPES, 'recording', 'notes.source_type');
    expect(kind).toBe('recording');
    expect(() => oneOf(SOURCE_TYPES, 'fax', 'notes.source_type')).toThrow('notes.source_type holds "fax", which is not one of onboarding, text, live-voice');
  });

  it('keeps a note with a source type the contract does not know from being answered', () => {
    const row = getNote(p.rt.db, NOTE)!;
    expect(noteSchema.safeParse(noteJson(p.rt.db, row)).success).toBe(true);
    expect(() => noteJson(p.rt.db, { ...row, source_type: 'fax' })).toThrow(/notes\.source_type holds "fax"/);
  });
});

describe('a handler answer on the wire', () => {
  const errors: string[] = [];
  const app = (handlers: HandlerMap) => createApp({ rt: p.rt, handlers, errorLog: (line) => errors.push(line) });
  const get = (a: ReturnType<typeof app>) => a.request(`/v1/external/notes/${NOTE}`, { headers: { authorization: `Bearer ${K.admin}` } });

  it('sends a body with the success status, and reply(...) with its status, headers and body, or without a body', async () => {
    const body = (ctx: Parameters<NonNullable<HandlerMap['notes.get']>>[0]) => noteJson(ctx.rt.db, ctx.note);
    const plain = await get(app({ 'notes.get': body }));
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { guid: string }).guid).toBe(NOTE);

    const accepted = await get(app({ 'notes.get': (ctx) => reply({ status: 202, headers: { 'Retry-After': '3' }, body: body(ctx) }) }));
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('retry-after')).toBe('3');
    expect(((await accepted.json()) as { guid: string }).guid).toBe(NOTE);

    const moved = await get(app({ 'notes.get': () => reply({ status: 307, headers: { Location: `/v1/external/notes/${NOTE}` } }) }));
    expect(moved.status).toBe(307);
    expect(moved.headers.get('location')).toBe(`/v1/external/notes/${NOTE}`);
    expect(await moved.text()).toBe('');
  });

  it('answers 500000 when a serializer meets a stored value outside the contract, and logs why', async () => {
    errors.length = 0;
    const res = await get(app({ 'notes.get': (ctx) => noteJson(ctx.rt.db, { ...ctx.note, source_type: 'fax' }) }));
    const json = await res.json();
    expectError({ status: res.status, json }, 500, 500000);
    expect(JSON.stringify(json)).not.toContain('fax');
    expect(errors.join('\n')).toContain('notes.source_type holds "fax"');
  });
});
