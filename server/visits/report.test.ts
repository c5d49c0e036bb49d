import { describe, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import { ACME_SOFTWARE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { buildReport, reportCsv, spreadsheetSafe, VisitsQuery } from './report.ts';

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
    expect(VisitsQuery.parse({ from: '2024-02-29', to: '2024-03-01', segment: '101' })).toEqual({ from: '2024-02-29', to: '2024-03-01', segment: 101 });
  });
});
