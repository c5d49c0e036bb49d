/**
 * Moving the SQLite outbox's rows (`svc state export/import`, transfer.ts WebhookEntry): keyset pages out,
 * one transaction per batch in (each holds the file's write lock, which a live server's metering waits for).
 */
import type { SqliteStateDb } from '../sqlite/db.ts';
import { TRANSFER_PAGE } from '../transfer/import.ts';
import { WebhookEntry } from '../transfer/transfer.ts';
import type { OutboxImportWriter } from './port.ts';
import { DEDUPE_KEEP_MS } from './store.ts';

type Row = Record<string, unknown>;

/**
 * The dedupe key of an imported delivery whose key is not known (a Redis outbox kept none on deliveries
 * stored before it did): unique per delivery, never a planned key, exported as unknown again.
 */
const UNKNOWN_KEY = 'moved-without-key:';

export async function* exportOutboxRows(sqlite: SqliteStateDb): AsyncIterable<WebhookEntry> {
  // Keyset pages, not one open iterator: the connection is shared with the state and visit stores.
  const endpoints = sqlite.sql(`SELECT rowid AS row_id, * FROM webhooks WHERE rowid > ? ORDER BY rowid LIMIT ${TRANSFER_PAGE}`);
  for (let after = 0; ; ) {
    const rows = sqlite.io(() => endpoints.all(after)) as Row[];
    for (const r of rows) {
      yield WebhookEntry.parse({
        type: 'webhook_endpoint',
        endpoint: { ...r, events: JSON.parse(r.events as string), hot_paths: JSON.parse(r.hot_paths as string), settings: JSON.parse(r.settings as string) },
      });
    }
    if (rows.length < TRANSFER_PAGE) break;
    after = rows[rows.length - 1]!.row_id as number;
  }
  const recent = Date.now() - DEDUPE_KEEP_MS;
  const deliveries = sqlite.sql(`SELECT rowid AS row_id, * FROM webhook_deliveries WHERE rowid > ? ORDER BY rowid LIMIT ${TRANSFER_PAGE}`);
  for (let after = 0; ; ) {
    const rows = sqlite.io(() => deliveries.all(after)) as Row[];
    for (const r of rows) {
      const key = r.dedupe_key as string;
      const known = !key.startsWith(UNKNOWN_KEY);
      yield WebhookEntry.parse({ type: 'webhook_delivery', delivery: { ...r, dedupe_key: known ? key : null } });
      // Every recent key as its own entry too, as a Redis outbox lists them: the set is the same on both.
      if (known && (r.created_at as number) >= recent)
        yield { type: 'webhook_dedupe', webhook_id: r.webhook_id as string, dedupe_key: key, at: r.created_at as number };
    }
    if (rows.length < TRANSFER_PAGE) break;
    after = rows[rows.length - 1]!.row_id as number;
  }
  const dedupe = sqlite.sql(
    `SELECT webhook_id, dedupe_key, at FROM webhook_dedupe WHERE (webhook_id, dedupe_key) > (?, ?) ORDER BY webhook_id, dedupe_key LIMIT ${TRANSFER_PAGE}`,
  );
  for (let after = ['', '']; ; ) {
    const rows = sqlite.io(() => dedupe.all(...after)) as { webhook_id: string; dedupe_key: string; at: number }[];
    for (const r of rows) if (r.at >= recent) yield WebhookEntry.parse({ type: 'webhook_dedupe', ...r });
    if (rows.length < TRANSFER_PAGE) break;
    after = [rows[rows.length - 1]!.webhook_id, rows[rows.length - 1]!.dedupe_key];
  }
}

export function outboxRowsEmpty(sqlite: SqliteStateDb): boolean {
  const any = sqlite.io(() =>
    sqlite.sql('SELECT EXISTS (SELECT 1 FROM webhooks) OR EXISTS (SELECT 1 FROM webhook_deliveries) OR EXISTS (SELECT 1 FROM webhook_dedupe)').pluck().get(),
  );
  return any === 0;
}

export function outboxRowsImporter(sqlite: SqliteStateDb): OutboxImportWriter {
  // A row given twice is written once: a Redis export may list one twice (SCAN).
  const q = {
    endpoint: sqlite.sql(
      'INSERT OR REPLACE INTO webhooks (id, customer_id, url, events, hot_paths, description, secret, created_at, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    delivery: sqlite.sql(
      `INSERT OR REPLACE INTO webhook_deliveries (id, event_id, webhook_id, customer_id, type, dedupe_key, body, status, attempts, created_at, next_attempt_at,
         lease_owner, lease_until, last_attempt_at, last_status, last_error, delivered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 0, ?, ?, ?, ?)`,
    ),
    onDelivery: sqlite.sql('SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND dedupe_key = ?').pluck(),
    keyOnly: sqlite.sql('INSERT OR REPLACE INTO webhook_dedupe VALUES (?, ?, ?)'),
    // A key the file listed before its delivery: the delivery row holds it now.
    notKeyOnly: sqlite.sql('DELETE FROM webhook_dedupe WHERE webhook_id = ? AND dedupe_key = ?'),
  };
  const write = sqlite.db.transaction((batch: WebhookEntry[]) => {
    for (const e of batch) {
      switch (e.type) {
        case 'webhook_endpoint': {
          const w = e.endpoint;
          q.endpoint.run(
            w.id,
            w.customer_id,
            w.url,
            JSON.stringify(w.events),
            JSON.stringify(w.hot_paths),
            w.description,
            w.secret,
            w.created_at,
            JSON.stringify(w.settings ?? {}),
          );
          break;
        }
        case 'webhook_delivery': {
          const d = e.delivery;
          const key = d.dedupe_key ?? `${UNKNOWN_KEY}${d.id}`;
          q.notKeyOnly.run(d.webhook_id, key);
          q.delivery.run(
            d.id,
            d.event_id,
            d.webhook_id,
            d.customer_id,
            d.type,
            key,
            d.body,
            d.status,
            d.attempts,
            d.created_at,
            d.next_attempt_at,
            d.last_attempt_at,
            d.last_status,
            d.last_error,
            d.delivered_at,
          );
          break;
        }
        case 'webhook_dedupe':
          if (q.onDelivery.get(e.webhook_id, e.dedupe_key) === undefined) q.keyOnly.run(e.webhook_id, e.dedupe_key, e.at);
          break;
      }
    }
  });
  return {
    batchSize: TRANSFER_PAGE,
    async write(batch) {
      // The background lane's deadline: a CLI import outwaits a live server's short writes.
      await sqlite.write(() => write.immediate(batch), 'background');
    },
  };
}
