/** Chooses the state store from configuration: SQLite by default, Redis when SVC_REDIS_URL is set (a Redis Cluster with SVC_REDIS_CLUSTER=1). */
import type { RedisClientType } from '@redis/client';
import type { Config } from '../config.ts';
import type { StateLog } from './errors.ts';
import type { SqliteStateDb } from './sqlite-db.ts';
import { SqliteStateStore } from './sqlite-store.ts';
import type { StateStore } from './store.ts';

export async function openStateStore(
  config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL' | 'SVC_JOURNAL_DIR' | 'SVC_OUTAGE_ALLOWANCE'> &
    Partial<Pick<Config, 'SVC_REDIS_TIMEOUT_MS' | 'SVC_REDIS_CLUSTER' | 'SVC_REDIS_WAIT'>>,
  log?: StateLog,
): Promise<StateStore> {
  if (config.SVC_REDIS_URL) {
    // Loaded only when used: the embedded default (and every CLI call on it) does not pay for the client.
    const { RedisStateStore } = await import('./redis-store.ts');
    return RedisStateStore.open({
      url: config.SVC_REDIS_URL,
      cluster: config.SVC_REDIS_CLUSTER,
      waitReplicas: config.SVC_REDIS_WAIT,
      journalDir: config.SVC_JOURNAL_DIR,
      outageAllowance: config.SVC_OUTAGE_ALLOWANCE,
      commandTimeoutMs: config.SVC_REDIS_TIMEOUT_MS,
      log,
    });
  }
  return new SqliteStateStore(config.SVC_STATE, { log });
}

/**
 * The state store's SQLite connection, for the visit store and the webhook outbox of the same process:
 * one connection to the file, one lock policy (sqlite-db.ts). Null on Redis.
 */
export function sharedSqlite(store: StateStore): SqliteStateDb | null {
  return store instanceof SqliteStateStore ? store.sqlite : null;
}

/**
 * The state store's Redis command client, for the visit store and the webhook outbox of the same process:
 * a node holds one command client plus the state store's subscriber. On a Redis Cluster it is the cluster
 * client (redis-connection.ts). Null when the store is not on Redis.
 */
export async function sharedRedis(store: StateStore): Promise<RedisClientType | null> {
  // Loaded only when asked (on Redis): the embedded default does not pay for the client.
  const { RedisStateStore } = await import('./redis-store.ts');
  return store instanceof RedisStateStore ? store.redis : null;
}
