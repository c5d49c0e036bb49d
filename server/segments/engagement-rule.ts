/**
 * The `engaged` and `event` conditions of a segment rule (core/customer-records.ts EngagedCondition,
 * EventCondition): what the web tag measured of the account on the customer's pages. Pure: one account's
 * engagement (gathered by ./account-facts.ts from the engagement store) or, over the whole catalog, every
 * engaged account's rows (./member-facts.ts) — the same windows, the same sums.
 *
 *  - `engaged`: the seconds the account's visitors had pages matching `path` visible in the last `days` UTC
 *    days (today included) reach `min_seconds`. The pattern is the product's one matcher (core/glob.ts,
 *    linear in the path, no regular expression from the rule), compared without the query string and
 *    ignoring case, as `visited`'s.
 *  - `event`: the account sent the custom event `name` at least `min_count` times in the window.
 */
import type { EngagedCondition, EventCondition } from '../../core/customer-records.ts';
import type { EngagedTime, EventCount } from '../../core/engagement-records.ts';
import type { GlobMatcher } from '../../core/glob.ts';

/** One account's engagement as the conditions read it: rows covering at least the longest window its rules read. */
export interface EngagementFacts {
  time: readonly EngagedTime[];
  events: readonly EventCount[];
}

/** No engagement known (an account never engaged, or no store). */
export const NO_ENGAGEMENT: EngagementFacts = Object.freeze({ time: [], events: [] });

const dayStart = (today: string, days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);

/** Engaged milliseconds on paths matching the pattern in the last `days` days up to `today`. */
export function engagedMsIn(pattern: GlobMatcher, days: number, time: readonly EngagedTime[], today: string): number {
  const from = dayStart(today, days);
  let ms = 0;
  for (const t of time) if (t.day >= from && t.day <= today && pattern(t.path)) ms += t.ms;
  return ms;
}

/** The count of an event name in the last `days` days up to `today`. */
export function eventCountIn(name: string, days: number, events: readonly EventCount[], today: string): number {
  const from = dayStart(today, days);
  let n = 0;
  for (const e of events) if (e.day >= from && e.day <= today && e.name === name) n += e.count;
  return n;
}

export function engagedHolds(c: EngagedCondition, pattern: GlobMatcher, facts: EngagementFacts, today: string): boolean {
  return engagedMsIn(pattern, c.days, facts.time, today) >= c.min_seconds * 1000;
}

export function eventHolds(c: EventCondition, facts: EngagementFacts, today: string): boolean {
  return eventCountIn(c.name, c.days, facts.events, today) >= c.min_count;
}

const dayWords = (days: number) => (days === 1 ? '1 day' : `${days} days`);

/** `engaged ≥ 30 s on /pricing* in 14 days` */
export const engagedWords = (c: EngagedCondition): string => `engaged ≥ ${c.min_seconds} s on ${c.path} in ${dayWords(c.days)}`;
/** `event demo_requested ≥ 2 in 30 days` */
export const eventWords = (c: EventCondition): string => `event ${c.name} ≥ ${c.min_count} in ${dayWords(c.days)}`;
