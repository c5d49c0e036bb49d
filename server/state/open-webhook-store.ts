/** The webhook outbox beside the state store: in the SQLite file by default, in Redis when SVC_REDIS_URL is set. */
import type { Config } from '../config.ts';
import { RedisWebhookStore } from './redis-webhooks.ts';
import { SqliteWebhookStore } from './sqlite-webhooks.ts';
import type { WebhookStore } from './webhooks.ts';

export async function openWebhookStore(config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL'>): Promise<WebhookStore> {
  return config.SVC_REDIS_URL ? RedisWebhookStore.open(config.SVC_REDIS_URL) : new SqliteWebhookStore(config.SVC_STATE);
}
