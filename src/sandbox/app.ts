import type { IncomingMessage } from 'node:http';
import { Hono, type Context, type Handler as HonoHandler } from 'hono';
import type { z } from 'zod';
import { ERROR_CODES } from '../contract/errors.js';
import { ENDPOINTS } from '../contract/endpoints.js';
import { LIMITS } from '../contract/limits.js';
import { scopeAllows } from '../contract/scopes.js';
import type { Endpoint } from '../contract/types.js';
import { visibleNote, type NoteRead } from './access.js';
import { authenticate } from './auth.js';
import type { FastText } from './fast-body.js';
import type { FaultInjector } from './faults.js';
import { HANDLERS, EXTRA_ROUTES } from './handlers/index.js';
import { ApiFailure, CONTROL_PREFIX, notFound } from './http.js';
import type { RateLimiter } from './ratelimit.js';
import { loadedValidation, loadValidation, validationIfLoaded } from './validation-load.js';
import type { RouteSchemas } from './validation.js';
import { TrieRouter } from 'hono/router/trie-router';
import { isReply, JsonText, type Handler, type HandlerMap, type HandlerResult, type Principal, type SandboxRuntime } from './types.js';

export interface AppOptions {
  rt: SandboxRuntime;
  rateLimiter?: RateLimiter | null;
  faults?: FaultInjector | null;
  /** Access log line per request (stderr with --verbose). Never given the secret. */
  accessLog?: (line: string) => void;
  /** Where the sandbox's own failures (500000 answers) are reported, with their stack; always on. */
  errorLog?: (line: string) => void;
  /** Handlers by endpoint id (default: every implemented one); aliases use their target's. A contract endpoint without one answers 404001. */
  handlers?: HandlerMap;
  /** Routes of the sandbox itself (the control API under /_sandbox/), registered before the API's. */
  routes?: Array<(app: Hono) => void>;
}

/** What the app keeps of a request while it is handled (`c.env.request`), read when it is answered. */
interface RequestRecord {
  /** performance.now() when it arrived (only with an access log). */
  started: number;
  /** Db.commits when it arrived. */
  commits: number;
  /** The key it authenticated with. */
  keyId?: string;
  /** Headers of every answer from the rate limit on (X-RateLimit-*). */
  extraHeaders?: Record<string, string>;
  /** Set by the routes of the contract: whether their handler changed the state. */
  wrote?: boolean;
}

type Env = { Bindings: { incoming?: IncomingMessage; request: RequestRecord }; Variables: { degraded?: boolean } };

export { REQUEST_LOG_KEEP } from './db.js';

/** A path that the URL parser gives back unchanged: no dot segment, nothing to percent-encode or decode. */
const PLAIN_PATH = /^\/[\w\-~/]*$/;

/** The path of a request URL, as `new URL(url).pathname` gives it (which it is asked for when the path is not plain). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const query = url.indexOf('?', start);
  const path = start < 0 ? '' : url.slice(start, query < 0 ? undefined : query);
  return PLAIN_PATH.test(path) ? path : new URL(url).pathname;
}

const toHonoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
const paramCount = (ep: Endpoint) => (ep.path.match(/\{/g) ?? []).length;

function zodDetail(err: z.ZodError, where: string): string {
  const issue = err.issues[0];
  const path = issue.path.length ? loadedValidation().formatPath(issue.path) : where;
  return `${path}: ${issue.message}`;
}

/**
 * A request header (`name` in lower case) as the Fetch API's Headers gives it, repeated ones joined with ", ". Read
 * from Node's request when there is one: asking hono builds a Headers object of every header first.
 */
function header(c: Context<Env>, name: string): string | undefined {
  const raw = c.env?.incoming?.rawHeaders;
  if (!raw) return c.req.header(name);
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i].length === name.length && raw[i].toLowerCase() === name) value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
  return value;
}

function send(c: Context<Env>, status: number, body: unknown, headers?: Record<string, string>): Response {
  return answer(c.env.request.extraHeaders, status, body, headers);
}

/** A JSON answer (or none, for a 204) with the request's `extra` headers, then `headers`. Each answer gets headers of its own. */
function answer(extra: Record<string, string> | undefined, status: number, body: unknown, headers?: Record<string, string>): Response {
  if (status === 204 || body === undefined) return new Response(null, { status, headers: { ...extra, ...headers } });
  const text = body instanceof JsonText ? body.text : JSON.stringify(body);
  const type = 'application/json; charset=utf-8';
  return new Response(text, { status, headers: extra || headers ? { 'content-type': type, ...extra, ...headers } : { 'content-type': type } });
}

