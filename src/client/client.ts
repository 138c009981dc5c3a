/**
 * The HTTP client: builds requests from the endpoint table, retries what is safe to repeat, bounds every attempt,
 * traces under --debug, and turns failures into typed errors. Two transports serve it (see transport.ts):
 * node:http for plain requests made one at a time and for uploads, undici (loaded on first use) for proxies and
 * requests in flight at once.
 */

import { statSync } from 'node:fs';
import { isLoopbackHost } from '../config/baseurl.js';
import { sleep as pause } from '../timing.js';
import { API_PREFIX, type PageSpec } from '../contract/limits.js';
import type { ItemOf, ListEndpointId, BodyOf, PathOf, QueryOf, ResponseOf } from '../contract/api.js';
import type { EndpointSchemas } from '../contract/endpoint-schemas.js';
import { endpoint, type EndpointId } from '../contract/endpoints.js';
import type { Endpoint, PathParams } from '../contract/types.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { ApiError, NetworkError, notLoggedIn, redirectError, statusText } from './errors.js';
import { FileBody } from './file-body.js';
import { createNodeTransport } from './node-transport.js';
import { redact, safeUrl, traceHeaderLines } from './redact.js';
import { backoffMs, classifyNetworkError, formatSeconds, RETRYABLE_STATUSES, SAFE_METHODS, type NetFailure } from './retry.js';
import { describeProxy, proxyFor, watchdog, type Transport, type TransportKind, type WireResponse } from './transport.js';

export { ApiError, NetworkError, explainError } from './errors.js';
export { parseRateLimit } from './retry.js';
export { redact } from './redact.js';

export interface RetryEvent {
  method: string;
  path: string;
  /** The attempt about to be made (2 for the first retry). */
  attempt: number;
  maxAttempts: number;
  waitMs: number;
  reason: string;
  /** HTTP status that caused the retry; undefined for connection failures. */
  status?: number;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /**
   * Total time per attempt (connect, proxy handshake, headers and body), default 30000; also the longest silence
   * while sending or receiving. Uploads have no total, only the silence. A timed-out attempt is not repeated.
   */
  timeoutMs?: number;
  /** Default 10000 (never more than timeoutMs). */
  connectTimeoutMs?: number;
  /** Default 3. */
  maxRetries?: number;
  /** Cap on the sum of retry waits, default 60000. */
  maxTotalWaitMs?: number;
  debug?: boolean;
  /** stderr writer for retry notices and traces (one line per call, no newline). */
  log: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Clock for Retry-After dates and trace durations (ms since the epoch). */
  now?: () => number;
  userAgent?: string;
  /** Called before every retry wait (progress bars count retries with it). */
  onRetry?: (event: RetryEvent) => void;
  /** Where proxy variables are read from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The error for an endpoint that needs a key when none is set (default: a generic "not logged in", exit 3). */
  notLoggedIn?: () => Error;
  /** An undici Dispatcher to use for every request (tests inject a MockAgent); implies the undici transport; not closed by close(). */
  dispatcher?: unknown;
  /**
   * `auto` (the default): node:http for plain requests made one at a time and for uploads, undici for proxies and
   * once requests overlap. `node` or `undici` force one (tests run the same cases on both; node cannot use a proxy).
   */
  transport?: 'auto' | TransportKind;
  /** One transport for every request, in place of node:http and undici (tests: the sandbox's app in this process, no socket); not closed by close(). */
  wire?: Transport;
  /**
   * Judge each 2xx answer of an endpoint (every method, every page of a list) before the caller sees it; throws when
   * it does not fit. The commands' client checks against the contract here (context.ts); unset, nothing is checked.
   */
  checkAnswer?: (ep: Endpoint, data: unknown) => void | Promise<void>;
}

/**
 * A request body that is JSON already, as text or as its UTF-8 bytes (wm import's batches, built from bytes: sent
 * as they are, with no string made of them on the way).
 */
export class JsonText {
  constructor(readonly text: string | Uint8Array) {}
}

export type QueryValue = string | number | boolean | undefined | null | string[];

export interface RequestOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Reads a 2xx answer's text in place of JSON.parse and the contract check (checkAnswer), for answers too big to
   * make objects of when the caller needs little of them (wm import: a create's thousand items, of which it counts
   * them): what it returns is the response's `data`. It returns undefined for a text it does not recognise, which is
   * then parsed and checked as any answer; it must return a value only for a text that the check passes. Not used
   * under --debug, whose trace checks every answer against the schemas.
   */
  readAnswer?: (text: string) => unknown;
}

