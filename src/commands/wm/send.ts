import { pool } from '../../pool.js';
import type { ApiResponse } from '../../client/client.js';
import { explainError } from '../../client/errors.js';
import { CliError, type ExitCode } from '../../errors.js';
import type { Pacer } from './pacer.js';

/** Sending batches with bounded concurrency behind the pacer. */

export interface RunOptions<B, R = unknown> {
  pacer: Pacer;
  /** Requests in flight; by default chosen by the pacer once the first answer has shown the rate limit. */
  concurrency?: number;
  signal?: AbortSignal;
  send(batch: B): Promise<ApiResponse<R>>;
  /** A batch the service confirmed. */
  done(batch: B, res: ApiResponse<R>): void;
}

export interface RunResult {
  /** The first failure (after the client's retries); no new batch was started after it. */
  error?: unknown;
  concurrency: number;
}

/**
 * Send every batch of `source`: the first one alone (its answer tells the rate limit), then up to `concurrency` at
 * a time. After a failure no new batch starts; those in flight finish. Ctrl-C (the signal) ends it by throwing.
 */
export async function runBatches<B, R>(source: AsyncIterable<B>, o: RunOptions<B, R>): Promise<RunResult> {
  const it = source[Symbol.asyncIterator]();
  let error: unknown;
  const one = async (batch: B) => {
    await o.pacer.acquire(o.signal);
    try {
      // Not one more batch once interrupted (mcp cancels a call this way, and the process does not exit).
      o.signal?.throwIfAborted();
      const res = await o.send(batch);
      o.pacer.observe(res.headers);
      o.done(batch, res);
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
    const concurrency = o.concurrency ?? o.pacer.defaultConcurrency();
    // The rest from the same iterator; no new batch once one has failed.
    await pool({ [Symbol.asyncIterator]: () => it }, concurrency, one, { more: () => error === undefined });
    return { error, concurrency };
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