function fail(c: Context<Env>, f: ApiFailure): Response {
  return send(c, f.status, f.toBody(), f.headers);
}

/** Whether an `Accept` header admits JSON: a JSON-compatible media range whose quality is not 0. */
export function acceptsJson(accept: string | undefined): boolean {
  if (!accept || accept === 'application/json' || accept === '*/*' || !accept.trim()) return true;
  return accept.split(',').some((part) => {
    const [range, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    const q = params.find((x) => /^q\s*=/.test(x));
    if (q !== undefined && !(Number(q.split('=')[1]) > 0)) return false;
    return range === '*/*' || range === 'application/*' || range === 'application/json' || /^application\/[\w.-]+\+json$/.test(range);
  });
}

/** An unpaired UTF-16 surrogate: JSON can carry one (`"\\ud800"`), UTF-8 and SQLite cannot. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Where in `value` a string holds a lone surrogate (a key or a value), or undefined. */
function loneSurrogateAt(value: unknown, path: PropertyKey[] = []): PropertyKey[] | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = loneSurrogateAt(value[i], [...path, i]);
      if (at) return at;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (LONE_SURROGATE.test(k)) return [...path, k];
      const at = loneSurrogateAt(v, [...path, k]);
      if (at) return at;
    }
  }
  return undefined;
}

/**
 * 400000 for a body whose strings are not well-formed Unicode: stored as UTF-8, a lone surrogate becomes U+FFFD, so
 * two different entries would read back the same. Only a `\uD800`–`\uDFFF` escape can make one (bytes that are not
 * UTF-8 decode to U+FFFD), so other bodies are not walked.
 */
async function checkWellFormed(text: string, body: unknown): Promise<void> {
  if (!/\\u[dD][89a-fA-F]/.test(text)) return;
  const at = loneSurrogateAt(body);
  if (at) throw new ApiFailure(ERROR_CODES.MALFORMED, 'invalid body', `${(validationIfLoaded() ?? (await loadValidation())).formatPath(at)}: contains a lone UTF-16 surrogate (not valid Unicode); send well-formed UTF-8`);
}

/**
 * Every chunk of a Node request, through its events: `for await` over it made an async iterator and a promise per
 * chunk (a 1000-row word-memory create's body comes in a few chunks of 16–64 kB). Rejects as the iterator did: on
 * the stream's error, or when it closes before its end (the client went away).
 */
function readAll(incoming: IncomingMessage): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer) => void chunks.push(chunk);
    const onEnd = () => {
      done();
      resolve(chunks);
    };
    const onError = (e: Error) => {
      done();
      reject(e);
    };
    const onClose = () => onError(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    const done = () => {
      incoming.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    incoming.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** A body that a check of its text gave (fast-body.ts FAST_TEXTS): already parsed and checked against its schema. */
class CheckedBody {
  constructor(readonly value: unknown) {}
}

/**
 * The JSON body of a request. `incoming`: Node's request under it, read directly when its length is declared (the
 * parser then ends the body there, so it cannot outgrow the limit checked here): the Fetch API's body is a web
 * stream over the same bytes, costly per request. `fromText`: a check of the text (after the Content-Type check);
 * when it gives a body, that body comes back as a CheckedBody, and the text is not parsed.
 */
export async function readJsonBody(req: Request, incoming?: IncomingMessage, fromText?: FastText): Promise<unknown> {
  const length = incoming ? incoming.headers['content-length'] : req.headers.get('content-length');
  const declared = Number(length ?? '0');
  if (declared > LIMITS.jsonBodyMaxBytes) throw new ApiFailure(ERROR_CODES.TOO_LARGE, 'request body too large', `the limit is ${LIMITS.jsonBodyMaxBytes} bytes`);
  let chunks: Uint8Array[] = [];
  if (incoming && length !== undefined && incoming.headers['transfer-encoding'] === undefined && !incoming.readableDidRead) {
    chunks = await readAll(incoming);
  } else {
    if (!req.body) return undefined;
    let size = 0;
    const reader = req.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > LIMITS.jsonBodyMaxBytes) {
        await reader.cancel();
        throw new ApiFailure(ERROR_CODES.TOO_LARGE, 'request body too large', `the limit is ${LIMITS.jsonBodyMaxBytes} bytes`);
      }
      chunks.push(value);
    }
  }
  // One chunk of Node's (a Buffer) is decoded as it is, not copied first.
  const text = (chunks.length === 1 && Buffer.isBuffer(chunks[0]) ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
  if (text.trim() === '') return undefined;
  const type = (req.headers.get('content-type') ?? '').toLowerCase();
  if (!type.startsWith('application/json') && !/^application\/[\w.+-]*\+json/.test(type))
    throw new ApiFailure(ERROR_CODES.MALFORMED, 'unsupported Content-Type', 'send the body as Content-Type: application/json');
  const checked = fromText?.(text);
  if (checked !== undefined) return new CheckedBody(checked);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new ApiFailure(ERROR_CODES.MALFORMED, 'malformed JSON body', (e as Error).message);
  }
  await checkWellFormed(text, body);
  return body;
}

