/**
 * The webhook outbox in the SQLite state file, on its own connection (WAL lets it sit beside the main
 * store's). Leasing is one `UPDATE … RETURNING` statement, so processes sharing the file never both
 * take the same delivery.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { WebhookRecord, type DeliveryRecord } from '../webhooks/schema.ts';
import {
  deliveryRecord, MAX_PENDING_PER_ENDPOINT, type AttemptResult, type ClaimedDelivery, type EnqueueResult, type NewEndpoint, type OutboxItem, type StoredDeliveryRow,
  type WebhookStore, type WebhookStoreOptions,
} from './webhooks.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, url TEXT NOT NULL, events TEXT NOT NULL, hot_paths TEXT NOT NULL,
  description TEXT NOT NULL, secret TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS webhooks_customer ON webhooks (customer_id);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id TEXT PRIMARY KEY, event_id TEXT NOT NULL, webhook_id TEXT NOT NULL, customer_id TEXT NOT NULL, type TEXT NOT NULL,
  dedupe_key TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL, next_attempt_at INTEGER, lease_owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0,
  last_attempt_at INTEGER, last_status INTEGER, last_error TEXT, delivered_at INTEGER,
  UNIQUE (webhook_id, dedupe_key));
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE status = 'pending';
`;

type Row = Record<string, unknown>;

export class SqliteWebhookStore implements WebhookStore {
  private readonly db: Database.Database;
  private readonly maxPending: number;

  constructor(file: string, opts: WebhookStoreOptions = {}) {
    this.maxPending = opts.maxPendingPerEndpoint ?? MAX_PENDING_PER_ENDPOINT;
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // Short: the outbox runs beside request traffic and retries on its next tick.
    this.db.pragma('busy_timeout = 200');
    this.db.exec(SCHEMA);
  }

  async createEndpoint(input: NewEndpoint): Promise<WebhookRecord> {
    const id = `wh_${randomBytes(8).toString('hex')}`;
    this.db
      .prepare('INSERT INTO webhooks (id, customer_id, url, events, hot_paths, description, secret, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, input.customer_id, input.url, JSON.stringify(input.events), JSON.stringify(input.hot_paths), input.description, input.secret, new Date().toISOString());
    return (await this.getEndpoint(input.customer_id, id))!;
  }

  async listEndpoints(customerId: string): Promise<WebhookRecord[]> {
    return (this.db.prepare('SELECT * FROM webhooks WHERE customer_id = ? ORDER BY created_at, id').all(customerId) as Row[]).map(endpoint);
  }

  async getEndpoint(customerId: string, id: string): Promise<WebhookRecord | null> {
    const row = this.db.prepare('SELECT * FROM webhooks WHERE customer_id = ? AND id = ?').get(customerId, id) as Row | undefined;
    return row ? endpoint(row) : null;
  }

  async deleteEndpoint(customerId: string, id: string): Promise<boolean> {
    return this.db.transaction(() => {
      const removed = this.db.prepare('DELETE FROM webhooks WHERE customer_id = ? AND id = ?').run(customerId, id).changes > 0;
      if (removed) this.db.prepare("DELETE FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'").run(id);
      return removed;
    })();
  }

  async enqueue(items: OutboxItem[], nowMs: number): Promise<EnqueueResult> {
    const result: EnqueueResult = { added: 0, dropped: 0, droppedByEndpoint: {} };
    if (items.length === 0) return result;
    const insert = this.db.prepare(
      `INSERT OR IGNORE INTO webhook_deliveries (id, event_id, webhook_id, customer_id, type, dedupe_key, body, status, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    );
    // LIMIT: past the cap the exact backlog does not matter, so the count never walks more than the cap.
    const pendingOf = this.db.prepare("SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' LIMIT ?)").pluck();
    const stored = this.db.prepare('SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND dedupe_key = ?').pluck();
    return this.db.transaction(() => {
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
    const rows = this.db
      .prepare(
        `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
         WHERE id IN (SELECT id FROM webhook_deliveries
                      WHERE status = 'pending' AND next_attempt_at <= ? AND lease_until <= ?
                      ORDER BY next_attempt_at LIMIT ?)
         RETURNING id, event_id, webhook_id, body, attempts`,
      )
      .all(owner, nowMs + leaseMs, nowMs, nowMs, limit) as Row[];
    if (rows.length === 0) return [];
    const secrets = this.db.prepare('SELECT url, secret FROM webhooks WHERE id = ?');
    const claimed: ClaimedDelivery[] = [];
    for (const row of rows) {
      const target = secrets.get(row.webhook_id) as { url: string; secret: string } | undefined;
      if (!target) continue; // endpoint deleted between enqueue and now: nothing to send to
      claimed.push({ id: row.id as string, event_id: row.event_id as string, webhook_id: row.webhook_id as string, url: target.url, secret: target.secret, body: row.body as string, attempts: row.attempts as number });
    }
    return claimed;
  }

  async recordAttempt({ id }: Pick<ClaimedDelivery, 'id' | 'webhook_id'>, owner: string, result: AttemptResult): Promise<void> {
    const status = result.delivered ? 'delivered' : result.nextAttemptMs === null ? 'failed' : 'pending';
    this.db
      .prepare(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, last_attempt_at = ?, last_status = ?, last_error = ?,
           next_attempt_at = ?, delivered_at = ?, lease_owner = NULL, lease_until = 0
         WHERE id = ? AND lease_owner = ? AND status = 'pending'`,
      )
      .run(status, result.atMs, result.status, result.error, result.delivered ? null : result.nextAttemptMs, result.delivered ? result.atMs : null, id, owner);
  }

  async listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = this.db
      .prepare('SELECT * FROM webhook_deliveries WHERE customer_id = ? AND webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?')
      .all(customerId, webhookId, limit) as Row[];
    return rows.map((r) => deliveryRecord(r as unknown as StoredDeliveryRow));
  }

  async close(): Promise<void> {
    this.db.close();
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
