import { describe, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import { UNIDENTIFIED_REASONS } from '../../core/vocabulary.ts';
import { ACME_SOFTWARE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { buildReport, DAY_CSV_COLUMNS, reportCsv, reportDaysCsv, spreadsheetSafe, VisitsQuery } from './report.ts';

const customer = { ...TEST_CUSTOMER, created_at: '2026-01-01T00:00:00Z' } as unknown as CustomerRecord;
const visit = {
  company_id: '900001',
  page_views: 3,
  sessions: 2,
  first_seen: '2026-11-20T09:00:00.000Z',
  last_seen: '2026-11-20T11:00:00.000Z',
  top_pages: [{ path: '/pricing', page_views: 3 }],
};

describe('visitors report', () => {
  it('names accounts from the catalog and flags them from the customer; unknown companies keep null names', () => {
    const report = buildReport({
      customer,
      query: { from: '2026-11-20', to: '2026-11-20', segment: null },
      accounts: [visit, { ...visit, company_id: '999999', page_views: 1 }],
      daily: [{ day: '2026-11-20', identified: 4, anonymous: 6 }],
      company: (id) => (id === '900001' ? ACME_SOFTWARE : null),
    });
    expect(report.totals).toEqual({ page_views: 10, identified: 4, anonymous: 6, accounts: 2 });
    expect(report.accounts[0]).toMatchObject({
      name: 'Northwind Analytics',
      domain: 'northwind.example',
      segment_ids: [101],
      hot_account: true,
      excluded: false,
    });
    expect(report.accounts[1]).toMatchObject({ company_id: '999999', name: null, domain: null, segment_ids: [] });
  });

  it('CSV cells that a spreadsheet would run as formulas are defused', () => {
    expect(spreadsheetSafe('=HYPERLINK("x")')).toBe(`'=HYPERLINK("x")`);
    expect(spreadsheetSafe('-1+2')).toBe(`'-1+2`);
    expect(spreadsheetSafe('Northwind')).toBe('Northwind');
    const csv = reportCsv(
      buildReport({
        customer,
        query: { from: '2026-11-20', to: '2026-11-20', segment: null },
        accounts: [visit],
        daily: [],
        company: () => ({ ...ACME_SOFTWARE, name: '=cmd|calc' }),
      }),
    );
    expect(csv).toContain(`'=cmd|calc`);
  });

  it('defaults the range to the last 30 days and refuses impossible dates', () => {
    const q = VisitsQuery.parse({});
    expect(q.to).toBe(new Date().toISOString().slice(0, 10));
    expect(VisitsQuery.safeParse({ from: '2026-02-29', to: '2026-03-01' }).success).toBe(false); // 2026 is no leap year
    expect(VisitsQuery.parse({ from: '2024-02-29', to: '2024-03-01', segment: '101' })).toEqual({
      from: '2024-02-29',
      to: '2024-03-01',
      segment: 101,
      rows: 'accounts',
    });
    expect(VisitsQuery.parse({ rows: 'days' }).rows).toBe('days');
    expect(VisitsQuery.safeParse({ rows: 'pages' }).error?.issues[0]?.message).toBe('rows must be accounts or days');
  });

  it('collapses the stored top pages of an account into their page (UTM and every parameter the customer does not keep)', () => {
    const report = buildReport({
      customer: { ...customer, kept_query_params: ['plan'] },
      query: { from: '2026-11-20', to: '2026-11-20', segment: null },
      accounts: [
        {
          ...visit,
          page_views: 9,
          top_pages: [
            { path: '/?utm_source=x', page_views: 3 },
            { path: '/pricing?plan=pro&utm_medium=y', page_views: 2 },
            { path: '/', page_views: 2 },
            { path: '/pricing', page_views: 1 },
            { path: '/pricing?plan=pro', page_views: 1 },
          ],
        },
      ],
      daily: [],
      company: () => ACME_SOFTWARE,
    });
    expect(report.accounts[0]!.top_pages).toEqual([
      { path: '/', page_views: 5 },
      { path: '/pricing?plan=pro', page_views: 3 },
      { path: '/pricing', page_views: 1 },
    ]);
  });

  it('splits the anonymous page views by reason, adding up to them, with the match rate; the days as CSV', () => {
    const zeros = Object.fromEntries(UNIDENTIFIED_REASONS.map((r) => [r, 0])) as Record<(typeof UNIDENTIFIED_REASONS)[number], number>;
    const report = buildReport({
      customer,
      query: { from: '2026-11-20', to: '2026-11-21', segment: null },
      accounts: [visit],
      daily: [
        { day: '2026-11-20', identified: 4, anonymous: 6 },
        { day: '2026-11-21', identified: 0, anonymous: 0 },
      ],
      unidentified: [
        { day: '2026-11-20', reasons: { ...zeros, isp: 3, hosting: 1, bot: 1, relay: 1 } },
        { day: '2026-11-21', reasons: zeros },
      ],
      company: () => ACME_SOFTWARE,
    });
    expect(report.coverage.match_rate).toBe(0.4);
    expect(report.coverage.unidentified).toEqual({ ...zeros, isp: 3, hosting: 1, bot: 1, relay: 1, unclassified: 0 });
    expect(Object.values(report.coverage.unidentified).reduce((n, v) => n + v, 0)).toBe(report.totals.anonymous);
    expect(report.coverage.daily.map((d) => d.match_rate)).toEqual([0.4, null]);
    const csv = reportDaysCsv(report).trim().split('\n');
    expect(csv[0]).toBe(DAY_CSV_COLUMNS.join(','));
    expect(csv[0]).toBe('day,page_views,identified,anonymous,match_rate,isp,hosting,bot,vpn,proxy,tor,relay,no_data,other,unclassified');
    expect(csv.slice(1)).toEqual(['2026-11-20,10,4,6,0.4,3,1,1,0,0,0,1,0,0,0', '2026-11-21,0,0,0,,0,0,0,0,0,0,0,0,0,0']);
  });
});
