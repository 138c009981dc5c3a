/** Retry policy: which failures are worth repeating, how long to wait, and rate-limit headers. */
import { backoffDelay, type Backoff } from '../timing.js';

/** Exponential backoff with full jitter: random() × min(cap, base × 2^retryIndex). */
export const BACKOFF = { firstMs: 500, factor: 2, capMs: 20_000, jitter: [0, 1] } as const satisfies Backoff;

/** Statuses worth repeating (for requests that are safe to repeat). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Methods that may be repeated without asking the endpoint (POST/PATCH need `idempotent: true`). */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);

/** The wait before retry `retryIndex` (0 for the first). */
export function backoffMs(retryIndex: number, random: () => number): number {
  return backoffDelay(BACKOFF, retryIndex, random);
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
export function parseRateLimit(headers: HeaderBag): { limit?: number; remaining?: number; resetEpochSeconds?: number; windowSeconds?: number } {
  const out: { limit?: number; remaining?: number; resetEpochSeconds?: number; windowSeconds?: number } = {};
  const limit = numberHeader(headers, 'x-ratelimit-limit');
  const remaining = numberHeader(headers, 'x-ratelimit-remaining');
  const reset = numberHeader(headers, 'x-ratelimit-reset');
  if (limit !== undefined) out.limit = limit;
  if (remaining !== undefined) out.remaining = remaining;
  if (reset !== undefined) out.resetEpochSeconds = reset;
  const window = policyWindow(headers, limit);
  if (window !== undefined) out.windowSeconds = window;
  return out;
}

/**
 * The window of the rate-limit policy a `RateLimit-Policy` header announces, in seconds (IETF
 * draft-ietf-httpapi-ratelimit-headers): `20;w=10` (the quota first), or the structured form `"burst";q=20;w=10`.
 * Of several policies, the one whose quota is the X-RateLimit-Limit, else the first. No header, no `w`, or a `w`
 * that is not a positive whole number: undefined (the client keeps the 60 s of decisions.md §1.5).
 */
export function policyWindow(headers: HeaderBag, limit?: number): number | undefined {
  const raw = header(headers, 'ratelimit-policy');
  if (!raw) return undefined;
  const policies = raw.split(',').map((item) => {
    const parts = item.split(';').map((p) => p.trim());
    const params = new Map(parts.slice(1).map((p) => [p.slice(0, p.indexOf('=')).trim().toLowerCase(), p.slice(p.indexOf('=') + 1).trim()] as const));
    const quota = /^\d+$/.test(parts[0]) ? Number(parts[0]) : params.has('q') ? Number(params.get('q')) : undefined;
    const w = params.get('w');
    return { quota, window: w !== undefined && /^\d+$/.test(w) && Number(w) > 0 ? Number(w) : undefined };
  });
  const chosen = policies.find((p) => p.quota === limit && p.window !== undefined) ?? policies[0];
  return chosen?.window;
}

/** A failure below HTTP: no (complete) response arrived. */
export interface NetFailure {
  /** Error code (ECONNREFUSED, ECONNRESET, HEADERS_TIMEOUT, …). */
  code: string;
  /** Short human wording, e.g. "connection reset". */
  reason: string;
  retryable: boolean;
  /** Set for timeouts: how long was waited, and whether it was the whole attempt rather than a silence. */
  timeout?: { afterMs: number; total: boolean };
}

/** By error code: the wording, whether to retry, and the code reported (the same on both transports). */
const NET_ERRORS: Record<string, [reason: string, retryable: boolean, code?: string]> = {
  ECONNRESET: ['connection reset', true],
  ECONNREFUSED: ['connection refused', true],
  ECONNABORTED: ['connection aborted', true],
  EPIPE: ['connection closed while sending', true],
  ETIMEDOUT: ['connection timed out', true],
  EHOSTUNREACH: ['host unreachable', true],
  ENETUNREACH: ['network unreachable', true],
  EAI_AGAIN: ['DNS lookup failed (temporary)', true],
  ENOTFOUND: ['host not found', false],
  // The server closed the connection before a whole answer came (node:http says "socket hang up").
  CONNECTION_CLOSED: ['connection closed by the other side', true],
  UND_ERR_SOCKET: ['connection closed by the other side', true, 'CONNECTION_CLOSED'],
  UND_ERR_CLOSED: ['connection closed', false],
  UND_ERR_DESTROYED: ['connection destroyed', false],
};

/**
 * Timeouts, whichever transport noticed them (the watchdog, or undici's own timers as a backstop). None is retried:
 * `--timeout` is the longest notevox waits for the network, and repeating a timed-out attempt would multiply it.
 */
const TIMEOUTS: Record<string, { code: string; reason: (s: string, total: boolean) => string }> = {
  CONNECT_TIMEOUT: { code: 'CONNECT_TIMEOUT', reason: (s) => `no connection within ${s}` },
  UND_ERR_CONNECT_TIMEOUT: { code: 'CONNECT_TIMEOUT', reason: () => 'no connection in time' },
  PROXY_TIMEOUT: { code: 'PROXY_TIMEOUT', reason: (s) => `the proxy opened no tunnel within ${s}` },
  SEND_TIMEOUT: { code: 'SEND_TIMEOUT', reason: (s) => `the upload stalled: nothing sent for ${s}` },
  HEADERS_TIMEOUT: { code: 'HEADERS_TIMEOUT', reason: (s) => `no answer within ${s}` },
  UND_ERR_HEADERS_TIMEOUT: { code: 'HEADERS_TIMEOUT', reason: () => 'no answer in time' },
  BODY_TIMEOUT: { code: 'BODY_TIMEOUT', reason: (s, total) => (total ? `the answer did not complete within ${s}` : `the answer stalled: nothing received for ${s}`) },
  UND_ERR_BODY_TIMEOUT: { code: 'BODY_TIMEOUT', reason: () => 'the answer stalled' },
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
 * Classify a transport error (a TimeoutFailure of the watchdog carries `afterMs` and `total`).
 * Returns undefined for errors that are not network failures (programming errors, bad arguments).
 */
export function classifyNetworkError(err: unknown): NetFailure | undefined {
  const code = errorCode(err);
  if (code && TIMEOUTS[code]) {
    const t = err as { afterMs?: unknown; total?: unknown };
    const afterMs = typeof t.afterMs === 'number' ? t.afterMs : 0;
    const total = t.total === true;
    return { code: TIMEOUTS[code].code, reason: TIMEOUTS[code].reason(formatSeconds(afterMs), total), retryable: false, timeout: { afterMs, total } };
  }
  if (code && NET_ERRORS[code]) {
    const [reason, retryable, reported] = NET_ERRORS[code];
    return { code: reported ?? code, reason, retryable };
  }
  if (code && TLS_CODES.test(code)) return { code, reason: `TLS error (${code})`, retryable: false };
  // undici, when the proxy answers CONNECT with something other than 200 (407: it wants credentials).
  const proxyStatus = err instanceof Error ? /Proxy response \((\d+)\)|Proxy Authentication Required \((\d+)\)/.exec(err.message) : null;
  if (proxyStatus) return { code: 'PROXY_REFUSED', reason: `the proxy refused the connection (${proxyStatus[1] ?? proxyStatus[2]})`, retryable: false };
  if (err instanceof Error && /other side closed/i.test(err.message)) {
    return { code: 'CONNECTION_CLOSED', reason: NET_ERRORS.CONNECTION_CLOSED[0], retryable: true };
  }
  return undefined;
}

/** 1234 → "1.2s". */
export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1).replace(/\.0$/, '')}s`;
}
