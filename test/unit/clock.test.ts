import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../src/client/client.js';
import { ApiError } from '../../src/client/errors.js';
import type { Context } from '../../src/commands/types.js';
import { uploadWithRetries, waitForJob, type JobStatus, type VoiceJob } from '../../src/commands/voice/job.js';
import type { AudioFile } from '../../src/commands/voice/preflight.js';
import { realClock, type Clock } from '../../src/timing.js';
import { acceleratedClock } from '../helpers/clock.js';

afterEach(() => vi.restoreAllMocks());

describe('acceleratedClock (test/helpers/clock.ts)', () => {
  it('sleeps ms/factor of real time and counts the whole ms in now()', async () => {
    const clock = acceleratedClock(1000);
    const real0 = performance.now();
    const virtual0 = clock.now();
    await clock.sleep(10_000);
    const real = performance.now() - real0;
    expect(real).toBeGreaterThanOrEqual(9); // the 10 ms it was asked to take (timers may round down by a fraction)
    expect(real).toBeLessThan(10_000); // not the 10 s a real sleep takes
    expect(clock.skippedMs).toBe(10_000 - 10);
    // The whole 10 s, less what the timer's rounding took off the real 10 ms (Date.now() counts whole ms).
    expect(clock.now() - virtual0).toBeGreaterThanOrEqual(10_000 - 1);
  });

  it('reads as Date.now() plus the time skipped', async () => {
    const clock = acceleratedClock(20);
    const before = Date.now();
    expect(clock.now()).toBeGreaterThanOrEqual(before);
    await clock.sleep(200);
    const a = Date.now();
    const now = clock.now();
    const b = Date.now();
    expect(clock.skippedMs).toBe(190);
    expect(now).toBeGreaterThanOrEqual(a + 190);
    expect(now).toBeLessThanOrEqual(b + 190);
  });

  it('adds the skipped time of each of concurrent sleeps', async () => {
    const clock = acceleratedClock(10);
    await Promise.all([clock.sleep(1000), clock.sleep(1000)]);
    expect(clock.skippedMs).toBe(1800);
  });

  it('is cut short by the signal, counting only the share slept, and keeps no timer waiting', async () => {
    const clock = acceleratedClock(10);
    const ac = new AbortController();
    const reason = new Error('interrupted');
    setTimeout(() => ac.abort(reason), 20);
    const real0 = performance.now();
    await expect(clock.sleep(100_000, ac.signal)).rejects.toBe(reason);
    expect(performance.now() - real0).toBeLessThan(10_000);
    expect(clock.skippedMs).toBeGreaterThan(0);
    expect(clock.skippedMs).toBeLessThan(90_000);
    await expect(clock.sleep(1000, ac.signal)).rejects.toBe(reason); // already aborted: no wait at all
  });

  it('refuses a factor below 1', () => {
    expect(() => acceleratedClock(0.5)).toThrow(/not ≥ 1/);
    expect(() => acceleratedClock(Number.NaN)).toThrow(/not ≥ 1/);
  });
});

/** A clock in which no real time passes: each sleep is noted and moves now() on at once. */
function manualClock(start = 1_700_000_000_000): Clock & { sleeps: number[] } {
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      t += ms;
    },
  };
}

const contextWith = (clock: Clock) => ({ clock, signal: new AbortController().signal }) as unknown as Context;

/** A client whose job has each status in turn (the last one from then on). */
function jobClient(statuses: JobStatus[]): ApiClient {
  let i = 0;
  return {
    async call(id: string) {
      if (id !== 'voice.get') throw new Error(`unexpected call ${id}`);
      const status = statuses[Math.min(i++, statuses.length - 1)];
      return { data: { id: 'job-1', status } as VoiceJob };
    },
  } as unknown as ApiClient;
}

describe('the voice commands wait on the context clock', () => {
  it('the real clock is the wall clock', () => {
    const before = Date.now();
    expect(realClock.now()).toBeGreaterThanOrEqual(before);
    expect(realClock.now()).toBeLessThanOrEqual(Date.now());
  });

  it("waitForJob polls on the clock's schedule: from 1 s ×1.5, starting over when the status changes", async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5); // no jitter
    const clock = manualClock();
    const seen: Array<[JobStatus, number]> = [];
    const job = await waitForJob(contextWith(clock), jobClient(['UPLOADED', 'UPLOADED', 'UPLOADED', 'PROCESSING', 'PROCESSING', 'COMPLETED']), 'job-1', {
      timeoutMs: 60_000,
      onStatus: (j, elapsedMs) => seen.push([j.status, elapsedMs]),
    });
    expect(job.status).toBe('COMPLETED');
    expect(clock.sleeps).toEqual([1000, 1500, 2250, 1000, 1500]);
    expect(seen).toEqual([
      ['UPLOADED', 0],
      ['UPLOADED', 1000],
      ['UPLOADED', 2500],
      ['PROCESSING', 4750],
      ['PROCESSING', 5750],
      ['COMPLETED', 7250],
    ]);
  });

  it('waitForJob takes its last look at the deadline on the clock, then exits 12', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const clock = manualClock();
    const seen: number[] = [];
    const wait = waitForJob(contextWith(clock), jobClient(['PROCESSING']), 'job-1', { timeoutMs: 3000, onStatus: (_j, ms) => seen.push(ms) });
    await expect(wait).rejects.toMatchObject({ exitCode: 12, message: 'gave up waiting after 3s: job job-1 is still PROCESSING' });
    expect(clock.sleeps).toEqual([1000, 1500, 500]);
    expect(seen).toEqual([0, 1000, 2500, 3000]);
  });

  it('uploadWithRetries waits its backoff on the clock between attempts', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5); // each wait is 3/4 of its step (jitter between half and all)
    const clock = manualClock();
    let attempts = 0;
    const client = {
      async upload() {
        attempts++;
        throw new ApiError({ status: 503, errorType: 'internal_error', apiMessage: 'down' });
      },
    } as unknown as ApiClient;
    const file = { path: '/nowhere.wav', size: 1, contentType: 'audio/wav' } as AudioFile;
    const retries: number[] = [];
    const upload = uploadWithRetries(contextWith(clock), client, 'http://127.0.0.1/upload', file, { progress: () => undefined, retry: (n) => retries.push(n) });
    await expect(upload).rejects.toMatchObject({ status: 503 });
    expect(attempts).toBe(4);
    expect(retries).toEqual([2, 3, 4]);
    expect(clock.sleeps).toEqual([750, 1500, 3000]);
  });
});
