import { describe, expect, it } from 'vitest';
import { Pacer } from '../../src/commands/wm/pacer.js';
import { runBatches } from '../../src/commands/wm/send.js';

/** A pacer on a fake clock: sleeping advances time. */
function fakePacer(startMs = 1_800_000_000_000) {
  let now = startMs;
  const pacer = new Pacer(
    () => now,
    async (ms) => {
      now += ms;
    },
  );
  return { pacer, now: () => now };
}

const headers = (limit: number, remaining: number, resetMs: number) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(Math.floor(resetMs / 1000)),
});

/**
 * Send `count` requests one after another against a fixed-window server of `limit` per `windowMs`; returns send
 * times and 429s. `serverBehindMs`: the server's clock is that far behind ours, and its answers carry a `Date` header.
 */
async function simulate(count: number, limit: number, startMs: number, windowMs = 60_000, serverBehindMs?: number) {
  const { pacer, now } = fakePacer(startMs);
  const windows = new Map<number, number>();
  const times: number[] = [];
  let rejected = 0;
  for (let i = 0; i < count; i++) {
    await pacer.acquire();
    const t = now() - (serverBehindMs ?? 0);
    const w = Math.floor(t / windowMs);
    const used = (windows.get(w) ?? 0) + 1;
    windows.set(w, used);
    if (used > limit) rejected++;
    times.push(t);
    const date: Record<string, string> = serverBehindMs === undefined ? {} : { date: new Date(t).toUTCString() };
    pacer.observe({ ...headers(limit, Math.max(0, limit - used), (w + 1) * windowMs), ...date });
    pacer.release();
  }
  return { times, rejected, pacer };
}

