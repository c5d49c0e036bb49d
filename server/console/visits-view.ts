/** Pure helpers of the Visitors page: the default date range, the charts' series, labels, the coverage split. */
import type { DailyTotals } from '../../core/visit-records.ts';
import { UNIDENTIFIED_REASONS } from '../../core/vocabulary.ts';
import type { UnidentifiedSplit } from '../visits/coverage.ts';
import { formatRate } from './home-view.ts';

export const DEFAULT_DAYS = 30;

/** The last `days` UTC days up to `today`, as the report's `from`/`to`. */
export function defaultRange(today: Date = new Date(), days = DEFAULT_DAYS): { from: string; to: string } {
  const to = today.toISOString().slice(0, 10);
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  return { from, to };
}

/** uPlot's columnar data: x in Unix seconds (UTC midnight), then identified and anonymous page views. */
export function chartSeries(daily: readonly DailyTotals[]): [number[], number[], number[]] {
  return [daily.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000), daily.map((d) => d.identified), daily.map((d) => d.anonymous)];
}

/** A one-sentence description of the chart for screen readers. */
export function chartSummary(daily: readonly DailyTotals[]): string {
  const identified = daily.reduce((n, d) => n + d.identified, 0);
  const anonymous = daily.reduce((n, d) => n + d.anonymous, 0);
  const busiest = daily.reduce<DailyTotals | null>((b, d) => (!b || d.identified + d.anonymous > b.identified + b.anonymous ? d : b), null);
  const peak = busiest && busiest.identified + busiest.anonymous > 0 ? `; busiest day ${busiest.day} with ${busiest.identified + busiest.anonymous}` : '';
  return `Page views per day: ${identified} identified, ${anonymous} anonymous over ${daily.length} days${peak}.`;
}

/** The file name of a CSV download. */
export function csvFileName(customerId: string, from: string, to: string, segment: number | null): string {
  return `visits-${customerId}-${from}-${to}${segment !== null ? `-segment-${segment}` : ''}.csv`;
}

/** Identified share of a day's page views in percent; null without page views (a gap in the chart). */
const percentOf = (d: DailyTotals): number | null =>
  d.identified + d.anonymous === 0 ? null : Math.round((d.identified / (d.identified + d.anonymous)) * 1000) / 10;

/** The match-rate chart's columns: x in Unix seconds (UTC midnight), then each day's identified share in percent. */
export function matchRateSeries(daily: readonly DailyTotals[]): [number[], (number | null)[]] {
  return [daily.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000), daily.map(percentOf)];
}

/** The range's match rate (0–1, as the report's `coverage.match_rate`); null without page views. */
export function rangeRate(daily: readonly DailyTotals[]): number | null {
  const identified = daily.reduce((n, d) => n + d.identified, 0);
  const all = identified + daily.reduce((n, d) => n + d.anonymous, 0);
  return all === 0 ? null : identified / all;
}

/** The match-rate chart's legend: the hovered day's rate, else the whole range's. */
export function matchRateLegend(daily: readonly DailyTotals[], idx: number | null | undefined): string {
  const day = idx == null ? undefined : daily[idx];
  if (day) return formatRate(day.identified + day.anonymous === 0 ? null : day.identified / (day.identified + day.anonymous));
  return formatRate(rangeRate(daily));
}

/** A one-sentence description of the match-rate chart for screen readers. */
export function matchRateSummary(daily: readonly DailyTotals[]): string {
  const identified = daily.reduce((n, d) => n + d.identified, 0);
  const all = identified + daily.reduce((n, d) => n + d.anonymous, 0);
  const seen = daily.filter((d) => d.identified + d.anonymous > 0);
  const rate = (d: DailyTotals) => d.identified / (d.identified + d.anonymous);
  const low = seen.reduce<DailyTotals | null>((b, d) => (!b || rate(d) < rate(b) ? d : b), null);
  const high = seen.reduce<DailyTotals | null>((b, d) => (!b || rate(d) > rate(b) ? d : b), null);
  const range = low && high && seen.length > 1 ? `; lowest ${formatRate(rate(low))} on ${low.day}, highest ${formatRate(rate(high))} on ${high.day}` : '';
  return `Match rate per day: ${formatRate(rangeRate(daily))} of ${all} page views identified over ${daily.length} days${range}.`;
}

/** How the Visitors page names each reason a page view matched no company. */
export const REASON_LABELS: Readonly<Record<keyof UnidentifiedSplit, string>> = {
  isp: 'Internet service provider',
  hosting: 'Hosting or cloud provider',
  bot: 'Bot',
  vpn: 'VPN',
  proxy: 'Proxy',
  tor: 'Tor exit node',
  relay: 'Privacy relay',
  no_data: 'No data for the address',
  other: 'Other network',
  unclassified: 'Not classified (before reasons were recorded)',
};

/** The split as table rows: the reasons always listed, `other` and `unclassified` only when they hold views; each with its share of `anonymous`. */
export function splitRows(split: UnidentifiedSplit, anonymous: number): { key: keyof UnidentifiedSplit; label: string; page_views: number; share: string }[] {
  const always = UNIDENTIFIED_REASONS.filter((r) => r !== 'other');
  const keys: (keyof UnidentifiedSplit)[] = [
    ...always,
    ...(split.other > 0 ? ['other' as const] : []),
    ...(split.unclassified > 0 ? ['unclassified' as const] : []),
  ];
  return keys.map((key) => ({ key, label: REASON_LABELS[key], page_views: split[key], share: formatRate(anonymous === 0 ? null : split[key] / anonymous) }));
}

/** The file name of the days CSV (`rows=days`). */
export function daysCsvFileName(customerId: string, from: string, to: string, segment: number | null): string {
  return csvFileName(customerId, from, to, segment).replace(/\.csv$/, '-days.csv');
}
