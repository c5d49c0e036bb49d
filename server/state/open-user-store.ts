/**
 * The user store beside the state store, on its connection: the SQLite file's (sqlite-users.ts) by
 * default, Redis (redis-users.ts) when the state store is on Redis. It never opens a connection of its
 * own; closing it leaves the state store's connection open (the state store closes it).
 */
import { sharedRedis, sharedSqlite } from './open-store.ts';
import { SqliteUserStore } from './sqlite-users.ts';
import type { StateStore } from './store.ts';
import type { UserStore } from './users.ts';

export interface UserStoreOptions {
  /** How long a Redis command may go unanswered (SVC_REDIS_TIMEOUT_MS; redis-store.ts DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  /** Days of audit events kept (SVC_AUDIT_RETENTION_DAYS: a server passes it); unset, as for the CLI: kept for ever. */
  auditRetentionDays?: number;
}

export async function openUserStore(store: StateStore, options: UserStoreOptions = {}): Promise<UserStore> {
  const sqlite = sharedSqlite(store);
  if (sqlite !== null) return new SqliteUserStore(sqlite, { auditRetentionDays: options.auditRetentionDays });
  const redis = await sharedRedis(store);
  if (redis === null) throw new Error('the user store runs on the SQLite or Redis state store only');
  // Loaded only on Redis: the embedded default does not pay for it.
  const { RedisUserStore } = await import('./redis-users.ts');
  return new RedisUserStore(redis, options);
}
