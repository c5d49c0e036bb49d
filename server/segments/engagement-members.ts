/**
 * The `engaged` and `event` conditions over the whole catalog (./membership.ts, through ./member-facts.ts):
 * every engaged account's rows of the longest window the rules read, read once from the engagement store
 * (bounded by what was engaged: the accounts with engaged time or events in the window), then each
 * condition evaluated per account with the very functions one account's evaluation uses (./engagement-rule.ts).
 */
import type { EngagedCondition, EventCondition } from '../../core/customer-records.ts';
import type { EngagedTime, EventCount } from '../../core/engagement-records.ts';
import type { GlobMatcher } from '../../core/glob.ts';
import type { EngagementStore } from '../state/engagement/store.ts';
import { type EngagementFacts, engagedHolds, eventHolds } from './engagement-rule.ts';
import { windowStart } from './evaluate.ts';

/** The rows (ascending) an engagement condition holds for. */
export interface EngagementRows {
  engagedRows(c: EngagedCondition, pattern: GlobMatcher): Uint32Array;
  eventRows(c: EventCondition): Uint32Array;
}

/** Every engaged account of the window, by row of the index (an account the catalog does not list is in no segment). */
export async function engagementMemberRows(
  store: Pick<EngagementStore, 'accountsEngagement'>,
  rowOf: (companyId: string) => number,
  customerId: string,
  days: number,
  today: string,
): Promise<EngagementRows> {
  const rows = await store.accountsEngagement(customerId, windowStart(today, days), today);
  const byRow = new Map<number, { time: EngagedTime[]; events: EventCount[] }>();
  let lastId = '';
  let lastRow = -1;
  for (const r of rows) {
    if (r.company_id !== lastId) {
      lastId = r.company_id;
      lastRow = rowOf(r.company_id);
    }
    if (lastRow < 0) continue;
    let facts = byRow.get(lastRow);
    if (!facts) byRow.set(lastRow, (facts = { time: [], events: [] }));
    if (r.kind === 'engaged') facts.time.push({ day: r.day, path: r.key, ms: r.value });
    else facts.events.push({ day: r.day, name: r.key, count: r.value });
  }
  const where = (holds: (facts: EngagementFacts) => boolean): Uint32Array => {
    const out: number[] = [];
    for (const [row, facts] of byRow) if (holds(facts)) out.push(row);
    return Uint32Array.from(out).sort();
  };
  return {
    engagedRows: (c, pattern) => where((facts) => engagedHolds(c, pattern, facts, today)),
    eventRows: (c) => where((facts) => eventHolds(c, facts, today)),
  };
}