/** A request to an endpoint that is not in the table (tests, `notevox api`): nothing is checked. */
export interface RawRequest extends RequestOptions {
  path?: PathParams;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

/**
 * A request to a contract endpoint: its path parameters (required when the path has any), query and body, typed from
 * the endpoint's path template and zod schemas (contract/api.ts).
 */
export type CallRequest<Id extends EndpointId> = Id extends EndpointId
  ? RequestOptions &
      ([keyof PathOf<Id>] extends [never] ? { path?: undefined } : { path: PathOf<Id> }) &
      (Optional<QueryOf<Id>> extends true ? { query?: QueryOf<Id> } : { query: QueryOf<Id> }) &
      (Optional<BodyOf<Id>> extends true ? { body?: BodyOf<Id> } : { body: BodyOf<Id> })
  : never;

/** Whether a query or body may be left out: it may be undefined, or every field of it is optional. */
type Optional<T> = undefined extends T ? true : Empty extends T ? true : false;
/** `{}`: what a request that sets nothing is. */
type Empty = Record<never, never>;

/** The request argument: optional when the endpoint needs nothing. */
type CallArgs<Id extends EndpointId> = Empty extends CallRequest<Id> ? [req?: CallRequest<Id>] : [req: CallRequest<Id>];
type PaginateArgs<Id extends EndpointId> = Empty extends CallRequest<Id> ? [req?: CallRequest<Id>, opts?: PaginateOptions] : [req: CallRequest<Id>, opts?: PaginateOptions];

export interface ApiResponse<T> {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Parsed JSON; null for 204 or an empty body; the text itself when the body is not JSON. */
  data: T;
  attempts: number;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PaginateOptions {
  pageSize?: number;
  /** Stop after this many items. */
  limit?: number;
  /** Start from this cursor. */
  cursor?: string;
}

export interface UploadOptions {
  /** Path of the file to stream. */
  file: string;
  size: number;
  contentType: string;
  onProgress?: (bytesSent: number) => void;
  signal?: AbortSignal;
}

export interface ClientStats {
  requests: number;
  retries: number;
  rateLimited: number;
}

export interface ApiClient {
  readonly baseUrl: string;
  readonly stats: ClientStats;
  /** Call a contract endpoint by id; the answer has the type of the endpoint's response schema. */
  call<Id extends EndpointId>(id: Id, ...req: CallArgs<Id>): Promise<ApiResponse<ResponseOf<Id>>>;
  /** Call an endpoint row that may not be in the table (tests of the client itself); the answer is unchecked. */
  callEndpoint(ep: Endpoint, req?: RawRequest): Promise<ApiResponse<unknown>>;
  /** Any path: relative paths get the API prefix, `/…` paths are used as-is, full URLs must be on the base URL's origin. */
  request(method: string, pathOrUrl: string, req?: Omit<RawRequest, 'path'>): Promise<ApiResponse<unknown> & { rawBody: string }>;
  /** Follow `nextCursor` of a list endpoint; the last page yielded carries the cursor to continue from (null at the end). */
  paginate<Id extends ListEndpointId>(id: Id, ...args: PaginateArgs<Id>): AsyncGenerator<Page<ItemOf<Id>>>;
  /** `paginate` for an endpoint row that may not be in the table (tests of the client itself). */
  paginateEndpoint(ep: Endpoint, req?: RawRequest, opts?: PaginateOptions): AsyncGenerator<Page<unknown>>;
  /** PUT a file to a pre-signed URL (no Authorization, no retries). */
  upload(url: string, opts: UploadOptions): Promise<{ status: number }>;
  close(): Promise<void>;
}

export const CLIENT_DEFAULTS = { timeoutMs: 30_000, connectTimeoutMs: 10_000, maxRetries: 3, maxTotalWaitMs: 60_000 } as const;
const CURSOR_PARAM = 'cursor';

/** What a streamed body tells the watchdog: a chunk went out, the last one went out. */
interface BodyProgress {
  sent(): void;
  done(): void;
}

interface Prepared {
  method: string;
  url: URL;
  headers: Record<string, string>;
  /** JSON text or its UTF-8 bytes, or a factory for a fresh file body per attempt. */
  body?: string | Uint8Array | ((progress: BodyProgress) => FileBody);
  retryable: boolean;
  signal?: AbortSignal;
  /** Bound the whole attempt by the timeout (uploads are bound by silences only). */
  totalTimeout: boolean;
  /** Hide the query in traces (signed upload URLs). */
  hideQuery?: boolean;
  /** The proxy this request goes through (proxyFor). */
  proxy?: URL;
  /** The contract's endpoint id, for hints that name its resource. */
  endpoint?: string;
}

type Received = Omit<WireResponse, 'statusText'>;

type Attempt = { ok: true; res: Received } | { ok: false; failure: NetFailure };

interface Failure {
  error: ApiError | NetworkError;
  retryable: boolean;
  reason: string;
  status?: number;
  retryAfterMs?: number;
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/** `?a=1&b=x&b=y`, skipping undefined and null, repeating arrays; '' when empty. */
export function buildQuery(query: Record<string, QueryValue> | undefined): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(item))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The endpoint's path with `{name}` replaced by encoded values; a missing value is a usage error. */
export function fillPath(ep: Endpoint, params: PathParams = {}): string {
  return ep.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null || value === '') throw new UsageError(`missing path parameter "${name}" for ${ep.id}`);
    return encodeURIComponent(String(value));
  });
}

