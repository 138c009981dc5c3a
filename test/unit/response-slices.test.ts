import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/contract/endpoints.js';
import { compileSchema, readDocument, responseSchemaOf, sliceDocument, type Document } from '../../src/contract/response-check.js';

/**
 * The build's per-endpoint slices of docs/openapi.json (dist/response-schemas/, read by the answer check of a
 * one-request command instead of the whole document): each holds its endpoint's success answer and every component
 * that answer reaches, so the check compiled from it is the one compiled from the whole document.
 */
const whole = readDocument(new URL('../../docs/openapi.json', import.meta.url));
const slices = sliceDocument(whole);

describe('response schema slices', () => {
  it('every endpoint has a slice whose success answer is the whole document’s', () => {
    for (const ep of ENDPOINTS) {
      const slice = slices[ep.id];
      expect(slice, ep.id).toBeDefined();
      expect(responseSchemaOf(ep, slice), ep.id).toEqual(responseSchemaOf(ep, whole));
    }
  });

  it('a slice holds every component its answer reaches and no other', () => {
    for (const ep of ENDPOINTS) {
      const slice = slices[ep.id];
      const schema = responseSchemaOf(ep, slice);
      // Compiling from the slice's components alone throws on a reference to a missing component.
      if (schema) compileSchema(schema, slice.components.schemas);
      const reached = new Set<string>();
      const visit = (v: unknown): void => {
        if (Array.isArray(v)) return v.forEach(visit);
        if (typeof v !== 'object' || v === null) return;
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') {
            const name = x.replace('#/components/schemas/', '');
            if (!reached.has(name)) {
              reached.add(name);
              visit(whole.components.schemas[name]);
            }
          } else visit(x);
        }
      };
      visit(slice.paths);
      expect(new Set(Object.keys(slice.components.schemas)), ep.id).toEqual(reached);
      for (const name of reached) expect(slice.components.schemas[name], `${ep.id}: ${name}`).toEqual(whole.components.schemas[name]);
    }
  });

  it('keeps only the 2xx answers of the operation', () => {
    for (const s of Object.values(slices) as Document[]) {
      for (const methods of Object.values(s.paths)) for (const op of Object.values(methods)) for (const status of Object.keys(op.responses as object)) expect(status).toMatch(/^2\d\d$/);
    }
  });

  const built = new URL('../../dist/response-schemas/', import.meta.url);
  it.skipIf(!existsSync(built))('the build wrote exactly these slices (dist/response-schemas/, from the current docs/openapi.json)', () => {
    const files = readdirSync(built).sort();
    expect(files).toEqual(Object.keys(slices).map((id) => `${id}.json`).sort());
    for (const f of files) expect(JSON.parse(readFileSync(new URL(f, built), 'utf8')), f).toEqual(slices[f.replace(/\.json$/, '')]);
  });
});
