/**
 * Moving the Redis outbox (`svc state export/import`, transfer.ts WebhookEntry): HSCAN/ZSCAN a page at a
 * time out, one script per batch in, each delivery indexed as enqueue and record leave it.
 */
import type { RedisClientType } from '@redis/client';
import { EndpointSettings } from '../../webhooks/schema.ts';
import { clientForKey } from '../redis/connection.ts';
import { WebhookEntry } from '../transfer/transfer.ts';
import type { OutboxImportWriter } from './port.ts';
import { IMPORT_DEDUPE, IMPORT_DELIVERIES, type StoredDelivery, type StoredEndpoint, webhookKeys } from './redis-scripts.ts';
import { capKeysOf, DEDUPE_KEEP_MS } from './store.ts';

/** Entries an import sends in one script (one round trip each, not one per entry). */
const IMPORT_BATCH = 200;

export async function* exportOutboxKeys(client: RedisClientType): AsyncIterable<WebhookEntry> {
  // Endpoints are few (a cap per customer): read at once, in the order SQLite lists them.
  const endpoints = (await client.hVals(webhookKeys.endpoints))
    .map((raw) => JSON.parse(raw) as StoredEndpoint)
    .sort((a, b) => a.customer_id.localeCompare(b.customer_id) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  for (const e of endpoints) {
    yield WebhookEntry.parse({
      type: 'webhook_endpoint',
      endpoint: {
        id: e.id,
        customer_id: e.customer_id,
        url: e.url,
        events: e.events,
        hot_paths: e.hot_paths,
        description: e.description,
        secret: e.secret,
        created_at: e.created_at,
        settings: e.settings ?? {},
      },
    });
  }
  const live = new Set(endpoints.map((e) => e.id));
  // HSCAN/ZSCAN, a page at a time: an export must not block a live Redis, nor hold the outbox in memory.
  for await (const page of (await clientForKey(client, webhookKeys.deliveries)).hScanIterator(webhookKeys.deliveries, { COUNT: 500 })) {
    for (const { value } of page) {
      const d = JSON.parse(value) as StoredDelivery;
      // Left behind by an endpoint deleted before deletes took its deliveries along: never sent, not moved.
      if (!live.has(d.webhook_id)) continue;
      yield WebhookEntry.parse({ type: 'webhook_delivery', delivery: { ...d, dedupe_key: d.dedupe_key ?? null } });
    }
  }
  const recent = Date.now() - DEDUPE_KEEP_MS;
  for await (const page of (await clientForKey(client, webhookKeys.dedupe)).zScanIterator(webhookKeys.dedupe, { COUNT: 500 })) {
    for (const { value, score } of page) {
      const bar = value.indexOf('|');
      if (score < recent || bar === -1 || !live.has(value.slice(0, bar))) continue;
      yield WebhookEntry.parse({ type: 'webhook_dedupe', webhook_id: value.slice(0, bar), dedupe_key: value.slice(bar + 1), at: score });
    }
  }
}

export async function outboxKeysEmpty(client: RedisClientType): Promise<boolean> {
  return (await client.exists([webhookKeys.endpoints, webhookKeys.deliveries, webhookKeys.dedupe, webhookKeys.ready, webhookKeys.legacyDue])) === 0;
}

export function outboxKeysImporter(client: RedisClientType): OutboxImportWriter {
  const write = async (b: WebhookEntry[]) => {
    const endpoints = new Map<string, string>();
    const deliveries: { id: string; webhook_id: string; record: string; pending: boolean; created_at: number; next: number }[] = [];
    const keys: { member: string; at: number; caps: string[] }[] = [];
    // Dedupe keys older than this can never come again (ENQUEUE prunes them): not stored.
    const recent = Date.now() - DEDUPE_KEEP_MS;
    const key = (webhookId: string, dedupeKey: string, at: number) => {
      if (at >= recent) keys.push({ member: `${webhookId}|${dedupeKey}`, at, caps: capKeysOf(dedupeKey).map((cap) => webhookKeys.cap(webhookId, cap)) });
    };
    for (const e of b) {
      switch (e.type) {
        case 'webhook_endpoint': {
          const stored: StoredEndpoint = { ...e.endpoint, settings: EndpointSettings.parse(e.endpoint.settings ?? {}) };
          endpoints.set(stored.id, JSON.stringify(stored));
          break;
        }
        case 'webhook_delivery': {
          const { dedupe_key, ...d } = e.delivery;
          const record: StoredDelivery = { ...d, ...(dedupe_key === null ? {} : { dedupe_key }), lease_owner: null, lease_until: 0 };
          deliveries.push({
            id: d.id,
            webhook_id: d.webhook_id,
            record: JSON.stringify(record),
            pending: d.status === 'pending',
            created_at: d.created_at,
            next: d.next_attempt_at ?? d.created_at,
          });
          if (dedupe_key !== null) key(d.webhook_id, dedupe_key, d.created_at);
          break;
        }
        case 'webhook_dedupe':
          key(e.webhook_id, e.dedupe_key, e.at);
          break;
      }
    }
    if (endpoints.size > 0) await client.hSet(webhookKeys.endpoints, endpoints);
    if (deliveries.length > 0) {
      await client.eval(IMPORT_DELIVERIES, {
        keys: [
          webhookKeys.deliveries,
          webhookKeys.ready,
          ...deliveries.flatMap((d) => [webhookKeys.due(d.webhook_id), webhookKeys.pending(d.webhook_id), webhookKeys.log(d.webhook_id)]),
        ],
        arguments: [JSON.stringify(deliveries)],
      });
    }
    if (keys.length > 0) {
      await client.eval(IMPORT_DEDUPE, {
        keys: [webhookKeys.dedupe, ...keys.flatMap((k) => k.caps)],
        arguments: [String(Date.now()), JSON.stringify(keys.map((k) => ({ member: k.member, at: k.at, caps: k.caps.length })))],
      });
    }
  };
  return { batchSize: IMPORT_BATCH, write };
}
