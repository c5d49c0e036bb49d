/**
 * The webhook outbox in the SQLite state file (tables from the one migration list, sqlite-schema.ts), on
 * the process's one connection (sqlite-db.ts). Leasing is one `UPDATE … RETURNING` statement, so
 * processes sharing the file never both take the same delivery. Behind another process's lock every
 * write waits on a timer, never on the event loop: endpoint changes and a poll's claim in the request
 * lane (a 503, or the next poll tries again), entries and attempt results in the background lane.
 */
import { randomBytes } from 'node:crypto';
import { WebhookRecord, type DeliveryRecord } from '../webhooks/schema.ts';
import { holdStateDb, type SqliteStateDb } from './sqlite-db.ts';
import {
  deliveryRecord, MAX_PENDING_PER_ENDPOINT, type AttemptResult, type ClaimedDelivery, type EnqueueResult, type NewEndpoint, type OutboxItem, type StoredDeliveryRow,
  type WebhookStore, type WebhookStoreOptions,
} from './webhooks.ts';

type Row = Record<string, unknown>;

export class SqliteWebhookStore implements WebhookStore {
  private readonly sqlite: SqliteStateDb;
  private readonly maxPending: number;

  /** The state store's connection (what a server passes), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb, opts: WebhookStoreOptions = {}) {
    this.maxPending = opts.maxPendingPerEndpoint ?? MAX_PENDING_PER_ENDPOINT;
    this.sqlite = holdStateDb(source);
  }

  private sql(source: string) {
    return this.sqlite.sql(source);
  }

  async createEndpoint(input: NewEndpoint): Promise<WebhookRecord> {
    const id = `wh_${randomBytes(8).toString('hex')}`;
    await this.sqlite.write(() =>
      this.sql('INSERT INTO webhooks (id, customer_id, url, events, hot_paths, description, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(id, input.customer_id, input.url, JSON.stringify(input.events), JSON.stringify(input.hot_paths), input.description, input.secret, new Date().toISOString()),
    );
    return (await this.getEndpoint(input.customer_id, id))!;
  }

  async listEndpoints(customerId: string): Promise<WebhookRecord[]> {
    return this.sqlite.io(() => this.sql('SELECT * FROM webhooks WHERE customer_id = ? ORDER BY created_at, id').all(customerId) as Row[]).map(endpoint);
  }

  async getEndpoint(customerId: string, id: string): Promise<WebhookRecord | null> {
    const row = this.sqlite.io(() => this.sql('SELECT * FROM webhooks WHERE customer_id = ? AND id = ?').get(customerId, id)) as Row | undefined;
    return row ? endpoint(row) : null;
  }

  async deleteEndpoint(customerId: string, id: string): Promise<boolean> {
    return this.sqlite.write(() =>
      this.sqlite.db.transaction(() => {
        const removed = this.sql('DELETE FROM webhooks WHERE customer_id = ? AND id = ?').run(customerId, id).changes > 0;
        if (removed) this.sql("DELETE FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'").run(id);
        return removed;
      }).immediate(),
    );
  }

  async enqueue(items: OutboxItem[], nowMs: number): Promise<EnqueueResult> {
    if (items.length === 0) return { added: 0, dropped: 0, droppedByEndpoint: {} };
    return this.sqlite.write(() => this.enqueueNow(items, nowMs), 'background');
  }

  private enqueueNow(items: OutboxItem[], nowMs: number): EnqueueResult {
    // A fresh result per try: a try that met the lock left nothing behind.
    const result: EnqueueResult = { added: 0, dropped: 0, droppedByEndpoint: {} };
    const insert = this.sql(
      `INSERT OR IGNORE INTO webhook_deliveries (id, event_id, webhook_id, customer_id, type, dedupe_key, body, status, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    );
    // LIMIT: past the cap the exact backlog does not matter, so the count never walks more than the cap.
    const pendingOf = this.sql("SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' LIMIT ?)").pluck();
    const stored = this.sql('SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND dedupe_key = ?').pluck();
    return this.sqlite.db.transaction(() => {
      const pending = new Map<string, number>();
      for (const item of items) {
        const before = pending.get(item.webhook_id) ?? (pendingOf.get(item.webhook_id, this.maxPending) as number);
        if (before >= this.maxPending) {
          pending.set(item.webhook_id, before);
          if (stored.get(item.webhook_id, item.dedupe_key) === undefined) {
            result.dropped++;
            result.droppedByEndpoint[item.webhook_id] = (result.droppedByEndpoint[item.webhook_id] ?? 0) + 1;
          }
          continue;
        }
        const id = `dl_${randomBytes(8).toString('hex')}`;
        const added = insert.run(id, item.event.id, item.webhook_id, item.customer_id, item.event.type, item.dedupe_key, JSON.stringify(item.event), nowMs, nowMs).changes;
        pending.set(item.webhook_id, before + added);
        result.added += added;
      }
      return result;
    }).immediate();
  }

  async claimDue(nowMs: number, limit: number, owner: string, leaseMs: number): Promise<ClaimedDelivery[]> {
    // The request lane's short deadline: the next poll claims again, and a shutdown waits for no lock.
    const rows = await this.sqlite.write(
      () =>
        this.sql(
          `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
           WHERE id IN (SELECT id FROM webhook_deliveries
                        WHERE status = 'pending' AND next_attempt_at <= ? AND lease_until <= ?
                        ORDER BY next_attempt_at LIMIT ?)
           RETURNING id, event_id, webhook_id, body, attempts`,
        ).all(owner, nowMs + leaseMs, nowMs, nowMs, limit) as Row[],
    );
    if (rows.length === 0) return [];
    const secrets = this.sql('SELECT url, secret FROM webhooks WHERE id = ?');
    const claimed: ClaimedDelivery[] = [];
    for (const row of rows) {
      const target = this.sqlite.io(() => secrets.get(row.webhook_id)) as { url: string; secret: string } | undefined;
      if (!target) continue; // endpoint deleted between enqueue and now: nothing to send to
      claimed.push({ id: row.id as string, event_id: row.event_id as string, webhook_id: row.webhook_id as string, url: target.url, secret: target.secret, body: row.body as string, attempts: row.attempts as number });
    }
    return claimed;
  }

  async recordAttempt({ id }: Pick<ClaimedDelivery, 'id' | 'webhook_id'>, owner: string, result: AttemptResult): Promise<void> {
    const status = result.delivered ? 'delivered' : result.nextAttemptMs === null ? 'failed' : 'pending';
    // Background: a result that waits out a lock is still recorded (else the lease expires and the event goes out twice).
    await this.sqlite.write(
      () =>
        this.sql(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, last_attempt_at = ?, last_status = ?, last_error = ?,
             next_attempt_at = ?, delivered_at = ?, lease_owner = NULL, lease_until = 0
           WHERE id = ? AND lease_owner = ? AND status = 'pending'`,
        ).run(status, result.atMs, result.status, result.error, result.delivered ? null : result.nextAttemptMs, result.delivered ? result.atMs : null, id, owner),
      'background',
    );
  }

  async listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = this.sqlite.io(
      () => this.sql('SELECT * FROM webhook_deliveries WHERE customer_id = ? AND webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?').all(customerId, webhookId, limit) as Row[],
    );
    return rows.map((r) => deliveryRecord(r as unknown as StoredDeliveryRow));
  }

  private closed = false;
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}

function endpoint(row: Row): WebhookRecord {
  return WebhookRecord.parse({
    id: row.id,
    customer_id: row.customer_id,
    url: row.url,
    events: JSON.parse(row.events as string),
    hot_paths: JSON.parse(row.hot_paths as string),
    description: row.description,
    secret_prefix: (row.secret as string).slice(0, 10),
    created_at: row.created_at,
  });
}
