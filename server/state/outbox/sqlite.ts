/**
 * The webhook outbox in the SQLite state file (tables from the one migration list, sqlite/schema.ts), on
 * the process's one connection (sqlite/db.ts). Leasing is one `IMMEDIATE` transaction, so processes
 * sharing the file never both take the same delivery. Behind another process's lock every write waits on
 * a timer, never on the event loop: endpoint changes and a poll's claim in the request lane (a 503, or the
 * next poll tries again), entries, attempt results and pruning in the background lane.
 *
 * A delivery row is also its dedupe key (UNIQUE webhook_id, dedupe_key), so a finished one is kept for
 * three days whatever else happens; after that the newest 1,000 finished per endpoint stay (the delivery
 * log, as on Redis), none older than 30 days. Keys moved in from a Redis outbox without their delivery
 * (it trims its log by count) sit in webhook_dedupe and count as stored keys too.
 */
import { BATCHED_FORMATS, type DeliveryRecord, OutboxEndpoint } from '../../webhooks/schema.ts';
import { holdStateDb, type SqliteStateDb } from '../sqlite/db.ts';
import type { WebhookEntry } from '../transfer/transfer.ts';
import type { DeliveryToStore, EndpointToStore, OutboxImportWriter, OutboxPort } from './port.ts';
import { WebhookService } from './service.ts';
import { exportOutboxRows, outboxRowsEmpty, outboxRowsImporter } from './sqlite-transfer.ts';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type ClaimLimits,
  claimFormat,
  DEDUPE_KEEP_MS,
  deliveryRecord,
  type EndpointChange,
  type EnqueueResult,
  FINISHED_KEEP_MS,
  LOG_KEEP,
  type StoredDeliveryRow,
  settingsFields,
  type WebhookStoreOptions,
} from './store.ts';

type Row = Record<string, unknown>;

/**
 * An endpoint's finished deliveries are pruned once per this many of them finishing in this process: the
 * prune finds the endpoint's 1,000th newest finished delivery by walking them, too much for every one.
 */
const PRUNE_EVERY = 64;
/** Rows one prune deletes at most: four times PRUNE_EVERY, so pruning outpaces finishing and catches up. */
const PRUNE_BATCH = 256;
/**
 * Queries one claim runs at most. A round passes over the deliveries of an endpoint that filled up during
 * it (the next round leaves that endpoint out in SQL) and deletes those of a deleted endpoint.
 */
const CLAIM_ROUNDS = 16;

/** Storage only (port.ts). */
export class SqliteOutboxStorage implements OutboxPort {
  readonly sqlite: SqliteStateDb;
  /** Deliveries finished by this process since the endpoint's last prune. */
  private readonly finishedSincePrune = new Map<string, number>();

