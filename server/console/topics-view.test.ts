import { describe, expect, it } from 'vitest';
import { SegmentMatch } from '../../core/customer-records.ts';
import { MAX_TOPIC_WEEKS as CORE_MAX_WEEKS, MAX_CUSTOMER_TOPICS, TOPIC_SURGE_SCORE } from '../../core/topic-records.ts';
import { draftOf, ruleInWords, ruleOf } from './segment-rule-view.ts';
import { freshTopic, MAX_TOPIC_WEEKS, topicInWords, topicRuleOf } from './topic-rule-view.ts';
import {
  changeLabel,
  choiceProblem,
  isChosen,
  MAX_TOPICS,
  quietTopics,
  SURGE_SCORE,
  sameTopics,
  sparkline,
  toggleTopic,
  trendChange,
  trendWords,
  weekLabel,
} from './topics-view.ts';

const TREND = [
  { week: '2026-10-05', score: 41 },
  { week: '2026-10-12', score: null },
  { week: '2026-10-19', score: 63 },
  { week: '2026-10-26', score: 78 },
];

describe('the console’s numbers are the core’s', () => {
  it('surge score, topics a customer follows, weeks a condition looks back', () => {
    expect(SURGE_SCORE).toBe(TOPIC_SURGE_SCORE);
    expect(MAX_TOPICS).toBe(MAX_CUSTOMER_TOPICS);
    expect(MAX_TOPIC_WEEKS).toBe(CORE_MAX_WEEKS);
  });
});

describe('an account’s trend', () => {
  it('in words, week by week (a week without a score said so)', () => {
    expect(weekLabel('2026-10-05')).toBe('5 Oct');
    expect(trendWords(TREND)).toBe('5 Oct 41, 12 Oct no score, 19 Oct 63, 26 Oct 78');
  });

  it('its change from the first scored week to the latest', () => {
    expect(trendChange(TREND)).toBe(37);
    expect(changeLabel(37)).toBe('+37');
    expect(changeLabel(-4)).toBe('−4');
    expect(changeLabel(0)).toBe('±0');
    expect(trendChange([{ week: '2026-10-26', score: 70 }])).toBeNull();
    expect(trendChange([...TREND.slice(0, 3), { week: '2026-10-26', score: null }])).toBeNull();
    expect(changeLabel(null)).toBe('');
  });

  it('as a sparkline: scores bottom to top, weeks without a score skipped, the threshold at 60', () => {
    expect(sparkline(TREND, 120, 30)).toEqual({ points: '0,17.7 80,11.1 120,6.6', threshold: 12, last: { x: 120, y: 6.6 } });
    expect(sparkline([...TREND.slice(0, 3), { week: '2026-10-26', score: null }], 120, 30).last).toBeNull();
  });

  it('the followed topics without scores lately', () => {
    expect(quietTopics(['CRM', 'erp', 'Identity Resolution'], [{ name: 'crm' }])).toEqual(['erp', 'Identity Resolution']);
  });
});

describe('choosing topics', () => {
  it('toggles a topic once, ignoring case, in the order chosen', () => {
    let chosen = toggleTopic([], 'crm', true);
    chosen = toggleTopic(chosen, 'ERP', true);
    chosen = toggleTopic(chosen, 'CRM', true);
    expect(chosen).toEqual(['ERP', 'CRM']);
    expect(isChosen(chosen, 'erp')).toBe(true);
    expect(toggleTopic(chosen, 'erp', false)).toEqual(['CRM']);
  });

  it('knows an unchanged choice and one too long', () => {
    expect(sameTopics(['crm', 'ERP'], ['erp', 'CRM'])).toBe(true);
    expect(sameTopics(['crm'], ['crm', 'erp'])).toBe(false);
    expect(choiceProblem(Array.from({ length: 100 }, (_, i) => `t${i}`))).toBeNull();
    expect(choiceProblem(Array.from({ length: 102 }, (_, i) => `t${i}`))).toBe('At most 100 topics: remove 2.');
  });
});

describe('the builder’s topic condition', () => {
  it('starts at a surge in the last four weeks, and sends what the server accepts', () => {
    expect(freshTopic()).toEqual({ name: '', min_score: '60', weeks: '4' });
    const ok = topicRuleOf({ name: '  customer   data platform ', min_score: '70', weeks: '4' });
    expect(ok).toEqual({ ok: true, condition: { name: 'customer data platform', min_score: 70, weeks: 4 } });
    if (ok.ok) expect(SegmentMatch.parse({ topic: ok.condition })).toEqual({ topic: ok.condition });
  });

  it('names the input that is wrong', () => {
    expect(topicRuleOf({ name: ' ', min_score: '60', weeks: '4' })).toMatchObject({ ok: false, part: 'name' });
    expect(topicRuleOf({ name: 'crm', min_score: '101', weeks: '4' })).toMatchObject({ ok: false, part: 'min_score' });
    expect(topicRuleOf({ name: 'crm', min_score: '60', weeks: '53' })).toMatchObject({ ok: false, part: 'weeks' });
    expect(topicRuleOf({ name: 'crm', min_score: '60', weeks: '' })).toMatchObject({ ok: false, part: 'weeks' });
  });

  it('loads a saved rule, gives it back, and says it in words', () => {
    const match = { industry: ['Software'], topic: { name: 'crm', min_score: 65, weeks: 4 } };
    const draft = draftOf(match);
    expect(draft.topic).toEqual({ name: 'crm', min_score: '65', weeks: '4' });
    expect(ruleOf(draft)).toEqual({ ok: true, match });
    expect(ruleInWords(match)).toBe('Industry is Software, and Research on “crm” scored at least 65 in one of the last 4 weeks');
    // A rule saved through the API with the defaults left out reads as what they mean.
    expect(topicInWords({ name: 'erp' })).toBe('Research on “erp” scored at least 60 in the latest week');
    expect(ruleOf(draftOf({ topic: { name: 'erp' } }))).toEqual({ ok: true, match: { topic: { name: 'erp', min_score: 60, weeks: 1 } } });
  });
});
