/**
 * Waiting, in one place: the abortable sleep and the exponential backoff that client retries, upload retries and
 * polling (voice jobs, notes --follow) share. The sandbox's webhook delivery follows decisions.md §6.3's fixed
 * schedule (contract/events.ts) instead.
 */

/** Wait `ms`; Ctrl-C (the signal) cuts it short by rejecting with the signal's reason. Keeps no timer alive after an abort. */
export async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw signal.reason;
  try {
    // node:timers/promises loaded at the first wait, not at every command's start (most never wait).
    await process.getBuiltinModule('node:timers/promises').setTimeout(ms, undefined, { signal });
  } catch (e) {
    throw signal?.aborted ? signal.reason : e;
  }
}

/**
 * The time as a command sees it (Context.clock): what it reads to measure how long something took or how much of a
 * deadline is left, and what it waits on between polls and retries. Tests swap it (test/helpers/clock.ts) so that a
 * command's waits need not pass in real time.
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
  /** Wait `ms`, cut short by the signal as `sleep` is. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The wall clock. `now` reads Date.now at each call (not a reference taken at load), so faked Dates reach it too. */
export const realClock: Clock = { now: () => Date.now(), sleep };

export interface Backoff {
  /** The delay before the first retry (attempt 0). */
  firstMs: number;
  /** Each next delay is the previous one times this. */
  factor: number;
  capMs: number;
  /** The delay is multiplied by a random factor between these (1, 1 for none; 0, 1 is "full jitter"). */
  jitter: readonly [low: number, high: number];
}

/** The delay before retry number `attempt` (0 for the first): min(cap, first × factor^attempt) × a jitter factor. */
export function backoffDelay(b: Backoff, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(b.capMs, b.firstMs * b.factor ** attempt);
  const [low, high] = b.jitter;
  return base * (low + (high - low) * random());
}
