import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_DELIVERY } from '../../contract/events.js';
import { EXIT, UsageError } from '../../errors.js';
import { readSecret } from '../secret-file.js';
import type { Flags } from '../registry.js';
import type { Context } from '../types.js';
import type { PostOutcome } from '../../post-json.js';
import type * as cmd from './index.js';

/**
 * `notevox webhooks listen`: a local receiver for the events of decisions.md §6. It checks the Bearer secret in
 * constant time (401 otherwise, with a warning on stderr and nothing printed), answers at once, drops duplicates by
 * event id, and prints each event: a line on a terminal, the envelope as one JSON line when piped or with -o ndjson/json.
 * With --forward-to it POSTs the same body and headers to the app and answers the sender with the app's status, so
 * the sender's retries exercise the app; only an event the app accepted (2xx) counts as seen for deduplication.
 * An id being forwarded is in flight: a duplicate that arrives meanwhile is not forwarded again, and is answered
 * with the outcome of the forward in flight. Each event is printed once, when it first arrives; a delivery of an
 * id already printed (a retry after the app failed) is reported as a retry, never as a new event.
 */

interface Envelope {
  id: string;
  type: string;
  createdAt?: string;
  workspaceGuid?: string | null;
  data?: { resourceType?: string; resourceId?: string };
}

const MAX_BODY = 2 * 1024 * 1024;
/** Event ids remembered for deduplication (the oldest are forgotten beyond this). */
const MAX_SEEN = 100_000;
/** Headers passed on to --forward-to besides any x-*: the rest (host, length, connection) belong to one hop. */
const FORWARDED_HEADERS = new Set(['content-type', 'authorization', 'user-agent', 'accept']);

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** `Authorization: Bearer <secret>`, compared in constant time (digests of equal length, whatever was sent). */
export function bearerMatches(header: string | undefined, secret: string): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  const same = timingSafeEqual(sha(m?.[1] ?? ''), sha(secret));
  return same && m !== null;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(text);
}

function checkedUrl(flag: string, value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.href;
  } catch {
    // below
  }
  throw new UsageError(`${flag} "${value}" is not an http:// or https:// URL`, `e.g. ${flag} http://127.0.0.1:3000/webhooks`);
}

