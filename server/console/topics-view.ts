/**
 * Third-party intent topics in the console, as data: an account's followed topics with their trend (the
 * account page's Topics section, ui/AccountTopics.tsx) and the customer's choice of topics (the Settings
 * page, ui/TopicsSettings.tsx). Pure, so the console's tests check it without a browser.
 *
 * The surge threshold is core/topic-records.ts's (its test checks they agree), written here so the
 * console's bundle carries no zod schema.
 */
import type { AccountTopicTrend } from '../accounts/topics.ts';

/** Score from which an account surges on a topic (core/topic-records.ts TOPIC_SURGE_SCORE). */
export const SURGE_SCORE = 60;
/** Topics a customer follows at most (core/topic-records.ts MAX_CUSTOMER_TOPICS). */
export const MAX_TOPICS = 100;
/** Topic names the picker lists at once (typing narrows them). */
export const PICKER_ROWS = 40;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A week (its Monday) as people read it: `2026-10-26` → `26 Oct`. */
export function weekLabel(week: string): string {
  const m = /^\d{4}-(\d{2})-(\d{2})$/.exec(week);
  return m ? `${Number(m[2])} ${MONTHS[Number(m[1]) - 1]}` : week;
}

/** The trend in words, for screen readers and the chart's title: `8 Sep 41, 15 Sep no score, …`. */
export function trendWords(trend: AccountTopicTrend['trend']): string {
  return trend.map((w) => `${weekLabel(w.week)} ${w.score === null ? 'no score' : w.score}`).join(', ');
}

/** The change over the trend: latest score against the first week with a score (null: fewer than two scores). */
export function trendChange(trend: AccountTopicTrend['trend']): number | null {
  const scored = trend.filter((w) => w.score !== null);
  if (scored.length < 2 || trend[trend.length - 1]!.score === null) return null;
  return trend[trend.length - 1]!.score! - scored[0]!.score!;
}

/** `+18` / `−4` / `±0` (a real minus sign), or '' when there is no change to tell. */
export function changeLabel(change: number | null): string {
  if (change === null) return '';
  return change > 0 ? `+${change}` : change < 0 ? `−${-change}` : '±0';
}

/**
 * The sparkline of a trend in a `width` × `height` box (scores 0–100 bottom to top, weeks left to right):
 * the polyline through the weeks with a score (a week without one breaks nothing: the line joins its
 * neighbours), the surge threshold's height, and the latest point.
 */
export function sparkline(
  trend: AccountTopicTrend['trend'],
  width: number,
  height: number,
): { points: string; threshold: number; last: { x: number; y: number } | null } {
  const step = trend.length > 1 ? width / (trend.length - 1) : 0;
  const y = (score: number) => Math.round((height - (score / 100) * height) * 10) / 10;
  const pts: { x: number; y: number }[] = [];
  trend.forEach((w, i) => {
    if (w.score !== null) pts.push({ x: Math.round(i * step * 10) / 10, y: y(w.score) });
  });
  const lastWeek = trend[trend.length - 1];
  return {
    points: pts.map((p) => `${p.x},${p.y}`).join(' '),
    threshold: y(SURGE_SCORE),
    last: lastWeek && lastWeek.score !== null ? pts[pts.length - 1]! : null,
  };
}

/** The followed topics the account has no score for in the trend's weeks (said under the table). */
export function quietTopics(followed: readonly string[], shown: readonly { name: string }[]): string[] {
  const have = new Set(shown.map((t) => t.name.toLowerCase()));
  return followed.filter((t) => !have.has(t.toLowerCase()));
}

// ---- the choice of topics (Settings) ---------------------------------------------------------------------

/** The choice with a topic on or off (never twice, ignoring case; in the order chosen). */
export function toggleTopic(chosen: readonly string[], name: string, on: boolean): string[] {
  const rest = chosen.filter((t) => t.toLowerCase() !== name.toLowerCase());
  return on ? [...rest, name] : rest;
}

export const isChosen = (chosen: readonly string[], name: string): boolean => chosen.some((t) => t.toLowerCase() === name.toLowerCase());

/** Whether two choices are the same topics (order and case aside): nothing to save. */
export function sameTopics(a: readonly string[], b: readonly string[]): boolean {
  const key = (l: readonly string[]) => [...new Set(l.map((t) => t.toLowerCase()))].sort().join('\n');
  return key(a) === key(b);
}

/** Why a choice cannot be saved, or null. */
export function choiceProblem(chosen: readonly string[]): string | null {
  return chosen.length > MAX_TOPICS ? `At most ${MAX_TOPICS} topics: remove ${chosen.length - MAX_TOPICS}.` : null;
}
