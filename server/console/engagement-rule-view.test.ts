import { describe, expect, it } from 'vitest';
import { SegmentMatch } from '../../core/customer-records.ts';
import { engagementInWords, engagementRulesOf, freshEngagement } from './engagement-rule-view.ts';
import { addCondition, conditionsOf, draftOf, emptyDraft, freeKinds, removeCondition, ruleInWords, ruleOf } from './segment-rule-view.ts';

describe('engagement conditions in the segment builder', () => {
  it('are offered after the behaviour conditions, start with 30 days, and round-trip a saved rule', () => {
    const draft = emptyDraft();
    const kinds = freeKinds(draft, true);
    expect(kinds.slice(kinds.indexOf('page_views'), kinds.indexOf('page_views') + 3)).toEqual(['page_views', 'engaged', 'event']);
    const added = addCondition(addCondition(draft, 'engaged'), 'event');
    expect(added.engaged).toEqual({ path: '', min_seconds: '30', days: '30' });
    expect(added.event).toEqual({ name: '', min_count: '1', days: '30' });
    expect(conditionsOf(added)).toEqual(['engaged', 'event']);
    // Untouched (no path, no name): nothing to save yet.
    expect(ruleOf(added)).toEqual({ ok: true, match: {} });
    const saved = SegmentMatch.parse({
      industry: ['Software'],
      engaged: { path: '/pricing*', min_seconds: 45, days: 14 },
      groups: [{ op: 'any', event: { name: 'demo_requested', min_count: 2, days: 30 }, visited: { path: '/docs*', days: 7 } }],
    });
    const back = ruleOf(draftOf(saved));
    expect(back).toEqual({ ok: true, match: saved });
    expect(SegmentMatch.safeParse(back.ok && back.match).success).toBe(true);
    expect(conditionsOf(removeCondition(draftOf(saved), 'engaged'))).toEqual(['industry']);
  });

  it('name the input to fix when what is typed is not a condition', () => {
    const problems = (engaged: object, event: object) =>
      engagementRulesOf({ engaged: { ...freshEngagement('engaged'), ...engaged }, event: { ...freshEngagement('event'), ...event } } as never).problems;
    expect(problems({ path: 'pricing' }, { name: 'Demo' }).map((p) => [p.kind, p.part])).toEqual([
      ['engaged', 'path'],
      ['event', 'name'],
    ]);
    expect(problems({ path: '/pricing', min_seconds: '0' }, { name: 'demo', min_count: 'x' }).map((p) => [p.kind, p.part])).toEqual([
      ['engaged', 'min_seconds'],
      ['event', 'min_count'],
    ]);
    expect(problems({ path: '/p', days: '401' }, { name: 'demo', days: '' }).map((p) => [p.kind, p.part])).toEqual([
      ['engaged', 'days'],
      ['event', 'days'],
    ]);
    const draft = { ...emptyDraft(), event: { name: 'Demo Requested', min_count: '1', days: '30' } };
    expect(ruleOf(draft)).toMatchObject({ ok: false, problems: [{ level: 'top', kind: 'event', part: 'name' }] });
  });

  it('say the rule in words', () => {
    expect(engagementInWords('engaged', { path: '/pricing*', min_seconds: 30, days: 14 })).toBe('Engaged at least 30 seconds on /pricing* in the last 14 days');
    expect(engagementInWords('event', { name: 'demo_requested', min_count: 2, days: 1 })).toBe('Sent the event demo_requested at least twice in the last day');
    expect(engagementInWords('event', { name: 'signup', min_count: 1, days: 30 })).toBe('Sent the event signup at least once in the last 30 days');
    expect(ruleInWords({ industry: ['Software'], event: { name: 'signup', min_count: 3, days: 30 } })).toBe(
      'Industry is Software, and Sent the event signup at least 3 times in the last 30 days',
    );
  });
});
