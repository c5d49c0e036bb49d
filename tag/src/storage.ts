/**
 * Key-value storage that never throws: Web Storage (localStorage for the cache and the opt-out,
 * sessionStorage for the page-view session), falling back to memory for this page view when the
 * browser refuses it (blocked cookies, private modes, quota, sandboxed frames).
 */
export interface KeyValueStore {
  /** undefined or null: nothing stored. */
  get(key: string): string | null | undefined;
  set(key: string, value: string): void;
}

/** `storage` is a getter: reading `window.localStorage` itself throws when storage is blocked. */
export function safeStorage(storage: () => Storage): KeyValueStore {
  // A plain object, not a Map (3 B gzip less): every key starts with `svc:`, never an inherited name.
  const memory: Record<string, string> = {};
  return {
    get(key) {
      try {
        return storage().getItem(key);
      } catch {
        return memory[key];
      }
    },
    set(key, value) {
      try {
        storage().setItem(key, value);
      } catch {
        memory[key] = value;
      }
    },
  };
}
