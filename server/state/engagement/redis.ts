/**
 * The engagement store on Redis (several nodes), on the state store's command client (backend.ts): it never
 * opens or closes a connection. Every key of a customer carries its hash tag `{cust:<id>}`, so each write
 * is one Lua script in one slot and each read one MULTI in one slot (Redis Cluster too):
 *
 *   svc:{cust:<id>}:eng:<day>:accounts         set    the accounts with engaged time or events that UTC day
 *   svc:{cust:<id>}:eng:<day>:t:<company>      hash   path → engaged ms (at most ENGAGED_PATHS_PER_ACCOUNT_DAY paths, then `(other)`)
 *   svc:{cust:<id>}:eng:<day>:e:<company>      hash   event name → count (at most EVENT_NAMES_PER_ACCOUNT_DAY names, then `(other)`)
 *   svc:{cust:<id>}:eng:recent:<company>       list   the account's latest events (JSON), newest first
 *
 * A day's keys expire at the end of the retention's last day for it (every write sets it: PEXPIREAT, the
 * same instant from every node); an account's latest events a retention after its latest event. Every
 * command has the store's deadline: a stalled Redis answers 503, as the other stores.
 */
import type { RedisClientType } from '@redis/client';
import type { RecentEvent } from '../../../core/engagement-records.ts';
import { runScript, withinDeadline } from '../redis/commands.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS, scanKeys } from '../redis/connection.ts';
import { daysBetween } from '../visits/store.ts';
import type { EngagementEntry } from './entries.ts';
import { dayExpiresAtMs, type EngagementPort, type EventCountInput, keptFrom } from './port.ts';
import { EngagementService } from './service.ts';
import {
  compareRowKeys,
  ENGAGED_PATHS_PER_ACCOUNT_DAY,
  ENGAGEMENT_RETENTION_DAYS,
  type EngagedTimeInput,
  type EngagementRow,
  type EngagementRowQuery,
  EVENT_NAMES_PER_ACCOUNT_DAY,
  OTHER_KEY,
  RECENT_EVENTS_PER_ACCOUNT,
} from './store.ts';

export const engagementKeys = {
  accounts: (c: string, day: string) => `svc:{cust:${c}}:eng:${day}:accounts`,
  time: (c: string, day: string, company: string) => `svc:{cust:${c}}:eng:${day}:t:${company}`,
  events: (c: string, day: string, company: string) => `svc:{cust:${c}}:eng:${day}:e:${company}`,
  recent: (c: string, company: string) => `svc:{cust:${c}}:eng:recent:${company}`,
};
const ENGAGEMENT_KEYS = 'svc:{cust:*}:eng:*';
/** The customer and, for a day's account set, the day of a key. */
const ACCOUNTS_KEY = /^svc:\{cust:([^}]+)\}:eng:(\d{4}-\d{2}-\d{2}):accounts$/;
const RECENT_KEY = /^svc:\{cust:([^}]+)\}:eng:recent:(.+)$/;

// KEYS: the day's account set, the account's hash of the day[, its latest events].
// ARGV: company, field, increment, max other fields, OTHER_KEY, the day's expiry (ms)[, the event's JSON,
// events kept, the list's expiry (ms)]. Mirrors store.ts boundedKey; answers the field added to.
const ADD = `
local f = ARGV[2]
if redis.call('HEXISTS', KEYS[2], f) == 0 then
  local others = redis.call('HLEN', KEYS[2]) - redis.call('HEXISTS', KEYS[2], ARGV[5])
  if others >= tonumber(ARGV[4]) then f = ARGV[5] end
end
redis.call('HINCRBY', KEYS[2], f, ARGV[3])
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIREAT', KEYS[2], ARGV[6])
redis.call('PEXPIREAT', KEYS[1], ARGV[6])
if KEYS[3] then
  redis.call('LPUSH', KEYS[3], ARGV[7])
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[8]) - 1)
  redis.call('PEXPIREAT', KEYS[3], ARGV[9])
end
return f`;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const DAY_MS = 86_400_000;
const dayAfter = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);

export interface RedisEngagementOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  /** Days kept (ENGAGEMENT_RETENTION_DAYS). */
  retentionDays?: number;
}

export class RedisEngagementStorage implements EngagementPort {
  private readonly commandTimeoutMs: number;
  private readonly retentionDays: number;