function parseData(res: Received): unknown {
  if (res.status === 204 || res.rawBody.trim() === '') return null;
  try {
    return JSON.parse(res.rawBody);
  } catch {
    return res.rawBody;
  }
}

/** `promise`, cut short by an abort of `signal` (rejecting with its reason). */
function untilAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function pageSizeFor(spec: PageSpec, pageSize: number | undefined, remaining: number | undefined): number | undefined {
  // Ask for no more than is still wanted, so that the cursor of the last page continues exactly after it.
  const size = remaining !== undefined ? Math.min(pageSize ?? spec.default, remaining) : pageSize;
  return size === undefined ? undefined : Math.max(spec.min, Math.min(spec.max, size));
}

function readPage<T>(ep: Endpoint, data: unknown): Page<T> {
  const body = data as { content?: unknown; nextCursor?: unknown } | null;
  if (!body || typeof body !== 'object' || !Array.isArray(body.content)) {
    throw new CliError(`unexpected response from ${ep.id}: no "content" list`, {
      exitCode: EXIT.UNEXPECTED,
      hint: 'The service answered in a shape this notevox does not know: check the base URL (notevox auth status), or rerun with --debug and report it.',
    });
  }
  const next = typeof body.nextCursor === 'string' && body.nextCursor !== '' ? body.nextCursor : null;
  return { items: body.content as T[], nextCursor: next };
}

