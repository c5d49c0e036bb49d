import { describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { CrmAccountRecord, CrmProvider } from '../../core/crm-records.ts';
import type { SegmentMatch } from '../../core/customer-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import type { Catalog, IntentPageRow } from '../data/catalog.ts';
import type { AccountPagePerDay } from '../state/visits/store.ts';
import { accountFactsOf, crmFactsOf } from './account-facts.ts';
import { listMembers, NO_LISTS, segmentMatches } from './evaluate.ts';
import { gatherMemberFacts } from './member-facts.ts';
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

function fakeCatalog(rows: CompanyRow[], signals: IntentPageRow[] = []): Catalog {
  const sorted = [...rows].sort((a, b) => (a.company_id < b.company_id ? -1 : 1));
  const bySeq = [...signals].sort((a, b) => (a.company_id < b.company_id ? -1 : a.company_id > b.company_id ? 1 : a.seq - b.seq));
  return {
    companyColumns: (columns, after, limit) =>
      sorted
        .filter((r) => r.company_id > after)
        .slice(0, limit)
        .map((r) => columns.map((c) => r[c])),
    intentSignals: (after, limit) =>
      bySeq.filter((s) => after === null || s.company_id > after.company_id || (s.company_id === after.company_id && s.seq > after.seq)).slice(0, limit),
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
    expect(canonicalRule({ groups: [{ region: ['x'] }, { op: 'any', industry: ['y'], state: ['z'] }] })).toBe(
      canonicalRule({ op: 'all', groups: [{ op: 'any', state: ['Z'], industry: ['y'] }, { region: ['X'] }] }),
    );
    expect(canonicalRule({ op: 'any', region: ['x'], industry: ['y'] })).not.toBe(canonicalRule({ region: ['x'], industry: ['y'] }));
    expect(canonicalRule({ groups: [{ region: ['x'] }] })).not.toBe(canonicalRule({ region: ['x'] }));
    expect(canonicalRule({ crm_owner: ['Jane@acme.com', 'none', 'jane@acme.com'] })).toBe(canonicalRule({ crm_owner: ['NONE', 'jane@ACME.com'] }));
    expect(canonicalRule({ crm_owner: ['any'] })).not.toBe(canonicalRule({ crm_owner: ['none'] }));
    expect(canonicalRule({ crm_stage: { in: ['Customer', 'lead'] } })).toBe(canonicalRule({ crm_stage: { in: ['LEAD', 'customer'] } }));
    expect(canonicalRule({ crm_stage: { in: ['customer'] } })).not.toBe(canonicalRule({ crm_stage: { not_in: ['customer'] } }));
  });

  it('the CRM side: exactly the companies segmentMatches accepts with the same records, read from both CRMs in pages', async () => {
    const rows = companies(3000);
    const index = await SegmentIndex.build(fakeCatalog(rows));
    const owners = ['jane@acme.com', 'Joe@Acme.com', null];
    const stages = ['opportunity', 'Customer', 'lead', null];
    // HubSpot records for 1,500 companies (pages of the store), Salesforce for every seventh; some matched
    // nothing (no crm_ids), one the catalog does not list.
    const records: CrmAccountRecord[] = [];
    const rec = (provider: CrmProvider, company_id: string, i: number): CrmAccountRecord => ({
      customer_id: 'acme',
      provider,
      company_id,
      crm_ids: i % 11 === 0 ? [] : [`${provider}-${i}`],
      owner_email: owners[i % 3]!,
      owner_name: null,
      stage: provider === 'hubspot' ? stages[i % 4]! : null,
      type: provider === 'salesforce' ? ['Customer', 'Prospect', null][i % 3]! : null,
      written_hash: null,
      read_at: null,
      written_at: null,
    });
    for (let i = 0; i < 1500; i++) records.push(rec('hubspot', String(i * 2 + 1), i));
    for (let i = 0; i < 3000; i += 7) records.push(rec('salesforce', String(i + 1), i + 5));
    records.push(rec('hubspot', 'not-in-catalog', 1));
    records.push({ ...rec('hubspot', '2', 1), customer_id: 'other' });
    let pagesRead = 0;
    const crm = {
      async listAccounts(customerId: string, provider: CrmProvider, limit: number, after?: string) {
        pagesRead++;
        return records
          .filter((r) => r.customer_id === customerId && r.provider === provider && (after === undefined || r.company_id > after))
          .sort((a, b) => (a.company_id < b.company_id ? -1 : 1))
          .slice(0, limit);
      },
    };
    const customer = { id: 'acme', products: [] };
    const rules: SegmentMatch[] = [
      { crm_owner: ['JANE@acme.com'] },
      { crm_owner: ['joe@acme.com', 'nobody@acme.com'] },
      { crm_owner: ['any'] },
      { crm_owner: ['none'] },
      { crm_owner: ['none', 'jane@acme.com'] },
      { crm_stage: { in: ['customer'] } },
      { crm_stage: { not_in: ['customer'] } },
      { crm_stage: { in: ['opportunity', 'prospect'], not_in: ['customer'] } },
      { crm_stage: { not_in: ['customer'] }, crm_owner: ['any'], industry: ['software'] },
      { op: 'any', crm_stage: { not_in: ['lead', 'opportunity', 'customer', 'prospect'] }, region: ['EMEA'] },
      { op: 'any', industry: ['retail'], groups: [{ crm_owner: ['none'] }, { crm_stage: { in: ['lead'] }, country_iso_code: ['DE'] }] },
    ];
    for (const rule of rules) {
      const facts = await gatherMemberFacts({ catalog: fakeCatalog(rows), crm }, index, customer, [rule], new Date());
      const got = [...index.membersOf(rule, NO_LISTS, facts)].map((row) => index.companyId(row));
      const expected = rows
        .filter((r) => {
          const account = {
            ...accountFactsOf({ now: new Date(), pages: [], signals: [], products: [] }),
            crm: crmFactsOf(records.filter((x) => x.customer_id === 'acme' && x.company_id === r.company_id)),
          };
          return segmentMatches(rule, r, NO_LISTS, account);
        })
        .map((r) => r.company_id)
        .sort();
      expect(got, JSON.stringify(rule)).toEqual(expected);
      expect(got.length, JSON.stringify(rule)).toBeGreaterThan(0);
    }
    // Read in pages of both CRMs, and kept a few seconds: the next rule's facts did not read again.
    expect(pagesRead).toBe(3);
    // Without facts no account has a CRM owner or stage: `none` and `not_in` hold for every one.
    expect(index.membersOf({ crm_owner: ['none'] })).toHaveLength(3000);
    expect(index.membersOf({ crm_stage: { not_in: ['customer'] } })).toHaveLength(3000);
    expect(index.membersOf({ crm_owner: ['any'] })).toHaveLength(0);
  });

  it('groups, any/all, intent and behaviour: exactly the companies segmentMatches accepts with the same facts', async () => {
    const TODAY = '2026-11-20';
    const now = new Date(`${TODAY}T15:30:00.000Z`);
    const day = (ago: number) => new Date(Date.parse(`${TODAY}T00:00:00Z`) - ago * 86_400_000).toISOString().slice(0, 10);
    const rows = companies(3000);
    // Signals for every third company (and one the catalog does not list), 0–100 days old, one date unreadable.
    const signals: IntentPageRow[] = [];
    let seq = 0;
    for (let i = 0; i < 3000; i += 3) {
      for (let k = 0; k < 1 + (i % 4); k++) {
        signals.push({
          seq: seq++,
          company_id: String(i + 1),
          topic: ['CRM', 'erp', 'Human Resources', 'crm'][(i + k) % 4]!,
          strength: (i * 37 + k * 11) % 101,
          observed_at: i === 300 ? 'not a date' : day((i * 13 + k * 29) % 101),
        });
      }
    }
    signals.push({ seq: seq++, company_id: '99999999', topic: 'crm', strength: 100, observed_at: day(1) });
    // Page views of ~200 accounts (and one the catalog does not list) over the last 60 days.
    const pages: AccountPagePerDay[] = [];
    for (let j = 0; j < 200; j++) {
      for (let k = 0; k < 1 + (j % 5); k++) {
        pages.push({
          company_id: String(j * 15 + 1),
          day: day((j * 7 + k * 17) % 60),
          path: ['/pricing', '/Pricing/Team?utm_source=x', '/blog/a', '/', '/demo'][(j + k) % 5]!,
          page_views: 1 + ((j + k) % 4),
        });
      }
    }
    pages.push({ company_id: 'not-in-catalog', day: TODAY, path: '/pricing', page_views: 50 });
    const catalog = fakeCatalog(rows, signals);
    const index = await SegmentIndex.build(catalog);
    const product = (name: string, topics: string[]) => ({
      name,
      display_name: name,
      icp: { industries: [], employee_ranges: [], revenue_ranges: [], regions: [] },
      intent_topics: topics,
      persona: { levels: [], functions: [] },
    });
    const customer = {
      id: 'acme',
      products: [product('crm', ['crm']), product('All', [])],
      hot_accounts: [
        { company_id: '16', products: [] },
        { company_id: '1', products: [] },
      ],
      excluded_accounts: [],
    };
    const visits = {
      accountsPages: async (_c: string, from: string, to: string) => pages.filter((p) => p.day >= from && p.day <= to),
    };
    const rules: SegmentMatch[] = [
      { intent: { product: 'crm', stages: ['Awareness', 'Consideration'] } },
      { intent: { product: 'CRM', min_score: 1 } },
      { intent: { product: 'all', stages: ['Target'] }, industry: ['software'] },
      { intent: { product: 'all', stages: ['Decision', 'Purchase'], min_score: 70 } },
      { op: 'any', intent: { product: 'crm', min_score: 30 }, visited: { path: '/pricing*', days: 14 } },
      { visited: { path: '/blog/*', days: 30 } },
      { visited: { path: '/pricing/team', days: 60 } },
      { page_views: { min: 5, days: 60 }, region: ['EMEA'] },
      { op: 'any', page_views: { min: 3, days: 7 }, country_iso_code: ['GB'] },
      {
        industry: ['software'],
        groups: [
          { op: 'any', visited: { path: '/demo', days: 30 }, intent: { product: 'crm', stages: ['Consideration', 'Decision', 'Purchase'] } },
          { op: 'any', employee_range: ['1-49'], in_list: ['hot'] },
        ],
      },
      { op: 'any', groups: [{ country_iso_code: ['DE'], state: ['by'] }, { company_id: ['7', '70', '16'] }] },
      { op: 'any', company_id: ['7'], industry: ['retail'] },
      { op: 'any', in_list: ['hot'], groups: [{ visited: { path: '/*', days: 3 } }] },
      { intent: { product: 'nope', min_score: 0 } },
      { op: 'any' },
    ];
    const lists = listMembers(customer);
    for (const rule of rules) {
      const facts = await gatherMemberFacts({ catalog, visits }, index, customer, [rule], now);
      const got = [...index.membersOf(rule, lists, facts)].map((row) => index.companyId(row));
      const expected = rows
        .filter((r) => {
          const account = accountFactsOf({
            now,
            pages: pages.filter((p) => p.company_id === r.company_id),
            signals: signals.filter((s) => s.company_id === r.company_id),
            products: customer.products,
          });
          return segmentMatches(rule, r, lists, account);
        })
        .map((r) => r.company_id)
        .sort();
      expect(got, JSON.stringify(rule)).toEqual(expected);
    }
    // The facts of every rule at once (what GET /v3/segments reads) give each rule the same members.
    const all = await gatherMemberFacts({ catalog, visits }, index, customer, rules, now);
    for (const rule of rules) {
      const alone = await gatherMemberFacts({ catalog, visits }, index, customer, [rule], now);
      expect(index.membersOf(rule, lists, all), JSON.stringify(rule)).toEqual(index.membersOf(rule, lists, alone));
    }
    // Without facts, intent and behaviour conditions hold for nobody; a catalog rule reads none.
    expect(index.membersOf({ visited: { path: '/*', days: 400 } })).toHaveLength(0);
    expect(await gatherMemberFacts({ catalog, visits }, index, customer, [{ industry: ['software'] }], now)).toBeUndefined();
  });
});
