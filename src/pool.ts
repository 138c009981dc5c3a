/**
 * The worker pool of the CLI (voice transcribe's files, wm's batches): `work` runs on the items of `source`, at most
 * `limit` at a time, each worker taking the next item when it is free. `more()` returning false stops new items from
 * starting (those in flight finish). When `work` rejects, that worker stops and the others go on; once all have
 * ended, the first rejection is thrown. The source is closed (`return()`) at the end.
 */
export async function pool<T>(source: Iterable<T> | AsyncIterable<T>, limit: number, work: (item: T) => Promise<void>, o: { more?: () => boolean } = {}): Promise<void> {
  const it = Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  const more = o.more ?? (() => true);
  const worker = async () => {
    while (more()) {
      const next = await it.next();
      if (next.done) return;
      await work(next.value);
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
