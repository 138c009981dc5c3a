import { sleep } from '../../timing.js';
import { parseRateLimit } from '../../client/retry.js';
import { LIMITS } from '../../contract/limits.js';
import type { Progress } from '../../io/progress.js';

/**
 * Client-side pacing from the `X-RateLimit-*` headers (decisions.md §1.5), so that a long import never runs into
 * 429: a token bucket refilled at the key's limit rate, holding at most the remaining budget of the window. The
 * first answer's budget may be spent in one burst; once a window's budget is spent, requests wait for its reset
 * and then go at the limit rate. Requests in flight count against the budget until the service has answered.
 *
 * The service may count in a fixed or a sliding window (§1.5 allows both), so on top of that no request is sent
 * while `limit` requests were answered (or are in flight) within the last window length: a request answered at
 * time t was counted by the service before t, so one sent a window after t is never in the same window as it, on
 * any clock. Without this, 600 requests at the end of one fixed window and 600 at the start of the next would
 * be 1200 within a minute: a 429 storm for a sliding window. Only when the first answer announces a window end
 * much sooner than a minute (a short window, e.g. a sandbox at 420/2s), one request alone may go ahead at a window
 * end to see what the service refilled: a full budget means fixed windows, and their length is learned from
 * consecutive ends; anything else stops the probing.
 */

/**
 * The window the decisions name (600 per 60 s). Another one is taken from a `RateLimit-Policy` header (`20;w=10`)
 * when the service announces one, or else learned from consecutive `X-RateLimit-Reset`s of a fixed window.
 */
const WINDOW_MS = LIMITS.rateLimit.windowSeconds * 1000;
/** Wait a little past the announced reset (the header has whole seconds). */
const RESET_MARGIN_MS = 50;
/**
 * Requests in flight when the service announces no limit: eight. Against a server next door two would do, but
 * over a real network each request waits out its round trip, and eight 1000-row batches in flight keep a server
 * busy at round trips up to several times its time per batch (measured: 50 ms of latency, 2 in flight 1.8×, 8 in
 * flight 4× a sequential loop), for a few MB of batches held. With a limit, up to four, enough for 600/min at
 * round trips up to 400 ms.
 */
const UNLIMITED_CONCURRENCY = 8;
const MAX_DEFAULT_CONCURRENCY = 4;

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

const defaultSleep: Sleep = sleep;

