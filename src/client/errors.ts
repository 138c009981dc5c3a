/** Typed errors of the HTTP client, and the one place that turns any error into message, hint and exit code. */

import { errorTypeForStatus } from '../contract/errors.js';
import { CliError, EXIT, exitCodeForStatus, type ExitCode } from '../errors.js';
import { hintFor, NETWORK_HINT, networkHint, NOT_LOGGED_IN_HINT } from './hints.js';
import { redact } from './redact.js';
import { formatSeconds, parseRetryAfter, type NetFailure } from './retry.js';

/** "Not Found" for 404. node:http through getBuiltinModule: see node-transport.ts for why not `import`. */
export const statusText = (status: number): string | undefined => process.getBuiltinModule('node:http').STATUS_CODES[status];

const MAX_MESSAGE = 300;

/** One line, bounded, without the key. */
function oneLine(text: string, key?: string): string {
  const flat = redact(text, key).replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

interface ParsedBody {
  errorType: string;
  code?: number | string;
  apiMessage: string;
  detail: string | null;
}

/** Read an error body: the envelope, the older 401 body, or anything else (decisions.md §1.3–1.4). */
function parseErrorBody(status: number, rawBody: string): ParsedBody {
  const fallback = statusText(status) ?? `HTTP ${status}`;
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    const snippet = rawBody.trim();
    return { errorType: errorTypeForStatus(status), apiMessage: snippet ? `${fallback} (non-JSON response: ${snippet})` : fallback, detail: null };
  }
  // A tolerant reader (decisions.md: accept unknown fields and values), so no schema library here: the envelope
  // has an errorType, the older 401 body a type; the strict shapes are errorEnvelopeSchema and legacyAuthErrorSchema.
  const e = (json as { error?: Record<string, unknown> } | null)?.error;
  if (e && typeof e === 'object' && typeof e.message === 'string') {
    const code = typeof e.code === 'number' || typeof e.code === 'string' ? e.code : undefined;
    if (typeof e.errorType === 'string') return { errorType: e.errorType, code, apiMessage: e.message, detail: typeof e.detail === 'string' ? e.detail : null };
    if (typeof e.type === 'string') {
      const errorType = e.type === 'authentication_error' ? 'unauthorized' : errorTypeForStatus(status);
      return { errorType, code, apiMessage: e.message, detail: null };
    }
  }
  // Unknown JSON: keep whatever looks like a message, never fail on it.
  const loose = (json as { error?: { message?: unknown; code?: unknown; errorType?: unknown }; message?: unknown } | null) ?? {};
  const msg = typeof loose.error?.message === 'string' ? loose.error.message : typeof loose.message === 'string' ? loose.message : fallback;
  const code = typeof loose.error?.code === 'number' || typeof loose.error?.code === 'string' ? loose.error.code : undefined;
  const errorType = typeof loose.error?.errorType === 'string' ? loose.error.errorType : errorTypeForStatus(status);
  return { errorType, code, apiMessage: msg, detail: null };
}

/**
 * Run `run`; when it fails with an ApiError for which `better` knows a more specific hint (a command knows which
 * workspace, or which keys would do), rethrow it with that hint and everything else (message, exit code, type,
 * code) as it was.
 */
export async function withBetterHint<T>(run: () => Promise<T>, better: (e: ApiError) => string | undefined): Promise<T> {
  try {
    return await run();
  } catch (e) {
    const hint = e instanceof ApiError ? better(e) : undefined;
    if (hint === undefined) throw e;
    const err = e as ApiError;
    throw new CliError(err.message, { exitCode: err.exitCode, errorType: err.errorType, code: err.code, hint, cause: err });
  }
}

/** The service answered with a non-success status. */
export class ApiError extends CliError {
  readonly status: number;
  declare readonly errorType: string;
  declare readonly code: number | string | undefined;
  readonly apiMessage: string;
  readonly detail: string | null;
  readonly headers: Record<string, string>;
  readonly retryAfterSeconds?: number;
  /** The response body as received (key masked), for `notevox api`. */
  readonly rawBody: string;

