/**
 * The `topic` condition: the account's score on a topic reached `min_score` in one of the dataset's last
 * `weeks` weeks (defaults 60 and 1), the same for one account (segmentMatches on gathered facts) and over the
 * whole catalog (the membership index), in groups and with `any`; its words; a rule naming a topic the
 * dataset lacks is refused.
 */
import { describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { SegmentMatch } from '../../core/customer-records.ts';
import { weeksBefore } from '../../core/topic-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import type { Catalog } from '../data/catalog.ts';
import type { CatalogTopics } from '../data/catalog-topics.ts';
import { gatherAccountFacts } from './account-facts.ts';
import { factsNeed, needsAccountFacts, readsFacts, ruleSummary, segmentMatches } from './evaluate.ts';
import { SegmentIndex } from './membership.ts';
import { checkRuleTopics, topicFactsOf, topicHolds, topicRule, topicWords } from './topic-rule.ts';

const LATEST = '2026-10-26';
const week = (ago: number) => weeksBefore(LATEST, ago);

/** Scores: company → topic → [weeks ago, score][]. */
const SCORES: Record<string, Record<string, [number, number][]>> = {
  '1': {
    crm: [
      [0, 72],
      [1, 50],
    ],
    erp: [[3, 90]],
  },
  '2': {
    crm: [
      [3, 65],
      [0, 40],
    ],
  },
  '3': { CRM: [[0, 60]] },
  '4': {
    erp: [
      [0, 59],
      [1, 61],
    ],
  },
  '10': { crm: [[5, 99]] },
};

function fakeTopics(): CatalogTopics {
  const ofCompany = (id: string) =>
    Object.entries(SCORES[id] ?? {}).map(([topic, ws]) => ({
      topic,
      weeks: ws.map(([ago, score]) => ({ week: week(ago), score })).sort((a, b) => (a.week < b.week ? -1 : 1)),
    }));
  return {
    latestWeek: () => LATEST,
    ofCompany,
    names: () => [],
    named: (name) => (['crm', 'erp'].includes(name.trim().toLowerCase()) ? name.trim().toLowerCase() : null),
    companiesScoring: (topic, from, min) =>
      Object.keys(SCORES).filter((id) =>
        ofCompany(id).some((t) => t.topic.toLowerCase() === topic.toLowerCase() && t.weeks.some((w) => w.week >= from && w.score >= min)),
      ),
  };
}

const COMPANIES: CompanyRow[] = ['1', '10', '2', '3', '4', '5'].map((id) => ({
  ...(Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])) as CompanyRow),
  company_id: id,
  name: `Company ${id}`,
  domain: `c${id}.example`,
  industry: id === '4' ? 'Manufacturing' : 'Software',
}));

function fakeCatalog(): Catalog {
  return {
    companyColumns: (columns: readonly (keyof CompanyRow)[], after: string, limit: number) =>
      COMPANIES.filter((r) => r.company_id > after)
        .slice(0, limit)
        .map((r) => columns.map((c) => r[c])),
    intentSignals: () => [],
    intent: () => [],
    topics: fakeTopics(),
  } as unknown as Catalog;
}

const facts = (id: string) => topicFactsOf(LATEST, fakeTopics().ofCompany(id));

describe('topicHolds on one account', () => {
  it('reads the latest week by default, at the surge score 60', () => {
    const rule = topicRule({ name: 'crm' });
    expect(rule).toEqual({ name: 'crm', min_score: 60, weeks: 1 });
    expect(topicHolds(rule, facts('1'))).toBe(true); // 72 this week
    expect(topicHolds(rule, facts('2'))).toBe(false); // 40 this week, 65 three weeks ago
    expect(topicHolds(rule, facts('3'))).toBe(true); // exactly 60, the topic spelled CRM
    expect(topicHolds(rule, facts('5'))).toBe(false); // no topics
  });

  it('looks back `weeks` weeks, the latest included, never before them', () => {
    expect(topicHolds(topicRule({ name: 'crm', weeks: 4 }), facts('2'))).toBe(true); // 65 three weeks ago: the 4th week back
    expect(topicHolds(topicRule({ name: 'crm', weeks: 3 }), facts('2'))).toBe(false);
    expect(topicHolds(topicRule({ name: 'crm', min_score: 90, weeks: 6 }), facts('10'))).toBe(true);
    expect(topicHolds(topicRule({ name: 'crm', min_score: 90, weeks: 5 }), facts('10'))).toBe(false);
  });

  it('holds for nobody on a dataset without topics', () => {
    expect(topicHolds(topicRule({ name: 'crm', min_score: 0, weeks: 52 }), topicFactsOf(null, []))).toBe(false);
  });

  it('says what it means', () => {
    expect(topicWords(topicRule({ name: 'crm' }))).toBe('topic crm: score ≥ 60 in the latest week');
    expect(ruleSummary({ industry: ['Software'], topic: { name: 'crm', min_score: 70, weeks: 4 } })).toBe(
      'industry: Software; topic crm: score ≥ 70 in the last 4 weeks',
    );
  });
});

