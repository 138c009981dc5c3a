import { LIMITS, RATE_LIMIT_SPEC } from '../contract/limits.js';

/** Per-key fixed-window rate limiting (decisions.md §1.5). */
export interface RateLimit {
  requests: number;
  windowSeconds: number;
}

export class RateLimitError extends Error {}

/** `N/Ws` (e.g. `600/60s`), `N/W`, `N` (per the service's window), or `0` (off). */
export function parseRateLimit(spec: string): RateLimit | null {
  const m = /^(\d+)(?:\/(\d+)s?)?$/.exec(spec.trim());
  if (!m) throw new RateLimitError(`bad rate limit "${spec}": use N/60s (e.g. ${RATE_LIMIT_SPEC}), or 0 to turn it off`);
  const requests = Number(m[1]);
  const windowSeconds = m[2] ? Number(m[2]) : LIMITS.rateLimit.windowSeconds;
  if (requests === 0) return null;
  if (windowSeconds <= 0) throw new RateLimitError(`bad rate limit "${spec}": the window must be at least 1 second`);
  return { requests, windowSeconds };
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly limit: RateLimit,
    private readonly nowMs: () => number = Date.now,
  ) {}

  take(key: string): RateDecision {
    const now = this.nowMs();
    const span = this.limit.windowSeconds * 1000;
    const start = Math.floor(now / span) * span;
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(key, w);
    }
    const allowed = w.count < this.limit.requests;
    if (allowed) w.count++;
    const reset = start + span;
    const retryAfterSeconds = Math.max(1, Math.ceil((reset - now) / 1000));
    return {
      allowed,
      retryAfterSeconds,
      headers: {
        'X-RateLimit-Limit': String(this.limit.requests),
        'X-RateLimit-Remaining': String(Math.max(0, this.limit.requests - w.count)),
        'X-RateLimit-Reset': String(Math.floor(reset / 1000)),
      },
    };
  }
}
