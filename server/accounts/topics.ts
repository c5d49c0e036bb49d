/**
 * The account page's intent topics: of the third-party topics the customer follows, those the account has a
 * score for in the dataset's last TOPIC_TREND_WEEKS weeks, each with its trend (score by week, a week without
 * a score as null) — surging ones (latest score ≥ 60) first, then by latest score. Pure over the catalog's
 * topics (server/data/catalog-topics.ts).
 */
import { TOPIC_SURGE_SCORE, TOPIC_TREND_WEEKS, weeksBefore } from '../../core/topic-records.ts';
import type { CatalogTopics } from '../data/catalog-topics.ts';

export interface AccountTopicTrend {
  name: string;
  /** The score in the latest week; null when the account has none that week. */
  score: number | null;
  /** Latest score ≥ TOPIC_SURGE_SCORE. */
  surging: boolean;
  /** One entry per week of the trend, oldest first, each week's Monday. */
  trend: { week: string; score: number | null }[];
}

export interface AccountTopics {
  /** The dataset's latest week (a Monday), or null when it holds no topics. */
  latest_week: string | null;
  /** The topics the customer follows (an empty list: the page invites to choose some). */
  followed: string[];
  /** The followed topics the account has scores for in the trend's weeks. */
  topics: AccountTopicTrend[];
}

export function accountTopics(topics: Pick<CatalogTopics, 'latestWeek' | 'ofCompany'>, followed: readonly string[], companyId: string): AccountTopics {
  const latest = topics.latestWeek();
  const out: AccountTopics = { latest_week: latest, followed: [...followed], topics: [] };
  if (latest === null || followed.length === 0) return out;
  const weeks = Array.from({ length: TOPIC_TREND_WEEKS }, (_, i) => weeksBefore(latest, TOPIC_TREND_WEEKS - 1 - i));
  const wanted = new Set(followed.map((t) => t.toLowerCase()));
  for (const t of topics.ofCompany(companyId)) {
    if (!wanted.has(t.topic.toLowerCase())) continue;
    const byWeek = new Map(t.weeks.map((w) => [w.week, w.score]));
    const trend = weeks.map((week) => ({ week, score: byWeek.get(week) ?? null }));
    if (trend.every((w) => w.score === null)) continue;
    const score = byWeek.get(latest) ?? null;
    out.topics.push({ name: t.topic, score, surging: score !== null && score >= TOPIC_SURGE_SCORE, trend });
  }
  out.topics.sort((a, b) => Number(b.surging) - Number(a.surging) || (b.score ?? -1) - (a.score ?? -1) || a.name.localeCompare(b.name));
  return out;
}
