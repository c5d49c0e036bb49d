import { describe, expect, it } from 'vitest';
import type { RecentEvent } from '../../core/engagement-records.ts';
import { engagementPath } from './engagement-beacons.ts';
import { EngagementExportQuery, engagementLine, exportKind, parseRowCursor, rowCursor } from './engagement-export.ts';
import { engagementSummary, readEngagementSummary } from './engagement-summary.ts';

describe('an account’s engagement summary', () => {
  const engagement = {
    time: [
      { day: '2026-12-06', path: '/pricing', ms: 30_400 },
      { day: '2026-12-07', path: '/pricing', ms: 10_000 },
      { day: '2026-12-07', path: '/docs', ms: 50_000 },
      { day: '2026-11-01', path: '/old', ms: 99_000 },
    ],
    events: [
      { day: '2026-12-06', name: 'signup', count: 1 },
      { day: '2026-12-07', name: 'demo_requested', count: 2 },
      { day: '2026-12-07', name: 'signup', count: 1 },
    ],
  };
  const recent: RecentEvent[] = [
    { at: '2026-12-07T10:00:00.000Z', name: 'demo_requested', path: '/pricing', properties: { plan: 'pro' } },
    { at: '2026-11-01T10:00:00.000Z', name: 'old', path: '/', properties: {} },
  ];

  it('sums seconds per page and counts per name over the range, most first, the latest events in it', () => {
    expect(engagementSummary(engagement, recent, { from: '2026-12-01', to: '2026-12-07' })).toEqual({
      from: '2026-12-01',
      to: '2026-12-07',
      engaged_seconds: 90,
      pages: [
        { path: '/docs', engaged_seconds: 50 },
        { path: '/pricing', engaged_seconds: 40 },
      ],
      events: [
        { name: 'demo_requested', count: 2 },
        { name: 'signup', count: 2 },
      ],
      recent_events: [recent[0]],
    });
    expect(engagementSummary(engagement, recent, { from: '2026-12-01', to: '2026-12-07' }, { pages: 1, events: 1, recent: 0 })).toMatchObject({
      pages: [{ path: '/docs' }],
      events: [{ name: 'demo_requested' }],
      recent_events: [],
    });
  });

  it('reads as none without a store, or when the store cannot answer (reported)', async () => {
    const range = { from: '2026-12-01', to: '2026-12-07' };
    expect(await readEngagementSummary(undefined, 'acme', '1', range, () => {})).toMatchObject({ engaged_seconds: 0, pages: [], events: [] });
    const errors: unknown[] = [];
    const failing = { accountEngagement: () => Promise.reject(new Error('Redis went away')), recentEvents: () => Promise.resolve([]) };
    expect(await readEngagementSummary(failing, 'acme', '1', range, (e) => errors.push(e))).toMatchObject({ engaged_seconds: 0 });
    expect(errors).toHaveLength(1);
  });

  it('counts a beacon’s path as the account page counts pages: query collapsed but the kept parameters', () => {
    expect(engagementPath('/pricing?utm_source=news&plan=pro&email=a@b.example#top', ['plan'])).toBe('/pricing?plan=pro');
    expect(engagementPath('/pricing?utm_source=news')).toBe('/pricing');
  });
});

describe('the engagement export', () => {
  it('resumes from a line’s opaque cursor, and refuses what is not one', () => {
    const row = { day: '2026-12-07', company_id: '900001', kind: 'event' as const, key: 'demo_requested', value: 2 };
    const cursor = rowCursor(row);
    expect(parseRowCursor(cursor)).toEqual({ day: row.day, company_id: row.company_id, kind: row.kind, key: row.key });
    for (const bad of ['1733-0', 'not base64 !', Buffer.from('["2026-12-07","1","other","x"]').toString('base64url')]) expect(parseRowCursor(bad)).toBeNull();
    expect(JSON.parse(engagementLine('acme', row))).toEqual({
      kind: 'event_count',
      customer_id: 'acme',
      day: '2026-12-07',
      company_id: '900001',
      name: 'demo_requested',
      count: 2,
      cursor,
    });
    expect(EngagementExportQuery.parse({ from: '2026-12-01', to: '2026-12-07', cursor, limit: '10' })).toEqual({
      from: '2026-12-01',
      to: '2026-12-07',
      after: parseRowCursor(cursor),
      limit: 10,
    });
    expect(EngagementExportQuery.safeParse({ cursor: '1733-0' }).success).toBe(false);
    expect(exportKind(undefined)).toBe('pageviews');
    expect(exportKind('engagement')).toBe('engagement');
    expect(() => exportKind('clicks')).toThrow(/kind: one of pageviews, engagement/);
  });
});
