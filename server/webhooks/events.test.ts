import { describe, expect, it } from 'vitest';
import { HOT_PATHS_PER_ACCOUNT_DAY, type PageViewForWebhooks, pathMatches, plannedEvents } from './events.ts';

const view: PageViewForWebhooks = {
  customer_id: 'acme',
  tag_id: 'acme-tag',
  at: '2026-11-23T10:00:00.000Z',
  day: '2026-11-23',
  company_id: '900001',
  company: { name: 'Northwind Analytics', domain: 'northwind.example' },
  path: '/blog/post?utm_source=x',
  referrer_host: 'news.example',
  session_id: 'sess-1',
  origin: 'https://www.acme.test',
  first_of_day_for_account: false,
  segment_ids: [101],
  hot_account: false,
  excluded: false,
};
const endpoint = { id: 'wh_1', events: ['account.visited', 'account.hot'] as const, hot_paths: ['/pricing*'] };
let n = 0;
const ids = () => `evt_${++n}`;

describe('path patterns', () => {
  it('match with * as any run of characters, ignoring the query string', () => {
    expect(pathMatches('/pricing*', '/pricing')).toBe(true);
    expect(pathMatches('/pricing*', '/pricing/enterprise?utm_source=x')).toBe(true);
    expect(pathMatches('/pricing*', '/about/pricing')).toBe(false);
    expect(pathMatches('/docs/*/api', '/docs/v2/api')).toBe(true);
    expect(pathMatches('/a.b', '/axb')).toBe(false); // regex characters are literal
    expect(pathMatches('/pricing*', '/Pricing')).toBe(false); // hot paths keep case (segment rules ignore it)
  });

  it('refuse a crafted path quickly when every * could split it many ways (no backtracking)', { timeout: 5000 }, () => {
    const path = '/a'.repeat(5000);
    expect(pathMatches('/*/*/*/*/*/*.pdf', path)).toBe(false);
    expect(pathMatches('/*/*/*/*/*/*.pdf', `${path}.pdf`)).toBe(true);
  });
});

describe('events a page view raises', () => {
  it('account.visited only on the account first page view of the UTC day, with its segments', () => {
    expect(plannedEvents(view, { ...endpoint, events: ['account.visited'] }, ids)).toEqual([]);
    const [planned] = plannedEvents({ ...view, first_of_day_for_account: true }, { ...endpoint, events: ['account.visited'] }, ids);
    expect(planned!.dedupe_key).toBe('account.visited|900001|2026-11-23');
    expect(planned!.event).toMatchObject({
      type: 'account.visited',
      customer_id: 'acme',
      data: {
        day: '2026-11-23',
        account: { company_id: '900001', name: 'Northwind Analytics', segment_ids: [101] },
        page: { path: '/blog/post?utm_source=x' },
      },
    });
  });

  it('account.hot for a hot account anywhere, or any account on a matching path; once per account, day and path', () => {
    expect(plannedEvents(view, { ...endpoint, events: ['account.hot'] }, ids)).toEqual([]);
    expect(plannedEvents({ ...view, hot_account: true }, { ...endpoint, events: ['account.hot'] }, ids).map((p) => p.dedupe_key)).toEqual([
      'account.hot|900001|2026-11-23|/blog/post',
    ]);
    expect(plannedEvents({ ...view, path: '/pricing?plan=pro' }, { ...endpoint, events: ['account.hot'] }, ids).map((p) => p.dedupe_key)).toEqual([
      'account.hot|900001|2026-11-23|/pricing',
    ]);
  });

  it(`account.hot is capped at ${HOT_PATHS_PER_ACCOUNT_DAY} paths per account and day: its dedupe key sits under the account and day's cap key`, () => {
    const [planned] = plannedEvents({ ...view, hot_account: true }, { ...endpoint, events: ['account.hot'] }, ids);
    expect(planned!.cap).toEqual({ key: 'account.hot|900001|2026-11-23', max: HOT_PATHS_PER_ACCOUNT_DAY });
    expect(planned!.dedupe_key.startsWith(`${planned!.cap!.key}|`)).toBe(true);
    expect(plannedEvents({ ...view, first_of_day_for_account: true }, { ...endpoint, events: ['account.visited'] }, ids)[0]!.cap).toBeUndefined();
  });

  it('nothing for anonymous page views or events the endpoint did not subscribe to', () => {
    expect(plannedEvents({ ...view, company_id: null, first_of_day_for_account: true, hot_account: true }, endpoint, ids)).toEqual([]);
    expect(
      plannedEvents({ ...view, first_of_day_for_account: true, path: '/pricing' }, { ...endpoint, events: ['account.hot'] }, ids).map((p) => p.event.type),
    ).toEqual(['account.hot']);
  });

  it('gives every event its own id', () => {
    const planned = plannedEvents({ ...view, first_of_day_for_account: true, hot_account: true }, endpoint, ids);
    expect(new Set(planned.map((p) => p.event.id)).size).toBe(2);
  });
});