  constructor(init: {
    status: number;
    errorType: string;
    code?: number | string;
    apiMessage: string;
    detail?: string | null;
    headers?: Record<string, string>;
    retryAfterSeconds?: number;
    hint?: string;
    rawBody?: string;
    key?: string;
    /** Instead of `{status} {errorType}: {apiMessage}` and the status's exit code (redirects). */
    message?: string;
    exitCode?: ExitCode;
  }) {
    const { key } = init;
    const apiMessage = oneLine(init.apiMessage, key);
    const detail = init.detail ? oneLine(init.detail, key) : null;
    const codeText = init.code !== undefined ? `, code ${init.code}` : '';
    const detailText = detail && !apiMessage.includes(detail) ? ` (${detail})` : '';
    super(init.message !== undefined ? oneLine(init.message, key) : `${init.status} ${init.errorType}${codeText}: ${apiMessage}${detailText}`, {
      exitCode: init.exitCode ?? exitCodeForStatus(init.status),
      hint: init.hint !== undefined ? oneLine(init.hint, key) : undefined,
      errorType: init.errorType,
      code: init.code,
    });
    this.name = 'ApiError';
    this.status = init.status;
    this.apiMessage = apiMessage;
    this.detail = detail;
    this.headers = Object.fromEntries(Object.entries(init.headers ?? {}).map(([k, v]) => [k, redact(v, key)]));
    this.rawBody = redact(init.rawBody ?? '', key);
    if (init.retryAfterSeconds !== undefined) this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** Build from a response: parses the body, reads Retry-After and picks the hint. */
  static fromResponse(res: { status: number; headers: Record<string, string>; rawBody: string }, opts: { key?: string; nowMs?: number; endpoint?: string } = {}): ApiError {
    const body = parseErrorBody(res.status, res.rawBody);
    const retryAfterSeconds = parseRetryAfter(res.headers['retry-after'], opts.nowMs ?? Date.now());
    const hint = hintFor({
      status: res.status,
      code: body.code,
      detail: body.detail,
      headers: res.headers,
      retryAfterSeconds,
      keyLooksLikeIdOnly: opts.key !== undefined && !opts.key.includes('.'),
      endpoint: opts.endpoint,
      message: body.apiMessage,
    });
    return new ApiError({ status: res.status, ...body, headers: res.headers, retryAfterSeconds, hint, rawBody: res.rawBody, key: opts.key });
  }
}

/**
 * The service redirected (3xx). notevox does not follow redirects (the key would go along to wherever they
 * point): the base URL is most likely wrong, or the service moved. Exit 2, like any other setting to fix.
 */
export function redirectError(res: { status: number; headers: Record<string, string>; rawBody: string }, from: URL, key?: string): ApiError {
  const location = res.headers.location?.trim();
  let to: URL | undefined;
  try {
    to = location ? new URL(location, from) : undefined;
  } catch {}
  const what = `${res.status}${statusText(res.status) ? ` ${statusText(res.status)}` : ''}`;
  // The host, or the whole origin when the scheme or port changes too (http://… → https://…).
  const where = to ? (to.protocol !== from.protocol || to.port !== from.port ? to.origin : to.host) : undefined;
  const message = where ? `the server redirected to ${where}; check --base-url` : `the server answered ${what} without saying where to; check --base-url`;
  const hint = to
    ? `${from.origin} answered ${what} to ${to.origin}${to.pathname}. notevox does not follow redirects (the API key would go along): if the service moved, use its address (--base-url, NOTEVOX_BASE_URL, or \`notevox auth login --base-url …\`).`
    : `Check the base URL (\`notevox auth status\`): ${from.origin} does not answer like the service.`;
  return new ApiError({ status: res.status, errorType: 'redirect', apiMessage: message, message, exitCode: EXIT.USAGE, headers: res.headers, hint, rawBody: res.rawBody, key });
}

/** No usable response: connection failure or timeout, after the retries (exit 8). */
export class NetworkError extends CliError {
  readonly reason: string;
  readonly attempts: number;
  /** Set when the failure was a timeout. */
  readonly timedOut: boolean;
  constructor(init: {
    /** host[:port] of the request. */
    target: string;
    failure: NetFailure;
    attempts: number;
    key?: string;
    /** The target is this machine (localhost, 127.0.0.0/8, ::1). */
    loopback?: boolean;
    /** host[:port] of the proxy the request went through. */
    proxy?: string;
    /** The --timeout in force. */
    timeoutMs?: number;
  }) {
    const { target, failure } = init;
    const after = init.attempts > 1 ? ` (after ${init.attempts} attempts)` : '';
    super(oneLine(`${networkMessage(target, failure, init.proxy)}${after}`, init.key), {
      exitCode: EXIT.UNAVAILABLE,
      hint: networkHint({ code: failure.code, loopback: init.loopback ?? false, proxied: init.proxy !== undefined, timeout: init.timeoutMs !== undefined ? formatSeconds(init.timeoutMs) : undefined }),
      code: failure.code,
    });
    this.name = 'NetworkError';
    this.reason = failure.reason;
    this.attempts = init.attempts;
    this.timedOut = failure.timeout !== undefined;
  }
}

/** "cannot reach …" only when no connection was made; a stall is a timeout, said as such. */
function networkMessage(target: string, failure: NetFailure, proxy: string | undefined): string {
  const t = failure.timeout;
  const s = t ? formatSeconds(t.afterMs) : '';
  switch (failure.code) {
    case 'PROXY_TIMEOUT':
      return `timed out: the proxy${proxy ? ` ${proxy}` : ''} opened no connection to ${target} within ${s}`;
    case 'PROXY_REFUSED':
      return `cannot reach ${target}: ${failure.reason}${proxy ? ` (proxy ${proxy})` : ''}`;
    case 'SEND_TIMEOUT':
      return `timed out: ${target} took nothing more of the upload for ${s}`;
    case 'HEADERS_TIMEOUT':
      return t?.afterMs ? `timed out: ${target} did not answer within ${s}` : `timed out: ${target} did not answer in time`;
    case 'BODY_TIMEOUT':
      return t?.total ? `timed out: ${target} did not finish its answer within ${s}` : `timed out: ${target} stopped sending its answer${t?.afterMs ? ` (nothing for ${s})` : ''}`;
    default:
      return `cannot reach ${target}${proxy ? ` through the proxy ${proxy}` : ''}: ${failure.reason}`;
  }
}

/** An endpoint that needs a key was called without one (exit 3). */
export function notLoggedIn(): CliError {
  return new CliError('not logged in', { exitCode: EXIT.UNAUTHENTICATED, hint: NOT_LOGGED_IN_HINT });
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: unknown }).code === 'ABORT_ERR');
}

