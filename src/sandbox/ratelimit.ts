import { LIMITS, RATE_LIMIT_SPEC, type RateLimitWindow } from '../contract/limits.js';

/** Per-key rate limiting in a fixed or a sliding window (decisions.md §1.5 allows both). */
export interface RateLimit {
  requests: number;
  windowSeconds: number;
  /**
   * `fixed` (default): the count starts again at each multiple of the window; `sliding`: a request is allowed while
   * fewer than `requests` were allowed within the window length before it.
   */
  window?: RateLimitWindow;
}


export class RateLimitError extends Error {}

/** `N/Ws` (e.g. `600/60s`), `N/W`, `N` (per the service's window), or `0` (off). */
export function parseRateLimit(spec: string, window: RateLimitWindow = 'fixed'): RateLimit | null {
  const m = /^(\d+)(?:\/(\d+)s?)?$/.exec(spec.trim());
  if (!m) throw new RateLimitError(`bad rate limit "${spec}": use N/60s (e.g. ${RATE_LIMIT_SPEC}), or 0 to turn it off`);
  const requests = Number(m[1]);
  const windowSeconds = m[2] ? Number(m[2]) : LIMITS.rateLimit.windowSeconds;
  if (requests === 0) return null;
  if (windowSeconds <= 0) throw new RateLimitError(`bad rate limit "${spec}": the window must be at least 1 second`);
  return { requests, windowSeconds, window };
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  /** Sliding: when each request still in the window was allowed, oldest first, per key. */
  private readonly allowed = new Map<string, number[]>();
  constructor(
    private readonly limit: RateLimit,
    private readonly nowMs: () => number = () => Date.now(),
  ) {}

  take(key: string): RateDecision {
    return this.limit.window === 'sliding' ? this.takeSliding(key) : this.takeFixed(key);
  }

  private decision(allowed: boolean, remaining: number, resetMs: number, now: number): RateDecision {
    return {
      allowed,
      retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
      headers: {
        'X-RateLimit-Limit': String(this.limit.requests),
        'X-RateLimit-Remaining': String(Math.max(0, remaining)),
        'X-RateLimit-Reset': String(Math.ceil(resetMs / 1000)),
        // The policy in the IETF form (draft-ietf-httpapi-ratelimit-headers): the quota and its window in seconds,
        // so that a client paces by this window and not by the 60 s it would otherwise assume.
        'RateLimit-Policy': `${this.limit.requests};w=${this.limit.windowSeconds}`,
      },
    };
  }

  private takeFixed(key: string): RateDecision {
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
    return this.decision(allowed, this.limit.requests - w.count, start + span, now);
  }

  /**
   * The reset is when the oldest request in the window leaves it, i.e. when one more request is allowed again
   * (rounded up to whole seconds, so that waiting for it is always enough).
   */
  private takeSliding(key: string): RateDecision {
    const now = this.nowMs();
    const span = this.limit.windowSeconds * 1000;
    let times = this.allowed.get(key);
    if (!times) this.allowed.set(key, (times = []));
    while (times.length && times[0] <= now - span) times.shift();
    const allowed = times.length < this.limit.requests;
    if (allowed) times.push(now);
    return this.decision(allowed, this.limit.requests - times.length, times.length ? times[0] + span : now + span, now);
  }
}
