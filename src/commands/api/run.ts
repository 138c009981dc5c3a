import { readFile } from 'node:fs/promises';
import { ApiError } from '../../client/errors.js';
import { redact } from '../../client/redact.js';
import { UsageError } from '../../errors.js';
import { redactValue } from '../../io/values.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type * as cmd from './index.js';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

type ApiFlags = Flags<typeof cmd.api>;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

async function readNamedFile(ctx: Context, file: string, flag: string): Promise<string> {
  if (file === '-') return ctx.io.readStdin();
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${file} (${flag}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'Check the path (use - for standard input).');
  }
}

/** `-F` values: true, false, null and numbers become JSON values; `@file` (or `@-`) reads a file; anything else is a string. */
async function typed(ctx: Context, key: string, value: string): Promise<Json> {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value.startsWith('@')) return (await readNamedFile(ctx, value.slice(1), `-F ${key}=${value}`)).replace(/\r?\n$/, '');
  return value;
}

/**
 * `key`, `key[sub]`, `key[]`, `key[][sub]`… into segments; '' stands for "append to the array".
 * Like gh: `-F 'ids[]=1' -F 'ids[]=2'` gives {ids: [1, 2]}; `-f 'entries[][entry]=A' -f 'entries[][entry]=B'`
 * gives {entries: [{entry: 'A'}, {entry: 'B'}]} (a key already set in the last object starts a new one).
 */
export function parseKey(key: string, flag: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) throw new UsageError(`${flag} key "${key}" is not valid`, 'Use key, key[sub], key[] or key[][sub].');
  return [m[1], ...[...m[2].matchAll(/\[([^[\]]*)\]/g)].map((s) => s[1])];
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Put `value` at the path `segs` in `target`; `''` segments append to arrays. */
export function setField(target: JsonObject, segs: string[], value: Json, original: string): void {
  const clash = () => new UsageError(`field "${original}" conflicts with another field of the same name`, 'Give each field once, or use key[] for a list.');
  let cur: JsonObject | Json[] = target;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    const last = i === segs.length - 1;
    const next = segs[i + 1];
    if (Array.isArray(cur)) {
      if (seg !== '') throw clash();
      if (last) {
        cur.push(value);
        return;
      }
      if (next === '') throw new UsageError(`field "${original}": nested lists (key[][]) are not supported`, 'Use --input with a JSON file instead.');
      // key[][sub]: continue in the last object unless it already has `sub` (then start a new one).
      const tail: Json | undefined = cur[cur.length - 1];
      if (isObject(tail) && !(next in tail)) cur = tail;
      else {
        const obj: JsonObject = {};
        cur.push(obj);
        cur = obj;
      }
      continue;
    }
    if (seg === '') throw clash();
    if (last) {
      if (seg in cur) throw clash();
      cur[seg] = value;
      return;
    }
    const existing: Json | undefined = cur[seg];
    const wantArray = next === '';
    if (existing === undefined) cur[seg] = wantArray ? [] : {};
    else if (wantArray ? !Array.isArray(existing) : !isObject(existing)) throw clash();
    cur = cur[seg] as JsonObject | Json[];
  }
}

/** Fields as a query: scalars as is, lists repeated; nested objects cannot be expressed. */
function toQuery(fields: JsonObject): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (Array.isArray(v) && v.every((x) => !isObject(x) && !Array.isArray(x))) out[k] = v.map((x) => String(x));
    else if (isObject(v) || Array.isArray(v)) throw new UsageError(`field "${k}" is nested and cannot be sent in a query string`, 'Send a body instead: pass a method such as POST, or use --input.');
    else out[k] = String(v);
  }
  return out;
}

