/**
 * Key-value storage that never throws: Web Storage (localStorage for the cache and the opt-out,
 * sessionStorage for the page-view session), falling back to memory for this page view when the
 * browser refuses it (blocked cookies, private modes, quota, sandboxed frames).
 */
export interface KeyValueStore {
  /** What is stored under `key`; undefined or null: nothing stored. */
  (key: string): string | null | undefined;
  /** Stores `value` under `key`; returns it (as then stored). */
  (key: string, value: string): string;
}

/**
 * `storage` is a getter: reading `window.localStorage` itself throws when storage is blocked. One
 * function that reads (no value) or writes rather than an object with get and set: 10 B gzip less.
 */
export function safeStorage(storage: () => Storage): KeyValueStore {
  // A plain object, not a Map (3 B gzip less): every key starts with `svc:`, never an inherited name.
  const memory: Record<string, string> = {};
  return ((key: string, value?: string) => {
    try {
      // (a write answers what is then stored, the value: 4 B gzip less than answering `value` itself)
      if (value != null) storage().setItem(key, value);
      return storage().getItem(key);
    } catch {
      return value == null ? memory[key] : (memory[key] = value);
    }
  }) as KeyValueStore;
}
