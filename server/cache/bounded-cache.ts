/**
 * Bounded in-memory caches for pure, hot lookups (bot detection, origin hosts, scoring keys, parsed dates,
 * title classifications, catalog rows). When full, a cache starts over: one `clear()` is cheaper than LRU
 * bookkeeping on every hit, and clients sending endless distinct keys can never grow memory past the bound.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Stores `value` (starting over when full) and returns it. */
  set(key: K, value: V): V {
    if (this.map.size >= this.limit) this.map.clear();
    this.map.set(key, value);
    return value;
  }
}

/** `compute` remembered per key in a BoundedCache of `limit` entries (`compute` must be pure). */
export function boundedMemo<K, V>(compute: (key: K) => V, limit: number): (key: K) => V {
  const cache = new BoundedCache<K, V>(limit);
  return (key) => {
    const hit = cache.get(key);
    return hit !== undefined ? hit : cache.set(key, compute(key));
  };
}

/**
 * `compute` remembered per key object for as long as the key lives (a WeakMap: an immutable catalog row,
 * a stored customer's product, a connection), so nothing holds a key that is otherwise gone.
 */
export function weakMemo<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const cache = new WeakMap<K, V>();
  return (key) => {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    cache.set(key, value);
    return value;
  };
}