  /** The state store's connection (what a server passes), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb) {
    this.sqlite = holdStateDb(source);
  }

  private sql(source: string) {
    return this.sqlite.sql(source);
  }

  async createEndpoint(input: EndpointToStore): Promise<OutboxEndpoint> {
    const id = input.id;
    await this.sqlite.write(() =>
      this.sql(
        'INSERT INTO webhooks (id, customer_id, url, events, hot_paths, description, secret, created_at, settings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        id,
        input.customer_id,
        input.url,
        JSON.stringify(input.events),
        JSON.stringify(input.hot_paths),
        input.description,
        input.secret,
        input.created_at,
        JSON.stringify(input.settings ?? {}),
      ),
    );
    return (await this.getEndpoint(input.customer_id, id))!;
  }

  async endpointSecret(customerId: string, id: string): Promise<string | null> {
    const secret = this.sqlite.io(() => this.sql('SELECT secret FROM webhooks WHERE customer_id = ? AND id = ?').pluck().get(customerId, id));
    return typeof secret === 'string' ? secret : null;
  }

  async updateEndpoint(customerId: string, id: string, change: EndpointChange): Promise<OutboxEndpoint | null> {
    const changed = await this.sqlite.write(
      () =>
        this.sql(
          `UPDATE webhooks SET url = coalesce(@url, url), events = coalesce(@events, events), hot_paths = coalesce(@hot_paths, hot_paths),
             description = coalesce(@description, description), settings = coalesce(@settings, settings) WHERE customer_id = @customer AND id = @id`,
        ).run({
          customer: customerId,
          id,
          url: change.url ?? null,
          events: change.events ? JSON.stringify(change.events) : null,
          hot_paths: change.hot_paths ? JSON.stringify(change.hot_paths) : null,
          description: change.description ?? null,
          settings: change.settings ? JSON.stringify(change.settings) : null,
        }).changes,
    );
    return changed > 0 ? this.getEndpoint(customerId, id) : null;
  }

  async listEndpoints(customerId: string): Promise<OutboxEndpoint[]> {
    return this.sqlite.io(() => this.sql('SELECT * FROM webhooks WHERE customer_id = ? ORDER BY created_at, id').all(customerId) as Row[]).map(endpoint);
  }

  async getEndpoint(customerId: string, id: string): Promise<OutboxEndpoint | null> {
    const row = this.sqlite.io(() => this.sql('SELECT * FROM webhooks WHERE customer_id = ? AND id = ?').get(customerId, id)) as Row | undefined;
    return row ? endpoint(row) : null;
  }

  async deleteEndpoint(customerId: string, id: string): Promise<boolean> {
    const removed = await this.sqlite.write(() =>
      this.sqlite.db
        .transaction(() => {
          const removed = this.sql('DELETE FROM webhooks WHERE customer_id = ? AND id = ?').run(customerId, id).changes > 0;
          // Finished ones too: nothing prunes the log of an endpoint that never finishes a delivery again.
          if (removed) {
            this.sql('DELETE FROM webhook_deliveries WHERE webhook_id = ?').run(id);
            this.sql('DELETE FROM webhook_dedupe WHERE webhook_id = ?').run(id);
          }
          return removed;
        })
        .immediate(),
    );
    if (removed) this.finishedSincePrune.delete(id);
    return removed;
  }

  enqueue(items: DeliveryToStore[], nowMs: number, maxPending: number): Promise<EnqueueResult> {
    return this.sqlite.write(() => this.enqueueNow(items, nowMs, maxPending), 'background');
  }

  private enqueueNow(items: DeliveryToStore[], nowMs: number, maxPending: number): EnqueueResult {
    // A fresh result per try: a try that met the lock left nothing behind.
    const result: EnqueueResult = { added: 0, dropped: 0, droppedByEndpoint: {} };
    const insert = this.sql(
      `INSERT OR IGNORE INTO webhook_deliveries (id, event_id, webhook_id, customer_id, type, dedupe_key, body, status, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    );
    // LIMIT: past the cap the exact backlog does not matter, so the count never walks more than the cap.
    const pendingOf = this.sql("SELECT COUNT(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' LIMIT ?)").pluck();
    const stored = this.sql(
      'SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE webhook_id = @w AND dedupe_key = @k) OR EXISTS (SELECT 1 FROM webhook_dedupe WHERE webhook_id = @w AND dedupe_key = @k)',
    ).pluck();
    const live = this.sql('SELECT 1 FROM webhooks WHERE id = ?').pluck();
    // The stored keys starting with "<cap key>|" are those in ["<cap key>|", "<cap key>}"): '}' follows '|'.
    // LIMIT: past the cap the exact count does not matter.
    const underCap = this.sql(
      `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM webhook_deliveries WHERE webhook_id = @w AND dedupe_key >= @from AND dedupe_key < @to LIMIT @max))
            + (SELECT COUNT(*) FROM (SELECT 1 FROM webhook_dedupe WHERE webhook_id = @w AND dedupe_key >= @from AND dedupe_key < @to LIMIT @max))`,
    ).pluck();
    return this.sqlite.db
      .transaction(() => {
        const pending = new Map<string, number>();
        const exists = new Map<string, boolean>();
        for (const item of items) {
          // A node's list of endpoints is up to a few seconds old: an entry for a deleted one would never be sent.
          let alive = exists.get(item.webhook_id);
          if (alive === undefined) exists.set(item.webhook_id, (alive = live.get(item.webhook_id) !== undefined));
          if (!alive || stored.get({ w: item.webhook_id, k: item.dedupe_key }) === 1) continue;
          if (item.cap && (underCap.get({ w: item.webhook_id, from: `${item.cap.key}|`, to: `${item.cap.key}}`, max: item.cap.max }) as number) >= item.cap.max)
            continue;
          const before = pending.get(item.webhook_id) ?? (pendingOf.get(item.webhook_id, maxPending) as number);
          if (before >= maxPending) {
            pending.set(item.webhook_id, before);
            result.dropped++;
            result.droppedByEndpoint[item.webhook_id] = (result.droppedByEndpoint[item.webhook_id] ?? 0) + 1;
            continue;
          }
          const added = insert.run(
            item.id,
            item.event.id,
            item.webhook_id,
            item.customer_id,
            item.event.type,
            item.dedupe_key,
            JSON.stringify(item.event),
            nowMs,
            nowMs,
          ).changes;
          pending.set(item.webhook_id, before + added);
          result.added += added;
        }
        return result;
      })
      .immediate();
  }

  async claimDue(nowMs: number, limit: number, owner: string, leaseMs: number, limits?: ClaimLimits): Promise<ClaimedDelivery[]> {
    // The request lane's short deadline: the next poll claims again, and a shutdown waits for no lock.
    return this.sqlite.write(() => this.sqlite.db.transaction(() => this.claimNow(nowMs, limit, owner, leaseMs, limits)).immediate());
  }

  private claimNow(nowMs: number, limit: number, owner: string, leaseMs: number, limits: ClaimLimits | undefined): ClaimedDelivery[] {
    // Endpoints without room are left out in SQL: passing over a hung receiver's backlog costs no JS per row
    // (still a row read each: the due index has no webhook id).
    const due = this.sql(
      `SELECT d.id, d.event_id, d.webhook_id, d.body, d.attempts, w.url, w.secret, json_extract(w.settings, '$.format') AS format
       FROM webhook_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND d.lease_until <= ? AND d.webhook_id NOT IN (SELECT value FROM json_each(?))
       ORDER BY d.next_attempt_at LIMIT ?`,
    );
    const lease = this.sql('UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE id = ?');
    const drop = this.sql('DELETE FROM webhook_deliveries WHERE id = ?');
    const full = new Set<string>();
    const room = new Map<string, number>();
    if (limits) for (const [webhookId, n] of limits.inFlight) if (n >= limits.perEndpoint) full.add(webhookId);
    const slackBatch = limits?.slackBatch ?? 0;
    /** Deliveries in each Slack batch of this claim (a batch takes one slot, whatever its size). */
    const batches = new Map<string, number>();
    let slots = 0;
    const claimed: ClaimedDelivery[] = [];
    /** Whether a batched endpoint's row came up: only then may a round's rows take fewer slots than rows. */
    let batching = false;
    for (let round = 0; round < CLAIM_ROUNDS && slots < limit; round++) {
      // As many rows as free slots (each row is read with its body): a round that meets a batch asks for enough
      // rows to fill one too in the next, since a batch's rows take no slot past its first. Asking for a
      // batch's worth always cost ~50 rows read per claim of one slot, most of a delivery's claim.
      const batchingBefore = batching;
      const want = limit - slots + (batching ? slackBatch : 0);
      const rows = due.all(nowMs, nowMs, JSON.stringify([...full]), want) as Row[];
      for (const row of rows) {
        const webhookId = row.webhook_id as string;
        // Its endpoint was deleted (before deletes took the deliveries along, or by hand): never sent, so gone.
        if (row.url === null) {
          drop.run(row.id);
          continue;
        }
        if (full.has(webhookId)) continue;
        const format = claimFormat(row.format);
        if (BATCHED_FORMATS.includes(format) && slackBatch > 0) {
          batching = true;
          if ((limits?.inFlight.get(webhookId) ?? 0) > 0) {
            full.add(webhookId);
            continue;
          }
          const inBatch = batches.get(webhookId) ?? 0;
          if (inBatch === 0) {
            if (slots >= limit) continue;
            slots++;
          }
          batches.set(webhookId, inBatch + 1);
          if (inBatch + 1 >= slackBatch) full.add(webhookId);
        } else {
          if (slots >= limit) continue;
          slots++;
          if (limits) {
            const left = (room.get(webhookId) ?? limits.perEndpoint - (limits.inFlight.get(webhookId) ?? 0)) - 1;
            room.set(webhookId, left);
            if (left <= 0) full.add(webhookId);
          }
        }
        lease.run(owner, nowMs + leaseMs, row.id);
        claimed.push({
          id: row.id as string,
          event_id: row.event_id as string,
          webhook_id: webhookId,
          url: row.url as string,
          secret: row.secret as string,
          body: row.body as string,
          attempts: row.attempts as number,
          format,
        });
      }
      // Nothing more is due; a round that met a batch for the first time looks again with room for it.
      if (rows.length < want && (batchingBefore || !batching)) break;
    }
    return claimed;
  }

  async recordAttempts(attempts: readonly AttemptRecord[], owner: string): Promise<void> {
    const update = this.sql(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, last_attempt_at = ?, last_status = ?, last_error = ?,
         next_attempt_at = ?, delivered_at = ?, lease_owner = NULL, lease_until = 0
       WHERE id = ? AND lease_owner = ? AND status = 'pending'`,
    );
    // Background: a result that waits out a lock is still recorded (else the lease expires and the event goes out twice).
    // One transaction for them all: a commit per delivery was most of a fast receiver's cost.
    const finished = await this.sqlite.write(
      () =>
        this.sqlite.db
          .transaction(() => {
            const done: Array<{ webhookId: string; atMs: number }> = [];
            for (const { delivery, result } of attempts) {
              const status = result.delivered ? 'delivered' : result.nextAttemptMs === null ? 'failed' : 'pending';
              const changes = update.run(
                status,
                result.atMs,
                result.status,
                result.error,
                result.delivered ? null : result.nextAttemptMs,
                result.delivered ? result.atMs : null,
                delivery.id,
                owner,
              ).changes;
              if (status !== 'pending' && changes > 0) done.push({ webhookId: delivery.webhook_id, atMs: result.atMs });
            }
            return done;
          })
          .immediate(),
      'background',
    );
    for (const { webhookId, atMs } of finished) {
      const count = (this.finishedSincePrune.get(webhookId) ?? 0) + 1;
      if (count < PRUNE_EVERY) {
        this.finishedSincePrune.set(webhookId, count);
        continue;
      }
      this.finishedSincePrune.delete(webhookId);
      // The attempt is recorded either way; a prune that meets a lock for long is the next one's work.
      await this.pruneEndpoint(webhookId, atMs).catch(() => 0);
    }
  }

  /**
   * Deletes up to PRUNE_BATCH of the endpoint's finished deliveries that are past its newest LOG_KEEP or
   * older than FINISHED_KEEP_MS, none younger than DEDUPE_KEEP_MS (the row is its dedupe key); returns how
   * many went. Run as deliveries finish; public for tests.
   */
  async pruneEndpoint(webhookId: string, nowMs: number): Promise<number> {
    return this.sqlite.write(() => {
      const newestKept = this.sql(
        `SELECT created_at FROM webhook_deliveries INDEXED BY webhook_deliveries_log
         WHERE webhook_id = ? AND status IN ('delivered', 'failed') ORDER BY created_at DESC LIMIT 1 OFFSET ?`,
      )
        .pluck()
        .get(webhookId, LOG_KEEP - 1) as number | undefined;
      const before = Math.min(nowMs - DEDUPE_KEEP_MS, Math.max(nowMs - FINISHED_KEEP_MS, newestKept ?? Number.NEGATIVE_INFINITY));
      this.sql('DELETE FROM webhook_dedupe WHERE webhook_id = ? AND at < ?').run(webhookId, nowMs - DEDUPE_KEEP_MS);
      return this.sql(
        `DELETE FROM webhook_deliveries WHERE rowid IN (
           SELECT rowid FROM webhook_deliveries INDEXED BY webhook_deliveries_log
           WHERE webhook_id = ? AND created_at < ? AND status IN ('delivered', 'failed') ORDER BY created_at LIMIT ?)`,
      ).run(webhookId, before, PRUNE_BATCH).changes;
    }, 'background');
  }

  async oldestDueAt(nowMs: number): Promise<number | null> {
    // The due index in order, first row not leased; a lease that ran out made its delivery due when it did.
    const row = this.sqlite.io(() =>
      this.sql(
        `SELECT max(next_attempt_at, lease_until) AS at FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= ? AND lease_until <= ? ORDER BY next_attempt_at LIMIT 1`,
      ).get(nowMs, nowMs),
    ) as { at: number } | undefined;
    return row === undefined ? null : row.at;
  }

  async listDeliveries(customerId: string, webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = this.sqlite.io(
      () =>
        this.sql('SELECT * FROM webhook_deliveries WHERE customer_id = ? AND webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?').all(
          customerId,
          webhookId,
          limit,
        ) as Row[],
    );
    return rows.map((r) => deliveryRecord(r as unknown as StoredDeliveryRow));
  }

  exportEntries(): AsyncIterable<WebhookEntry> {
    return exportOutboxRows(this.sqlite);
  }

  async isEmpty(): Promise<boolean> {
    return outboxRowsEmpty(this.sqlite);
  }

  importer(): OutboxImportWriter {
    return outboxRowsImporter(this.sqlite);
  }

  private closed = false;
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}

function endpoint(row: Row): OutboxEndpoint {
  return OutboxEndpoint.parse({
    id: row.id,
    customer_id: row.customer_id,
    url: row.url,
    events: JSON.parse(row.events as string),
    hot_paths: JSON.parse(row.hot_paths as string),
    description: row.description,
    secret_prefix: (row.secret as string).slice(0, 10),
    created_at: row.created_at,
    ...settingsFields(JSON.parse((row.settings as string | undefined) ?? '{}')),
  });
}

/** The webhook outbox on SQLite: the service over this storage. */
export class SqliteWebhookStore extends WebhookService {
  /** The connection it stores on (the state store's, or its own). */
  readonly sqlite: SqliteStateDb;
  private readonly storage: SqliteOutboxStorage;

  /** The state store's connection (what a server passes), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb, opts: WebhookStoreOptions = {}) {
    const storage = new SqliteOutboxStorage(source);
    super(storage, opts);
    this.storage = storage;
    this.sqlite = storage.sqlite;
  }

  /** See SqliteOutboxStorage.pruneEndpoint (public for tests). */
  pruneEndpoint(webhookId: string, nowMs: number): Promise<number> {
    return this.storage.pruneEndpoint(webhookId, nowMs);
  }
}
