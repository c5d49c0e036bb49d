/**
 * The engagement store's rules, once for both backends: ids that name keys, days in their one spelling,
 * engaged time in whole milliseconds and at most MAX_ENGAGED_MS_PER_BEACON a beacon, event names and
 * properties as the beacon's schema allows them, reads in bounded pages, and the import's checks. Storage
 * is an EngagementPort (port.ts): SQLite (sqlite.ts) or Redis (redis.ts) on the state store's connection.
 */
import { z } from 'zod';
import { CustomerId } from '../../../core/customer-records.ts';
import { type AccountEngagement, EventName, EventProperties, type RecentEvent } from '../../../core/engagement-records.ts';
import { StateError, StoreUnavailableError } from '../errors.ts';
import { importInPages, TRANSFER_PAGE } from '../transfer/import.ts';
import { EngagementEntry } from './entries.ts';
import type { EngagementPort } from './port.ts';
import {
  type EngagedTimeInput,
  type EngagementRow,
  type EngagementRowQuery,
  type EngagementStore,
  engagementOf,
  MAX_ENGAGED_MS_PER_BEACON,
  type TrackedEventInput,
} from './store.ts';

function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StateError(`${[what, ...(issue?.path ?? [])].join('.')}: ${issue?.message}`);
}

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');
const CompanyId = z.string().min(1).max(200);
const Path = z.string().min(1).max(1024);
const Time = z.object({ customer_id: CustomerId, company_id: CompanyId, day: Day, path: Path, ms: z.number().min(0) });
const Tracked = z.object({
  customer_id: CustomerId,
  company_id: CompanyId,
  at: z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'an ISO time'),
  name: EventName,
  path: Path,
  properties: EventProperties,
});

const NOT_EMPTY = 'the target already holds engaged time or custom events: import into an empty state';

export class EngagementService implements EngagementStore {
  private closed = false;

  constructor(private readonly storage: EngagementPort) {}

  private get port(): EngagementPort {
    if (this.closed) throw new StoreUnavailableError('the engagement store is closed');
    return this.storage;
  }

  async addEngagedTime(input: EngagedTimeInput): Promise<void> {
    const t = checked(Time, input, 'engaged time');
    const ms = Math.round(Math.min(t.ms, MAX_ENGAGED_MS_PER_BEACON));
    if (ms > 0) await this.port.addTime({ ...t, ms });
  }

  async addEvent(input: TrackedEventInput): Promise<void> {
    const e = checked(Tracked, input, 'event');
    const at = new Date(Date.parse(e.at)).toISOString();
    await this.port.addEvent({
      customer_id: e.customer_id,
      company_id: e.company_id,
      day: at.slice(0, 10),
      name: e.name,
      count: 1,
      recent: { at, name: e.name, path: e.path, properties: e.properties },
    });
  }

  async accountEngagement(customerId: string, companyId: string, from: string, to: string): Promise<AccountEngagement> {
    if (!CustomerId.safeParse(customerId).success || from > to) return { time: [], events: [] };
    return engagementOf(await this.port.rows(customerId, { from, to, company_id: companyId }));
  }

  async accountsEngagement(customerId: string, from: string, to: string): Promise<EngagementRow[]> {
    if (!CustomerId.safeParse(customerId).success || from > to) return [];
    return this.port.accountsRows(customerId, from, to);
  }

  async recentEvents(customerId: string, companyId: string): Promise<RecentEvent[]> {
    return CustomerId.safeParse(customerId).success ? this.port.recent(customerId, companyId) : [];
  }

  async *engagementRows(customerId: string, q: EngagementRowQuery): AsyncIterable<EngagementRow> {
    if (!CustomerId.safeParse(customerId).success || q.from > q.to) return;
    let left = q.limit ?? Number.POSITIVE_INFINITY;
    let after = q.after ?? null;
    // A page at a time: a client that stops reading holds one page.
    while (left > 0) {
      const page = await this.port.rows(customerId, { from: q.from, to: q.to, company_id: q.company_id, after, limit: Math.min(TRANSFER_PAGE, left) });
      for (const row of page) yield row;
      left -= page.length;
      if (page.length < TRANSFER_PAGE) return;
      after = page[page.length - 1]!;
    }
  }

  async *exportEntries(): AsyncIterable<EngagementEntry> {
    for await (const e of this.port.exportEntries()) yield EngagementEntry.parse(e);
  }

  isEmpty(): Promise<boolean> {
    return this.port.isEmpty();
  }

  importEntries(entries: AsyncIterable<EngagementEntry> | Iterable<EngagementEntry>): Promise<number> {
    return importInPages(entries, { schema: EngagementEntry, isEmpty: () => this.isEmpty(), notEmpty: NOT_EMPTY, write: (page) => this.port.importPage(page) });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.storage.close();
  }
}
