/**
 * intent.csv (third-party research signals per company) and engagement.csv (first-party activity per person),
 * dated in the 90 days before the data's fixed "now" (2026-11-01).
 */
import type { Company } from './companies.ts';
import type { RowSink } from './csv-writer.ts';
import { type Rng, Weighted } from './random.ts';
import { ENGAGEMENT_ACTIVITIES, INDUSTRY_TOPICS, INTENT_TOPICS, observedAt } from './vocabulary/signals.ts';

const ACTIVITIES = new Weighted(ENGAGEMENT_ACTIVITIES.map(([a, w, max]) => [[a, max] as const, w] as const));

/** Share of companies with intent signals, by size tier. */
const INTENT_SHARE = [0.15, 0.22, 0.3, 0.38, 0.45, 0.55, 0.6, 0.65];
const ENGAGED_SHARE = 0.15;

/**
 * Intent signals of a company: for a share of companies, 1–5 topics (half of them typical of its industry).
 * `focus` topics (the demo accounts' research on the demo customer's topics) come first, strong and recent.
 */
export function intentFor(rng: Rng, c: Company, out: RowSink, focus: readonly string[] = []): number {
  const topics = new Set<string>();
  let n = 0;
  for (const topic of focus) {
    if (topics.has(topic)) continue;
    topics.add(topic);
    out.write([c.id, topic, String(rng.int(70, 100)), observedAt(rng, 14)]);
    n++;
  }
  if (!rng.chance(INTENT_SHARE[c.tier.index])) return n;
  const typical = INDUSTRY_TOPICS[c.industry.name];
  for (let k = rng.int(1, 5); k > 0; k--) {
    const topic = typical && rng.chance(0.5) ? rng.pick(typical) : rng.pick(INTENT_TOPICS);
    if (topics.has(topic)) continue;
    topics.add(topic);
    const strength = Math.floor((rng.int(5, 100) + rng.int(5, 100)) / 2);
    out.write([c.id, topic, String(strength), observedAt(rng)]);
    n++;
  }
  return n;
}

/** First-party engagement of a person: for a share of people (always when `engaged`), 1–4 activities. */
export function engagementFor(rng: Rng, personId: string, out: RowSink, engaged = false): number {
  if (!engaged && !rng.chance(ENGAGED_SHARE)) return 0;
  const seen = new Set<string>();
  let n = 0;
  for (let k = rng.int(engaged ? 2 : 1, 4); k > 0; k--) {
    const [activity, max] = ACTIVITIES.draw(rng);
    if (seen.has(activity)) continue;
    seen.add(activity);
    const u = rng.float();
    out.write([personId, activity, String(1 + Math.floor(u * u * max)), observedAt(rng, engaged ? 21 : 90)]);
    n++;
  }
  return n;
}
