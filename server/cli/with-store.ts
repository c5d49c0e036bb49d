/** The configured state store (SQLite, or Redis with SVC_REDIS_URL) opened for one command and closed whatever happens. */
import { loadConfig, type Config } from '../config.ts';
import { openStateStore } from '../state/open-store.ts';
import type { StateStore } from '../state/store.ts';

export async function withStore<T>(fn: (store: StateStore, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStateStore(config);
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}
