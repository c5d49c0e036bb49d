/**
 * The `topic` condition of a segment rule (core/topic-records.ts TopicCondition): the account's score on a
 * third-party topic reached `min_score` in at least one of the dataset's last `weeks` weeks. Pure: one
 * account's topic facts (gathered by ./account-facts.ts from the catalog) or, over the whole catalog, the
 * companies the catalog's topic index returns (./membership.ts) — the same window, the same threshold.
 *
 * The weeks end on the latest week the dataset holds, not on today: the feed is weekly and a dataset is
 * rebuilt from last week's export, so "the last 4 weeks" means the 4 weeks the data has.
 */
import { ApiError } from '../../core/error-codes.ts';
import { type TopicCondition, topicConditionOf, weeksBefore } from '../../core/topic-records.ts';

/** A `topic` condition with its defaults applied (the rule as saved keeps what was written). */
export type TopicRule = ReturnType<typeof topicConditionOf>;

/** One account's topics as the condition reads them. */
export interface TopicFacts {
  /** The dataset's latest week (a Monday), or null when it has no topics. */
  latestWeek: string | null;
  /** The account's weekly scores on a topic (ignoring case), weeks ascending; [] for none. */
  scores(topic: string): readonly { week: string; score: number }[];
}

export const topicRule = (c: TopicCondition): TopicRule => topicConditionOf(c);

/** The first week (a Monday) of the condition's window, or null without topics. */
export function topicWindowStart(rule: Pick<TopicRule, 'weeks'>, latestWeek: string | null): string | null {
  return latestWeek === null ? null : weeksBefore(latestWeek, rule.weeks - 1);
}

/** Whether one account's topics satisfy the condition. */
export function topicHolds(rule: TopicRule, facts: TopicFacts): boolean {
  const from = topicWindowStart(rule, facts.latestWeek);
  if (from === null) return false;
  return facts.scores(rule.name).some((w) => w.week >= from && w.week <= facts.latestWeek! && w.score >= rule.min_score);
}

/** The condition in words, as the rule lists show it: `topic crm: score ≥ 60 in the last 4 weeks`. */
export function topicWords(rule: TopicRule): string {
  return `topic ${rule.name}: score ≥ ${rule.min_score} in the ${rule.weeks === 1 ? 'latest week' : `last ${rule.weeks} weeks`}`;
}

/** Facts from an account's topics as the catalog holds them (server/data/catalog-topics.ts). */
export function topicFactsOf(latestWeek: string | null, topics: readonly { topic: string; weeks: readonly { week: string; score: number }[] }[]): TopicFacts {
  return {
    latestWeek,
    scores: (topic) => topics.find((t) => t.topic.toLowerCase() === topic.trim().toLowerCase())?.weeks ?? [],
  };
}

/** The topic names a rule's `topic` conditions name (groups included), as written. */
export function ruleTopicNames(match: { topic?: TopicCondition; groups?: readonly { topic?: TopicCondition }[] }): string[] {
  return [match, ...(match.groups ?? [])].flatMap((level) => (level.topic ? [level.topic.name] : []));
}

/**
 * A rule names only topics the dataset holds (422 otherwise: a typo would silently match nothing); the
 * topic picker (GET …/topics/names) lists them.
 */
export function checkRuleTopics(
  topics: { named(name: string): string | null },
  match: Parameters<typeof ruleTopicNames>[0] | undefined,
  customerId: string,
): void {
  if (!match) return;
  const unknown = [...new Set(ruleTopicNames(match))].filter((name) => topics.named(name) === null);
  if (unknown.length > 0)
    throw new ApiError(
      'invalid',
      `match.topic.name: no topic ${unknown.map((n) => JSON.stringify(n)).join(', ')} in the dataset (GET /admin/api/customers/${customerId}/topics/names lists them)`,
    );
}
