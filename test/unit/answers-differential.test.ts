import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerProblem, bodyProblem } from '../../src/contract/answers.js';
import { schemasOf } from '../../src/contract/endpoint-schemas.js';
import { endpoint, ENDPOINTS, type EndpointId } from '../../src/contract/endpoints.js';
import { compileSchema, compileVerdict, readDocument, responseCheck, responseSchemaOf } from '../../src/contract/response-check.js';
import type { Endpoint } from '../../src/contract/types.js';
import { EXIT } from '../../src/errors.js';
import { callEveryEndpoint, type RecordedAnswer } from '../helpers/every-endpoint.js';
import { inProcessSandbox } from '../helpers/sandbox.js';
import { zodAnswerProblem, zodSchemaProblem } from '../helpers/zod-answers.js';

/**
 * The answer check without zod (src/contract/response-check.ts, reading docs/openapi.json) against the zod check it
 * replaced (test/helpers/zod-answers.ts): for every endpoint, the sandbox's real answers and thousands of their
 * mutations get the same verdict and the same message from both.
 */

type Path = Array<string | number>;
const DELETE = Symbol('delete');

/** A value of each JSON type (and a few of each kind of number and string), to put anywhere in an answer. */
const VALUES: unknown[] = [null, true, false, 0, 7, -3, 1.5, 2 ** 60, -(2 ** 60), '', 'x', 'A_VALUE_FROM_A_NEWER_SERVICE', [], [1], ['x'], [null], {}, { unknown: 1 }];

