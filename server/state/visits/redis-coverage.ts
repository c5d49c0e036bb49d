/**
 * The coverage counts on Redis (coverage.ts): a hash per customer and UTC day, `svc:{cust:C}:v:unid:<day>`
 * (reason → anonymous views), under the customer's hash tag like every key of its page views, so the RECORD
 * script (redis-scripts.ts) counts the reason with the anonymous view in one step on a Redis Cluster too, and
 * a range is read in one MULTI. Each key expires with the day's other aggregates (the retention plus a day
 * after its last write). Export and import go by SCAN and one MULTI per customer, as redis-transfer.ts does.
 */
import { UNIDENTIFIED_REASONS, type UnidentifiedReason } from '../../../core/vocabulary.ts';
import { scanKeys } from '../redis/connection.ts';
import type { CoveragePort, UnidentifiedEntry, UnidentifiedRow } from './coverage.ts';
import type { RedisVisitStorage } from './redis.ts';
import { visitKeys } from './redis-scripts.ts';
import { daysBetween } from './store.ts';

const UNIDENTIFIED_KEYS = 'svc:{cust:*}:v:unid:*';
const UNIDENTIFIED_KEY = /^svc:\{cust:([A-Za-z0-9_-]{1,64})\}:v:unid:(\d{4}-\d{2}-\d{2})$/;
/** Entries an import sends in one MULTI per customer. */
const IMPORT_BATCH = 500;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const isReason = (r: string): r is UnidentifiedReason => (UNIDENTIFIED_REASONS as readonly string[]).includes(r);

export class RedisCoverage implements CoveragePort {
  /** The visit storage's client and deadline: a closed visit store refuses here too. */
  constructor(private readonly s: Pick<RedisVisitStorage, 'client' | 'timed' | 'retention'>) {}

  async unidentified(customerId: string, from: string, to: string): Promise<UnidentifiedRow[]> {
    const days = daysBetween(from, to);
    if (days.length === 0) return [];
    // One slot (the customer's hash tag): one MULTI, on a cluster too.
    const m = this.s.client.multi();
    for (const day of days) m.hGetAll(visitKeys.unidentified(customerId, day));
    const replies = (await this.s.timed(m.exec())) as unknown as Record<string, string>[];
    return days.flatMap((day, i) =>
      Object.entries(replies[i] ?? {}).flatMap(([reason, n]) => (isReason(reason) ? [{ day, reason, page_views: Number(n) }] : [])),
    );
  }

  async *exportEntries(): AsyncIterable<UnidentifiedEntry> {
    for await (const batch of scanKeys(this.s.client, UNIDENTIFIED_KEYS)) {
      for (const key of batch.sort(byText)) {
        const match = UNIDENTIFIED_KEY.exec(key);
        if (!match) continue;
        const [, customer_id, day] = match as unknown as [string, string, string];
        const counts = await this.s.timed(this.s.client.hGetAll(key));
        for (const reason of Object.keys(counts).sort(byText)) {
          if (isReason(reason)) yield { type: 'visit_unidentified', customer_id, day, reason, page_views: Number(counts[reason]) };
        }
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    for await (const batch of scanKeys(this.s.client, UNIDENTIFIED_KEYS)) if (batch.length > 0) return false;
    return true;
  }

  importer(): { batchSize: number; write(batch: UnidentifiedEntry[]): Promise<void> } {
    const write = async (batch: UnidentifiedEntry[]) => {
      // One MULTI per customer: in Redis Cluster a transaction's keys share a slot.
      const byCustomer = new Map<string, ReturnType<RedisVisitStorage['client']['multi']>>();
      for (const e of batch) {
        let m = byCustomer.get(e.customer_id);
        if (m === undefined) byCustomer.set(e.customer_id, (m = this.s.client.multi()));
        const key = visitKeys.unidentified(e.customer_id, e.day);
        // As the day's other keys: they expire when a live write of that day would have let them.
        m.hSet(key, e.reason, String(e.page_views)).pExpireAt(key, Date.parse(`${e.day}T00:00:00Z`) + (this.s.retention.days + 2) * 86_400_000);
      }
      // No deadline for the whole batch: a big import is many commands, each answered in its turn.
      for (const m of byCustomer.values()) await m.exec();
    };
    return { batchSize: IMPORT_BATCH, write };
  }
}
