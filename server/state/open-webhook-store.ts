/** The webhook outbox beside the state store: in the SQLite file by default (on the state store's connection), in Redis when SVC_REDIS_URL is set. */
import type { Config } from '../config.ts';
import { sharedSqlite } from './open-store.ts';
import { RedisWebhookStore } from './redis-webhooks.ts';
import { SqliteWebhookStore } from './sqlite-webhooks.ts';
import type { StateStore } from './store.ts';
import type { WebhookStore } from './webhooks.ts';

export async function openWebhookStore(config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL'>, state: StateStore): Promise<WebhookStore> {
  return config.SVC_REDIS_URL ? RedisWebhookStore.open(config.SVC_REDIS_URL) : new SqliteWebhookStore(sharedSqlite(state) ?? config.SVC_STATE);
}
