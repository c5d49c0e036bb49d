import { describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { SegmentMatch } from '../../core/customer-records.ts';
import { buyingStage, intentScore } from '../scoring/model.ts';
import { accountFactsOf } from './account-facts.ts';
import { type AccountFacts, matchingSegments, NO_LISTS, needsAccountFacts, pathPattern, ruleSummary, segmentMatches, segmentsPayload } from './evaluate.ts';

const company = {
  company_id: '1',
  industry: 'Software',
  employee_range: '1,000-4,999',
  country_iso_code: 'US',
  region: 'North America',
  revenue_range: '$100M-$250M',
} as CompanyRow;

describe('segment rules', () => {
  it('AND across fields, OR within a field, case-insensitive', () => {
    expect(segmentMatches({ industry: ['software', 'Media'], country_iso_code: ['US'] }, company, NO_LISTS)).toBe(true);
    expect(segmentMatches({ industry: ['Software'], country_iso_code: ['DE'] }, company, NO_LISTS)).toBe(false);
  });
  it('an empty rule matches nothing', () => expect(segmentMatches({}, company, NO_LISTS)).toBe(false));
  it('a missing company matches no segment', () => {
    expect(matchingSegments([{ id: 1, name: 'x', match: { industry: ['Software'] } }], null)).toEqual([]);
  });
  it('hides names unless allowed, keeping ids', () => {
    const segs = [{ id: 7, name: 'Enterprise', match: {} }];
    expect(segmentsPayload(segs, false)).toEqual({ ids: [7], names: [], list: [{ name: null, id: 7 }] });
    expect(segmentsPayload(segs, true)).toEqual({ ids: [7], names: ['Enterprise'], list: [{ name: 'Enterprise', id: 7 }] });
  });
});

describe('segment rules: groups, any/all, intent and behaviour', () => {
  const TODAY = '2026-11-20';
  const NOW = new Date(`${TODAY}T12:00:00.000Z`);
  const CRM = {
    name: 'crm',
    display_name: 'CRM',
    icp: { industries: [], employee_ranges: [], revenue_ranges: [], regions: [] },
    intent_topics: ['crm'],
    persona: { levels: [], functions: [] },
  };
  const facts = (pages: { day: string; path: string; page_views: number }[], signals: { topic: string; strength: number; observed_at: string }[] = []) =>
    accountFactsOf({ now: NOW, pages, signals, products: [CRM] });
  const visitedPricing = facts([
    { day: '2026-11-10', path: '/Pricing/Enterprise?utm_source=x', page_views: 2 },
    { day: '2026-11-19', path: '/blog/post-1', page_views: 3 },
  ]);

  it('visited: * is any run of characters, compared to the path without its query string, ignoring case, within the last N UTC days', () => {
    const holds = (path: string, days: number) => segmentMatches({ visited: { path, days } }, company, NO_LISTS, visitedPricing);
    expect(holds('/pricing*', 14)).toBe(true);
    expect(holds('/pricing/*', 11)).toBe(true); // 2026-11-10 is the 11th day counting today
    expect(holds('/pricing/*', 10)).toBe(false);
    expect(holds('/pricing', 30)).toBe(false); // the whole path, not a prefix
    expect(holds('/blog/*', 2)).toBe(true);
    expect(holds('/blog/*', 1)).toBe(false); // today only
    expect(holds('/pricing/enterprise', 30)).toBe(true);
    expect(holds('/pricing/enterprise?utm_source=x', 30)).toBe(false);
    expect(holds('/p.icing*', 30)).toBe(false); // . is itself, not any character
    expect(holds('/*', 400)).toBe(true);
  });

  it('visited: a rule of several * reads a crafted path of 1,000 "/" in steps bounded by its length (no backtracking)', () => {
    const crafted = `/a${'/'.repeat(1000)}x`;
    const pages = facts([
      { day: '2026-11-19', path: crafted, page_views: 1 },
      { day: '2026-11-19', path: `${crafted}/Q3.PDF?utm_source=mail`, page_views: 1 },
    ]);
    const holds = (path: string, on = pages) => segmentMatches({ visited: { path, days: 30 } }, company, NO_LISTS, on);
    expect(holds('/*/*/*/*.pdf', facts([{ day: '2026-11-19', path: crafted, page_views: 1 }]))).toBe(false);
    expect(holds('/*/*/*/*.pdf')).toBe(true);
    expect(holds('/*/*/*.doc')).toBe(false);
    for (const pattern of ['/*/*/*.pdf', '/*/*/*/*.pdf', '/*/*/*/*/*/*/*/*.pdf']) {
      const steps = { count: 0 };
      expect(pathPattern(pattern)(crafted, steps)).toBe(false);
      expect(steps.count).toBeLessThanOrEqual(2 * crafted.length + pattern.length);
    }
  });

  it('page_views: the sum of the window reaches min', () => {
    expect(segmentMatches({ page_views: { min: 5, days: 14 } }, company, NO_LISTS, visitedPricing)).toBe(true);
    expect(segmentMatches({ page_views: { min: 6, days: 14 } }, company, NO_LISTS, visitedPricing)).toBe(false);
    expect(segmentMatches({ page_views: { min: 3, days: 2 } }, company, NO_LISTS, visitedPricing)).toBe(true);
    expect(segmentMatches({ page_views: { min: 1, days: 1 } }, company, NO_LISTS, visitedPricing)).toBe(false);
  });

  it('intent: the stage and/or the minimum score of the score identification answers; an unknown product holds for nobody', () => {
    const signals = [{ topic: 'CRM', strength: 90, observed_at: '2026-11-19' }];
    const f = facts([{ day: '2026-11-19', path: '/pricing', page_views: 4 }], signals);
    const score = intentScore(signals, CRM, NOW, [{ day: '2026-11-19', path: '/pricing', page_views: 4 }]);
    expect(f.intent('CRM')).toBe(score);
    const stage = buyingStage(score);
    expect(segmentMatches({ intent: { product: 'crm', stages: [stage] } }, company, NO_LISTS, f)).toBe(true);
    expect(segmentMatches({ intent: { product: 'crm', stages: ['Target'] } }, company, NO_LISTS, f)).toBe(false);
    expect(segmentMatches({ intent: { product: 'crm', min_score: score } }, company, NO_LISTS, f)).toBe(true);
    expect(segmentMatches({ intent: { product: 'crm', min_score: score + 1 } }, company, NO_LISTS, f)).toBe(false);
    // Both given: both must hold.
    expect(segmentMatches({ intent: { product: 'crm', stages: [stage], min_score: score + 1 } }, company, NO_LISTS, f)).toBe(false);
    expect(segmentMatches({ intent: { product: 'hr', min_score: 0 } }, company, NO_LISTS, f)).toBe(false);
    // No signals, no views: score 0, stage Target.
    expect(segmentMatches({ intent: { product: 'crm', stages: ['Target'] } }, company, NO_LISTS, facts([]))).toBe(true);
  });

  it('without the account facts, intent and behaviour conditions do not hold (catalog conditions still do)', () => {
    expect(segmentMatches({ visited: { path: '/*', days: 400 } }, company, NO_LISTS)).toBe(false);
    expect(segmentMatches({ intent: { product: 'crm', stages: ['Target'] } }, company, NO_LISTS)).toBe(false);
    expect(segmentMatches({ op: 'any', industry: ['software'], page_views: { min: 1, days: 1 } }, company, NO_LISTS)).toBe(true);
  });

  it('op all needs every condition, op any one; each group is one condition with its own op', () => {
    const rule = {
      op: 'all' as const,
      industry: ['Software', 'SaaS'],
      country_iso_code: ['US'],
      groups: [
        { op: 'any' as const, visited: { path: '/pricing*', days: 14 }, intent: { product: 'crm', stages: ['Decision' as const, 'Purchase' as const] } },
      ],
    };
    expect(segmentMatches(rule, company, NO_LISTS, visitedPricing)).toBe(true);
    expect(segmentMatches(rule, company, NO_LISTS, facts([]))).toBe(false); // the group holds no condition
    expect(segmentMatches({ ...rule, country_iso_code: ['DE'] }, company, NO_LISTS, visitedPricing)).toBe(false);
    expect(segmentMatches({ ...rule, op: 'any', country_iso_code: ['DE'] }, company, NO_LISTS, facts([]))).toBe(true);
    expect(
      segmentMatches({ op: 'any', industry: ['Retail'], groups: [{ region: ['north america'], employee_range: ['1,000-4,999'] }] }, company, NO_LISTS),
    ).toBe(true);
    expect(segmentMatches({ op: 'any', industry: ['Retail'], groups: [{ region: ['north america'], employee_range: ['1-49'] }] }, company, NO_LISTS)).toBe(
      false,
    );
    expect(segmentMatches({ op: 'any' }, company, NO_LISTS, visitedPricing)).toBe(false); // empty, whatever the op
    expect(segmentMatches({ groups: [] }, company, NO_LISTS, visitedPricing)).toBe(false);
  });

  it('a flat rule saved before groups keeps its meaning (AND across fields, OR within one; an empty field holds for nobody)', () => {
    expect(segmentMatches({ industry: ['Media', 'SOFTWARE'], region: ['North America'] }, company)).toBe(true);
    expect(segmentMatches({ industry: ['Software'], region: [] }, company)).toBe(false);
    expect(segmentMatches({ in_list: [] }, company)).toBe(false);
  });

  it('the customer needs account facts only when one of its rules reads intent or behaviour', () => {
    expect(needsAccountFacts([{ id: 1, name: 'a', match: { industry: ['x'] } }])).toBeNull();
    expect(
      needsAccountFacts([
        { id: 1, name: 'a', match: { groups: [{ visited: { path: '/x', days: 14 } }] } },
        { id: 2, name: 'b', match: { page_views: { min: 2, days: 90 } } },
      ]),
    ).toEqual({ days: 90, intent: false, crm: false });
    expect(needsAccountFacts([{ id: 1, name: 'a', match: { op: 'any', intent: { product: 'crm', min_score: 10 } } }])).toEqual({
      days: 0,
      intent: true,
      crm: false,
    });
    expect(
      needsAccountFacts([
        { id: 1, name: 'a', match: { industry: ['x'] } },
        { id: 2, name: 'b', match: { groups: [{ crm_stage: { not_in: ['customer'] } }] } },
      ]),
    ).toEqual({ days: 0, intent: false, crm: true });
    expect(needsAccountFacts([{ id: 1, name: 'a', match: { crm_owner: ['any'] } }])).toEqual({ days: 0, intent: false, crm: true });
  });

  it('in words', () => {
    expect(
      ruleSummary({
        op: 'all',
        industry: ['Software', 'SaaS'],
        country_iso_code: ['US'],
        groups: [{ op: 'any', visited: { path: '/pricing*', days: 14 }, intent: { product: 'crm', stages: ['Decision', 'Purchase'] } }],
      }),
    ).toBe('industry: Software, SaaS; country_iso_code: US; and any of (visited /pricing* in 14 days; intent crm: Decision, Purchase)');
    expect(ruleSummary({ op: 'any', region: ['EMEA'], page_views: { min: 5, days: 30 }, intent: { product: 'crm', min_score: 60 } })).toBe(
      'any of (region: EMEA; page_views ≥ 5 in 30 days; intent crm: score ≥ 60)',
    );
    expect(ruleSummary({ crm_owner: ['Jane@Acme.com', 'none'], crm_stage: { in: ['opportunity'], not_in: ['customer', 'evangelist'] } })).toBe(
      'crm_owner: Jane@Acme.com, none; crm_stage in (opportunity) and not in (customer, evangelist)',
    );
    expect(ruleSummary({ op: 'any', region: ['EMEA'], groups: [{ crm_stage: { not_in: ['customer'] } }] })).toBe(
      'any of (region: EMEA; all of (crm_stage not in (customer)))',
    );
    expect(ruleSummary({})).toBe('matches nothing (empty rule)');
    expect(ruleSummary({ industry: ['Software'] })).toBe('industry: Software');
  });
});

describe('segment rules on the CRM side (crm_owner, crm_stage)', () => {
  const crm = (owners: string[], stages: string[]): AccountFacts => ({
    ...accountFactsOf({ now: new Date(), pages: [], signals: [], products: [] }),
    crm: { owners, stages },
  });
  const JANE = crm(['jane@acme.com'], ['opportunity', 'prospect']);
  const NOBODY = crm([], ['customer']);
  const UNMATCHED = crm([], []);
  const holds = (match: SegmentMatch, facts?: AccountFacts) => segmentMatches(match, company, NO_LISTS, facts);

  it('crm_owner: one of the emails ignoring case, any (has an owner) or none (has none)', () => {
    expect(holds({ crm_owner: ['JANE@acme.com'] }, JANE)).toBe(true);
    expect(holds({ crm_owner: ['joe@acme.com'] }, JANE)).toBe(false);
    expect(holds({ crm_owner: ['any'] }, JANE)).toBe(true);
    expect(holds({ crm_owner: ['any'] }, NOBODY)).toBe(false);
    expect(holds({ crm_owner: ['none'] }, NOBODY)).toBe(true);
    expect(holds({ crm_owner: ['none'] }, JANE)).toBe(false);
    expect(holds({ crm_owner: ['none', 'jane@acme.com'] }, JANE)).toBe(true);
    expect(holds({ crm_owner: ['joe@acme.com'] }, crm(['joe@acme.com', 'jane@acme.com'], []))).toBe(true); // a record in each CRM
  });

  it('crm_stage: a stage or type is one of `in`, none is one of `not_in`, ignoring case; both given, both hold', () => {
    expect(holds({ crm_stage: { in: ['Opportunity'] } }, JANE)).toBe(true);
    expect(holds({ crm_stage: { in: ['PROSPECT'] } }, JANE)).toBe(true); // the type counts as well
    expect(holds({ crm_stage: { in: ['customer'] } }, JANE)).toBe(false);
    expect(holds({ crm_stage: { in: ['oppor'] } }, JANE)).toBe(false); // whole values, not prefixes
    expect(holds({ crm_stage: { not_in: ['customer'] } }, JANE)).toBe(true);
    expect(holds({ crm_stage: { not_in: ['Customer'] } }, NOBODY)).toBe(false);
    expect(holds({ crm_stage: { in: ['opportunity'], not_in: ['prospect'] } }, JANE)).toBe(false);
    expect(holds({ crm_stage: { in: ['opportunity'], not_in: ['customer'] } }, JANE)).toBe(true);
  });

  it('an account no CRM record matched (or without CRM facts at all) has no owner and no stage: none and not_in hold', () => {
    for (const facts of [UNMATCHED, undefined, accountFactsOf({ now: new Date(), pages: [], signals: [], products: [] })]) {
      expect(holds({ crm_owner: ['none'] }, facts)).toBe(true);
      expect(holds({ crm_owner: ['any'] }, facts)).toBe(false);
      expect(holds({ crm_owner: ['jane@acme.com'] }, facts)).toBe(false);
      expect(holds({ crm_stage: { not_in: ['customer'] } }, facts)).toBe(true);
      expect(holds({ crm_stage: { in: ['customer'] } }, facts)).toBe(false);
    }
  });

  it('combine with the other conditions and groups like any condition', () => {
    expect(holds({ industry: ['software'], crm_owner: ['jane@acme.com'] }, JANE)).toBe(true);
    expect(holds({ industry: ['retail'], crm_owner: ['jane@acme.com'] }, JANE)).toBe(false);
    expect(holds({ op: 'any', industry: ['retail'], groups: [{ crm_owner: ['any'], crm_stage: { in: ['opportunity'] } }] }, JANE)).toBe(true);
    expect(holds({ op: 'any', industry: ['retail'], groups: [{ crm_owner: ['any'], crm_stage: { in: ['opportunity'] } }] }, NOBODY)).toBe(false);
  });
});

describe('the rule schema', () => {
  const issue = (match: unknown) => {
    const r = SegmentMatch.safeParse(match);
    return r.success ? 'ok' : `${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`;
  };
  it('accepts the agreed shape and every flat rule of before', () => {
    expect(issue({ industry: ['x'], in_list: ['hot'] })).toBe('ok');
    expect(
      issue({
        op: 'all',
        industry: ['Software', 'SaaS'],
        country_iso_code: ['US'],
        groups: [{ op: 'any', visited: { path: '/pricing*', days: 14 }, intent: { product: 'crm', stages: ['Decision', 'Purchase'] } }],
      }),
    ).toBe('ok');
  });
  it('refuses bad rules with a message that says why', () => {
    expect(issue({ groups: [{ industry: ['x'], groups: [{ region: ['y'] }] }] })).toBe('groups.0.groups: a group cannot hold groups (one level of nesting)');
    expect(issue({ groups: [{ op: 'any' }] })).toBe('groups.0: a group needs at least one condition');
    expect(issue({ groups: Array.from({ length: 21 }, () => ({ industry: ['x'] })) })).toBe('groups: at most 20 groups');
    expect(issue({ visited: { path: 'pricing*', days: 14 } })).toBe('visited.path: a path pattern starts with / (`/pricing*`, `/blog/*`)');
    expect(issue({ visited: { path: '/pricing?plan=x', days: 14 } })).toBe('visited.path: compared without the query string, so it holds no ?');
    expect(issue({ visited: { path: '/x', days: 401 } })).toBe('visited.days: a whole number of days from 1 to 400');
    expect(issue({ page_views: { min: 0, days: 1 } })).toBe('page_views.min: a whole number of page views from 1 to 1,000,000');
    expect(issue({ page_views: { min: 2.5, days: 1 } })).toBe('page_views.min: a whole number of page views from 1 to 1,000,000');
    expect(issue({ intent: { product: 'crm' } })).toBe('intent: give stages, min_score or both');
    expect(issue({ intent: { product: 'crm', stages: ['Hot'] } })).toBe(
      'intent.stages.0: a buying stage is one of Target, Awareness, Consideration, Decision, Purchase',
    );
    expect(issue({ intent: { product: 'crm', min_score: 101 } })).toBe('intent.min_score: a whole number from 0 to 100');
    expect(issue({ op: 'some' })).toBe('op: all or any');
  });
  it('takes CRM owners (emails, any, none) and stages (in, not_in), and refuses what they cannot mean', () => {
    expect(issue({ crm_owner: ['jane@acme.com', 'ANY', 'none'], crm_stage: { in: ['opportunity'], not_in: ['customer'] } })).toBe('ok');
    expect(issue({ groups: [{ crm_stage: { not_in: ['customer'] } }] })).toBe('ok');
    expect(SegmentMatch.parse({ crm_owner: [' jane@acme.com '] }).crm_owner).toEqual(['jane@acme.com']);
    expect(issue({ crm_owner: ['jane'] })).toBe('crm_owner.0: an owner’s email address, any (the account has a CRM owner) or none (it has none)');
    expect(issue({ crm_owner: [] })).toBe('crm_owner: at least one owner email, any or none');
    expect(issue({ crm_owner: 'jane@acme.com' })).toMatch(/^crm_owner: /);
    expect(issue({ crm_stage: {} })).toBe('crm_stage: give in, not_in or both');
    expect(issue({ crm_stage: ['customer'] })).toMatch(/^crm_stage: /);
    expect(issue({ crm_stage: { in: [] } })).toBe('crm_stage.in: at least one CRM stage or type (or leave it out)');
    expect(issue({ crm_stage: { not_in: [' '] } })).toBe('crm_stage.not_in.0: a CRM stage or type is not empty');
    expect(issue({ crm_stage: { is: ['customer'] } })).toMatch(/^crm_stage: Unrecognized key/);
  });
});
