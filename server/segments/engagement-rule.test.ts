import { describe, expect, it } from 'vitest';
import { SegmentMatch } from '../../core/customer-records.ts';
import { ACME_SOFTWARE } from '../testing/fixtures.ts';
import { type EngagementFacts, engagedMsIn, eventCountIn, NO_ENGAGEMENT } from './engagement-rule.ts';
import { type AccountFacts, factsNeed, needsAccountFacts, pathPattern, ruleSummary, segmentMatches } from './evaluate.ts';

const TODAY = '2026-12-07';
const facts = (engagement = NO_ENGAGEMENT): AccountFacts => ({ today: TODAY, pages: [], intent: () => undefined, engagement });
const ENGAGEMENT = {
  time: [
    { day: '2026-12-07', path: '/pricing', ms: 20_000 },
    { day: '2026-12-01', path: '/pricing/enterprise', ms: 15_000 },
    { day: '2026-11-01', path: '/pricing', ms: 600_000 }, // outside 14 days
    { day: '2026-12-07', path: '/docs', ms: 90_000 },
  ],
  events: [
    { day: '2026-12-07', name: 'demo_requested', count: 1 },
    { day: '2026-12-05', name: 'demo_requested', count: 1 },
    { day: '2026-10-01', name: 'demo_requested', count: 5 }, // outside 30 days
    { day: '2026-12-06', name: 'signup', count: 3 },
  ],
};

describe('engaged and event conditions', () => {
  it('sum engaged time on matching paths (ignoring case and query) and event counts within the window, today included', () => {
    expect(engagedMsIn(pathPattern('/PRICING*'), 14, ENGAGEMENT.time, TODAY)).toBe(35_000);
    expect(engagedMsIn(pathPattern('/pricing'), 1, ENGAGEMENT.time, TODAY)).toBe(20_000);
    expect(engagedMsIn(pathPattern('/pricing*'), 400, ENGAGEMENT.time, TODAY)).toBe(635_000);
    expect(engagedMsIn(pathPattern('/pricing*'), 14, [{ day: TODAY, path: '/pricing?plan=pro', ms: 5 }], TODAY)).toBe(5);
    expect(eventCountIn('demo_requested', 30, ENGAGEMENT.events, TODAY)).toBe(2);
    expect(eventCountIn('demo_requested', 1, ENGAGEMENT.events, TODAY)).toBe(1);
    expect(eventCountIn('Demo_Requested', 30, ENGAGEMENT.events, TODAY)).toBe(0);
  });

  it('hold for an account as a segment rule: min_seconds and min_count reached, in the look-back', () => {
    const holds = (match: SegmentMatch, engagement: EngagementFacts = ENGAGEMENT) =>
      segmentMatches(SegmentMatch.parse(match), ACME_SOFTWARE, undefined, facts(engagement));
    expect(holds({ engaged: { path: '/pricing*', min_seconds: 35, days: 14 } })).toBe(true);
    expect(holds({ engaged: { path: '/pricing*', min_seconds: 36, days: 14 } })).toBe(false);
    expect(holds({ engaged: { path: '/docs', min_seconds: 90, days: 1 } })).toBe(true);
    expect(holds({ event: { name: 'demo_requested', min_count: 2, days: 30 } })).toBe(true);
    expect(holds({ event: { name: 'demo_requested', min_count: 3, days: 30 } })).toBe(false);
    expect(holds({ event: { name: 'signup', min_count: 3, days: 7 } })).toBe(true);
    // With the catalog and in groups, as any other condition.
    expect(
      holds({
        industry: ['software'],
        groups: [{ op: 'any', event: { name: 'nope', min_count: 1, days: 30 }, engaged: { path: '/docs*', min_seconds: 60, days: 7 } }],
      }),
    ).toBe(true);
    // No engagement known, or no facts at all: neither holds.
    expect(holds({ event: { name: 'demo_requested', min_count: 1, days: 30 } }, NO_ENGAGEMENT)).toBe(false);
    expect(segmentMatches(SegmentMatch.parse({ engaged: { path: '/*', min_seconds: 1, days: 30 } }), ACME_SOFTWARE)).toBe(false);
  });

  it('are read only for rules that need them, over their longest look-back', () => {
    const rule = SegmentMatch.parse({
      engaged: { path: '/pricing*', min_seconds: 30, days: 14 },
      groups: [{ event: { name: 'signup', min_count: 1, days: 60 } }],
    });
    expect(factsNeed(rule)).toMatchObject({ days: 0, engagement: 60 });
    expect(needsAccountFacts([{ id: 1, name: 's', match: rule }])).toMatchObject({ engagement: 60 });
    expect(needsAccountFacts([{ id: 1, name: 's', match: SegmentMatch.parse({ industry: ['Software'] }) }])).toBeNull();
  });

  it('are said in words', () => {
    expect(
      ruleSummary(SegmentMatch.parse({ engaged: { path: '/pricing*', min_seconds: 30, days: 14 }, event: { name: 'demo_requested', min_count: 2, days: 1 } })),
    ).toBe('engaged ≥ 30 s on /pricing* in 14 days; event demo_requested ≥ 2 in 1 day');
  });

  it('refuse what is not a rule, with the reason', () => {
    const bad: [object, RegExp][] = [
      [{ engaged: { path: 'pricing', min_seconds: 30, days: 14 } }, /starts with \//],
      [{ engaged: { path: '/pricing?x=1', min_seconds: 30, days: 14 } }, /no \?/],
      [{ engaged: { path: '/pricing', min_seconds: 0, days: 14 } }, /seconds from 1 to 86,400/],
      [{ engaged: { path: '/pricing', min_seconds: 30, days: 401 } }, /days from 1 to 400/],
      [{ event: { name: 'Demo', min_count: 1, days: 30 } }, /event name/],
      [{ event: { name: 'demo', min_count: 0, days: 30 } }, /events from 1 to 1,000,000/],
      [{ event: { name: 'demo', min_count: 1 } }, /days/],
    ];
    for (const [rule, message] of bad) {
      const r = SegmentMatch.safeParse(rule);
      expect(r.success, JSON.stringify(rule)).toBe(false);
      expect(r.error?.issues.map((i) => i.message).join('; '), JSON.stringify(rule)).toMatch(message);
    }
  });
});
