import { sleep, type Clock } from '../../src/timing.js';

/**
 * Clocks for tests of commands that wait (Context.clock; runCommand's `clock` option).
 *
 * `acceleratedClock(factor)`: a sleep of `ms` takes ms/factor of real time, and `now()` then counts the whole `ms`,
 * so that what a command measures (a --wait-timeout deadline, "COMPLETED after 3s", a poll schedule) reads as if
 * the waits had been real, while the work between them (requests to a sandbox, file reads) costs and counts its
 * real time. That is:
 *
 *   now() = Date.now() + skipped,
 *
 * where `skipped` grows by ms − ms/factor when a sleep of `ms` ends (by the share of it already slept when a signal
 * cuts it short). A sleep of `ms` so moves now() on by at least `ms`, as a real one does; now() never goes back.
 * Each sleep adds its own skipped time: two concurrent sleeps (a batch polling two jobs) both move the one clock
 * on, so with concurrency virtual time runs ahead of each single wait. A server with a real-time pace of its own
 * (the sandbox's jobSeconds, its rate limiter) keeps it: a job that takes 2 s takes 2 s of real time, which is
 * 2 s × factor of waits in virtual time.
 */
export interface AcceleratedClock extends Clock {
  readonly factor: number;
  /** Virtual time gained so far: now() − Date.now(). */
  readonly skippedMs: number;
}

export function acceleratedClock(factor: number): AcceleratedClock {
  if (!(factor >= 1)) throw new Error(`acceleratedClock: factor ${factor} is not ≥ 1`);
  let skipped = 0;
  return {
    factor,
    get skippedMs() {
      return skipped;
    },
    now: () => Date.now() + skipped,
    async sleep(ms, signal) {
      const real = ms / factor;
      const start = performance.now();
      try {
        await sleep(real, signal);
        skipped += ms - real;
      } catch (e) {
        // Cut short: what was slept counts factor times over, up to the whole sleep.
        skipped += Math.min(ms - real, Math.max(0, performance.now() - start) * (factor - 1));
        throw e;
      }
    },
  };
}
