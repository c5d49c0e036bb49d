import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { type AccountPage, accountCsv, collapsePath, topPages } from './account.ts';

describe('collapsePath', () => {
  it('drops UTM and every other query parameter and the fragment, unless the customer keeps it', () => {
    expect(collapsePath('/?utm_source=x')).toBe('/');
    expect(collapsePath('/pricing?utm_source=x&utm_medium=y#plans')).toBe('/pricing');
    expect(collapsePath('/docs#install')).toBe('/docs');
    expect(collapsePath('/pricing?plan=pro&utm_source=x', ['plan'])).toBe('/pricing?plan=pro');
    expect(collapsePath('/pricing?utm_source=x', ['plan'])).toBe('/pricing');
    expect(collapsePath('/p?b=2&a=1&c=3', ['a', 'b'])).toBe('/p?b=2&a=1');
    expect(collapsePath('/q?term=a%20b', ['term'])).toBe('/q?term=a+b');
    expect(collapsePath('(other)', ['plan'])).toBe('(other)');
  });
});

describe('topPages', () => {
  it('sums the collapsed paths over days, most viewed first, ties by path', () => {
    const pages = [
      { day: '2026-11-20', path: '/', page_views: 1 },
      { day: '2026-11-20', path: '/?utm_source=x', page_views: 2 },
      { day: '2026-11-21', path: '/pricing?plan=pro', page_views: 3 },
      { day: '2026-11-21', path: '/pricing?plan=team&utm_medium=y', page_views: 1 },
      { day: '2026-11-21', path: '/about', page_views: 3 },
    ];
    expect(topPages(pages, [])).toEqual([
      { path: '/pricing', page_views: 4 },
      { path: '/', page_views: 3 },
      { path: '/about', page_views: 3 },
    ]);
    expect(topPages(pages, ['plan'], 2)).toEqual([
      { path: '/', page_views: 3 },
      { path: '/about', page_views: 3 },
    ]);
  });
});

describe('accountCsv', () => {
  it('lists the days, then each session’s pages in order; a formula-like cell is quoted', () => {
    const page = {
      daily: [
        { day: '2026-11-20', page_views: 2 },
        { day: '2026-11-21', page_views: 0 },
      ],
      sessions: [
        {
          session_id: 'session-1',
          first_seen: '2026-11-20T10:00:00.000Z',
          last_seen: '2026-11-20T10:01:00.000Z',
          page_views: 2,
          pages: [
            { at: '2026-11-20T10:00:00.000Z', path: '/' },
            { at: '2026-11-20T10:01:00.000Z', path: '=HYPERLINK("x")' },
          ],
        },
      ],
    } as unknown as AccountPage;
    expect(parse(accountCsv(page), { columns: true })).toEqual([
      { record: 'day', day: '2026-11-20', page_views: '2', session_id: '', at: '', path: '' },
      { record: 'day', day: '2026-11-21', page_views: '0', session_id: '', at: '', path: '' },
      { record: 'session_page', day: '2026-11-20', page_views: '', session_id: 'session-1', at: '2026-11-20T10:00:00.000Z', path: '/' },
      { record: 'session_page', day: '2026-11-20', page_views: '', session_id: 'session-1', at: '2026-11-20T10:01:00.000Z', path: `'=HYPERLINK("x")` },
    ]);
  });
});