function checkPageSize(ep: Endpoint, query: Record<string, string>): void {
  if (!ep.page) return;
  const raw = query[ep.page.param];
  if (raw === undefined) return;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw) || n < ep.page.min || n > ep.page.max)
    throw new ApiFailure(ERROR_CODES.PAGE_SIZE, `${ep.page.param} out of range`, `${ep.page.param} must be an integer from ${ep.page.min} to ${ep.page.max}`);
}

/** The fields of `updateMask`, or 400001 when it is missing, empty or names a field the endpoint does not support. */
function checkUpdateMask(supported: readonly string[], raw: unknown): string[] {
  const mask = String(raw ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const example = `e.g. updateMask=${supported[0]}`;
  if (mask.length === 0) throw new ApiFailure(ERROR_CODES.UPDATE_MASK, 'updateMask is required', `updateMask: name the fields to change, ${example}`);
  const unsupported = mask.filter((f) => !supported.includes(f));
  if (unsupported.length)
    throw new ApiFailure(ERROR_CODES.UPDATE_MASK, `updateMask names an unsupported field: ${unsupported.join(', ')}`, `updateMask: supported fields: ${supported.join(', ')}`);
  return [...new Set(mask)];
}

/** 400002 when a field named in `updateMask` is missing or null in the body. */
function checkMaskedFields(mask: readonly string[], body: unknown): void {
  const b = (body ?? {}) as Record<string, unknown>;
  const missing = mask.find((f) => b[f] === undefined || b[f] === null);
  if (missing !== undefined)
    throw new ApiFailure(ERROR_CODES.UPDATE_MASK_FIELD_MISSING, `${missing} is named in updateMask but missing in the body`, `${missing}: send a value, or leave ${missing} out of updateMask`);
}

function parseWith(schema: z.ZodType | undefined, value: unknown, where: string): any {
  if (!schema) return value;
  const r = schema.safeParse(value);
  if (!r.success) throw new ApiFailure(ERROR_CODES.MALFORMED, `invalid ${where}`, zodDetail(r.error, where));
  return r.data;
}

/** Scope (403001) then key type (403002), as decisions.md §2.3 orders them. */
function authorize(ep: Endpoint, p: Principal): void {
  if (!scopeAllows(p.scopes, ep.scope)) {
    throw new ApiFailure(ERROR_CODES.INSUFFICIENT_SCOPE, 'insufficient_scope', `insufficient_scope: requires ${ep.scope}`, {
      'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${ep.scope}"`,
    });
  }
  if (!ep.keyTypes.includes(p.keyType)) {
    throw new ApiFailure(ERROR_CODES.KEY_TYPE_FORBIDDEN, `a ${p.keyType.toLowerCase()} key may not call ${ep.method} ${ep.path}`, `key types that may call it: ${ep.keyTypes.join(', ')}`);
  }
}

/** The answer of a handler's result: its body with the endpoint's success status, or what its reply says. */
function respond(ep: Endpoint, c: Context<Env>, out: unknown): Response {
  const headers: Record<string, string> | undefined = ep.deprecated ? { Deprecation: 'true' } : undefined;
  if (isReply(out)) {
    const r = out as HandlerResult;
    return send(c, r.status ?? ep.successStatus, r.body, { ...headers, ...r.headers });
  }
  return send(c, ep.successStatus, ep.successStatus === 204 ? undefined : out, headers);
}

/** Build the sandbox's hono app: routes registered from the contract, in order of specificity. */
export function createApp(opts: AppOptions): Hono<Env> {
  const { rt } = opts;
  const handlers = opts.handlers ?? HANDLERS;
  // TrieRouter takes every route of the contract; the default SmartRouter would first try RegExpRouter, which refuses
  // a static segment beside a parameter (`/workspaces/me` beside `/workspaces/{workspaceGuid}`), and then use it anyway.
  const app = new Hono<Env>({ router: new TrieRouter() });

  // Every request, whatever answers it (a route, the error handler, the not-found handler), is recorded once
  // answered; a request that changed the state is answered once the change is on disk. This wraps the app's
  // fetch rather than being a middleware: a route answering at once then answers without a promise in between
  // (hono calls a lone matching handler directly), and nothing runs for routes but the route.
  const dispatch = app.fetch;
  app.fetch = (req, env, executionCtx) => {
    const request: RequestRecord = { started: opts.accessLog ? performance.now() : 0, commits: rt.db.commits };
    const res = dispatch(req, { ...env, request }, executionCtx);
    return res instanceof Promise ? res.then((r) => answered(req, request, r)) : answered(req, request, res);
  };

  // A request that changed the state is answered once the change is on disk (with --state): an acknowledged
  // write survives a crash. (Its changes, and any before them; a read does not wait for the writes of requests
  // running beside it.) Routes outside the contract's dispatch wait when anything was committed meanwhile, and
  // the control API (/_sandbox/) always: what it shows is on disk when it answers (a sync point for tests).
  function answered(req: Request, request: RequestRecord, res: Response): Response | Promise<Response> {
    if (!(request.wrote ?? (rt.db.commits !== request.commits || app.getPath(req).startsWith(CONTROL_PREFIX + '/')))) return recorded(req, request, res);
    return rt.db.flush().then(
      () => recorded(req, request, res),
      (e: unknown) => {
        (opts.errorLog ?? opts.accessLog)?.(`could not save the state: ${(e as Error).message}`);
        const f = new ApiFailure(ERROR_CODES.INTERNAL, 'internal error', 'the sandbox could not write its state file');
        return recorded(req, request, answer(request.extraHeaders, f.status, f.toBody(), f.headers));
      },
    );
  }

  function recorded(req: Request, request: RequestRecord, res: Response): Response {
    const path = pathOf(req.url);
    if (opts.accessLog) opts.accessLog(`${req.method} ${path} ${res.status} ${Math.round(performance.now() - request.started)}ms key=${request.keyId ?? '-'}`);
    rt.db.logRequest({ at: rt.clock.now().getTime(), keyId: request.keyId ?? null, method: req.method, path, status: res.status });
    return res;
  }

  // The contract as an OpenAPI 3.1 document (docs/openapi.json): outside the API, so no key, no rate limit and no
  // injected faults; built on the first request.
  app.get('/openapi.json', async () => new Response((await import('../contract/openapi.js')).openApiText(), { headers: { 'content-type': 'application/json; charset=utf-8' } }));

  // Fault injection applies to every request of the API, the upload URL included, but not to the sandbox's control API.
  // (Without --faults there is no injector, and no middleware: one step less per request.)
  if (opts.faults) app.use('*', async (c, next) => {
    if (!opts.faults?.active) return next();
    const path = new URL(c.req.url).pathname;
    if (path.startsWith(CONTROL_PREFIX + '/')) return next();
    const d = opts.faults.decide(path);
    if (d.latencyMs > 0) await new Promise((r) => setTimeout(r, d.latencyMs));
    if (d.degraded) c.set('degraded', true);
    const f = d.failure;
    if (!f && d.resetAfter) {
      // The handler runs and commits; then the connection drops instead of the answer.
      await next();
      c.env?.incoming?.socket?.destroy();
      return;
    }
    if (!f) return next();
    if (f.kind === 'reset') {
      const socket = c.env?.incoming?.socket;
      if (socket) {
        socket.destroy();
        return new Response(null, { status: 500 });
      }
      return fail(c, new ApiFailure(ERROR_CODES.INTERNAL, 'injected connection reset'));
    }
    if (f.kind === '429')
      return fail(c, new ApiFailure(ERROR_CODES.RATE_LIMITED, 'rate limit exceeded (injected)', null, { 'Retry-After': String(f.retryAfter ?? 1) }));
    return fail(c, new ApiFailure(f.kind === '503' ? ERROR_CODES.UNAVAILABLE : ERROR_CODES.INTERNAL, `injected ${f.kind} failure`));
  });

  for (const extra of EXTRA_ROUTES) extra(app as unknown as Hono, rt);
  for (const routes of opts.routes ?? []) routes(app as unknown as Hono);

  const ordered = [...ENDPOINTS].sort((a, b) => paramCount(a) - paramCount(b));
  for (const ep of ordered) {
    let schemas: RouteSchemas | undefined;
    // Synchronous where the request allows (no body to read, a synchronous handler): the answer then needs no
    // promise, and hono passes it on as it is.
    const serve: HonoHandler<Env> = (c) => {
      if (schemas) return route(ep, schemas, c);
      const loaded = validationIfLoaded();
      if (loaded) return route(ep, (schemas = loaded.routeSchemas(ep.id)), c);
      return loadValidation().then((v) => route(ep, (schemas ??= v.routeSchemas(ep.id)), c));
    };
    app.on(ep.method, toHonoPath(ep.path), serve);
  }

  /** A request to a route of the contract: the checks in the order of docs/sandbox.md, then its handler. */
  function route(ep: Endpoint, schemas: RouteSchemas, c: Context<Env>): Response | Promise<Response> {
    if (!acceptsJson(header(c, 'accept'))) return fail(c, new ApiFailure(ERROR_CODES.NOT_ACCEPTABLE, 'not acceptable', 'the service answers application/json'));
    // An alias (an older path of another endpoint) is served by that endpoint's handler.
    const handler = (handlers as Partial<Record<string, Handler>>)[ep.aliasOf ?? ep.id];
    const request = c.env.request;
    let principal: Principal | undefined;
    if (ep.auth) {
      principal = authenticate(rt.db, header(c, 'authorization'), rt.clock.now());
      request.keyId = principal.keyId;
      if (opts.rateLimiter) {
        const d = opts.rateLimiter.take(principal.keyId);
        request.extraHeaders = d.headers;
        if (!d.allowed)
          throw new ApiFailure(ERROR_CODES.RATE_LIMITED, 'rate limit exceeded', `retry after ${d.retryAfterSeconds} seconds`, { 'Retry-After': String(d.retryAfterSeconds) });
      }
    }
    const params = schemas.plainParams ? c.req.param() : parseWith(schemas.params, c.req.param(), 'path');
    // Note sub-resources: visibility (404) comes before scope and key-type checks.
    let note: NoteRead | undefined;
    if (principal && 'noteGuid' in params) {
      note = visibleNote(rt.db, principal, params.noteGuid);
      if (!note) throw notFound('note');
    }
    if (principal) authorize(ep, principal);
    if (!handler) throw new ApiFailure(ERROR_CODES.NO_ROUTE, `${ep.method} ${ep.path} has no handler in this sandbox version`);
    const rawQuery = c.req.query();
    checkPageSize(ep, rawQuery);
    const query = parseWith(schemas.query, rawQuery, 'query');
    const mask = ep.updateMask ? checkUpdateMask(ep.updateMask, query.updateMask) : undefined;
    const run = (body: any): Response | Promise<Response> => {
      if (mask) checkMaskedFields(mask, body);
      // Whether this request changed the state: a synchronous handler's changes are the commits made while it
      // ran; an asynchronous one may interleave with other requests, so it counts as a write.
      const before = rt.db.commits;
      const out = handler({ endpoint: ep, principal: principal!, params, query, body, rt, req: c.req.raw, note, degraded: c.get('degraded') ?? false });
      request.wrote = rt.db.commits !== before || out instanceof Promise;
      return out instanceof Promise ? out.then((o) => respond(ep, c, o)) : respond(ep, c, out);
    };
    if (!schemas.body) return run(undefined);
    const bodySchema = schemas.body;
    const { FAST_BODIES, FAST_TEXTS } = loadedValidation();
    return readJsonBody(c.req.raw, c.env.incoming, FAST_TEXTS.get(bodySchema)).then((raw) => {
      if (raw instanceof CheckedBody) return run(raw.value);
      // A field-mask request without a body lacks the masked fields: 400002 below, not a schema error.
      const input = raw === undefined && mask ? {} : raw;
      return run(FAST_BODIES.get(bodySchema)?.(input) ?? parseWith(bodySchema, input, 'body'));
    });
  }

  // Anything no route answered (hono's not-found handler: after the middleware that matched, as a route would).
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    const other = ENDPOINTS.find((ep) => new RegExp('^' + ep.path.replace(/\{\w+\}/g, '[^/]+') + '$').test(path));
    const message = other ? `${c.req.method} is not supported on ${path}` : `no route ${c.req.method} ${path}`;
    return fail(c, new ApiFailure(ERROR_CODES.NO_ROUTE, message));
  });

  app.onError((err, c) => {
    if (err instanceof ApiFailure) return fail(c, err);
    (opts.errorLog ?? opts.accessLog)?.(`internal error on ${c.req.method} ${new URL(c.req.url).pathname}: ${(err as Error)?.stack ?? String(err)}`);
    return fail(c, new ApiFailure(ERROR_CODES.INTERNAL, 'internal error'));
  });

  return app;
}
