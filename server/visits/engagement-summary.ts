/**
 * One account's engagement in words a person or a receiver reads (pure): its engaged seconds over a range,
 * per page (most engaged first), its custom events per name (most counted first) and its latest events.
 * The account page shows it in its journey (server/accounts/gather.ts), enriched webhooks carry it
 * (server/webhooks/enrich.ts, `engagement` in v3 payloads). Also the I/O that reads it, for both.
 */
import type { AccountEngagement, EngagementSummary, RecentEvent } from '../../core/engagement-records.ts';
import type { EngagementStore } from '../state/engagement/store.ts';

/** Pages and event names listed at most, latest events listed at most. */
export interface SummaryLimits {
  pages: number;
  events: number;
  recent: number;
}

export const PAGE_LIMITS: SummaryLimits = { pages: 20, events: 20, recent: 20 };

const seconds = (ms: number) => Math.round(ms / 1000);
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function engagementSummary(
  engagement: AccountEngagement,
  recent: readonly RecentEvent[],
  range: { from: string; to: string },
  limits: SummaryLimits = PAGE_LIMITS,
): EngagementSummary {
  const perPath = new Map<string, number>();
  let total = 0;
  for (const t of engagement.time) {
    if (t.day < range.from || t.day > range.to) continue;
    perPath.set(t.path, (perPath.get(t.path) ?? 0) + t.ms);
    total += t.ms;
  }
  const perName = new Map<string, number>();
  for (const e of engagement.events) if (e.day >= range.from && e.day <= range.to) perName.set(e.name, (perName.get(e.name) ?? 0) + e.count);
  return {
    from: range.from,
    to: range.to,
    engaged_seconds: seconds(total),
    pages: [...perPath]
      .sort(([a, x], [b, y]) => y - x || byText(a, b))
      .slice(0, limits.pages)
      .map(([path, ms]) => ({ path, engaged_seconds: seconds(ms) })),
    events: [...perName]
      .sort(([a, x], [b, y]) => y - x || byText(a, b))
      .slice(0, limits.events)
      .map(([name, count]) => ({ name, count })),
    recent_events: recent.filter((e) => e.at.slice(0, 10) >= range.from && e.at.slice(0, 10) <= range.to).slice(0, limits.recent),
  };
}

/** An account without engaged time or events in the range (no store, or a store that could not answer). */
export const noEngagement = (range: { from: string; to: string }): EngagementSummary => ({
  from: range.from,
  to: range.to,
  engaged_seconds: 0,
  pages: [],
  events: [],
  recent_events: [],
});

/** Reads and summarises one account's engagement over a range; a store that cannot answer is reported and reads as none. */
export async function readEngagementSummary(
  store: Pick<EngagementStore, 'accountEngagement' | 'recentEvents'> | undefined,
  customerId: string,
  companyId: string,
  range: { from: string; to: string },
  onError: (e: unknown) => void,
  limits?: SummaryLimits,
): Promise<EngagementSummary> {
  if (!store) return noEngagement(range);
  try {
    const [engagement, recent] = await Promise.all([
      store.accountEngagement(customerId, companyId, range.from, range.to),
      store.recentEvents(customerId, companyId),
    ]);
    return engagementSummary(engagement, recent, range, limits);
  } catch (e) {
    onError(e);
    return noEngagement(range);
  }
}
