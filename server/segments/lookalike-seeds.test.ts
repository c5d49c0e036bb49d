/**
 * The `lookalike` segment rule: membership over the whole catalog and one account's evaluation agree (the
 * segment index's rows and identification's answer), seeded by a list, a segment or company ids; the seed's
 * own accounts are never members; a cycle an import brought holds for nobody; the routes' checks.
 */
import { describe, expect, it } from 'vitest';
import type { Segment, SegmentMatch } from '../../core/customer-records.ts';
import { likeness, profileOf } from '../lookalikes/method.ts';
import { fakeCatalog, lookalikeCompanies } from '../testing/lookalike-catalog.ts';
import { gatherAccountFacts } from './account-facts.ts';
import { listMembers, ruleSummary, segmentMatches } from './evaluate.ts';
import { seedCycle, segmentsSeededBy, unknownSeeds } from './lookalike-rules.ts';
import { resolveSeed, SeedError, seedSources } from './lookalike-seeds.ts';
import { gatherMemberFacts } from './member-facts.ts';
import { SegmentIndex } from './membership.ts';

const NOW = new Date('2026-12-01T12:00:00Z');
const rows = lookalikeCompanies(3000);
const catalog = fakeCatalog(rows);
const seedIds = rows.filter((r) => r.industry.toLowerCase() === 'software' && r.employee_range === '200-499').map((r) => r.company_id);
const SEED_SEGMENT: Segment = { id: 7, name: 'Software 200–499', match: { industry: ['software'], employee_range: ['200-499'] } };

function customer(segments: Segment[]) {
  return {
    id: 'acme',
    products: [],
    segments,
    hot_accounts: [],
    excluded_accounts: ['1'],
    account_lists: [{ id: 'best', name: 'Best customers', company_ids: seedIds }],
  };
}

/** The members by the index and by evaluating every company alone (as identification does); they must agree. */
async function bothWays(rule: SegmentMatch, segments: Segment[] = [SEED_SEGMENT]) {
  const owner = customer([...segments, { id: 99, name: 'under test', match: rule }]);
  const index = await SegmentIndex.build(catalog);
  const facts = await gatherMemberFacts({ catalog }, index, owner, [rule], NOW);
  const byIndex = [...index.membersOf(rule, listMembers(owner), facts)].map((row) => index.companyId(row));
  const alone: string[] = [];
  for (const company of rows) {
    const accountFacts = await gatherAccountFacts({ catalog }, owner, company.company_id, NOW);
    if (segmentMatches(rule, company, listMembers(owner), accountFacts)) alone.push(company.company_id);
  }
  return { byIndex, alone: alone.sort() };
}

