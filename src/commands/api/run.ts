import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import type { Context } from '../types.js';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

interface ApiFlags {
  rawField: string[];
  field: string[];
  input?: string;
  header: string[];
  include?: boolean;
  paginate?: boolean;
}

function splitPair(s: string, sep: string, flag: string): [string, string] {
  const i = s.indexOf(sep);
  if (i <= 0) throw new UsageError(`${flag} "${s}" must look like key${sep}value`);
  return [s.slice(0, i), s.slice(i + 1)];
}

async function typed(value: string): Promise<unknown> {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value.startsWith('@')) return (await readFile(value.slice(1), 'utf8')).replace(/\n$/, '');
  return value;
}

async function readInput(ctx: Context, file: string): Promise<unknown> {
  let text: string;
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
    text = Buffer.concat(chunks).toString('utf8');
  } else {
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read --input ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--input ${file === '-' ? 'stdin' : file} is not valid JSON: ${(e as Error).message}`);
  }
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
  const fields: Record<string, unknown> = {};
  for (const f of flags.rawField) {
    const [k, v] = splitPair(f, '=', '-f');
    fields[k] = v;
  }
  for (const f of flags.field) {
    const [k, v] = splitPair(f, '=', '-F');
    fields[k] = await typed(v);
  }
  const headers: Record<string, string> = {};
  for (const h of flags.header) {
    const [k, v] = splitPair(h, ':', '-H');
    if (k.trim().toLowerCase() === 'authorization') throw new UsageError('-H Authorization is not allowed', 'The key comes from your profile or NOTEVOX_API_KEY.');
    headers[k.trim()] = v.trim();
  }
  const hasFields = Object.keys(fields).length > 0;
  method ??= !flags.paginate && (hasFields || flags.input) ? 'POST' : 'GET';
  const inQuery = method === 'GET' || method === 'HEAD' || method === 'DELETE';
  let body: unknown = flags.input ? await readInput(ctx, flags.input) : undefined;
  let query: Record<string, string> | undefined;
  if (hasFields) {
    if (inQuery || flags.input) query = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
    else body = fields;
  }
  const client = await ctx.client();
  const { renderValue, createListWriter } = await import('../../io/render.js');

  if (flags.paginate) {
    if (method !== 'GET') throw new UsageError('--paginate works with GET requests only');
    const writer = createListWriter(ctx.io, [], ctx.output.format ? ctx.output : { ...ctx.output, format: 'json' });
    let cursor: string | undefined;
    let q = { ...(query ?? {}) };
    do {
      const res = await client.request<{ content?: unknown[]; nextCursor?: string | null }>(method, path, { query: q, headers });
      if (flags.include) printHead(ctx, res.status, res.headers);
      if (!Array.isArray(res.data?.content)) throw new UsageError(`${path} did not answer a page ({content, nextCursor}); drop --paginate`);
      writer.write(res.data.content as object[]);
      cursor = res.data.nextCursor ?? undefined;
      q = { ...q, cursor: cursor ?? '' };
    } while (cursor);
    writer.end();
    return;
  }

  const res = await client.request<unknown>(method, path, { query, body, headers });
  if (flags.include) printHead(ctx, res.status, res.headers);
  if (res.data === null || res.data === undefined) {
    if (res.rawBody) ctx.io.out(res.rawBody.endsWith('\n') ? res.rawBody : res.rawBody + '\n');
    return;
  }
  renderValue(ctx.io, res.data, ctx.output.format ? ctx.output : { ...ctx.output, format: 'json' });
}

function printHead(ctx: Context, status: number, headers: Record<string, string>): void {
  ctx.io.err(`HTTP ${status}\n`);
  for (const [k, v] of Object.entries(headers)) ctx.io.err(`${k}: ${v}\n`);
  ctx.io.err('\n');
}
