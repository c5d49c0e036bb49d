/** Pure helpers of the Visitors page: the default date range, the chart's series, labels. */
import type { DailyTotals } from '../../core/visit-records.ts';

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
