/**
 * The engagement conditions of the segment builder as data (ui/segments/EngagementConditions.tsx edits them;
 * segment-rule-view.ts holds them in a level's draft): engaged time on pages of a path pattern
 * (`engaged`: at least N seconds in the last D days) and a custom event (`event`: a name sent at least N
 * times in the last D days), as the web tag measures them. Numbers as typed; pure, so the console's tests
 * check it without a browser. The bounds are core/customer-records.ts's (EngagedCondition, EventCondition),
 * kept apart so the console's bundle carries no zod schema.
 */
import type { EngagedCondition, EventCondition } from '../../core/customer-records.ts';

export const ENGAGEMENT_KINDS = ['engaged', 'event'] as const;
export type EngagementKind = (typeof ENGAGEMENT_KINDS)[number];
export const ENGAGEMENT_LABELS: Readonly<Record<EngagementKind, string>> = { engaged: 'Engaged time on pages', event: 'Custom event' };

export const MAX_ENGAGED_SECONDS = 86_400;
export const MAX_EVENT_COUNT = 1_000_000;
const MAX_DAYS = 400;
const MAX_PATH = 500;
/** A custom event's name (core/engagement-records.ts EVENT_NAME_PATTERN). */
const EVENT_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export interface EngagedDraft {
  path: string;
  min_seconds: string;
  days: string;
}
export interface EventDraft {
  name: string;
  min_count: string;
  days: string;
}
export interface EngagementDrafts {
  engaged?: EngagedDraft;
  event?: EventDraft;
}

/** What a new condition starts with: the last 30 days, 30 seconds or one event. */
export function freshEngagement(kind: EngagementKind): EngagedDraft | EventDraft {
  return kind === 'engaged' ? { path: '', min_seconds: '30', days: '30' } : { name: '', min_count: '1', days: '30' };
}

/** A saved level's engagement conditions as the builder edits them. */
export function engagementDraftsOf(level: { engaged?: EngagedCondition; event?: EventCondition }): EngagementDrafts {
  const out: EngagementDrafts = {};
  if (level.engaged) out.engaged = { path: level.engaged.path, min_seconds: String(level.engaged.min_seconds), days: String(level.engaged.days) };
  if (level.event) out.event = { name: level.event.name, min_count: String(level.event.min_count), days: String(level.event.days) };
  return out;
}

/** Why a draft is not a condition yet: which condition, which input, and what to do. */
export interface EngagementProblem {
  kind: EngagementKind;
  part: 'path' | 'min_seconds' | 'days' | 'name' | 'min_count';
  message: string;
}

function wholeNumber(typed: string, min: number, max: number): number | undefined {
  const t = typed.trim();
  if (!/^\d{1,9}$/.test(t)) return undefined;
  const n = Number(t);
  return n >= min && n <= max ? n : undefined;
}

const daysProblem = (kind: EngagementKind, label: string): EngagementProblem => ({
  kind,
  part: 'days',
  message: `${label}: the days are a whole number from 1 to ${MAX_DAYS}.`,
});

/**
 * The conditions the drafts stand for, once they say something (a path, an event name; untouched ones are
 * dropped), and the problems of what is typed but cannot be sent.
 */
export function engagementRulesOf(drafts: EngagementDrafts): { engaged?: EngagedCondition; event?: EventCondition; problems: EngagementProblem[] } {
  const problems: EngagementProblem[] = [];
  const out: { engaged?: EngagedCondition; event?: EventCondition; problems: EngagementProblem[] } = { problems };
  const e = drafts.engaged;
  if (e && e.path.trim() !== '') {
    const path = e.path.trim();
    const seconds = wholeNumber(e.min_seconds, 1, MAX_ENGAGED_SECONDS);
    const days = wholeNumber(e.days, 1, MAX_DAYS);
    if (!path.startsWith('/') || path.length > MAX_PATH || path.includes('?'))
      problems.push({
        kind: 'engaged',
        part: 'path',
        message: `Engaged time: a path pattern starts with / and holds no ? (at most ${MAX_PATH} characters); * matches any run of characters, e.g. /pricing*.`,
      });
    else if (seconds === undefined)
      problems.push({
        kind: 'engaged',
        part: 'min_seconds',
        message: `Engaged time: the seconds are a whole number from 1 to ${MAX_ENGAGED_SECONDS.toLocaleString('en-US')}.`,
      });
    else if (days === undefined) problems.push(daysProblem('engaged', 'Engaged time'));
    else out.engaged = { path, min_seconds: seconds, days };
  }
  const v = drafts.event;
  if (v && v.name.trim() !== '') {
    const name = v.name.trim();
    const count = wholeNumber(v.min_count, 1, MAX_EVENT_COUNT);
    const days = wholeNumber(v.days, 1, MAX_DAYS);
    if (!EVENT_NAME.test(name))
      problems.push({
        kind: 'event',
        part: 'name',
        message: 'Custom event: a name is a–z, 0–9 and _, starting with a letter (as the page tracks it: demo_requested).',
      });
    else if (count === undefined)
      problems.push({
        kind: 'event',
        part: 'min_count',
        message: `Custom event: the count is a whole number from 1 to ${MAX_EVENT_COUNT.toLocaleString('en-US')}.`,
      });
    else if (days === undefined) problems.push(daysProblem('event', 'Custom event'));
    else out.event = { name, min_count: count, days };
  }
  return out;
}

const inLast = (days: number) => (days === 1 ? 'in the last day' : `in the last ${days.toLocaleString('en-US')} days`);

/** `Engaged at least 30 seconds on /pricing* in the last 14 days`, `Sent demo_requested at least twice in the last 30 days`. */
export function engagementInWords(kind: EngagementKind, value: EngagedCondition | EventCondition): string {
  if (kind === 'engaged') {
    const c = value as EngagedCondition;
    return `Engaged at least ${c.min_seconds.toLocaleString('en-US')} ${c.min_seconds === 1 ? 'second' : 'seconds'} on ${c.path} ${inLast(c.days)}`;
  }
  const c = value as EventCondition;
  const times = c.min_count === 1 ? 'once' : c.min_count === 2 ? 'twice' : `${c.min_count.toLocaleString('en-US')} times`;
  return `Sent the event ${c.name} at least ${times} ${inLast(c.days)}`;
}
