import { describe, expect, it } from 'vitest';
import type { ActAccount, PeriodFigures } from '../home/summary.ts';
import { countChange, figureRows, formatRate, periodLabel, rateChange, reasonText } from './home-view.ts';

const figures = (over: Partial<PeriodFigures> = {}): PeriodFigures => ({
  from: '2026-11-14',
  to: '2026-11-20',
  identified_accounts: 0,
  new_accounts: 0,
  became_hot: 0,
  stage_moves: 0,
  segment_entries: 0,
  page_views: 0,
  identified_page_views: 0,
  anonymous_page_views: 0,
  match_rate: null,
  ...over,
});

describe('the figures this period against the previous one', () => {
  it('says the change of a count with its direction, a real minus sign and thousands separated', () => {
    expect(countChange(12, 9)).toEqual({ change: '+3', trend: 'up' });
    expect(countChange(1, 2_501)).toEqual({ change: '−2,500', trend: 'down' });
    expect(countChange(4, 4)).toEqual({ change: 'no change', trend: 'flat' });
  });

  it('shows the match rate as a percentage and its change in points; no page views is unknown, not 0%', () => {
    expect(formatRate(0.66667)).toBe('66.7%');
    expect(formatRate(null)).toBe('—');
    expect(rateChange(0.75, 0.7)).toEqual({ change: '+5.0 pts', trend: 'up' });
    expect(rateChange(0.5, 0.625)).toEqual({ change: '−12.5 pts', trend: 'down' });
    expect(rateChange(null, 0.5)).toEqual({ change: '—', trend: 'none' });
  });

  it('lists every figure in order; segment entries not counted read as unknown', () => {
    const rows = figureRows(
      figures({ identified_accounts: 1_204, new_accounts: 3, segment_entries: null, match_rate: 0.5 }),
      figures({ identified_accounts: 1_000, new_accounts: 5, segment_entries: null, match_rate: 0.4 }),
    );
    expect(rows.map((r) => [r.label, r.value, r.previous, r.change])).toEqual([
      ['Identified visiting accounts', '1,204', '1,000', '+204'],
      ['New accounts', '3', '5', '−2'],
      ['Became hot', '0', '0', 'no change'],
      ['Moved a buying stage', '0', '0', 'no change'],
      ['Segment entries', '—', '—', '—'],
      ['Match rate', '50.0%', '40.0%', '+10.0 pts'],
    ]);
  });
});

describe('why an account is listed', () => {
  const account = (over: Partial<ActAccount>): ActAccount => ({
    company_id: '900001',
    name: 'Northwind',
    domain: 'northwind.example',
    page_views: 1,
    last_seen: '2026-11-20T10:00:00.000Z',
    stage: 'Decision',
    stage_before: 'Consideration',
    hot: true,
    hot_list: false,
    new: false,
    reasons: ['page_views'],
    link: '/console/#customer=acme&page=accounts&account=900001',
    ...over,
  });

  it('in words, most telling first', () => {
    expect(reasonText(account({ reasons: ['hot', 'hot_list', 'new', 'page_views'], page_views: 12 }))).toBe(
      'became hot (Decision) · on your hot list · new this period · 12 page views',
    );
    expect(reasonText(account({ reasons: ['stage', 'page_views'], stage: 'Awareness', stage_before: 'Target' }))).toBe(
      'moved to Awareness from Target · 1 page view',
    );
  });

  it('labels a period by its days', () => {
    expect(periodLabel({ from: '2026-11-14', to: '2026-11-20' })).toBe('2026-11-14 – 2026-11-20');
    expect(periodLabel({ from: '2026-11-20', to: '2026-11-20' })).toBe('2026-11-20');
  });
});
