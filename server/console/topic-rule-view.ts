/**
 * The segment builder's `topic` condition as data (./segment-rule-view.ts hooks it in): the draft as typed
 * (numbers as text), the rule it stands for or the problem that stops it, a fresh one, and its words. The
 * bounds are core/topic-records.ts's (its test checks them), written here so the console carries no zod.
 */
import type { SegmentMatch } from '../../core/customer-records.ts';
import { SURGE_SCORE } from './topics-view.ts';

export const TOPIC_KIND = 'topic' as const;
export const TOPIC_LABEL = 'Intent topic (third-party research)';
/** Weeks a topic condition looks back at most (core/topic-records.ts MAX_TOPIC_WEEKS). */
export const MAX_TOPIC_WEEKS = 52;
/** Weeks a new condition starts with: the last four. */
export const DEFAULT_TOPIC_WEEKS = '4';

type TopicCondition = NonNullable<SegmentMatch['topic']>;

/** A topic condition as edited. */
export interface TopicDraft {
  name: string;
  min_score: string;
  weeks: string;
}

export type TopicPart = 'name' | 'min_score' | 'weeks';

export const freshTopic = (firstTopic = ''): TopicDraft => ({ name: firstTopic, min_score: String(SURGE_SCORE), weeks: DEFAULT_TOPIC_WEEKS });

export const topicDraftOf = (c: TopicCondition): TopicDraft => ({
  name: c.name,
  min_score: String(c.min_score ?? SURGE_SCORE),
  weeks: String(c.weeks ?? 1),
});

function whole(typed: string, min: number, max: number): number | undefined {
  const t = typed.trim();
  if (!/^\d{1,3}$/.test(t)) return undefined;
  const n = Number(t);
  return n >= min && n <= max ? n : undefined;
}

/** The condition a draft stands for, or which input is wrong and what to do. */
export function topicRuleOf(d: TopicDraft): { ok: true; condition: TopicCondition } | { ok: false; part: TopicPart; message: string } {
  const name = d.name.trim().replace(/\s+/g, ' ');
  if (name === '') return { ok: false, part: 'name', message: 'Intent topic: pick a topic of the dataset.' };
  if (name.length > 200) return { ok: false, part: 'name', message: 'Intent topic: a topic name is at most 200 characters.' };
  const min_score = whole(d.min_score, 0, 100);
  if (min_score === undefined) return { ok: false, part: 'min_score', message: 'Intent topic: the minimum score is a whole number from 0 to 100.' };
  const weeks = whole(d.weeks, 1, MAX_TOPIC_WEEKS);
  if (weeks === undefined) return { ok: false, part: 'weeks', message: `Intent topic: the weeks are a whole number from 1 to ${MAX_TOPIC_WEEKS}.` };
  return { ok: true, condition: { name, min_score, weeks } };
}

/** `Research on “crm” scored at least 60 in the last 4 weeks`. */
export function topicInWords(c: TopicCondition): string {
  const weeks = c.weeks ?? 1;
  return `Research on “${c.name}” scored at least ${c.min_score ?? SURGE_SCORE} ${weeks === 1 ? 'in the latest week' : `in one of the last ${weeks} weeks`}`;
}
