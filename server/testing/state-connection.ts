/**
 * For tests that take a state store apart: the connection it holds, and a user store on it, as
 * server/state/backend.ts opens one. Production code never probes a store for its backend: it opens
 * every store through `openBackend`.
 */
import type { RedisClientType } from '@redis/client';
import { RedisStateStore } from '../state/redis/store.ts';
import type { SqliteStateDb } from '../state/sqlite/db.ts';
import { SqliteStateStore } from '../state/sqlite/store.ts';
import type { StateStore } from '../state/store.ts';
import { RedisUserStore } from '../state/users/redis.ts';
import { SqliteUserStore } from '../state/users/sqlite.ts';
import type { UserStore } from '../state/users/store.ts';

/** The SQLite state store's connection, or null on Redis. */
export function sharedSqlite(store: StateStore): SqliteStateDb | null {
  return store instanceof SqliteStateStore ? store.sqlite : null;
}

/** The Redis state store's command client, or null on SQLite. */
export async function sharedRedis(store: StateStore): Promise<RedisClientType | null> {
  return store instanceof RedisStateStore ? store.redis : null;
}

/** A user store on the state store's connection; `invalid` for a bad audit retention, as the backend answers. */
export async function openUserStore(store: StateStore, options: { commandTimeoutMs?: number; auditRetentionDays?: number } = {}): Promise<UserStore> {
  const sqlite = sharedSqlite(store);
  if (sqlite !== null) return new SqliteUserStore(sqlite, { auditRetentionDays: options.auditRetentionDays });
  const redis = await sharedRedis(store);
  if (redis === null) throw new Error('the user store runs on the SQLite or Redis state store only');
  return new RedisUserStore(redis, options);
}