describe('the rule grammar', () => {
  it('accepts {topic: {name, min_score?, weeks?}} at the top and in groups, and refuses what it cannot mean', () => {
    expect(SegmentMatch.parse({ topic: { name: ' crm ', min_score: 60, weeks: 4 } })).toEqual({ topic: { name: 'crm', min_score: 60, weeks: 4 } });
    expect(SegmentMatch.safeParse({ groups: [{ topic: { name: 'erp' } }] }).success).toBe(true);
    for (const bad of [{ name: '' }, { name: 'crm', min_score: 101 }, { name: 'crm', weeks: 0 }, { name: 'crm', weeks: 53 }, { name: 'crm', score: 60 }]) {
      expect(SegmentMatch.safeParse({ topic: bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('is catalog data: a customer whose rules read it gathers facts, and the membership index still caches its members', () => {
    const match: SegmentMatch = { topic: { name: 'crm' } };
    expect(readsFacts(factsNeed(match))).toBe(false);
    expect(needsAccountFacts([{ id: 1, name: 's', match }])).toMatchObject({ topics: true });
  });

  it('refuses a topic the dataset does not hold (422), at the top or in a group', () => {
    expect(() => checkRuleTopics(fakeTopics(), { topic: { name: 'CRM' }, groups: [{ topic: { name: 'erp' } }] }, 'acme')).not.toThrow();
    expect(() => checkRuleTopics(fakeTopics(), { groups: [{ topic: { name: 'cmr' } }] }, 'acme')).toThrow(
      'match.topic.name: no topic "cmr" in the dataset (GET /admin/api/customers/acme/topics/names lists them)',
    );
  });
});

describe('one account and the whole catalog agree', () => {
  const RULES: SegmentMatch[] = [
    { topic: { name: 'crm' } },
    { topic: { name: 'CRM', min_score: 60, weeks: 4 } },
    { topic: { name: 'erp', min_score: 60, weeks: 2 } },
    { topic: { name: 'crm', min_score: 0, weeks: 52 }, industry: ['Software'] },
    { op: 'any', topic: { name: 'erp', min_score: 85, weeks: 4 }, industry: ['Manufacturing'] },
    { groups: [{ op: 'any', topic: { name: 'crm' } }, { topic: { name: 'erp', weeks: 4, min_score: 90 } }] },
    { topic: { name: 'no such topic' } },
  ];

  it('members of the index = the companies segmentMatches accepts on their gathered facts', async () => {
    const catalog = fakeCatalog();
    const index = await SegmentIndex.build(catalog);
    const customer = { id: 'acme', products: [], segments: RULES.map((match, i) => ({ id: i + 1, name: `r${i}`, match })) };
    for (const match of RULES) {
      const expected: string[] = [];
      for (const c of COMPANIES) {
        const f = await gatherAccountFacts({ catalog }, customer, c.company_id, new Date('2026-11-01T00:00:00Z'));
        if (segmentMatches(match, c, undefined, f)) expected.push(c.company_id);
      }
      const members = [...index.membersOf(match)].map((row) => index.companyId(row));
      expect(members.sort(), JSON.stringify(match)).toEqual(expected.sort());
    }
  });

  it('picks the accounts the rules mean', async () => {
    const index = await SegmentIndex.build(fakeCatalog());
    const members = (match: SegmentMatch) => [...index.membersOf(match)].map((row) => index.companyId(row)).sort();
    expect(members(RULES[0]!)).toEqual(['1', '3']);
    expect(members(RULES[1]!)).toEqual(['1', '2', '3']);
    expect(members(RULES[2]!)).toEqual(['4']);
    expect(members(RULES[4]!)).toEqual(['1', '4']);
    expect(members(RULES[6]!)).toEqual([]);
  });

  it('without facts (no topics gathered) the condition holds for nobody', () => {
    expect(segmentMatches({ topic: { name: 'crm', min_score: 0, weeks: 52 } }, COMPANIES[0]!)).toBe(false);
  });
});