export async function listen(ctx: Context, flags: Flags<typeof cmd.listen>): Promise<number> {
  const port = flags.port;
  const forwardTo = flags.forwardTo !== undefined ? checkedUrl('--forward-to', flags.forwardTo) : undefined;
  const only = flags.events;
  const format = ctx.output.format;
  if (ctx.output.chosen && (format === 'csv' || format === 'tsv')) throw new UsageError(`webhooks listen prints a line per event or NDJSON, not ${format}`, 'Use -o table or -o ndjson.');
  if (ctx.output.query !== undefined) throw new UsageError('webhooks listen streams events and takes no --query', 'Pipe its NDJSON into jq instead: notevox webhooks listen -o ndjson | jq …');
  const secret = await readSecret({ file: flags.secretFile, flag: '--secret-file', env: ctx.env, envName: 'NOTEVOX_WEBHOOK_SECRET', what: 'webhook secret' });
  if (secret === undefined)
    throw new UsageError('no webhook secret to check deliveries against', 'Pass --secret-file FILE or set NOTEVOX_WEBHOOK_SECRET to the secret of the endpoint (for the sandbox: its --webhook secret).');
  const lines = format === 'table';

  /** Ids the app (or, without --forward-to, this receiver) accepted: a later delivery of one is a duplicate. */
  const seen = new Map<string, true>();
  /** Ids printed once already: a later delivery of one (the sender retrying) is reported as a retry. */
  const printed = new Map<string, true>();
  /** Forwards in flight, by event id: a duplicate arriving meanwhile waits for this one instead of forwarding again. */
  const forwarding = new Map<string, Promise<PostOutcome>>();
  const counted = new Set<string>();
  let rejected = 0;
  const outcome = (out: PostOutcome) => (out.status !== undefined ? String(out.status) : `not forwarded (${out.error})`);
  const print = (e: Envelope, forwarded: PostOutcome | undefined) => {
    counted.add(e.id);
    if (!lines) return ctx.io.out(JSON.stringify(e) + '\n');
    const app = forwarded !== undefined ? `  → ${outcome(forwarded)}` : '';
    ctx.io.out(`${e.createdAt ?? new Date().toISOString()}  ${e.type.padEnd(26)} ${e.id}  ${e.data?.resourceType ?? '?'} ${e.data?.resourceId ?? '?'}${app}\n`);
  };
  /** A retry of an event printed before: a marked line on a terminal; on stderr beside NDJSON (the stream has it once). */
  const printRetry = (e: Envelope, attempt: string | undefined, forwarded: PostOutcome) => {
    const what = `retry of ${e.id} (${e.type}${attempt ? `, attempt ${attempt}` : ''})  → ${outcome(forwarded)}`;
    if (lines) ctx.io.out(`${new Date().toISOString()}  ↻ ${what}\n`);
    else ctx.io.info(what);
  };
  const bounded = (m: Map<string, true>, id: string) => {
    m.set(id, true);
    if (m.size > MAX_SEEN) m.delete(m.keys().next().value!);
  };
  const remember = (id: string) => bounded(seen, id);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return answer(res, 405, { error: 'POST events here' }, { allow: 'POST' });
    const from = req.socket.remoteAddress ?? 'an unknown address';
    const raw = await readBody(req);
    if (!bearerMatches(req.headers.authorization, secret)) {
      rejected++;
      ctx.io.warn(`rejected a delivery from ${from}: ${req.headers.authorization ? 'wrong' : 'no'} Bearer secret (answered 401)`);
      return answer(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
    }
    if (raw === null) return answer(res, 413, { error: `body over ${MAX_BODY} bytes` });
    let e: Envelope;
    try {
      e = JSON.parse(raw.toString('utf8')) as Envelope;
      if (typeof e?.id !== 'string' || typeof e.type !== 'string') throw new Error('no id or type');
    } catch (err) {
      ctx.io.warn(`rejected a delivery from ${from}: not an event envelope (${(err as Error).message}; answered 400)`);
      return answer(res, 400, { error: 'not an event envelope' });
    }
    const attempt = req.headers[WEBHOOK_DELIVERY.attemptHeader.toLowerCase()];
    // Loaded before the checks below, so that from the duplicate check to marking the id in flight nothing awaits.
    const post = forwardTo === undefined ? undefined : (await import('../../post-json.js')).postJson;
    if (seen.has(e.id)) {
      ctx.io.info(`duplicate ${e.id} (${e.type}${attempt ? `, attempt ${String(attempt)}` : ''}) dropped`);
      return answer(res, 200, { received: true, duplicate: true });
    }
    if (only && !only.some((t) => t === e.type)) {
      remember(e.id);
      return answer(res, 200, { received: true, skipped: true });
    }
    if (forwardTo === undefined || post === undefined) {
      remember(e.id);
      answer(res, 200, { received: true });
      return print(e, undefined);
    }
    const inFlight = forwarding.get(e.id);
    if (inFlight) {
      // The same event again while it is being forwarded: the app gets it once, and this sender the same answer.
      ctx.io.info(`duplicate ${e.id} (${e.type}${attempt ? `, attempt ${String(attempt)}` : ''}) while it is being forwarded: not forwarded again`);
      const out = await inFlight;
      if (out.status === undefined) return answer(res, 502, { error: `forwarding failed: ${out.error}` });
      if (out.status >= 200 && out.status < 300) return answer(res, 200, { received: true, duplicate: true });
      return answer(res, out.status, out.body ?? '', typeof out.headers?.['content-type'] === 'string' ? { 'content-type': out.headers['content-type'] } : {});
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && (FORWARDED_HEADERS.has(k) || k.startsWith('x-'))) headers[k] = v;
    const sending = post(forwardTo, raw.toString('utf8'), headers, { timeoutMs: WEBHOOK_DELIVERY.timeoutSeconds * 1000, signal: ctx.signal });
    forwarding.set(e.id, sending);
    let out: PostOutcome;
    try {
      out = await sending;
    } finally {
      forwarding.delete(e.id);
    }
    if (out.status !== undefined && out.status >= 200 && out.status < 300) remember(e.id);
    if (out.status === undefined) {
      ctx.io.warn(`could not forward ${e.id} to ${forwardTo}: ${out.error} (answered 502, so the sender retries)`);
      answer(res, 502, { error: `forwarding failed: ${out.error}` });
    } else {
      const type = out.headers?.['content-type'];
      answer(res, out.status, out.body ?? '', typeof type === 'string' ? { 'content-type': type } : {});
    }
    const retry = printed.has(e.id);
    bounded(printed, e.id);
    if (retry) printRetry(e, attempt === undefined ? undefined : String(attempt), out);
    else print(e, out);
    if (!lines && out.status !== undefined) ctx.io.info(`forwarded ${e.id} to ${forwardTo}: ${out.status}${retry ? ' (retry)' : ''}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      ctx.io.warn(`could not handle a delivery: ${err.message}`);
      if (!res.headersSent) answer(res, 500, { error: 'receiver failed' });
    });
  });
  ctx.takeOverInterrupt();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new UsageError(`port ${port} is already in use`, 'Pick another with --port, or --port 0 for any free port.') : err),
    );
    server.listen(port, flags.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  ctx.io.info(
    `Ready: receiving webhooks on http://${host}:${addr.port}/ (any path)${forwardTo ? `, forwarding to ${forwardTo}` : ''}${only ? `, only ${only.join(', ')}` : ''}. Ctrl-C to stop.`,
  );
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  ctx.io.info(`Stopped: ${counted.size} event${counted.size === 1 ? '' : 's'} received${rejected ? `, ${rejected} rejected delivery(ies)` : ''}.`);
  return EXIT.INTERRUPTED;
}