export async function api(ctx: Context, a: string, b: string | undefined, flags: ApiFlags): Promise<void> {
  let method: string | undefined;
  let path: string;
  if (b === undefined) path = a;
  else {
    method = a.toUpperCase();
    path = b;
    if (!METHODS.has(method)) throw new UsageError(`"${a}" is not an HTTP method`, `Use one of ${[...METHODS].join(', ')}.`);
  }
  const fields: JsonObject = {};
  for (const [k, v] of flags.rawField) setField(fields, parseKey(k, '-f'), v, k);
  for (const [k, v] of flags.field) setField(fields, parseKey(k, '-F'), await typed(ctx, k, v), k);
  const headers: Record<string, string> = {};
  for (const [k, v] of flags.header) {
    if (k.toLowerCase() === 'authorization') throw new UsageError('-H Authorization is not allowed', 'The key comes from your profile or NOTEVOX_API_KEY.');
    headers[k] = v;
  }
  const hasFields = Object.keys(fields).length > 0;
  // Like gh: GET, or POST when fields or a body are given (--paginate always reads).
  method ??= !flags.paginate && (hasFields || flags.input) ? 'POST' : 'GET';
  const bodiless = method === 'GET' || method === 'HEAD';
  if (flags.input && bodiless) throw new UsageError(`--input sends a body, which ${method} does not take`, 'Pass a method such as POST, PUT or PATCH.');
  let body: unknown;
  if (flags.input) {
    const text = await readNamedFile(ctx, flags.input, '--input');
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`--input ${flags.input === '-' ? '(standard input)' : flags.input} is not valid JSON: ${(e as Error).message}`);
    }
  }
  let query: Record<string, string | string[]> | undefined;
  if (hasFields) {
    // With --input the body is the file, so fields go to the query string (as with gh).
    if (bodiless || flags.input) query = toQuery(fields);
    else body = fields;
  }
  const client = await ctx.client();
  const key = (await ctx.credentials()).apiKey;
  const { renderValue, createListWriter } = await import('../../io/render.js');
  const output = ctx.output.chosen ? ctx.output : { ...ctx.output, format: 'json' as const };

  const printHead = (status: number, h: Record<string, string>) => {
    const lines = [`HTTP ${status}`, ...Object.entries(h).map(([k, v]) => `${k}: ${v}`)];
    ctx.io.err(redact(lines.join('\n'), key) + '\n\n');
  };
  /** An error answer: with -i its status and headers, and (as gh does) its body on stdout; then the usual error. */
  const failed = (err: unknown): never => {
    if (err instanceof ApiError) {
      if (flags.include) printHead(err.status, err.headers);
      if (err.rawBody.trim()) ctx.io.out(err.rawBody.endsWith('\n') ? err.rawBody : err.rawBody + '\n');
    }
    throw err;
  };

  if (flags.paginate) {
    if (method !== 'GET') throw new UsageError('--paginate works with GET requests only', 'Drop the method, or --paginate.');
    const writer = createListWriter(ctx.io, [], output);
    let q: Record<string, string | string[]> = { ...(query ?? {}) };
    for (;;) {
      const res = await client.request(method, path, { query: q, headers }).catch(failed);
      if (flags.include) printHead(res.status, res.headers);
      // Any path: whatever it answers is checked here.
      const page = res.data as { content?: unknown; nextCursor?: unknown } | null;
      if (!Array.isArray(page?.content)) throw new UsageError(`${path} did not answer a page ({content, nextCursor}); drop --paginate`);
      writer.write(redactValue(page.content as object[], key));
      const cursor = page.nextCursor;
      if (typeof cursor !== 'string' || cursor === '' || cursor === q.cursor) break;
      q = { ...q, cursor };
    }
    writer.end();
    return;
  }

  const res = await client.request(method, path, { query, body, headers }).catch(failed);
  if (flags.include) printHead(res.status, res.headers);
  // What the server sent, as it came, except the key wherever it echoed it (as in error bodies and headers).
  if (res.data === null || res.data === undefined) {
    const raw = redact(res.rawBody, key);
    if (raw) ctx.io.out(raw.endsWith('\n') ? raw : raw + '\n');
    return;
  }
  renderValue(ctx.io, redactValue(res.data, key), output);
}
