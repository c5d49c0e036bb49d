/**
 * topics.csv of the sample: third-party topic surge per company and week (core/topic-records.ts), drawn from
 * the company's intent signals (intent.csv, ./activity.ts) so both tell one story: each topic a company
 * researches gets a score for each of the last TOPIC_SAMPLE_WEEKS weeks, rising to a peak (the signal's
 * strength) around the week it was observed and falling away from it. The demo accounts' focus topics peak in
 * the latest week, so they surge there (score ≥ 60): what the demo's account page and segments show.
 * Integer arithmetic only: the same seed writes the same bytes on any machine.
 */
import { weekOf, weeksBefore } from '../../core/topic-records.ts';
import type { RowSink } from './csv-writer.ts';
import type { Rng } from './random.ts';
import { DATA_NOW } from './vocabulary/signals.ts';

/** Weeks of scores per topic, the latest week (the one DATA_NOW is in) last. */
export const TOPIC_SAMPLE_WEEKS = 8;
/** The latest week of the sample's topics (a Monday). */
export const SAMPLE_LATEST_WEEK = weekOf(new Date(DATA_NOW).toISOString())!;
const WEEKS = Array.from({ length: TOPIC_SAMPLE_WEEKS }, (_, i) => weeksBefore(SAMPLE_LATEST_WEEK, TOPIC_SAMPLE_WEEKS - 1 - i));
/** Weeks on each side of the peak over which a topic's score rises and falls. */
const SPREAD = 3;

/** One intent signal of the company, as intent.csv holds it. */
export interface TopicSignal {
  topic: string;
  strength: number;
  observed_at: string;
}

/** The weekly scores of a company's signals; `focus` topics (a demo account's) peak in the latest week. */
export function topicsFor(rng: Rng, companyId: string, signals: readonly TopicSignal[], focus: readonly string[], out: RowSink): number {
  let n = 0;
  for (const s of signals) {
    const peak = focus.includes(s.topic) ? TOPIC_SAMPLE_WEEKS - 1 : peakIndex(s.observed_at);
    const base = 15 + rng.int(0, 25);
    const height = Math.max(0, s.strength - base);
    for (let i = 0; i < TOPIC_SAMPLE_WEEKS; i++) {
      const distance = Math.abs(i - peak);
      // A focus topic's noise only lifts it: the demo's surge never dips under the threshold.
      const noise = focus.includes(s.topic) ? rng.int(0, 4) : rng.int(-6, 6);
      const bump = distance >= SPREAD ? 0 : Math.floor((height * (SPREAD - distance)) / SPREAD);
      out.write([companyId, s.topic, String(Math.min(100, Math.max(0, base + bump + noise))), WEEKS[i]]);
      n++;
    }
  }
  return n;
}

/** The index in WEEKS of the week a signal was observed in (before the first week: negative). */
function peakIndex(observedAt: string): number {
  const week = weekOf(observedAt) ?? SAMPLE_LATEST_WEEK;
  const weeksAgo = Math.round((Date.parse(SAMPLE_LATEST_WEEK) - Date.parse(week)) / (7 * 86_400_000));
  return TOPIC_SAMPLE_WEEKS - 1 - weeksAgo;
}