export interface ExplainedError {
  message: string;
  hint?: string;
  exitCode: number;
  errorType?: string;
  code?: number | string;
}

const BUG_HINT = 'This looks like a bug: rerun with --debug and report it.';

/** What to do, for errors that did not say it themselves. */
const FALLBACK_HINTS: Partial<Record<number, string>> = {
  [EXIT.UNEXPECTED]: BUG_HINT,
  [EXIT.USAGE]: 'Run the command with --help for usage and examples.',
  [EXIT.UNAUTHENTICATED]: NOT_LOGGED_IN_HINT,
  [EXIT.UNAVAILABLE]: NETWORK_HINT,
};

/** Message, hint and exit code for any error reaching the top level; `key`, when given, is masked too. */
export function explainError(err: unknown, key?: string): ExplainedError {
  if (err instanceof CliError) {
    const out: ExplainedError = { message: oneLine(err.message, key), exitCode: err.exitCode };
    const hint = err.hint ?? FALLBACK_HINTS[err.exitCode];
    if (hint) out.hint = oneLine(hint, key);
    if (err.errorType !== undefined) out.errorType = err.errorType;
    if (err.code !== undefined) out.code = err.code;
    return out;
  }
  if (isAbort(err)) return { message: 'interrupted', exitCode: EXIT.INTERRUPTED };
  const message = err instanceof Error ? err.message || err.name : String(err);
  return {
    message: oneLine(message, key),
    hint: BUG_HINT,
    exitCode: EXIT.UNEXPECTED,
  };
}