/** Every node below `value` (objects: every key; arrays: the first two items), depth first. */
function nodes(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value)) {
    value.slice(0, 2).forEach((item, i) => {
      out.push([...path, i]);
      nodes(item, [...path, i], out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push([...path, k]);
      nodes(v, [...path, k], out);
    }
  }
  return out;
}

/** A copy of `root` with the node at `path` replaced by `to(old)` (DELETE: removed; arrays: spliced out). */
function setAt(root: unknown, path: Path, to: (old: unknown) => unknown): unknown {
  if (path.length === 0) return to(root);
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    const next = setAt(copy[head as number], rest, to);
    if (next === DELETE) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const copy = { ...(root as Record<string, unknown>) };
  const next = setAt(copy[head], rest, to);
  if (next === DELETE) delete copy[head];
  else copy[head] = next;
  return copy;
}

/** A small seeded PRNG (mulberry32), so that a failure names a case that comes back. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One change at one place: the node removed, made undefined, replaced by each of VALUES, given an unknown key or item. */
function changesAt(answer: unknown, path: Path): Array<{ what: string; data: unknown }> {
  const at = `at ${JSON.stringify(path)}`;
  const out = [
    { what: `delete ${at}`, data: setAt(answer, path, () => DELETE) },
    { what: `undefined ${at}`, data: setAt(answer, path, () => undefined) },
    ...VALUES.map((v) => ({ what: `${JSON.stringify(v)} ${at}`, data: setAt(answer, path, () => v) })),
  ];
  out.push({
    what: `an unknown key or item ${at}`,
    data: setAt(answer, path, (old) => (Array.isArray(old) ? [...old, 'x'] : old !== null && typeof old === 'object' ? { ...old, zzUnknown: [1] } : old)),
  });
  return out;
}

/** The answer itself, other bodies in its place, every change at every node, and pairs of changes at two nodes. */
function cases(answer: unknown, seed: number): Array<{ what: string; data: unknown }> {
  const out = [
    { what: 'the answer', data: answer },
    { what: 'a body that is not JSON', data: '<html><body>Sign in</body></html>' },
    ...changesAt(answer, []),
  ];
  const paths = nodes(answer);
  for (const path of paths) out.push(...changesAt(answer, path));
  // Two changes at once: the first problem in zod's order (depth first, properties in the schema's order) must win.
  const next = random(seed);
  for (let i = 0; i < Math.min(200, paths.length * 4); i++) {
    const [a, b] = [paths[Math.floor(next() * paths.length)], paths[Math.floor(next() * paths.length)]];
    const [va, vb] = [VALUES[Math.floor(next() * VALUES.length)], next() < 0.3 ? DELETE : VALUES[Math.floor(next() * VALUES.length)]];
    let data = setAt(answer, a, () => va);
    if (!a.every((p, j) => b[j] === p)) data = setAt(data, b, () => vb);
    out.push({ what: `${JSON.stringify(va)} at ${JSON.stringify(a)} and ${String(vb)} at ${JSON.stringify(b)}`, data });
  }
  return out;
}

interface Tally {
  cases: number;
  failing: number;
  messages: Set<string>;
  mismatches: string[];
}

/** Compare `mine` with zod's verdict on every case of every answer of `ep`. */
function compare(ep: Endpoint, answers: RecordedAnswer[], mine: (data: unknown) => string | undefined, tally: Tally): void {
  answers.forEach((answer, n) => {
    for (const c of cases(answer.json, n + 1)) {
      const [expected, got] = [zodAnswerProblem(ep, c.data), mine(c.data)];
      tally.cases++;
      if (expected !== undefined) {
        tally.failing++;
        tally.messages.add(expected);
      }
      if (got !== expected && tally.mismatches.length < 20) tally.mismatches.push(`${ep.id}, ${c.what}: zod says ${String(expected)}, the checker ${String(got)}`);
    }
  });
}

type Sandbox = Awaited<ReturnType<typeof inProcessSandbox>>;

describe('the answer check gives exactly what zod gives (verdict and message)', () => {
  let sb: Sandbox;
  let answers: Map<string, RecordedAnswer[]>;

  beforeAll(async () => {
    sb = await inProcessSandbox({ options: { jobSeconds: 0.05 } });
    const recorded = await callEveryEndpoint(sb);
    expect(recorded.problems).toEqual([]);
    answers = recorded.answers;
  }, 60_000);
  afterAll(() => sb?.close());

  it('on the real answers of every endpoint and thousands of mutations of them', () => {
    const tally: Tally = { cases: 0, failing: 0, messages: new Set(), mismatches: [] };
    for (const ep of ENDPOINTS) {
      const list = answers.get(ep.id);
      expect(list, `${ep.id}: no recorded answer`).toBeDefined();
      compare(ep, list!, (data) => answerProblem(ep, data), tally);
    }
    expect(tally.mismatches).toEqual([]);
    // …and every kind of message there is among them.
    const kinds = new Set([...tally.messages].map((m) => m.replace(/^[^:]*: /, '')));
    for (const kind of [
      'Invalid input: expected int, received number',
      'Invalid input: expected number, received string',
      'Invalid input: expected string, received undefined',
      'Invalid input: expected string, received number',
      'Invalid input: expected boolean, received null',
      'Invalid input: expected object, received array',
      'Invalid input: expected array, received object',
      'Invalid input: expected null, received string',
    ])
      expect(kinds).toContain(kind);
    expect(tally.messages).toContain('the body is empty');
    expect(tally.messages).toContain('the body is not JSON ("<html><body>Sign in</body></html>")');
    // Not a vacuous comparison: many cases, and both verdicts well represented.
    expect(tally.cases).toBeGreaterThan(20_000);
    expect(tally.failing).toBeGreaterThan(tally.cases / 4);
    expect(tally.cases - tally.failing).toBeGreaterThan(tally.cases / 10);
  }, 60_000);

  it('the verdict alone (what an answer that fits costs) refuses exactly what zod refuses, on the same cases', () => {
    let cases_ = 0;
    let refused = 0;
    const mismatches: string[] = [];
    for (const ep of ENDPOINTS) {
      const schema = responseSchemaOf(ep);
      if (!schema) continue;
      const fits = compileVerdict(schema);
      answers.get(ep.id)!.forEach((answer, n) => {
        for (const c of cases(answer.json, n + 1)) {
          // What reaches the check: a JSON body (answers.ts judges text and empty bodies before it).
          if (typeof c.data === 'string' || c.data === null || c.data === undefined) continue;
          const zodFits = zodAnswerProblem(ep, c.data) === undefined;
          cases_++;
          if (!zodFits) refused++;
          if (fits(c.data) !== zodFits && mismatches.length < 20) mismatches.push(`${ep.id}, ${c.what}: zod ${zodFits ? 'accepts' : 'refuses'}, the verdict does not`);
        }
      });
    }
    expect(mismatches).toEqual([]);
    expect(cases_).toBeGreaterThan(20_000);
    expect(refused).toBeGreaterThan(cases_ / 4);
    // The bulk create answer (wm import checks a thousand items per batch this way) among them, in every scope.
    expect(ENDPOINTS.filter((e) => /^wm\.\w+\.create$/.test(e.id) && answers.get(e.id)?.length).length).toBe(5);
  }, 60_000);

  it('the comparison catches a checker that is wrong (an integer read as any number)', () => {
    const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    doc.components.schemas.WordMemory.properties.id.type = 'number';
    const ep = endpoint('wm.user.createBulk');
    const broken = compileSchema(responseSchemaOf(ep), doc.components.schemas);
    const tally: Tally = { cases: 0, failing: 0, messages: new Set(), mismatches: [] };
    compare(ep, answers.get(ep.id)!, (data) => bodyProblem(data, () => broken), tally);
    expect(tally.mismatches.join('\n')).toMatch(/content\[0\]\.id: Invalid input: expected int, received number/);
  });
});

describe('reading the response schemas of docs/openapi.json', () => {
  it('compiles every endpoint\'s (nothing it does not interpret), and finds a body exactly where the contract documents one', () => {
    for (const ep of ENDPOINTS) {
      const check = responseCheck(ep);
      expect(check !== null, ep.id).toBe(schemasOf(ep.id)?.response !== undefined);
    }
  });

  it('refuses what it does not interpret, instead of passing it', () => {
    const refused: unknown[] = [
      {},
      { anyOf: [{ type: 'string' }, { type: 'number' }] },
      { oneOf: [{ type: 'string' }, { type: 'null' }] },
      { type: ['string', 'number'] },
      { type: 'string', default: 'x' },
      { type: 'object', additionalProperties: { type: 'string' } },
      { type: 'object', propertyNames: { type: 'string' } },
      { type: 'object', properties: {}, required: ['a'] },
      { type: 'array', prefixItems: [{ type: 'string' }] },
      { type: 'array' },
      { allOf: [{ type: 'string' }] },
      { $ref: '#/components/schemas/NoSuchShape' },
      { type: 'strnig' },
    ];
    for (const schema of refused) expect(() => compileSchema(schema), JSON.stringify(schema)).toThrow(/does not interpret/);
  });

  it('reads the keywords that only zod\'s tolerated issues come from, and nullable, literal and enum, as zod does', () => {
    // zod's own JSON Schema output (as openapi.ts uses it) of what the contract may use beyond today's shapes.
    const schema = z.object({
      positive: z.number().positive(),
      even: z.number().int().multipleOf(2).min(0).max(10),
      code: z.string().regex(/^[a-z]+$/).min(2).max(4),
      email: z.email().optional(),
      list: z.array(z.number().int()).min(1).max(2),
      kind: z.enum(['A', 'B']).nullable(),
      fixed: z.literal('text/plain'),
      loose: z.looseObject({ n: z.number().nullable() }),
      strict: z.strictObject({ b: z.boolean() }),
      none: z.null(),
      nested: z.object({ at: z.string().describe('ISO 8601') }).nullable().optional(),
    });
    const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: 'output', target: 'draft-2020-12' }); // openapi.ts drops it too
    const check = compileSchema(json, {});
    const fits = compileVerdict(json, {});
    const good = { positive: 1, even: 4, code: 'ab', list: [1], kind: 'A', fixed: 'text/plain', loose: { n: null }, strict: { b: true }, none: null };
    const mismatches: string[] = [];
    let n = 0;
    for (const c of cases(good, 7)) {
      n++;
      const [expected, got] = [zodSchemaProblem(schema, c.data), check(c.data)];
      if (got !== expected) mismatches.push(`${c.what}: zod says ${String(expected)}, the checker ${String(got)}`);
      if (fits(c.data) !== (expected === undefined)) mismatches.push(`${c.what}: zod says ${String(expected)}, the verdict ${String(fits(c.data))}`);
    }
    expect(mismatches).toEqual([]);
    expect(n).toBeGreaterThan(300);
  });
});