describe('the lookalike rule', () => {
  it('seeded by a list: the index and one account’s evaluation agree; the seed is never a member', async () => {
    const rule: SegmentMatch = { lookalike: { list: 'best', min_score: 0.6 } };
    const { byIndex, alone } = await bothWays(rule);
    expect(byIndex).toEqual(alone);
    expect(byIndex.length).toBeGreaterThan(10);
    expect(byIndex.filter((id) => seedIds.includes(id))).toEqual([]);
    // Exactly the companies the method scores at least 0.6 against the list's profile.
    const byId = new Map(rows.map((r) => [r.company_id, r]));
    const profile = profileOf(seedIds.map((id) => byId.get(id)!));
    const expected = rows
      .filter((r) => !seedIds.includes(r.company_id) && Math.round(likeness(profile, r).score * 1000) >= 600)
      .map((r) => r.company_id)
      .sort();
    expect(byIndex).toEqual(expected);
  });

  it('seeded by a segment or company ids: the same members as the list of the same accounts; combined with other conditions', async () => {
    const list = await bothWays({ lookalike: { list: 'best', min_score: 0.6 } });
    const segment = await bothWays({ lookalike: { segment: 7, min_score: 0.6 } });
    const companies = await bothWays({ lookalike: { companies: [...seedIds].reverse(), min_score: 0.6 } });
    expect(segment.byIndex).toEqual(list.byIndex);
    expect(companies.byIndex).toEqual(list.byIndex);
    expect(segment.alone).toEqual(list.alone);
    const combined = await bothWays({ region: ['EMEA'], groups: [{ op: 'any', lookalike: { list: 'best', min_score: 0.8 }, country_iso_code: ['DE'] }] });
    expect(combined.byIndex).toEqual(combined.alone);
    expect(combined.byIndex.length).toBeGreaterThan(0);
  });

  it('a seed the customer does not have, or a cycle of seed segments an import brought, holds for nobody', async () => {
    for (const rule of [{ lookalike: { list: 'nope', min_score: 0 } }, { lookalike: { segment: 404, min_score: 0 } }] as SegmentMatch[]) {
      const { byIndex, alone } = await bothWays(rule);
      expect(byIndex).toEqual([]);
      expect(alone).toEqual([]);
    }
    const cycle: Segment[] = [
      { id: 8, name: 'eight', match: { lookalike: { segment: 9, min_score: 0 } } },
      { id: 9, name: 'nine', match: { lookalike: { segment: 8, min_score: 0 } } },
    ];
    const { byIndex, alone } = await bothWays({ lookalike: { segment: 8, min_score: 0 } }, cycle);
    expect(byIndex).toEqual([]);
    expect(alone).toEqual([]);
    const owner = customer(cycle);
    // Segment 8's own seed comes back to it: no members, so no seed (the preview says so).
    expect((await resolveSeed(seedSources(catalog, owner), { segment: 8 })).rows.length).toBe(0);
    await expect(resolveSeed({ ...seedSources(catalog, owner), chain: [8] }, { segment: 8 })).rejects.toMatchObject({ problem: 'cycle' });
    await expect(resolveSeed(seedSources(catalog, owner), { list: 'nope' })).rejects.toThrow(SeedError);
    await expect(resolveSeed(seedSources(catalog, owner), { segment: 404 })).rejects.toMatchObject({ problem: 'unknown_segment' });
  });

  it('resolves company ids the catalog lacks as not found, and says the rule in words', async () => {
    const seed = await resolveSeed(seedSources(catalog, customer([])), { companies: ['1', '2', 'missing', '2'] });
    expect([seed.rows.length, seed.notFound]).toEqual([2, 1]);
    expect(ruleSummary({ lookalike: { list: 'best', min_score: 0.7 } })).toBe('accounts like list best, score ≥ 0.7');
    expect(ruleSummary({ lookalike: { segment: 7, min_score: 0.55 }, region: ['EMEA'] })).toBe('region: EMEA; accounts like segment 7, score ≥ 0.55');
    expect(ruleSummary({ lookalike: { companies: ['1', '2', '3', '4', '5', '6', '7'], min_score: 0.7 } })).toBe(
      'accounts like companies 1, 2, 3, 4, 5 and 2 more, score ≥ 0.7',
    );
  });
});

describe('the routes’ checks of a lookalike rule', () => {
  const segments: Segment[] = [
    { id: 1, name: 'one', match: { industry: ['Software'] } },
    { id: 2, name: 'two', match: { lookalike: { segment: 1, min_score: 0.7 } } },
    { id: 3, name: 'three', match: { groups: [{ lookalike: { segment: 2, min_score: 0.7 } }] } },
  ];

  it('finds a segment seeded by itself, directly or through others', () => {
    expect(seedCycle(segments, 1, { lookalike: { segment: 1, min_score: 0.7 } })).toEqual([1, 1]);
    expect(seedCycle(segments, 1, { lookalike: { segment: 3, min_score: 0.7 } })).toEqual([1, 3, 2, 1]);
    expect(seedCycle(segments, 3, { lookalike: { segment: 2, min_score: 0.7 } })).toBeNull();
    expect(seedCycle(segments, 1, { industry: ['Retail'] })).toBeNull();
  });

  it('names a list or a segment the customer does not have; tells which segments a segment seeds', () => {
    const lists = listMembers(customer([]));
    expect(unknownSeeds({ lookalike: { list: 'BEST', min_score: 0.7 } }, lists, segments)).toBeNull();
    expect(unknownSeeds({ lookalike: { list: 'worst', min_score: 0.7 } }, lists, segments)).toBe('match.lookalike.list: no list "worst"');
    expect(unknownSeeds({ groups: [{ lookalike: { segment: 5, min_score: 0.7 } }] }, lists, segments)).toBe('match.lookalike.segment: no segment 5');
    expect(segmentsSeededBy(segments, 1).map((s) => s.id)).toEqual([2]);
    expect(segmentsSeededBy(segments, 3)).toEqual([]);
  });
});
