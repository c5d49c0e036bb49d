/**
 * Third-party intent topics (a Company Surge®-style feed: per account, topic and week a score 0–100 of how
 * much more the account reads about the topic than its own baseline): the names, the weeks, the customer's
 * choice of topics, the segment condition and the answer field. In the neutral core: the data layer (the
 * import, the build, the generator), the server (settings, rules, answers) and the console read them.
 *
 * A week is named by its Monday (UTC, `YYYY-MM-DD`): a vendor file dated on any day of a week lands on that
 * week, so two exports of the same week never make two weeks.
 */
import { z } from 'zod';

/** The score from which an account is said to surge on a topic (the vendors' usual threshold). */
export const TOPIC_SURGE_SCORE = 60;
/** Topics a customer follows at most. */
export const MAX_CUSTOMER_TOPICS = 100;
/** Weeks a topic condition or the account page looks back at most (a year). */
export const MAX_TOPIC_WEEKS = 52;
/** Weeks of trend the account page shows per topic. */
export const TOPIC_TREND_WEEKS = 12;

/** A topic's name as the data spells it: trimmed, inner runs of white space as one space, 1–200 characters. */
export const TopicName = z
  .string()
  .transform((s) => s.trim().replace(/\s+/g, ' '))
  .pipe(z.string().min(1, 'a topic name is not blank').max(200, 'a topic name is at most 200 characters'));

const DAY_MS = 86_400_000;

/**
 * The Monday (UTC) of the week a date falls in, as `YYYY-MM-DD`; null for what is no real date. Accepts a
 * calendar date or an ISO date-time (`2026-10-28`, `2026-10-28T09:00:00Z`: the date part counts).
 */
export function weekOf(text: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(text.trim());
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const d = new Date(ms);
  if (d.getUTCFullYear() !== Number(m[1]) || d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return null;
  // getUTCDay: 0 = Sunday; a week starts on Monday (ISO 8601).
  return new Date(ms - ((d.getUTCDay() + 6) % 7) * DAY_MS).toISOString().slice(0, 10);
}

/** The Monday `n` weeks before the week `week` (a Monday): `weeksBefore(w, 0)` is `w`. */
export function weeksBefore(week: string, n: number): string {
  return new Date(Date.parse(`${week}T00:00:00Z`) - n * 7 * DAY_MS).toISOString().slice(0, 10);
}

/** A week as a source row holds it: any date of the week, read as its Monday. */
export const TopicWeek = z.string().transform((s, ctx) => {
  const week = weekOf(s);
  if (week === null) {
    ctx.addIssue({ code: 'custom', message: 'a date YYYY-MM-DD (any day of the week)' });
    return z.NEVER;
  }
  return week;
});

/** A score 0–100 as a source row holds it, never blank (a decimal is rounded to the nearest whole number). */
export const TopicScore = z
  .string()
  .trim()
  .regex(/^\d{1,3}(\.\d+)?$/, 'a number from 0 to 100')
  .transform(Number)
  .pipe(z.number().max(100, 'a number from 0 to 100'))
  .transform((n) => Math.round(n));

/** The topics a customer follows (its settings): names of the dataset's topics, each once (ignoring case). */
export const CustomerTopics = z
  .array(TopicName)
  .max(MAX_CUSTOMER_TOPICS, `at most ${MAX_CUSTOMER_TOPICS} topics`)
  .refine((names) => new Set(names.map((n) => n.toLowerCase())).size === names.length, 'a topic is named once');
export type CustomerTopics = z.infer<typeof CustomerTopics>;

const wholeNumber = (min: number, max: number) => {
  const words = `a whole number from ${min} to ${max}`;
  return z.number({ error: words }).int(words).min(min, words).max(max, words);
};

/**
 * A segment condition on a third-party topic: the account's score on `name` (ignoring case) reached
 * `min_score` (default TOPIC_SURGE_SCORE) in at least one of the dataset's last `weeks` weeks (default 1:
 * its latest week; the weeks end on the latest week the data holds, so a rule means the same on a dataset
 * built from last Monday's export as on today's).
 */
export const TopicCondition = z
  .object({
    name: z.string().trim().min(1, 'name a topic of the dataset').max(200, 'a topic name is at most 200 characters'),
    min_score: wholeNumber(0, 100).optional(),
    weeks: wholeNumber(1, MAX_TOPIC_WEEKS).optional(),
  })
  .strict();
export type TopicCondition = z.infer<typeof TopicCondition>;

/** What a condition's absent fields mean. */
export const topicConditionOf = (c: TopicCondition): { name: string; min_score: number; weeks: number } => ({
  name: c.name,
  min_score: c.min_score ?? TOPIC_SURGE_SCORE,
  weeks: c.weeks ?? 1,
});

/**
 * One followed topic of an account in an identification or enrichment answer (`intent_topics`, only for a
 * token with the `intent_topics` setting): its score in the dataset's latest week.
 */
export const IntentTopicAnswer = z
  .object({
    topic: z.string().describe('The topic, as the dataset spells it'),
    score: z.number().int().min(0).max(100).describe('The account’s score on the topic in `week` (0–100)'),
    surging: z.boolean().describe(`Whether the score is at least ${TOPIC_SURGE_SCORE} (the account researches the topic far more than it usually does)`),
    week: z.string().describe('The week of the score: its Monday (YYYY-MM-DD), the latest week the dataset holds'),
  })
  .strict();
export type IntentTopicAnswer = z.infer<typeof IntentTopicAnswer>;

export const IntentTopicsAnswer = z
  .array(IntentTopicAnswer)
  .describe(
    'Only for a token whose `intent_topics` setting is on (absent otherwise): the topics the customer follows that the account has a score for in the dataset’s latest week, highest score first; [] without a company',
  );
