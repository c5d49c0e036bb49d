import { describe, expect, it } from 'vitest';
import type { SegmentMatch } from '../../core/customer-records.ts';
import { COMPANY_COLUMNS, type CompanyRow } from '../../data/sources/schema.ts';
import type { Catalog } from '../data/catalog.ts';
import { listMembers, NO_LISTS, segmentMatches } from './evaluate.ts';
import { canonicalRule, SegmentIndex } from './membership.ts';

/** A deterministic catalog of n companies (ids in text order differ from numeric order on purpose). */
function companies(n: number): CompanyRow[] {
  const pick = <T>(list: T[], i: number, salt: number) => list[(i * 7919 + salt * 104729) % list.length]!;
  return Array.from({ length: n }, (_, i) => {
    const row = Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])) as CompanyRow;
    return {
      ...row,
      company_id: String(i + 1),
      name: `Company ${i + 1}`,
      domain: `c${i + 1}.example`,
      industry: pick(['Software', 'software', 'Manufacturing', 'Retail', ''], i, 1),
      subindustry: pick(['ERP', 'CRM', ''], i, 2),
      employee_range: pick(['1-49', '50-199', '1,000-4,999'], i, 3),
      revenue_range: pick(['$1M-$10M', '$10M-$50M'], i, 4),
      country_iso_code: pick(['US', 'DE', 'GB'], i, 5),
      region: pick(['North America', 'EMEA'], i, 6),
      state: pick(['California', 'Bavaria', ''], i, 7),
      state_code: pick(['CA', 'BY', ''], i, 8),
      sic: pick(['7372', '7371', '3571', ''], i, 9),
      naics: pick(['511210', '541511', '334111'], i, 10),
    };
  });
}

function fakeCatalog(rows: CompanyRow[]): Catalog {
  const sorted = [...rows].sort((a, b) => (a.company_id < b.company_id ? -1 : 1));
  return {
    companyColumns: (columns, after, limit) =>
      sorted
        .filter((r) => r.company_id > after)
        .slice(0, limit)
        .map((r) => columns.map((c) => r[c])),
  } as Catalog;
}

const RULES: SegmentMatch[] = [
  { industry: ['SOFTWARE'] },
  { industry: ['Software'], country_iso_code: ['us', 'GB'] },
  { state: ['ca'] },
  { state: ['California', 'BY'], employee_range: ['1-49'] },
  { sic_prefix: ['737'], naics_prefix: ['5112'] },
  { sic_prefix: [''] },
  { company_id: ['7', '70', '700', 'nope'], region: ['EMEA'] },
  { subindustry: ['crm'], revenue_range: ['$10M-$50M'], region: ['North America'] },
  {},
  { industry: [] },
];

describe('the segment membership index', () => {
  it('finds exactly the companies segmentMatches accepts, in company id (text) order', async () => {
    const rows = companies(5000);
    const index = await SegmentIndex.build(fakeCatalog(rows));
    expect(index.size).toBe(5000);
    for (const rule of RULES) {
      const expected = rows
        .filter((r) => segmentMatches(rule, r, NO_LISTS))
        .map((r) => r.company_id)
        .sort();
      const got = [...index.membersOf(rule)].map((row) => index.companyId(row));
      expect(got, JSON.stringify(rule)).toEqual(expected);
    }
  });

  it('in_list: exactly the companies segmentMatches accepts with the same lists; a list edit is seen at once', async () => {
    const rows = companies(3000);
    const index = await SegmentIndex.build(fakeCatalog(rows));
    const customer = {
      hot_accounts: [
        { company_id: '7', products: [] },
        { company_id: '2500', products: [] },
      ],
      excluded_accounts: ['70', 'not-in-catalog'],
      account_lists: [{ id: 'l1', name: 'one', company_ids: Array.from({ length: 400 }, (_, i) => String(i * 7 + 1)) }],
    };
    const rules: SegmentMatch[] = [
      { in_list: ['l1'] },
      { in_list: ['HOT', 'excluded'] },
      { in_list: ['l1', 'hot'], industry: ['software'] },
      { in_list: ['l1'], company_id: ['1', '2', '8', '15'] },
      { in_list: ['nope'] },
      { in_list: [] },
    ];
    const check = (lists: ReturnType<typeof listMembers>) => {
      for (const rule of rules) {
        const expected = rows
          .filter((r) => segmentMatches(rule, r, lists))
          .map((r) => r.company_id)
          .sort();
        expect(
          [...index.membersOf(rule, lists)].map((row) => index.companyId(row)),
          JSON.stringify(rule),
        ).toEqual(expected);
      }
    };
    check(listMembers(customer));
    expect(index.membersOf({ in_list: ['l1'] }, listMembers(customer))).toHaveLength(400);
    // A new version of the list (a new array, as a saved customer record holds): new members, same rule.
    const edited = { ...customer, account_lists: [{ ...customer.account_lists[0]!, company_ids: ['1', '2', '3'] }] };
    check(listMembers(edited));
    expect(index.membersOf({ in_list: ['l1'] }, listMembers(edited))).toHaveLength(3);
    // Without lists an in_list rule matches nothing.
    expect(index.membersOf({ in_list: ['hot'] })).toHaveLength(0);
  });

  it('pages after any company id, present or not', async () => {
    const rows = companies(300);
    const index = await SegmentIndex.build(fakeCatalog(rows));
    const members = index.membersOf({ industry: ['software'] });
    const ids = [...members].map((r) => index.companyId(r));
    for (const after of ['', '1', '150', '150a', '99', '999']) {
      const from = SegmentIndex.startAfter(index, members, after);
      expect(ids.slice(from)).toEqual(ids.filter((id) => id > after));
    }
  });

  it('caches a rule by its canonical form (order, case and repeats do not matter)', () => {
    expect(canonicalRule({ region: ['EMEA', 'emea'], industry: ['B', 'a'] })).toBe(canonicalRule({ industry: ['A', 'b'], region: ['emea'] }));
    expect(canonicalRule({ industry: ['a'] })).not.toBe(canonicalRule({ subindustry: ['a'] }));
  });
});
