import { describe, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import {
  accountsToActOn,
  becameHot,
  HomeQuery,
  MAX_HOME_DAYS,
  type PeriodReads,
  periodFigures,
  previousPeriod,
  rose,
  type StageMove,
  scoringWindow,
  stageMove,
} from './summary.ts';

const customer = { ...TEST_CUSTOMER, products: TEST_CUSTOMER.products.map((p) => ({ ...p, intent_topics: [] })) } as unknown as CustomerRecord;
const company = (id: string) => ({ company_id: id, name: `Co ${id}`, domain: `${id}.example`, industry: 'Software' }) as CompanyRow;
const period = { from: '2026-11-14', to: '2026-11-20' };
const now = new Date('2026-11-20T18:00:00.000Z');

describe('the periods', () => {
  it('defaults to the last 7 days against the 7 before; the previous period has the same length', () => {
    const q = HomeQuery.parse({ from: '2026-11-01', to: '2026-11-30' });
    expect(q).toEqual({ current: { from: '2026-11-01', to: '2026-11-30' }, previous: { from: '2026-10-02', to: '2026-10-31' } });
    expect(HomeQuery.parse({ from: '2026-11-14' }).current).toEqual(period);
    const fallback = HomeQuery.parse({});
    expect(previousPeriod(fallback.current).to).toBe(new Date(Date.parse(`${fallback.current.from}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10));
  });

  it('refuses unreal days, an inverted period and one past the longest', () => {
    for (const q of [{ from: '2026-02-30' }, { from: 'last week' }, { from: '2026-11-20', to: '2026-11-19' }, { from: '2026-01-01', to: '2026-12-31' }]) {
      expect(HomeQuery.safeParse(q).success, JSON.stringify(q)).toBe(false);
    }
    expect(HomeQuery.safeParse({ from: '2026-01-01', to: '2026-04-02' }).success).toBe(MAX_HOME_DAYS === 92);
  });

  it('scores a period from the model’s window of page views before its start through its end', () => {
    expect(scoringWindow(period)).toEqual({ from: '2026-10-15', to: '2026-11-20' });
  });
});

describe('stage moves', () => {
  it('an account whose views of the period reach Decision became hot and moved a stage', () => {
    const views = ['2026-11-19', '2026-11-20'].flatMap((day) => ['/pricing', '/request-demo', '/plans'].map((path) => ({ day, path, page_views: 20 })));
    const move = stageMove({ customer, company: company('900001'), signals: [], views, period, now });
    expect(move?.before).toBe('Target');
    expect(['Decision', 'Purchase']).toContain(move?.after);
    expect(becameHot(move)).toBe(true);
    expect(rose(move)).toBe(true);
  });

  it('views before the period count at its start; a view after its end does not count at its end', () => {
    const views = [
      { day: '2026-11-12', path: '/pricing', page_views: 20 },
      { day: '2026-11-21', path: '/pricing', page_views: 20 },
    ];
    const move = stageMove({ customer, company: company('900001'), signals: [], views, period, now: new Date('2026-11-25T00:00:00Z') });
    expect(move?.before).not.toBe('Target');
    expect(rose(move)).toBe(false);
  });

  it('no product, no stage', () => {
    expect(stageMove({ customer: { ...customer, products: [] }, company: company('1'), signals: [], views: [], period, now })).toBeNull();
  });
});

const reads = (over: Partial<PeriodReads> = {}): PeriodReads => ({
  period,
  identifiedAccounts: 0,
  accounts: [],
  daily: [],
  newAccounts: 0,
  segmentEntries: null,
  stages: new Map(),
  ...over,
});
const totals = (company_id: string, page_views: number) => ({ company_id, page_views, sessions: 1, first_seen: '', last_seen: '2026-11-20T10:00:00.000Z' });

describe('the figures', () => {
  it('an empty period is zeros with no match rate', () => {
    expect(periodFigures(reads())).toEqual({
      from: period.from,
      to: period.to,
      identified_accounts: 0,
      new_accounts: 0,
      became_hot: 0,
      stage_moves: 0,
      segment_entries: null,
      page_views: 0,
      identified_page_views: 0,
      anonymous_page_views: 0,
      match_rate: null,
    });
  });

  it('counts accounts, stage moves and hot accounts, and the match rate of identified page views', () => {
    const stages = new Map<string, StageMove | null>([
      ['a', { before: 'Target', after: 'Decision' }],
      ['b', { before: 'Awareness', after: 'Consideration' }],
      ['c', { before: 'Decision', after: 'Decision' }],
    ]);
    const f = periodFigures(
      reads({
        identifiedAccounts: 4,
        accounts: [totals('a', 5), totals('b', 3), totals('c', 1), totals('d', 1)],
        daily: [
          { day: '2026-11-19', identified: 6, anonymous: 2 },
          { day: '2026-11-20', identified: 4, anonymous: 0 },
        ],
        newAccounts: 2,
        segmentEntries: 3,
        stages,
      }),
    );
    expect(f).toMatchObject({ identified_accounts: 4, new_accounts: 2, became_hot: 1, stage_moves: 2, segment_entries: 3, page_views: 12, match_rate: 0.8333 });
  });
});

describe('the accounts to act on', () => {
  it('ranks became hot, then hot list, stage moves and new accounts before mere page views; leaves excluded accounts out', () => {
    const list = accountsToActOn({
      customer: { ...customer, hot_accounts: [{ company_id: 'listed', products: [] }], excluded_accounts: ['excluded'] },
      reads: reads({
        accounts: [totals('busy', 90), totals('excluded', 80), totals('fresh', 3), totals('listed', 2), totals('mover', 2), totals('hot', 1)],
        stages: new Map<string, StageMove | null>([
          ['busy', { before: 'Awareness', after: 'Awareness' }],
          ['excluded', { before: 'Target', after: 'Purchase' }],
          ['fresh', { before: 'Target', after: 'Target' }],
          ['listed', { before: 'Target', after: 'Target' }],
          ['mover', { before: 'Target', after: 'Awareness' }],
          ['hot', { before: 'Consideration', after: 'Decision' }],
        ]),
      }),
      firstSeen: new Map([
        ['fresh', '2026-11-18'],
        ['busy', '2026-10-01'],
      ]),
      company: (id) => company(id),
      link: (id) => `/console/#account=${id}`,
    });
    expect(list.map((a) => [a.company_id, a.reasons])).toEqual([
      ['hot', ['hot', 'page_views']],
      ['listed', ['hot_list', 'page_views']],
      ['mover', ['stage', 'page_views']],
      ['fresh', ['new', 'page_views']],
      ['busy', ['page_views']],
    ]);
    expect(list[0]).toMatchObject({
      name: 'Co hot',
      domain: 'hot.example',
      stage: 'Decision',
      stage_before: 'Consideration',
      hot: true,
      link: '/console/#account=hot',
    });
  });
});
