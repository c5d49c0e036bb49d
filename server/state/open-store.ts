/** Chooses the state store from configuration: SQLite by default, Redis when SVC_REDIS_URL is set. */
import type { Config } from '../config.ts';
import { SqliteStateStore } from './sqlite-store.ts';
import type { StateStore } from './store.ts';

export function openStateStore(config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL'>): StateStore {
  if (config.SVC_REDIS_URL) {
    throw new Error('SVC_REDIS_URL is set, but the Redis state store is not available in this version: unset it to use SQLite (SVC_STATE)');
  }
  return new SqliteStateStore(config.SVC_STATE);
}
