import type { Db } from './db.js';

/**
 * Values read from a database, kept while its state stays the same (Db.dataVersion moves with every change): what
 * requests read again and again (a key, a note, a verified Authorization header) costs one read per change of the
 * state, not one per request. Bounded: cleared when `max` values are kept. A value is not kept when the state changed
 * while it was read (a read of the seed image may switch the store to its writable copy), nor when `read` throws.
 * Values are shared: nothing may change a value it was given.
 */
export class StateCache<K, V> {
  private readonly byDb = new WeakMap<Db, { version: number; values: Map<K, V> }>();

  constructor(private readonly max = Number.POSITIVE_INFINITY) {}

  get(db: Db, key: K, read: () => V): V {
    let cache = this.byDb.get(db);
    if (!cache || cache.version !== db.dataVersion || cache.values.size >= this.max) this.byDb.set(db, (cache = { version: db.dataVersion, values: new Map() }));
    const hit = cache.values.get(key);
    if (hit !== undefined || cache.values.has(key)) return hit as V;
    const value = read();
    if (cache.version === db.dataVersion) cache.values.set(key, value);
    return value;
  }
}
