/**
 * The worker pool of the CLI (voice transcribe's files, wm's batches): `work` runs on the items of `source`, at most
 * `limit` at a time, each worker taking the next item when it is free. `more()` returning false stops new items from
 * starting (those in flight finish). `level()`, when given, lowers the limit while the pool runs (wm's probe of how
 * many requests to keep in flight): a worker beyond it waits before it takes an item. When `work` rejects, that
 * worker stops and the others go on; once all have ended, the first rejection is thrown. The source is closed
 * (`return()`) at the end.
 */
export async function pool<T>(
  source: Iterable<T> | AsyncIterable<T>,
  limit: number,
  work: (item: T) => Promise<void>,
  o: { more?: () => boolean; level?: () => number } = {},
): Promise<void> {
  const it = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  const more = o.more ?? (() => true);
  const level = o.level;
  /** Workers between taking an item and its end, and those waiting for one of them to end (with a level). */
  let active = 0;
  let waiting: Array<() => void> = [];
  const worker = async () => {
    while (more()) {
      if (level) {
        while (active >= level()) await new Promise<void>((resolve) => waiting.push(resolve));
        if (!more()) return;
      }
      active++;
      try {
        const next = await it.next();
        if (next.done) return;
        await work(next.value);
      } finally {
        active--;
        const wake = waiting;
        waiting = [];
        for (const w of wake) w();
      }
    }
  };
  try {
    const settled = await Promise.allSettled(Array.from({ length: Math.max(1, limit) }, worker));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    await it.return?.(undefined);
  }
}