export class Pacer {
  /** Requests per window; 0 while no limit is known. */
  private limit = 0;
  private tokens = 0;
  private budget = Infinity;
  /** When the current window ends: from the last answer, or extrapolated once that window is over. */
  private resetAt = 0;
  /** The latest window end an answer announced. */
  private announcedReset = 0;
  /** The window's length: 60 s (decisions.md §1.5) until two announced window ends tell otherwise. */
  private windowMs = WINDOW_MS;
  private windowLearned = false;
  private refilledAt = 0;
  private inFlight = 0;
  /** When the requests of the last window length were answered (our clock, oldest first). */
  private readonly answered: number[] = [];
  /** A window end has passed and nothing answered since: one request alone may see what the service refilled. */
  private probe = false;
  /** The probe is in flight: its answer decides. */
  private probeOutstanding = false;
  /**
   * The first answer announced a window end within a tenth of the assumed window, as a short window does (420/2s):
   * probing may learn it. Off once a probe found no fresh window (a sliding one), or the window is learned.
   */
  private mayProbe = false;
  /**
   * The service's clock minus ours, as a lower bound from the `Date` headers (whole seconds, stamped before the
   * answer travelled): window ends are the service's times, and a clock of ours running ahead must not make us
   * start the next window early. Waiting up to a second too long is the price when the clocks agree.
   */
  private skew: number | undefined;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly sleep: Sleep = defaultSleep,
  ) {}

  /**
   * Told when a wait of a second or more begins (with its end, epoch ms on our clock) and when it is over
   * (undefined), so that the progress line can say what it waits for.
   */
  onWait: ((untilMs: number | undefined) => void) | undefined;

  /** The limit the service announced (requests per window), if any. */
  get requestsPerWindow(): number | undefined {
    return this.limit || undefined;
  }

  /** Now on the service's clock, as far as we know it. */
  private serverNow(): number {
    return this.now() + (this.skew ?? 0);
  }

  /** The window length in use (learned from the answers' window ends). */
  get window(): number {
    return this.windowMs;
  }

  /** Requests to keep in flight: enough for the limit's rate (half a second per request), eight when there is none. */
  defaultConcurrency(): number {
    if (!this.limit) return UNLIMITED_CONCURRENCY;
    const perSecond = (this.limit * 1000) / this.windowMs;
    return Math.min(MAX_DEFAULT_CONCURRENCY, Math.max(1, Math.ceil(perSecond / 2)));
  }

  /** Wait until a request may be sent, and count it as in flight. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (!this.limit) break;
      this.refill();
      const spanWait = this.spanWait();
      const probing = spanWait > 0 && this.probe && this.mayProbe && this.inFlight === 0 && !this.windowLearned;
      if (this.budget >= 1 && this.tokens >= 1 && (spanWait <= 0 || probing)) {
        if (probing) {
          this.probe = false;
          this.probeOutstanding = true;
        }
        this.tokens--;
        this.budget--;
        break;
      }
      const spanFull = this.budget >= 1 && this.tokens >= 1;
      const wait =
        this.budget < 1 ? this.resetAt - this.serverNow() + RESET_MARGIN_MS : this.tokens < 1 ? ((1 - this.tokens) * this.windowMs) / this.limit : spanWait;
      const ms = Math.max(5, Math.ceil(wait));
      if (ms >= 1000) this.onWait?.(this.now() + ms);
      try {
        await this.sleep(ms, signal);
      } finally {
        if (ms >= 1000) this.onWait?.(undefined);
      }
      if (spanFull) {
        // Tokens are not earned while the span is full: when it frees up, the pace starts from the rate.
        this.tokens = Math.min(this.tokens, 1);
        this.refilledAt = this.now();
      }
    }
    this.inFlight++;
  }

  /** A response arrived (call before release()): learn the limit, the remaining budget and the window's reset. */
  observe(headers: Record<string, string>): void {
    const r = parseRateLimit(headers);
    if (r.limit === undefined || r.limit <= 0) return;
    const stamped = headers.date ? Date.parse(headers.date) : NaN;
    if (!Number.isNaN(stamped)) this.skew = Math.max(this.skew ?? -Infinity, stamped - this.now());
    const first = !this.limit;
    this.limit = r.limit;
    if (r.windowSeconds !== undefined) {
      // The service announced its window (RateLimit-Policy): nothing to learn or probe.
      this.windowMs = r.windowSeconds * 1000;
      this.windowLearned = true;
      this.mayProbe = false;
    }
    const resetAt = r.resetEpochSeconds !== undefined ? r.resetEpochSeconds * 1000 : this.resetAt || this.serverNow() + this.windowMs;
    const wasProbe = this.probeOutstanding;
    this.probeOutstanding = false;
    // An answer about a window that is already over: older than the latest announced, or the one we have left.
    // (A probe that still met the old window tried too early: the next request may probe again.)
    if (resetAt < this.announcedReset || (resetAt === this.announcedReset && this.resetAt > resetAt)) {
      if (wasProbe) this.probe = true;
      return;
    }
    const newWindow = resetAt > this.announcedReset;
    // Consecutive window ends of a fixed window are a window apart (or several, when none was seen in between),
    // and a new window starts nearly full; a sliding window's end creeps on while little remains: not learned.
    // Only a (nearly) full budget is a new fixed window: everything but the requests in flight is back.
    const freshWindow = r.remaining === undefined || r.remaining >= r.limit - Math.max(1, this.inFlight);
    if (first) this.mayProbe = !this.windowLearned && resetAt - this.serverNow() < this.windowMs / 10;
    else if (wasProbe && newWindow && !freshWindow) this.mayProbe = false;
    this.probe = false;
    if (newWindow && this.announcedReset > 0 && freshWindow) {
      const span = resetAt - this.announcedReset;
      this.windowMs = this.windowLearned ? Math.min(this.windowMs, span) : span;
      this.windowLearned = true;
    }
    this.announcedReset = resetAt;
    this.resetAt = resetAt;
    if (r.remaining !== undefined) {
      // This request is counted in `remaining`; the others in flight may not be yet.
      const known = r.remaining - Math.max(0, this.inFlight - 1);
      this.budget = newWindow ? known : Math.min(this.budget, known);
    }
    if (first) {
      this.tokens = Math.max(0, this.budget);
      this.refilledAt = this.now();
    }
  }

  /** The request is over (answered or failed: a failed one may have been counted too). */
  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    // A probe that got no answer (a network failure) may be tried again.
    if (this.probeOutstanding) {
      this.probeOutstanding = false;
      this.probe = true;
    }
    if (this.limit) this.answered.push(this.now());
  }

  /** How long until one more request fits in the last window length (0: now); answers older than that are dropped. */
  private spanWait(): number {
    const local = this.now();
    while (this.answered.length && this.answered[0] <= local - this.windowMs) this.answered.shift();
    const over = this.answered.length + this.inFlight - this.limit;
    if (over < 0) return 0;
    // The (over+1)-th oldest answer must leave the span; when the requests in flight alone fill it, wait for answers.
    return over < this.answered.length ? this.answered[over] + this.windowMs - local + 1 : RESET_MARGIN_MS;
  }

  private refill(): void {
    const local = this.now();
    // Tokens earned while the budget was spent stay capped by it: after a reset the pace starts from the rate.
    this.tokens = Math.min(Math.max(1, this.budget), this.tokens + ((local - this.refilledAt) * this.limit) / this.windowMs);
    this.refilledAt = local;
    const t = this.serverNow();
    if (t >= this.resetAt + RESET_MARGIN_MS) {
      // The window is over: its whole limit is available until a response says otherwise.
      this.budget = this.limit - this.inFlight;
      this.probe = true;
      this.resetAt += (Math.floor((t - this.resetAt - RESET_MARGIN_MS) / this.windowMs) + 1) * this.windowMs;
    }
  }
}

/** The pacer's waits shown on a progress line: "waiting for the rate-limit window, resumes in 41s". */
export function waitsShown(pacer: Pacer, progress: Pick<Progress, 'waiting'>): Pacer {
  pacer.onWait = (until) => progress.waiting(until, 'waiting for the rate-limit window');
  return pacer;
}
