/**
 * The catalog's third-party topics (data/build/topics.ts wrote them): each account's scores per topic and
 * week, the topic names with their accounts, the latest week, and the accounts whose score on a topic
 * reached a minimum since a week (the segment index's `topic` condition). Read-only like the catalog; a
 * catalog built before topics existed answers as one without topics.
 *
 * `followedTopics` is the one rule of what an answer (identification, enrichment) carries of them: the
 * customer's followed topics the account has a score for in the latest week, highest first.
 */
import type Database from 'better-sqlite3';
import { type IntentTopicAnswer, TOPIC_SURGE_SCORE } from '../../core/topic-records.ts';
import { TOPIC_WEEKS, TOPICS_LATEST_WEEK } from '../../data/catalog/schema.ts';
import { boundedMemo } from '../cache/bounded-cache.ts';

/** One account's scores on one topic, weeks ascending. */
export interface AccountTopic {
  topic: string;
  weeks: readonly { week: string; score: number }[];
}

/** A topic of the dataset: how many accounts have a score on it, and how many surge on it in the latest week. */
export interface TopicSummary {
  name: string;
  accounts: number;
  surging: number;
}

export interface CatalogTopics {
  /** The latest week the data holds (a Monday, YYYY-MM-DD), or null without topics. */
  latestWeek(): string | null;
  /** Every topic of one company with its weekly scores (topics by name), frozen; [] when none. */
  ofCompany(companyId: string): readonly AccountTopic[];
  /** Every topic of the dataset, by name. */
  names(): readonly TopicSummary[];
  /** A topic's name as the dataset spells it (the name compared ignoring case), or null. */
  named(name: string): string | null;
  /** Company ids whose score on `topic` (ignoring case) was at least `minScore` in a week on or after `fromWeek`. */
  companiesScoring(topic: string, fromWeek: string, minScore: number): string[];
}

/** Topics of a catalog without them (built before topics, or from sources without topics.csv). */
export const NO_TOPICS: CatalogTopics = {
  latestWeek: () => null,
  ofCompany: () => [],
  names: () => [],
  named: () => null,
  companiesScoring: () => [],
};

/** Companies whose topics are kept per snapshot (rows of a few weeks each: small). */
const CACHE_LIMIT = 20_000;

export function openCatalogTopics(db: Database.Database): CatalogTopics {
  const has = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('topic_weeks', 'topic_names')").pluck().get() as number;
  if (has < 2) return NO_TOPICS;
  const q = {
    latest: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
    ofCompany: db.prepare('SELECT topic, weeks FROM topic_weeks WHERE company_id = ? ORDER BY topic'),
    names: db.prepare('SELECT topic AS name, accounts, surging FROM topic_names ORDER BY topic'),
    named: db.prepare('SELECT topic FROM topic_names WHERE topic = ?').pluck(),
    // The index narrows to the accounts whose best week reached the score; their weeks say whether it was recent enough.
    reaching: db.prepare('SELECT company_id, weeks FROM topic_weeks WHERE topic = ? AND max_score >= ?').raw(),
  };
  const latest = (q.latest.get(TOPICS_LATEST_WEEK) as string | undefined) ?? null;
  let names: readonly TopicSummary[] | null = null;
  const ofCompany = boundedMemo(
    (id: string): readonly AccountTopic[] =>
      Object.freeze(
        (q.ofCompany.all(id) as { topic: string; weeks: string }[]).map((r) =>
          Object.freeze({ topic: r.topic, weeks: Object.freeze(TOPIC_WEEKS.decode(r.weeks).map((w) => Object.freeze(w))) }),
        ),
      ),
    CACHE_LIMIT,
  );
  return {
    latestWeek: () => latest,
    ofCompany,
    names: () => {
      names ??= Object.freeze((q.names.all() as TopicSummary[]).map((n) => Object.freeze(n)));
      return names;
    },
    named: (name) => (q.named.get(name.trim()) as string | undefined) ?? null,
    companiesScoring: (topic, fromWeek, minScore) => {
      const out: string[] = [];
      for (const [id, weeks] of q.reaching.all(topic.trim(), minScore) as [string, string][])
        if (TOPIC_WEEKS.decode(weeks).some((w) => w.week >= fromWeek && w.score >= minScore)) out.push(id);
      return out;
    },
  };
}

/**
 * What an answer carries of an account's topics: the `followed` ones (the customer's, ignoring case) it has a
 * score for in the latest week, highest score first (then by name).
 */
export function followedTopics(topics: Pick<CatalogTopics, 'latestWeek' | 'ofCompany'>, followed: readonly string[], companyId: string): IntentTopicAnswer[] {
  const week = topics.latestWeek();
  if (week === null || followed.length === 0) return [];
  const wanted = new Set(followed.map((t) => t.toLowerCase()));
  const out: IntentTopicAnswer[] = [];
  for (const t of topics.ofCompany(companyId)) {
    if (!wanted.has(t.topic.toLowerCase())) continue;
    const latest = t.weeks[t.weeks.length - 1];
    if (latest?.week === week) out.push({ topic: t.topic, score: latest.score, surging: latest.score >= TOPIC_SURGE_SCORE, week });
  }
  return out.sort((a, b) => b.score - a.score || a.topic.localeCompare(b.topic));
}
