import { readFileSync } from 'node:fs';
import { embeddedAsset } from '../assets.js';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT } from '../errors.js';
import type { Endpoint } from './types.js';

/**
 * The check of a success answer against its endpoint's response schema, without zod: it reads the schema from
 * docs/openapi.json (generated from the contract's zod schemas by openapi.ts, drift-tested, shipped in the package)
 * and gives exactly the verdict and message zod's `safeParse` gives once the issues answers.ts tolerates are left
 * out. Loading zod and building every endpoint's schema cost each write and `auth login` 60–100 ms of CPU; reading
 * and parsing this JSON costs under 10 ms. test/unit/answers-differential.test.ts holds the two to the same answers
 * (every endpoint's real ones and tens of thousands of mutations).
 *
 * What zod reports, and so what this reproduces (zod 4, the English messages):
 * - objects: each property of the schema in its order, depth first; a required property that is missing is checked
 *   as `undefined` ("Invalid input: expected string, received undefined"); a property that is not required may be
 *   missing but not of another type (null included); unknown properties pass (zod's unrecognized_keys is tolerated).
 * - a value of another type: "Invalid input: expected <type>, received <what it is>", `int` for a number with a
 *   fraction where an integer is expected; an integer outside the safe range is zod's too_big: tolerated.
 * - `enum` and `const` (zod's enum and literal) accept anything: zod reports any other value, a missing one or a
 *   number included, as invalid_value, which is tolerated (a service may send a value this notevox does not know
 *   yet; decisions.md: be tolerant). So a missing enum field passes too; keep it so.
 * - formats, patterns, lengths and bounds are zod's invalid_format, too_small, too_big, not_multiple_of or custom
 *   (refinements): tolerated, so not checked.
 * A keyword outside that list throws when the schema is compiled, rather
 * than being skipped (answers-differential.test.ts compiles every endpoint's): a union, a default, a record or a
 * tuple would make zod answer differently.
 */

type Json = { [key: string]: unknown };
/** The first problem below `value` as `path: message`, or undefined; `path` is where `value` is (a stack, restored on return). */
export type Check = (value: unknown, path: Array<string | number>) => string | undefined;
/**
 * The verdict alone: true exactly when the Check finds no problem. Compiled from the same schema by the same rules,
 * it keeps no path and makes no message, so that an answer that fits (nearly every one: wm import checks a
 * thousand items per batch) costs a few type tests per value; one that does not is checked again for the message.
 */
export type Verdict = (value: unknown) => boolean;

const DOCUMENT = new URL('../../docs/openapi.json', import.meta.url);
const COMPONENT_REF = '#/components/schemas/';

export interface Document {
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
}

let doc: Document | undefined;

/** docs/openapi.json, read once (this module is two directories below the package root in src/ and in dist/). */
function openApi(): Document {
  if (doc) return doc;
  // The single-file executable carries the document (scripts/build-exe.mjs); a package has it in docs/.
  const embedded = embeddedAsset('openapi.json');
  return (doc = embedded ? (JSON.parse(embedded.toString('utf8')) as Document) : readDocument(DOCUMENT));
}

/**
 * The build's slices of docs/openapi.json (scripts/build.mjs, sliceDocument below): dist/response-schemas/<id>.json
 * holds one endpoint's success answers and the components they reach, a few hundred bytes where the whole document
 * is ~280 kB (reading and parsing it, and collecting its garbage, cost a one-request command ~10 ms). Beside the
 * chunks in dist/ only; in src/ (tests) there is none and the whole document is read.
 */
const SLICES = new URL('../response-schemas/', import.meta.url);

/** `id`'s slice, or undefined when the build wrote none (src/, or an endpoint the slices do not have). */
function readSlice(id: string): Document | undefined {
  if (doc) return undefined; // the whole document is already read: no file to open
  try {
    return JSON.parse(readFileSync(new URL(`${id}.json`, SLICES), 'utf8')) as Document;
  } catch {
    return undefined;
  }
}

const COMPONENT_REF_TEXT = /"\$ref":"#\/components\/schemas\/([^"]+)"/g;

/**
 * For the build: one document per operation of `whole`, with only that operation's 2xx answers and the components
 * they reach (transitively). responseSchemaOf and the compiler read a slice exactly as they read the whole document.
 */
