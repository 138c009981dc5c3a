import { pool } from '../../pool.js';
import type { ApiResponse } from '../../client/client.js';
import { explainError } from '../../client/errors.js';
import { CliError, type ExitCode } from '../../errors.js';
import type { Pacer } from './pacer.js';

/** Sending batches with bounded concurrency behind the pacer. */

export interface RunOptions<B, R = unknown> {
  pacer: Pacer;
  /** Requests in flight; by default chosen by the pacer once the first answer has shown the rate limit (see Probe). */
  concurrency?: number;
  signal?: AbortSignal;
  send(batch: B): Promise<ApiResponse<R>>;
  /** A batch the service confirmed. */
  done(batch: B, res: ApiResponse<R>): void;
  /** The clock of the probe (ms); performance.now by default. */
  now?: () => number;
}

export interface RunResult {
  /** The first failure (after the client's retries); no new batch was started after it. */
  error?: unknown;
  /** Requests in flight at the end (the probe's choice when it chose). */
  concurrency: number;
}

/** The fewest in flight the probe goes down to. */
const PROBE_MIN = 2;
/** Answers of a level that are not timed (the pipe filling or draining), then answers per timed span, at least. */
const PROBE_SETTLE = 4;
const PROBE_SPAN = 12;
/** Timed spans per level: its rate is the best of them (a stall of a loaded machine slows one span, not both). */
const PROBE_SPANS = 2;
/** Half as many in flight are kept when they answer at least this share of the batches a second. */
const PROBE_KEEP = 0.9;

/**
 * How many requests to keep in flight when the service announces no limit: `max` at first, then halved for as long
 * as half as many answer about as many batches a second (down to two). Next to the server (loopback) the server's
 * own time per batch is the limit: two in flight keep it busy (one answered while the next waits in its socket), and
 * each request more in flight only holds another request's body and answer in memory (measured: the CLI's peak RSS
 * 105–109 MB with 2, 117–132 MB with 8, at the same rows/s). Over a network each request waits out its round trip,
 * and halving the requests in flight about halves the rows/s while the server is not yet busy (50 ms of latency, 3 ms
 * of server time per batch), so the probe goes back to the level before and stays. It probes downwards because the
 * first batches of a run are the slowest (code not optimised yet, on both sides): a level timed later looks faster,
 * which a probe upwards took for the gain of more requests in flight. Each level's rate is the best of two spans, so
 * that a pause of the machine during one span does not make a level look slower than it is.
 */
class Probe {
  level: number;
  private settled = false;
  /** The rate of the level before (answers per ms). */
  private last = 0;
  /** The best rate of this level's spans so far. */
  private best = 0;
  private spans = 0;
  private answers = 0;
  private startedAt = 0;
  constructor(
    private readonly max: number,
    private readonly now: () => number,
  ) {
    this.level = max;
    this.settled = max <= PROBE_MIN;
  }

  /** An answer arrived: after a level's timed spans, halve it again, or go back to the level before and stay. */
  answered(): void {
    if (this.settled) return;
    this.answers++;
    if (this.answers === PROBE_SETTLE) this.startedAt = this.now();
    const timed = this.answers - PROBE_SETTLE;
    if (timed < Math.max(PROBE_SPAN, 2 * this.level)) return;
    const at = this.now();
    this.best = Math.max(this.best, timed / Math.max(1e-3, at - this.startedAt));
    // The next span follows at once (the pipe is full already).
    this.answers = PROBE_SETTLE;
    this.startedAt = at;
    if (++this.spans < PROBE_SPANS) return;
    const rate = this.best;
    this.best = 0;
    this.spans = 0;
    this.answers = 0;
    if (this.last > 0 && rate < this.last * PROBE_KEEP) {
      this.level = Math.min(this.max, this.level * 2);
      this.settled = true;
      return;
    }
    this.last = rate;
    if (this.level <= PROBE_MIN) this.settled = true;
    else this.level = Math.max(PROBE_MIN, Math.floor(this.level / 2));
  }
}

/**
 * Send every batch of `source`: the first one alone (its answer tells the rate limit), then up to `concurrency` at
 * a time (by default the pacer's; without a limit announced, as the Probe finds). After a failure no new batch
 * starts; those in flight finish. Ctrl-C (the signal) ends it by throwing.
 */
export async function runBatches<B, R>(source: AsyncIterable<B>, o: RunOptions<B, R>): Promise<RunResult> {
  const it = source[Symbol.asyncIterator]();
  let error: unknown;
  let probe: Probe | undefined;
  const one = async (batch: B) => {
    await o.pacer.acquire(o.signal);
    try {
      // Not one more batch once interrupted (mcp cancels a call this way, and the process does not exit).
      o.signal?.throwIfAborted();
      const res = await o.send(batch);
      o.pacer.observe(res.headers);
      o.done(batch, res);
      probe?.answered();
    } catch (e) {
      if (o.signal?.aborted) throw e;
      error ??= e;
    } finally {
      o.pacer.release();
    }
  };
  try {
    const first = await it.next();
    if (first.done) return { concurrency: 0 };
    await one(first.value);
    const max = o.concurrency ?? o.pacer.defaultConcurrency();
    if (o.concurrency === undefined && o.pacer.requestsPerWindow === undefined) probe = new Probe(max, o.now ?? (() => performance.now()));
    // The rest from the same iterator; no new batch once one has failed; never more in flight than the probe's level.
    const limit = () => probe?.level ?? max;
    await pool({ [Symbol.asyncIterator]: () => it }, max, one, { more: () => error === undefined, level: probe && limit });
    return { error, concurrency: limit() };
  } finally {
    await it.return?.(undefined);
  }
}

/** Items in groups of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** An async iterable over an array (for runBatches). */
export async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** The error to end with when batches failed for good: what was not done, why, and how to continue. */
export function batchFailure(error: unknown, what: string, hint: string): CliError {
  const why = explainError(error);
  return new CliError(`${what}: ${why.message}`, {
    exitCode: why.exitCode as ExitCode,
    hint: why.hint ? `${hint} ${why.hint}` : hint,
    errorType: why.errorType,
    code: why.code,
  });
}