describe('wm pacing', () => {
  it('does not wait when the service announces no limit', async () => {
    const { pacer, now } = fakePacer();
    const t0 = now();
    for (let i = 0; i < 100; i++) {
      await pacer.acquire();
      pacer.observe({});
      pacer.release();
    }
    expect(now()).toBe(t0);
    expect(pacer.defaultConcurrency()).toBe(8);
    expect(pacer.requestsPerWindow).toBeUndefined();
  });

  it('uses the remaining budget in a burst, then waits for the window to reset: no 429', async () => {
    const windowStart = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    const { times, rejected, pacer } = await simulate(700, 600, windowStart + 1000);
    expect(rejected).toBe(0);
    // the first window's 600 requests go at once
    expect(times[599] - times[0]).toBe(0);
    // the next one waits for the reset, after which requests are spread at 10/s
    expect(times[600]).toBeGreaterThanOrEqual(windowStart + 60_000);
    const gaps = times.slice(602).map((t, i) => t - times[601 + i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(99);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(110);
    expect(pacer.defaultConcurrency()).toBe(4);
  });

  it('keeps a long run at the limit rate, without 429', async () => {
    const { times, rejected } = await simulate(3000, 600, 1_800_000_000_000 + 37_000);
    expect(rejected).toBe(0);
    const minutes = (times.at(-1)! - times[0]) / 60_000;
    expect(3000 / minutes).toBeGreaterThan(600 * 0.95);
  });

  it('learns a window other than 60 s from consecutive window ends, and keeps its rate without 429', async () => {
    const start = 1_800_000_000_000 + 500;
    const { times, rejected, pacer } = await simulate(200, 20, start, 2000);
    expect(rejected).toBe(0);
    expect(pacer.window).toBe(2000);
    const seconds = (times.at(-1)! - times[0]) / 1000;
    // 200 requests at 20 per 2 s: about 20 s; assuming 60-s windows it would take ten minutes
    expect(seconds).toBeLessThan(21);
    expect(200 / seconds).toBeGreaterThan(10 * 0.9);
  });

  it('goes by the service clock (Date header) when ours runs ahead: no 429 at the window change', async () => {
    const start = 1_800_000_000_000 - (1_800_000_000_000 % 60_000) + 30_000;
    const ahead = await simulate(700, 600, start, 60_000, 3000);
    expect(ahead.rejected).toBe(0);
    // the contrast: without Date headers our early clock starts the next window 3 s too soon
    const { pacer, now } = fakePacer(start);
    let rejected = 0;
    const windows = new Map<number, number>();
    for (let i = 0; i < 700; i++) {
      await pacer.acquire();
      const server = now() - 3000;
      const w = Math.floor(server / 60_000);
      const used = (windows.get(w) ?? 0) + 1;
      windows.set(w, used);
      if (used > 600) rejected++;
      pacer.observe(headers(600, Math.max(0, 600 - used), (w + 1) * 60_000));
      pacer.release();
    }
    expect(rejected).toBeGreaterThan(0);
    // and when the clocks agree, the Date header costs at most a second per window change
    const agree = await simulate(700, 600, start, 60_000, 0);
    expect(agree.rejected).toBe(0);
    expect(agree.times[600] - (start - (start % 60_000) + 60_000)).toBeLessThanOrEqual(1000 + 50);
  });

  it('does not learn a window from a sliding window whose end creeps on', async () => {
    const { pacer, now } = fakePacer(1_800_000_000_000);
    for (let i = 0; i < 5; i++) {
      await pacer.acquire();
      pacer.observe(headers(600, 3, now() + 60_000 + i * 1000));
      pacer.release();
    }
    expect(pacer.window).toBe(60_000);
  });

  it('an answer from the window just left does not empty the next one', async () => {
    const { pacer, now } = fakePacer(1_800_000_000_000);
    const reset = now() + 1000;
    await pacer.acquire();
    pacer.observe(headers(600, 0, reset));
    pacer.release();
    await pacer.acquire(); // waits for the reset; the new window's budget is the whole limit
    expect(now()).toBeGreaterThanOrEqual(reset);
    pacer.observe(headers(600, 0, reset)); // a late answer about the old window
    pacer.release();
    const t = now();
    for (let i = 0; i < 3; i++) {
      await pacer.acquire();
      pacer.release();
    }
    expect(now() - t).toBeLessThan(1000); // paced at 10/s, not held until another minute has passed
  });

  it('counts requests in flight against the budget', async () => {
    const { pacer, now } = fakePacer(1_800_000_000_000);
    const reset = now() + 30_000;
    await pacer.acquire();
    pacer.observe(headers(10, 3, reset));
    pacer.release();
    // three may start; a fourth must wait for the reset
    for (let i = 0; i < 3; i++) await pacer.acquire();
    const before = now();
    await pacer.acquire();
    expect(now()).toBeGreaterThanOrEqual(reset);
    expect(before).toBeLessThan(reset);
  });

  it('ignores an answer about a window that is already over', async () => {
    const { pacer, now } = fakePacer(1_800_000_000_000);
    await pacer.acquire();
    pacer.observe(headers(600, 500, now() + 60_000));
    pacer.release();
    pacer.observe(headers(600, 0, now() - 1000)); // late answer from the previous window
    const t = now();
    await pacer.acquire();
    expect(now()).toBe(t);
  });

  it('chooses fewer requests in flight for a low limit', () => {
    const { pacer } = fakePacer();
    pacer.observe(headers(60, 59, Date.now() + 60_000));
    expect(pacer.defaultConcurrency()).toBe(1);
  });
});

describe('wm batch sending', () => {
  const ok = (h: Record<string, string> = {}) => ({ status: 200, headers: h, data: { content: [] }, attempts: 1 });

  it('sends the first batch alone, then with the chosen concurrency, in order of the source', async () => {
    const { pacer } = fakePacer();
    let inFlight = 0;
    let most = 0;
    const seen: number[] = [];
    async function* source() {
      for (let i = 0; i < 20; i++) yield i;
    }
    const r = await runBatches(source(), {
      pacer,
      concurrency: 3,
      send: async (b) => {
        inFlight++;
        most = Math.max(most, inFlight);
        if (b === 0) expect(inFlight).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 2));
        inFlight--;
        return ok();
      },
      done: (b) => seen.push(b),
    });
    expect(r).toEqual({ error: undefined, concurrency: 3 });
    expect(most).toBe(3);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('starts no new batch after a failure and reports it', async () => {
    const { pacer } = fakePacer();
    const sent: number[] = [];
    async function* source() {
      for (let i = 0; i < 50; i++) yield i;
    }
    const boom = new Error('boom');
    const r = await runBatches(source(), {
      pacer,
      concurrency: 2,
      send: async (b) => {
        sent.push(b);
        if (b === 5) throw boom;
        return ok();
      },
      done: () => {},
    });
    expect(r.error).toBe(boom);
    expect(Math.max(...sent)).toBeLessThanOrEqual(6);
  });
});
