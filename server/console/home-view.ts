/**
 * Pure helpers of the Home page: each figure of this period beside the previous one with its change, the
 * match rate as a percentage, and why an account is listed, in words.
 */
import type { ActAccount, PeriodFigures } from '../home/summary.ts';

export interface FigureRow {
  key: string;
  label: string;
  /** This period's value as shown, and the previous one's. */
  value: string;
  previous: string;
  /** The change in words (`+3`, `−2`, `+5.0 pts`, `no change`, `—` when either side is unknown). */
  change: string;
  /** Which way it went: drawn as an arrow beside the words, never by colour alone. */
  trend: 'up' | 'down' | 'flat' | 'none';
}

const count = (n: number) => new Intl.NumberFormat('en-US').format(n);

/** 0.6667 → `66.7%`; null (no page views) → `—`. */
export function formatRate(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)}%`;
}

/** The difference of two counts in words: `+3`, `−2` (a real minus sign), `no change`. */
export function countChange(now: number, before: number): Pick<FigureRow, 'change' | 'trend'> {
  const d = now - before;
  if (d === 0) return { change: 'no change', trend: 'flat' };
  return d > 0 ? { change: `+${count(d)}`, trend: 'up' } : { change: `−${count(-d)}`, trend: 'down' };
}

/** The difference of two rates in percentage points; unknown when either has no page views. */
export function rateChange(now: number | null, before: number | null): Pick<FigureRow, 'change' | 'trend'> {
  if (now === null || before === null) return { change: '—', trend: 'none' };
  const pts = Math.round((now - before) * 1000) / 10;
  if (pts === 0) return { change: 'no change', trend: 'flat' };
  return pts > 0 ? { change: `+${pts.toFixed(1)} pts`, trend: 'up' } : { change: `−${(-pts).toFixed(1)} pts`, trend: 'down' };
}

/** The figures of Home in their order, each this period against the previous one. */
export function figureRows(current: PeriodFigures, previous: PeriodFigures): FigureRow[] {
  const counted = (key: keyof PeriodFigures, label: string): FigureRow => {
    const now = current[key] as number | null;
    const before = previous[key] as number | null;
    if (now === null || before === null) {
      return { key, label, value: now === null ? '—' : count(now), previous: before === null ? '—' : count(before), change: '—', trend: 'none' };
    }
    return { key, label, value: count(now), previous: count(before), ...countChange(now, before) };
  };
  return [
    counted('identified_accounts', 'Identified visiting accounts'),
    counted('new_accounts', 'New accounts'),
    counted('became_hot', 'Became hot'),
    counted('stage_moves', 'Moved a buying stage'),
    counted('segment_entries', 'Segment entries'),
    {
      key: 'match_rate',
      label: 'Match rate',
      value: formatRate(current.match_rate),
      previous: formatRate(previous.match_rate),
      ...rateChange(current.match_rate, previous.match_rate),
    },
  ];
}

const REASON_WORDS: Record<ActAccount['reasons'][number], (a: ActAccount) => string> = {
  hot: (a) => `became hot (${a.stage})`,
  hot_list: () => 'on your hot list',
  stage: (a) => `moved to ${a.stage} from ${a.stage_before}`,
  new: () => 'new this period',
  page_views: (a) => `${count(a.page_views)} page view${a.page_views === 1 ? '' : 's'}`,
};

/** Why an account is listed, in words, most telling first: `became hot (Decision) · 12 page views`. */
export function reasonText(a: ActAccount): string {
  return a.reasons.map((r) => REASON_WORDS[r](a)).join(' · ');
}

/** A period by its UTC days: `2026-11-14 – 2026-11-20`, or the one day. */
export function periodLabel(p: { from: string; to: string }): string {
  return p.from === p.to ? p.from : `${p.from} – ${p.to}`;
}
