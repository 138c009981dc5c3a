/** Retry policy: which failures are worth repeating, how long to wait, and rate-limit headers. */

export const BACKOFF = { baseMs: 500, capMs: 20_000 } as const;

/** Statuses worth repeating (for requests that are safe to repeat). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Methods that may be repeated without asking the endpoint (POST/PATCH need `idempotent: true`). */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

/** Exponential backoff with full jitter: random() × min(cap, base × 2^retryIndex). */
export function backoffMs(retryIndex: number, random: () => number): number {
  return random() * Math.min(BACKOFF.capMs, BACKOFF.baseMs * 2 ** retryIndex);
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), never negative; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

type HeaderBag = Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

function numberHeader(headers: HeaderBag, name: string): number | undefined {
  const v = header(headers, name);
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** The `X-RateLimit-*` headers of a response (decisions.md §1.5); missing or unreadable values are left out. */
export function parseRateLimit(headers: HeaderBag): { limit?: number; remaining?: number; resetEpochSeconds?: number } {
  const out: { limit?: number; remaining?: number; resetEpochSeconds?: number } = {};
  const limit = numberHeader(headers, 'x-ratelimit-limit');
  const remaining = numberHeader(headers, 'x-ratelimit-remaining');
  const reset = numberHeader(headers, 'x-ratelimit-reset');
  if (limit !== undefined) out.limit = limit;
  if (remaining !== undefined) out.remaining = remaining;
  if (reset !== undefined) out.resetEpochSeconds = reset;
  return out;
}

/** A failure below HTTP: no response arrived. */
export interface NetFailure {
  /** Error code (ECONNRESET, UND_ERR_SOCKET, TIMEOUT, …). */
  code: string;
  /** Short human wording, e.g. "connection reset". */
  reason: string;
  retryable: boolean;
}

const NET_ERRORS: Record<string, [reason: string, retryable: boolean]> = {
  ECONNRESET: ['connection reset', true],
  ECONNREFUSED: ['connection refused', true],
  ECONNABORTED: ['connection aborted', true],
  EPIPE: ['connection closed while sending', true],
  ETIMEDOUT: ['connection timed out', true],
  EHOSTUNREACH: ['host unreachable', true],
  ENETUNREACH: ['network unreachable', true],
  EAI_AGAIN: ['DNS lookup failed (temporary)', true],
  ENOTFOUND: ['host not found', false],
  UND_ERR_SOCKET: ['connection closed by the other side', true],
  UND_ERR_CONNECT_TIMEOUT: ['connect timeout', true],
  UND_ERR_HEADERS_TIMEOUT: ['timed out waiting for the response', true],
  UND_ERR_BODY_TIMEOUT: ['timed out reading the response', true],
  UND_ERR_CLOSED: ['connection closed', false],
  UND_ERR_DESTROYED: ['connection destroyed', false],
};

const TLS_CODES = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  // Happy-eyeballs connects report an AggregateError of per-address failures.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  return e.cause !== undefined && e.cause !== err ? errorCode(e.cause) : undefined;
}

/**
 * Classify a transport error. `timedOutAfterMs` is set when our own per-attempt timer fired.
 * Returns undefined for errors that are not network failures (programming errors, bad arguments).
 */
export function classifyNetworkError(err: unknown, timedOutAfterMs?: number): NetFailure | undefined {
  if (timedOutAfterMs !== undefined) {
    return { code: 'TIMEOUT', reason: `timed out after ${formatSeconds(timedOutAfterMs)}`, retryable: true };
  }
  const code = errorCode(err);
  if (code && NET_ERRORS[code]) {
    const [reason, retryable] = NET_ERRORS[code];
    return { code, reason, retryable };
  }
  if (code && TLS_CODES.test(code)) return { code, reason: `TLS error (${code})`, retryable: false };
  if (err instanceof Error && /other side closed/i.test(err.message)) {
    return { code: 'UND_ERR_SOCKET', reason: NET_ERRORS.UND_ERR_SOCKET[0], retryable: true };
  }
  return undefined;
}

/** 1234 → "1.2s". */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1).replace(/\.0$/, '')}s`;
}