  constructor(
    private readonly client: RedisClientType,
    options: RedisEngagementOptions = {},
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.retentionDays = options.retentionDays ?? ENGAGEMENT_RETENTION_DAYS;
  }

  private io<T>(fn: () => Promise<T>): Promise<T> {
    return withinDeadline(this.commandTimeoutMs, fn);
  }

  private add(keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.client, this.commandTimeoutMs, ADD, keys, args);
  }

  async addTime(t: EngagedTimeInput): Promise<void> {
    const expires = String(dayExpiresAtMs(t.day, this.retentionDays));
    await this.add(
      [engagementKeys.accounts(t.customer_id, t.day), engagementKeys.time(t.customer_id, t.day, t.company_id)],
      [t.company_id, t.path, String(t.ms), String(ENGAGED_PATHS_PER_ACCOUNT_DAY), OTHER_KEY, expires],
    );
  }

  async addEvent(e: EventCountInput): Promise<void> {
    const keys = [engagementKeys.accounts(e.customer_id, e.day), engagementKeys.events(e.customer_id, e.day, e.company_id)];
    const args = [e.company_id, e.name, String(e.count), String(EVENT_NAMES_PER_ACCOUNT_DAY), OTHER_KEY, String(dayExpiresAtMs(e.day, this.retentionDays))];
    if (e.recent) {
      keys.push(engagementKeys.recent(e.customer_id, e.company_id));
      args.push(JSON.stringify(e.recent), String(RECENT_EVENTS_PER_ACCOUNT), String(dayExpiresAtMs(e.recent.at.slice(0, 10), this.retentionDays)));
    }
    await this.add(keys, args);
  }

  /** The days of a range the store may hold: within the retention (and a day past today: a node whose clock runs ahead). */
  private daysOf(from: string, to: string): string[] {
    const today = new Date().toISOString().slice(0, 10);
    const first = from > keptFrom(today, this.retentionDays) ? from : keptFrom(today, this.retentionDays);
    const last = to < dayAfter(today) ? to : dayAfter(today);
    return first > last ? [] : daysBetween(first, last);
  }

  /** The rows of (day, account) pairs, in one MULTI: both hashes of each. */
  private async rowsOf(customerId: string, pairs: readonly [day: string, company: string][]): Promise<EngagementRow[]> {
    if (pairs.length === 0) return [];
    const m = this.client.multi();
    for (const [day, company] of pairs) m.hGetAll(engagementKeys.time(customerId, day, company)).hGetAll(engagementKeys.events(customerId, day, company));
    const replies = (await this.io(() => m.exec())) as unknown as Record<string, string>[];
    const rows: EngagementRow[] = [];
    pairs.forEach(([day, company_id], i) => {
      for (const [key, v] of Object.entries(replies[2 * i] ?? {})) rows.push({ day, company_id, kind: 'engaged', key, value: Number(v) });
      for (const [key, v] of Object.entries(replies[2 * i + 1] ?? {})) rows.push({ day, company_id, kind: 'event', key, value: Number(v) });
    });
    return rows;
  }

  /** The accounts of each day (one MULTI), days without any left out. */
  private async accountsByDay(customerId: string, days: readonly string[]): Promise<[string, string[]][]> {
    if (days.length === 0) return [];
    const m = this.client.multi();
    for (const day of days) m.sMembers(engagementKeys.accounts(customerId, day));
    const replies = (await this.io(() => m.exec())) as unknown as string[][];
    return days.map((day, i) => [day, [...(replies[i] ?? [])].sort(byText)] as [string, string[]]).filter(([, companies]) => companies.length > 0);
  }

  async rows(customerId: string, q: EngagementRowQuery): Promise<EngagementRow[]> {
    const after = q.after ?? null;
    const days = this.daysOf(after && after.day > q.from ? after.day : q.from, q.to);
    const limit = q.limit ?? Number.POSITIVE_INFINITY;
    const out: EngagementRow[] = [];
    if (q.company_id !== undefined) {
      const rows = await this.rowsOf(
        customerId,
        days.map((d) => [d, q.company_id!]),
      );
      for (const r of rows.sort(compareRowKeys)) if (!after || compareRowKeys(r, after) > 0) out.push(r);
      return out.slice(0, limit);
    }
    // A day at a time once the days with accounts are known: a page reads no more days than it lists.
    for (const [day, companies] of await this.accountsByDay(customerId, days)) {
      const rows = await this.rowsOf(
        customerId,
        companies.map((c) => [day, c]),
      );
      for (const r of rows.sort(compareRowKeys)) {
        if (after && compareRowKeys(r, after) <= 0) continue;
        out.push(r);
        if (out.length >= limit) return out;
      }
    }
    return out;
  }

  async accountsRows(customerId: string, from: string, to: string): Promise<EngagementRow[]> {
    const pairs: [string, string][] = [];
    for (const [day, companies] of await this.accountsByDay(customerId, this.daysOf(from, to))) for (const c of companies) pairs.push([day, c]);
    const rows = await this.rowsOf(customerId, pairs);
    return rows.sort((a, b) => byText(a.company_id, b.company_id) || byText(a.day, b.day) || byText(a.kind, b.kind) || byText(a.key, b.key));
  }

  async recent(customerId: string, companyId: string): Promise<RecentEvent[]> {
    const raw = await this.io(() => this.client.lRange(engagementKeys.recent(customerId, companyId), 0, RECENT_EVENTS_PER_ACCOUNT - 1));
    return raw.map((r) => JSON.parse(r) as RecentEvent);
  }

  /** Per customer: the days with accounts and the accounts with latest events, from the keys. */
  private async held(): Promise<Map<string, { days: Set<string>; recent: Set<string> }>> {
    const found = new Map<string, { days: Set<string>; recent: Set<string> }>();
    const of = (c: string) => {
      let e = found.get(c);
      if (!e) found.set(c, (e = { days: new Set(), recent: new Set() }));
      return e;
    };
    for await (const batch of scanKeys(this.client, ENGAGEMENT_KEYS)) {
      for (const key of batch) {
        const day = ACCOUNTS_KEY.exec(key);
        if (day) of(day[1]!).days.add(day[2]!);
        const recent = RECENT_KEY.exec(key);
        if (recent) of(recent[1]!).recent.add(recent[2]!);
      }
    }
    return found;
  }

  async *exportEntries(): AsyncIterable<EngagementEntry> {
    const held = await this.held();
    for (const c of [...held.keys()].sort(byText)) {
      const { days, recent } = held.get(c)!;
      for (const [day, companies] of await this.accountsByDay(c, [...days].sort(byText))) {
        const rows = await this.rowsOf(
          c,
          companies.map((company) => [day, company]),
        );
        for (const r of rows.sort(compareRowKeys)) {
          yield r.kind === 'engaged'
            ? { type: 'engaged_time', customer_id: c, company_id: r.company_id, day: r.day, path: r.key, ms: r.value }
            : { type: 'event_count', customer_id: c, company_id: r.company_id, day: r.day, name: r.key, count: r.value };
        }
      }
      for (const company of [...recent].sort(byText)) {
        const events = await this.recent(c, company);
        for (const e of events.reverse()) yield { type: 'recent_event', customer_id: c, company_id: company, ...e };
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    for await (const batch of scanKeys(this.client, ENGAGEMENT_KEYS)) if (batch.length > 0) return false;
    return true;
  }

  async importPage(entries: EngagementEntry[]): Promise<void> {
    for (const e of entries) {
      if (e.type === 'engaged_time') await this.addTime(e);
      else if (e.type === 'event_count') await this.addEvent({ ...e, recent: null });
      else {
        const { type: _, customer_id, company_id, ...event } = e;
        const key = engagementKeys.recent(customer_id, company_id);
        const m = this.client
          .multi()
          .lPush(key, JSON.stringify(event))
          .lTrim(key, 0, RECENT_EVENTS_PER_ACCOUNT - 1)
          .pExpireAt(key, dayExpiresAtMs(event.at.slice(0, 10), this.retentionDays));
        await this.io(() => m.exec());
      }
    }
  }

  async close(): Promise<void> {}
}

/** The engagement store on Redis: the rules (service.ts) over this storage. */
export class RedisEngagementStore extends EngagementService {
  constructor(client: RedisClientType, options: RedisEngagementOptions = {}) {
    super(new RedisEngagementStorage(client, options));
  }
}