it('compiles a shape that contains itself', () => {
  const components = { Tree: { type: 'object', properties: { name: { type: 'string' }, kids: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } }, required: ['name', 'kids'] } };
  const check = compileSchema({ $ref: '#/components/schemas/Tree' }, components);
  expect(check({ name: 'a', kids: [{ name: 'b', kids: [] }] })).toBeUndefined();
  expect(check({ name: 'a', kids: [{ name: 'b', kids: [{ name: 3, kids: [] }] }] })).toBe('kids[0].kids[0].name: Invalid input: expected string, received number');
  const fits = compileVerdict({ $ref: '#/components/schemas/Tree' }, components);
  expect([fits({ name: 'a', kids: [{ name: 'b', kids: [] }] }), fits({ name: 'a', kids: [{ name: 'b', kids: [{ name: 3, kids: [] }] }] })]).toEqual([true, false]);
});

it('a missing docs/openapi.json is an error that names the file and the fix', () => {
  const missing = new URL('../../docs/no-such-openapi.json', import.meta.url);
  expect(() => readDocument(missing)).toThrow(expect.objectContaining({ exitCode: EXIT.UNEXPECTED, message: expect.stringMatching(/no-such-openapi\.json cannot be read \(ENOENT\)/), hint: expect.stringMatching(/reinstall/) }));
});

it('an endpoint id the document does not have is an error that says the document is out of date', () => {
  const ep = { ...endpoint('notes.get' as EndpointId), id: 'notes.getNew' };
  expect(() => responseCheck(ep)).toThrow(/out of date \(npm run docs\)/);
});
