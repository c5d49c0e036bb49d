/** The webhook outbox beside the state store, on its connection: in the SQLite file by default, in Redis when SVC_REDIS_URL is set. */
import type { Config } from '../config.ts';
import { sharedRedis, sharedSqlite } from './open-store.ts';
import { RedisWebhookStore } from './redis-webhooks.ts';
import { SqliteWebhookStore } from './sqlite-webhooks.ts';
import type { StateStore } from './store.ts';
import type { WebhookStore } from './webhooks.ts';

export async function openWebhookStore(config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL'>, state: StateStore): Promise<WebhookStore> {
  if (config.SVC_REDIS_URL) return RedisWebhookStore.open((await sharedRedis(state)) ?? config.SVC_REDIS_URL);
  return new SqliteWebhookStore(sharedSqlite(state) ?? config.SVC_STATE);
}