export function createClient(opts: ClientOptions): ApiClient {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const baseOrigin = new URL(base).origin;
  const key = opts.apiKey?.trim() || undefined;
  const timeoutMs = opts.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs;
  const connectTimeoutMs = opts.connectTimeoutMs ?? CLIENT_DEFAULTS.connectTimeoutMs;
  const maxRetries = opts.maxRetries ?? CLIENT_DEFAULTS.maxRetries;
  const maxTotalWaitMs = opts.maxTotalWaitMs ?? CLIENT_DEFAULTS.maxTotalWaitMs;
  const sleep = opts.sleep ?? ((ms: number) => pause(ms));
  const random = opts.random ?? Math.random;
  const now = opts.now ?? Date.now;
  const env = opts.env ?? process.env;
  const userAgent = opts.userAgent ?? `notevox (node ${process.version})`;
  const stats: ClientStats = { requests: 0, retries: 0, rateLimited: 0 };

  /** Every line the client prints goes through here: the key never reaches the terminal. */
  const log = (line: string) => opts.log(redact(line, key));
  const trace = (lines: string[]) => {
    if (opts.debug) lines.forEach(log);
  };
  /**
   * trace() of lines made only under --debug: without it a request's lines (a URL copied and stripped of its
   * credentials through URL's setters, the header lines) are not built at all.
   */
  const traceLazily = (lines: () => string[]) => {
    if (opts.debug) trace(lines());
  };

  const forced: TransportKind | undefined = opts.dispatcher !== undefined ? 'undici' : opts.transport === 'auto' ? undefined : opts.transport;
  const transports: Partial<Record<TransportKind, Promise<Transport>>> = {};
  const getTransport = (kind: TransportKind): Promise<Transport> => {
    if (opts.wire) return Promise.resolve(opts.wire);
    const made = (transports[kind] ??=
      kind === 'node'
        ? Promise.resolve(createNodeTransport())
        : import('./undici-transport.js').then((m) =>
            m.createUndiciTransport({ connectMs: Math.min(connectTimeoutMs, timeoutMs), idleMs: timeoutMs, dispatcher: opts.dispatcher as never }),
          ));
    made.catch(() => delete transports[kind]);
    return made;
  };
  /** Requests in flight; once two overlap the client becomes a pool (undici) for the rest of its life. */
  let inFlight = 0;
  let pooled = false;
  const traced = new Set<string>();
  const traceOnce = (line: string | undefined) => {
    if (line && !traced.has(line)) {
      traced.add(line);
      trace([line]);
    }
  };

  /** Which transport serves this request, and why undici when it does (for --debug). */
  function choose(p: Prepared): TransportKind {
    if (forced) return forced;
    // An upload is one long stream on a connection of its own, and node:http lets its buffers be reused (file-body.ts):
    // it takes undici's pool only through a proxy, even while other requests are in flight.
    const upload = typeof p.body === 'function';
    const why = p.proxy ? 'a proxy' : pooled && !upload ? 'requests in flight at once' : undefined;
    if (why) traceOnce(`transport: undici (${why})`);
    else if (upload) traceOnce('transport: node:http (an upload)');
    return why ? 'undici' : 'node';
  }

  function headersFor(extra: Record<string, string> | undefined, auth: boolean, json: boolean): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json', 'user-agent': userAgent };
    if (json) h['content-type'] = 'application/json';
    for (const [k, v] of Object.entries(extra ?? {})) h[k.toLowerCase()] = v;
    if (auth && key) h.authorization = `Bearer ${key}`;
    return h;
  }

  /** The proxy for `url` (none for loopback hosts), traced once under --debug. */
  function proxyOf(url: URL): URL | undefined {
    const decision = proxyFor(url, env);
    traceOnce(describeProxy(url, decision, env));
    return decision.proxy;
  }

  function prepare(method: string, url: URL, req: Omit<RawRequest, 'path'>, auth: boolean, retryable: boolean): Prepared {
    const json = req.body !== undefined;
    return {
      method,
      url,
      headers: headersFor(req.headers, auth, json),
      body: json ? (req.body instanceof JsonText ? req.body.text : JSON.stringify(req.body)) : undefined,
      retryable,
      signal: req.signal,
      totalTimeout: true,
      proxy: proxyOf(url),
    };
  }

  async function attempt(p: Prepared, n: number): Promise<Attempt> {
    if (inFlight > 0) pooled = true;
    inFlight++;
    try {
      return await attemptOn(await getTransport(choose(p)), p, n);
    } finally {
      inFlight--;
    }
  }

  async function attemptOn(transport: Transport, p: Prepared, n: number): Promise<Attempt> {
    stats.requests++;
    const started = now();
    traceLazily(() => [`> ${p.method} ${safeUrl(p.url, p.hideQuery)}`, ...traceHeaderLines('>', p.headers)]);
    const streamed = typeof p.body === 'function';
    const dog = watchdog({
      connectMs: Math.min(connectTimeoutMs, timeoutMs),
      idleMs: timeoutMs,
      totalMs: p.totalTimeout ? timeoutMs : undefined,
      proxied: p.proxy !== undefined,
      streamedBody: streamed,
    });
    // One signal for the transport: the watchdog fired, or the caller gave up.
    const stop = new AbortController();
    dog.fired.catch((timeout: unknown) => stop.abort(timeout));
    const onCallerAbort = () => stop.abort(p.signal?.reason);
    if (p.signal?.aborted) onCallerAbort();
    else p.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const body = typeof p.body === 'function' ? p.body({ sent: dog.sent, done: dog.bodyDone }) : p.body;
      const sending = transport.send({ method: p.method, url: p.url, headers: p.headers, body, proxy: p.proxy, signal: stop.signal, progress: dog.progress });
      sending.catch(() => {});
      // The race makes the watchdog final even if a transport were slow to give up.
      const res = await Promise.race([sending, dog.fired]);
      if (res.status === 429) stats.rateLimited++;
      traceLazily(() => [`< ${res.status} ${statusText(res.status) ?? res.statusText} ${now() - started}ms attempt ${n}`, ...traceHeaderLines('<', res.headers)]);
      return { ok: true, res: { status: res.status, headers: res.headers, rawBody: res.rawBody } };
    } catch (err) {
      if (p.signal?.aborted) throw p.signal.reason ?? err;
      if (err instanceof CliError) throw err; // from the body being sent (a file that shrank while uploading)
      const failure = classifyNetworkError(err);
      if (!failure) {
        const message = err instanceof Error ? err.message : String(err);
        throw new CliError(redact(`${p.method} ${p.url.host} failed: ${message}`, key), { exitCode: EXIT.UNEXPECTED });
      }
      trace([`< ${failure.code} ${failure.reason} ${now() - started}ms attempt ${n}`]);
      return { ok: false, failure };
    } finally {
      dog.stop();
      p.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** What went wrong with a failed attempt, and whether it is worth repeating. */
  function judge(result: Attempt, p: Prepared, n: number): Failure {
    if (!result.ok) {
      const error = new NetworkError({
        target: p.url.host,
        failure: result.failure,
        attempts: n,
        key,
        loopback: isLoopbackHost(p.url.hostname),
        proxy: p.proxy?.host,
        timeoutMs,
      });
      return { error, retryable: result.failure.retryable, reason: result.failure.reason };
    }
    const { status } = result.res;
    if (status >= 300 && status < 400) return { error: redirectError(result.res, p.url, key), status, retryable: false, reason: `${status} redirect` };
    const error = ApiError.fromResponse(result.res, { key, nowMs: now(), endpoint: p.endpoint });
    const ra = error.retryAfterSeconds;
    const what = status === 429 ? 'rate limited' : error.errorType;
    return {
      error,
      status,
      retryable: RETRYABLE_STATUSES.has(status),
      reason: `${status} ${what}${ra !== undefined ? ` (Retry-After ${ra}s)` : ''}`,
      retryAfterMs: ra !== undefined ? ra * 1000 : undefined,
    };
  }

  async function execute(p: Prepared): Promise<Received & { attempts: number }> {
    const maxAttempts = p.retryable ? maxRetries + 1 : 1;
    let waited = 0;
    for (let n = 1; ; n++) {
      const result = await attempt(p, n);
      if (result.ok && isSuccess(result.res.status)) return { ...result.res, attempts: n };
      const failure = judge(result, p, n);
      const wait = failure.retryAfterMs ?? backoffMs(n - 1, random);
      if (!failure.retryable || n >= maxAttempts || waited + wait > maxTotalWaitMs) throw failure.error;
      log(`retrying ${p.method} ${p.url.pathname} in ${formatSeconds(wait)} (attempt ${n + 1}/${maxAttempts}): ${failure.reason}`);
      stats.retries++;
      opts.onRetry?.({ method: p.method, path: p.url.pathname, attempt: n + 1, maxAttempts, waitMs: wait, reason: failure.reason, status: failure.status });
      waited += wait;
      await untilAborted(sleep(wait), p.signal);
    }
  }

  async function callEndpoint(ep: Endpoint, req: RawRequest = {}): Promise<ApiResponse<unknown>> {
    if (ep.auth && !key) throw (opts.notLoggedIn ?? notLoggedIn)();
    const url = new URL(base + fillPath(ep, req.path) + buildQuery(req.query));
    const retryable = ep.idempotent || SAFE_METHODS.has(ep.method);
    const res = await execute({ ...prepare(ep.method, url, req, ep.auth, retryable), endpoint: ep.id });
    const read = req.readAnswer && !opts.debug && res.status !== 204 ? req.readAnswer(res.rawBody) : undefined;
    if (read !== undefined) return { status: res.status, headers: res.headers, data: read, attempts: res.attempts };
    const data = parseData(res);
    if (opts.checkAnswer) await opts.checkAnswer(ep, data);
    if (opts.debug && data !== null) {
      // The schemas (and zod) load only here, under --debug: a command's start-up does not pay for them.
      const response = (ep as Partial<EndpointSchemas>).response ?? (await import('../contract/endpoint-schemas.js')).schemasOf(ep.id)?.response;
      const check = response?.safeParse(data) ?? { success: true as const };
      if (!check.success) {
        const issue = check.error.issues[0];
        log(`note: ${ep.id} response differs from the documented shape at ${issue.path.join('.') || '(root)'}: ${issue.message} (ignored)`);
      }
    }
    return { status: res.status, headers: res.headers, data, attempts: res.attempts };
  }

  function resolveUrl(pathOrUrl: string, query: Record<string, QueryValue> | undefined): URL {
    let url: URL;
    if (/^https?:\/\//i.test(pathOrUrl)) {
      url = new URL(pathOrUrl);
      if (url.origin !== baseOrigin) {
        throw new UsageError(`refusing to send the API key to ${url.origin}`, `Pass a path such as ${API_PREFIX}/notes, or a URL on ${baseOrigin}.`);
      }
    } else {
      url = new URL(base + (pathOrUrl.startsWith('/') ? pathOrUrl : `${API_PREFIX}/${pathOrUrl}`));
    }
    const extra = buildQuery(query);
    if (extra) url.search = url.search ? `${url.search}&${extra.slice(1)}` : extra;
    return url;
  }

  async function request(method: string, pathOrUrl: string, req: Omit<RawRequest, 'path'> = {}) {
    const m = method.toUpperCase();
    const url = resolveUrl(pathOrUrl, req.query);
    const res = await execute(prepare(m, url, req, true, SAFE_METHODS.has(m)));
    return { status: res.status, headers: res.headers, data: parseData(res), attempts: res.attempts, rawBody: res.rawBody };
  }

  async function* paginateEndpoint(ep: Endpoint, req: RawRequest = {}, o: PaginateOptions = {}): AsyncGenerator<Page<unknown>> {
    let cursor = o.cursor;
    let yielded = 0;
    while (o.limit === undefined || yielded < o.limit) {
      const remaining = o.limit !== undefined ? o.limit - yielded : undefined;
      const size = ep.page ? pageSizeFor(ep.page, o.pageSize, remaining) : undefined;
      const query = { ...req.query };
      if (ep.page && size !== undefined) query[ep.page.param] = size;
      if (cursor) query[CURSOR_PARAM] = cursor;
      const page = readPage<unknown>(ep, (await callEndpoint(ep, { ...req, query })).data);
      const items = remaining !== undefined ? page.items.slice(0, remaining) : page.items;
      yielded += items.length;
      yield { items, nextCursor: page.nextCursor };
      if (!page.nextCursor) return;
      if (page.nextCursor === cursor) {
        throw new CliError(`${ep.id} returned the same cursor twice; stopping`, { exitCode: EXIT.UNEXPECTED });
      }
      cursor = page.nextCursor;
    }
  }

  async function upload(url: string, o: UploadOptions): Promise<{ status: number }> {
    const target = new URL(url);
    // Synchronous, as the file is then read (file-body.ts): no round trip to libuv's pool before the first byte.
    let st;
    try {
      st = statSync(o.file);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new UsageError(`cannot read ${o.file}: ${err.code ?? err.message}`);
    }
    if (!st.isFile()) throw new UsageError(`${o.file} is not a file`);
    if (st.size !== o.size) throw new UsageError(`${o.file} is ${st.size} bytes, not the ${o.size} announced`);
    const body = (progress: BodyProgress) =>
      new FileBody(o.file, o.size, {
        sent(bytes) {
          progress.sent();
          o.onProgress?.(bytes);
        },
        done: progress.done,
      });
    const headers = { ...headersFor(undefined, false, false), 'content-type': o.contentType, 'content-length': String(o.size) };
    const p: Prepared = { method: 'PUT', url: target, headers, body, retryable: false, signal: o.signal, totalTimeout: false, hideQuery: true, proxy: proxyOf(target) };
    const res = await execute(p);
    return { status: res.status };
  }

  return {
    baseUrl: base,
    stats,
    // The endpoint's schemas give the types; the answer is the service's (checked under --debug only).
    call: (id, ...[req]) => callEndpoint(endpoint(id), req as RawRequest) as Promise<ApiResponse<never>>,
    callEndpoint,
    request,
    paginate: (id, ...[req, o]) => paginateEndpoint(endpoint(id), req as RawRequest, o) as AsyncGenerator<Page<never>>,
    paginateEndpoint,
    upload,
    async close() {
      const open = Object.values(transports);
      for (const k of Object.keys(transports) as TransportKind[]) delete transports[k];
      await Promise.all(open.map(async (t) => (await t.catch(() => undefined))?.close()));
    },
  };
}
