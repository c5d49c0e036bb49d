/**
 * The per-day rollup on Redis (rollup.ts): the arguments the scripts count it with (redis-rollup-scripts.ts)
 * and its reads — one MULTI of the range's rollups, anonymous views and segment entries; the ranked pages
 * and the views of (account, day) pairs top-accounts.ts asks for. Every key is the customer's (one hash
 * tag): each MULTI is one slot on Redis Cluster.
 */
import type { RedisReader } from './redis-reads.ts';
import { visitKeys } from './redis-scripts.ts';
import { dayNumber, ROLLUP_SPAN_DAYS, type RollupDay } from './rollup.ts';
import { type AccountTotals, daysBetween } from './store.ts';
import type { RankedPage, RankedRead } from './top-accounts.ts';

/**
 * The rollup's arguments of a script counting a view of `day`: the prefixes other days' keys are named
 * from, the span, and the last day a later visit of the account can be on (today on this node's clock, a
 * day more for a node ahead of it).
 */
export function rollupArgs(customerId: string, day: string, nowMs = Date.now()): string[] {
  const today = Math.floor(nowMs / 86_400_000);
  return [visitKeys.account(customerId, ''), visitKeys.rollup(customerId, ''), String(ROLLUP_SPAN_DAYS), String(Math.max(today, dayNumber(day)) + 1)];
}

export async function readRollupDays(r: RedisReader, customerId: string, from: string, to: string): Promise<RollupDay[]> {
  const days = daysBetween(from, to);
  if (days.length === 0) return [];
  const m = r.client.multi();
  for (const day of days) m.hGetAll(visitKeys.rollup(customerId, day)).exists(visitKeys.account(customerId, day));
  m.hmGet(visitKeys.anonymous(customerId), days).mGet(days.map((d) => visitKeys.segmentEntries(customerId, d)));
  const replies = (await r.timed(m.exec())) as unknown[];
  const anonymous = replies[2 * days.length] as (string | null)[];
  const entries = replies[2 * days.length + 1] as (string | null)[];
  return days.map((day, i) => {
    const h = (replies[2 * i] ?? {}) as Record<string, string>;
    const gaps = new Map<number, number>();
    for (const [field, n] of Object.entries(h)) if (field[0] === 'g' && Number(n) !== 0) gaps.set(Number(field.slice(1)), Number(n));
    return {
      day,
      identified: Number(h.views ?? 0),
      anonymous: Number(anonymous[i] ?? 0),
      new_accounts: Number(h.new ?? 0),
      segment_entries: Number(entries[i] ?? 0),
      gaps,
      // A day with account views is covered when its rollup saw them all; one without has nothing to cover.
      complete: h.full === '1' || Number(replies[2 * i + 1]) === 0,
    };
  });
}

export async function readRankedAccounts(r: RedisReader, customerId: string, reads: readonly RankedRead[]): Promise<RankedPage[]> {
  if (reads.length === 0) return [];
  const m = r.client.multi();
  for (const q of reads) m.zRangeWithScores(visitKeys.rank(customerId, q.day), q.offset, q.offset + q.limit - 1, { REV: true });
  const replies = (await r.timed(m.exec())) as unknown as { value: string; score: number }[][];
  return replies.map((list) => ({ companies: (list ?? []).map((e) => e.value), views: (list ?? []).map((e) => Number(e.score)) }));
}

/** The views of each (account, day): one ZMSCORE per day of the ranking. */
export async function readAccountDayViews(r: RedisReader, customerId: string, pairs: readonly { company_id: string; day: string }[]): Promise<number[]> {
  if (pairs.length === 0) return [];
  const byDay = new Map<string, number[]>();
  pairs.forEach((p, i) => {
    const list = byDay.get(p.day);
    if (list === undefined) byDay.set(p.day, [i]);
    else list.push(i);
  });
  const m = r.client.multi();
  for (const [day, at] of byDay)
    m.zmScore(
      visitKeys.rank(customerId, day),
      at.map((i) => pairs[i]!.company_id),
    );
  const replies = (await r.timed(m.exec())) as unknown as (number | null)[][];
  const views = pairs.map(() => 0);
  let k = 0;
  for (const at of byDay.values()) {
    const scores = replies[k++] ?? [];
    at.forEach((i, j) => {
      views[i] = Number(scores[j] ?? 0);
    });
  }
  return views;
}

/** The accounts' totals over the days, summed from their counters in the days' account hashes (one HMGET per day). */
export async function readAccountsTotals(r: RedisReader, customerId: string, companyIds: readonly string[], days: readonly string[]): Promise<AccountTotals[]> {
  if (companyIds.length === 0 || days.length === 0) return [];
  const fields = companyIds.flatMap((c) => [`${c}:views`, `${c}:sessions`, `${c}:first`, `${c}:last`]);
  const m = r.client.multi();
  for (const day of days) m.hmGet(visitKeys.account(customerId, day), fields);
  const replies = (await r.timed(m.exec())) as unknown as (string | null)[][];
  const totals: AccountTotals[] = [];
  companyIds.forEach((company_id, k) => {
    let t: AccountTotals | null = null;
    for (const cells of replies) {
      const [views, sessions, first, last] = [cells[4 * k], cells[4 * k + 1], cells[4 * k + 2], cells[4 * k + 3]];
      if (views === null || views === undefined) continue;
      if (t === null) t = { company_id, page_views: 0, sessions: 0, first_seen: first ?? '', last_seen: last ?? '' };
      t.page_views += Number(views);
      t.sessions += Number(sessions ?? 0);
      if (first && first < t.first_seen) t.first_seen = first;
      if (last && last > t.last_seen) t.last_seen = last;
    }
    if (t !== null) totals.push(t);
  });
  return totals;
}