export function sliceDocument(whole: Document): Record<string, Document> {
  const slices: Record<string, Document> = {};
  for (const [path, methods] of Object.entries(whole.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const id = op.operationId;
      if (typeof id !== 'string') continue;
      if (!/^[A-Za-z0-9._-]+$/.test(id) || id in slices) throw new Error(`response schemas: the operationId ${JSON.stringify(id)} cannot name a file of its own`);
      const responses = Object.fromEntries(Object.entries((op.responses ?? {}) as Record<string, Json>).filter(([status]) => /^2\d\d$/.test(status)));
      const schemas: Record<string, Json> = {};
      const reach = (value: unknown) => {
        for (const m of JSON.stringify(value).matchAll(COMPONENT_REF_TEXT)) {
          const name = m[1];
          if (name in schemas || !(name in whole.components.schemas)) continue;
          schemas[name] = whole.components.schemas[name];
          reach(schemas[name]);
        }
      };
      reach(responses);
      slices[id] = { paths: { [path]: { [method]: { operationId: id, responses } } }, components: { schemas } };
    }
  }
  return slices;
}

/** The OpenAPI document at `url`; a CliError that says what to do when it cannot be read. */
export function readDocument(url: URL): Document {
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch (e) {
    const file = fileURLToPath(url);
    throw new CliError(`cannot check the service's answer: ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      exitCode: EXIT.UNEXPECTED,
      hint: 'The file ships with notevox: reinstall it (in a checkout of notevox, run `npm run docs`).',
      cause: e,
    });
  }
  return JSON.parse(text) as Document;
}

/** `content[0].entry`, or `(root)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(root)';
}

/** What zod's English messages call a value's type: `array`, `null`, `undefined`, `NaN`, `Infinity`, a class name… */
function received(value: unknown): string {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? 'number' : String(value);
  if (typeof value === 'object') {
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'array';
    const proto: unknown = Object.getPrototypeOf(value);
    const ctor = (value as { constructor?: { name?: string } }).constructor;
    if (proto !== Object.prototype && ctor) return String(ctor.name);
  }
  return typeof value;
}

const problem = (path: ReadonlyArray<string | number>, expected: string, value: unknown) =>
  `${formatPath(path)}: Invalid input: expected ${expected}, received ${received(value)}`;

/** Keywords whose failures zod reports with a tolerated code (format, pattern, length, bounds), or that only describe. */
const NOT_CHECKED = new Set([
  'description',
  'title',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);
/** Keywords this compiler interprets, by the node's kind. */
const BY_TYPE: Record<string, ReadonlySet<string>> = {
  object: new Set(['type', 'properties', 'required', 'additionalProperties']),
  array: new Set(['type', 'items']),
  string: new Set(['type']),
  number: new Set(['type']),
  integer: new Set(['type']),
  boolean: new Set(['type']),
  null: new Set(['type']),
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNullSchema = (s: unknown) => isObject(s) && Object.keys(s).length === 1 && s.type === 'null';

class Compiler {
  private readonly refs = new Map<string, Check>();
  constructor(private readonly components: Record<string, Json>) {}

  /**
   * The check of a whole answer: the verdict first, the Check (for its message) only when the verdict is no. The
   * first answer goes to the Check alone (the same result): compiling the verdict (a source made, then parsed and
   * compiled by new Function) costs a command that makes one request more than it saves on one answer; it is
   * compiled for the second.
   */
  answerCheck(schema: unknown, where: string): Check {
    const check = this.compile(schema, where);
    let fits: Verdict | undefined;
    let first = true;
    return (v, path) => {
      if (first) {
        first = false;
        return check(v, path);
      }
      fits ??= this.verdict(schema);
      return fits(v) ? undefined : check(v, path);
    };
  }

  /**
   * The Verdict of a schema that `compile` has accepted (so every keyword here is one it interprets), as the source
   * of one function: the same branches, reading the same properties, testing the same types as the Check, but each
   * property read by its name where it is written (a read by a name held in a variable is a slow, generic lookup:
   * that cost the Check most of its time). Names come from the document as JSON string literals; nothing else of
   * the document enters the source.
   */
  verdict(schema: unknown): Verdict {
    const parts: string[] = [];
    const refs = new Map<string, string>();
    let n = 0;
    /** A function `name(v)` of the source for `s`, returning its name. */
    const fn = (s: Json): string => {
      const name = `f${n++}`;
      const body: string[] = [];
      parts.push(''); // its place, so that functions come out in a stable order
      const at = parts.length - 1;
      if (s.type === 'object') {
        body.push('if (typeof v !== "object" || v === null || Array.isArray(v)) return false;', 'let x;');
        const properties = (s.properties ?? {}) as Record<string, unknown>;
        const required = new Set((s.required ?? []) as string[]);
        for (const [prop, p] of Object.entries(properties)) {
          if (prop === '__proto__') continue;
          const test = expr(p as Json, 'x');
          body.push(`x = v[${JSON.stringify(prop)}];`, `if (!(${required.has(prop) ? '' : 'x === undefined || '}${test})) return false;`);
        }
      } else {
        body.push('if (!Array.isArray(v)) return false;', `for (let i = 0; i < v.length; i++) { const x = v[i]; if (!(${expr(s.items as Json, 'x')})) return false; }`);
      }
      parts[at] = `function ${name}(v) { ${body.join(' ')} return true; }`;
      return name;
    };
    /** An expression of the source that is the verdict of `s` on the variable `x`. */
    const expr = (s: Json, x: string): string => {
      if ('$ref' in s) {
        const ref = (s.$ref as string).slice(COMPONENT_REF.length);
        let name = refs.get(ref);
        if (!name) {
          // Registered before its body is made, so that a shape that contains itself compiles.
          name = `r${refs.size}`;
          refs.set(ref, name);
          parts.push(`function ${name}(v) { return ${expr(this.components[ref], 'v')}; }`);
        }
        return `${name}(${x})`;
      }
      if ('enum' in s || 'const' in s) return 'true';
      if ('anyOf' in s) return `(${x} === null || ${expr((s.anyOf as Json[]).find((o) => !isNullSchema(o))!, x)})`;
      const type = s.type;
      if (Array.isArray(type)) return `(${x} === null || ${expr({ ...s, type: type.find((t) => t !== 'null') }, x)})`;
      switch (type) {
        case 'object':
        case 'array':
          return `${fn(s)}(${x})`;
        case 'string':
          return `typeof ${x} === "string"`;
        case 'boolean':
          return `typeof ${x} === "boolean"`;
        case 'null':
          return `${x} === null`;
        case 'number': // finite: isNumber
          return `Number.isFinite(${x})`;
        default: // integer: a finite number, whole
          return `Number.isInteger(${x})`;
      }
    };
    const root = expr(schema as Json, 'v');
    // The source is made above from the schema's types and JSON-quoted property names only: nothing of an answer.
    return new Function(`${parts.join('\n')}\nreturn (v) => ${root};`)() as Verdict;
  }

  private unsupported(where: string, what: string): never {
    throw new Error(`answer check: ${where} has ${what}, which src/contract/response-check.ts does not interpret (zod may answer differently)`);
  }

  /** Allow only `allowed` and NOT_CHECKED keywords on `schema`. */
  private only(schema: Json, where: string, allowed: ReadonlySet<string>): void {
    for (const k of Object.keys(schema)) if (!allowed.has(k) && !NOT_CHECKED.has(k)) this.unsupported(where, `the keyword ${JSON.stringify(k)}`);
  }

  compile(schema: unknown, where: string): Check {
    if (!isObject(schema)) return this.unsupported(where, `the schema ${JSON.stringify(schema)}`);
    if ('$ref' in schema) {
      this.only(schema, where, new Set(['$ref']));
      return this.ref(schema.$ref, where);
    }
    if ('enum' in schema || 'const' in schema) {
      // zod's enum and literal: any other value, missing or of another type included, is invalid_value (tolerated).
      this.only(schema, where, new Set(['type', 'enum', 'const']));
      return () => undefined;
    }
    if ('anyOf' in schema) {
      // What openapi.ts emits for `.nullable()` of an object, array or reference: [X, {type: null}].
      this.only(schema, where, new Set(['anyOf']));
      const options = schema.anyOf;
      if (!Array.isArray(options) || options.length !== 2 || options.filter(isNullSchema).length !== 1) this.unsupported(where, 'a union other than `X or null`');
      return nullable(this.compile(options.find((o) => !isNullSchema(o)), `${where}/anyOf`));
    }
    const type = schema.type;
    if (Array.isArray(type)) {
      // `.nullable()` of a string, number, integer or boolean: type [T, "null"].
      const other = type.filter((t) => t !== 'null');
      if (type.length !== 2 || other.length !== 1) this.unsupported(where, `the type ${JSON.stringify(type)}`);
      return nullable(this.compile({ ...schema, type: other[0] }, where));
    }
    if (typeof type !== 'string' || !(type in BY_TYPE)) return this.unsupported(where, type === undefined ? 'no type' : `the type ${JSON.stringify(type)}`);
    this.only(schema, where, BY_TYPE[type]);
    switch (type) {
      case 'object':
        return this.object(schema, where);
      case 'array': {
        if (!('items' in schema)) this.unsupported(where, 'an array without items');
        return array(this.compile(schema.items, `${where}/items`));
      }
      case 'string':
        return (v, path) => (typeof v === 'string' ? undefined : problem(path, 'string', v));
      case 'boolean':
        return (v, path) => (typeof v === 'boolean' ? undefined : problem(path, 'boolean', v));
      case 'null':
        return (v, path) => (v === null ? undefined : problem(path, 'null', v));
      case 'number':
        return (v, path) => (isNumber(v) ? undefined : problem(path, 'number', v));
      default: // integer: a number first, then a whole one (zod's int check; out of the safe range is too_big, tolerated)
        return (v, path) => (!isNumber(v) ? problem(path, 'number', v) : Number.isInteger(v) ? undefined : problem(path, 'int', v));
    }
  }

  private ref(ref: unknown, where: string): Check {
    if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_REF)) return this.unsupported(where, `the reference ${JSON.stringify(ref)}`);
    const name = ref.slice(COMPONENT_REF.length);
    let check = this.refs.get(name);
    if (!check) {
      if (!(name in this.components)) this.unsupported(where, `a reference to a missing component ${name}`);
      // Registered before it is compiled, so that a shape that contains itself compiles.
      const slot: { check?: Check } = {};
      check = (v, path) => slot.check!(v, path);
      this.refs.set(name, check);
      slot.check = this.compile(this.components[name], `components/schemas/${name}`);
    }
    return check;
  }

  private object(schema: Json, where: string): Check {
    const extra = schema.additionalProperties;
    // zod objects strip (false) or pass (`{}`) unknown keys, or report them as unrecognized_keys (tolerated).
    if (extra !== undefined && extra !== false && !(isObject(extra) && Object.keys(extra).length === 0)) this.unsupported(where, 'additionalProperties with a schema');
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    if (!isObject(properties)) this.unsupported(where, 'properties that are not an object');
    const required = new Set((schema.required ?? []) as string[]);
    for (const name of required) if (!(name in properties)) this.unsupported(where, `a required ${name} without a schema`);
    const fields = Object.entries(properties)
      .filter(([name]) => name !== '__proto__') // zod skips it too
      .map(([name, s]) => ({ name, required: required.has(name), check: this.compile(s, `${where}/properties/${name}`) }));
    return (v, path) => {
      if (!isObject(v)) return problem(path, 'object', v);
      for (const f of fields) {
        const value = v[f.name];
        if (value === undefined && !f.required) continue;
        path.push(f.name);
        const found = f.check(value, path);
        path.pop();
        if (found !== undefined) return found;
      }
      return undefined;
    };
  }
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function nullable(inner: Check): Check {
  return (v, path) => (v === null ? undefined : inner(v, path));
}

function array(item: Check): Check {
  return (v, path) => {
    if (!Array.isArray(v)) return problem(path, 'array', v);
    for (let i = 0; i < v.length; i++) {
      path.push(i);
      const found = item(v[i], path);
      path.pop();
      if (found !== undefined) return found;
    }
    return undefined;
  };
}

let compiler: Compiler | undefined;
const checks = new Map<string, Check | null>();

/** The JSON Schema of `ep`'s success answer in docs/openapi.json (or `document`), or null when it documents no body (a 204). */
export function responseSchemaOf(ep: Endpoint, document: Document = openApi()): Json | null {
  const op = document.paths[ep.path]?.[ep.method.toLowerCase()];
  const success = (op?.responses as Record<string, Json> | undefined)?.[String(ep.successStatus)];
  if (!op || op.operationId !== ep.id || !success) {
    throw new Error(`answer check: docs/openapi.json has no ${ep.successStatus} answer of ${ep.id} at ${ep.method} ${ep.path}: it is out of date (npm run docs)`);
  }
  const content = success.content as Record<string, { schema?: Json }> | undefined;
  return content?.['application/json']?.schema ?? null;
}

/** The compiled check of `ep`'s success answer (compiled once), or null when the contract documents no body. */
export function responseCheck(ep: Endpoint): Check | null {
  let check = checks.get(ep.id);
  if (check === undefined) {
    const slice = readSlice(ep.id);
    const schema = responseSchemaOf(ep, slice);
    // A slice's components are its own (a compiler per endpoint); the whole document's are shared.
    const by = slice ? new Compiler(slice.components.schemas) : (compiler ??= new Compiler(openApi().components.schemas));
    check = schema ? by.answerCheck(schema, `${ep.id} response`) : null;
    checks.set(ep.id, check);
  }
  return check;
}

/**
 * For tests: compile a schema of the document by the same rules (throws on what the checker does not interpret), as
 * responseCheck does (`verdictFirst`, the default), or the Check alone.
 */
export function compileSchema(schema: unknown, components: Record<string, Json> = openApi().components.schemas, verdictFirst = true): (value: unknown) => string | undefined {
  const c = new Compiler(components);
  const check = verdictFirst ? c.answerCheck(schema, '(schema)') : c.compile(schema, '(schema)');
  return (value) => check(value, []);
}

/** For tests: the Verdict of a schema (compiled after the Check, which refuses what it does not interpret). */
export function compileVerdict(schema: unknown, components: Record<string, Json> = openApi().components.schemas): Verdict {
  const c = new Compiler(components);
  c.compile(schema, '(schema)');
  return c.verdict(schema);
}
