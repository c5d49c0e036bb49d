/**
 * What the Visitors chart's legend reads. Hovering a day shows that day; otherwise (the cursor off the
 * chart, or on a touch screen that never hovers) the legend shows the whole range and its totals, never
 * uPlot's empty "--".
 */
import type { DailyTotals } from '../../core/visit-records.ts';
import { formatCount } from './format.ts';
import { formatDate } from './ui/datetime.ts';

/** The series of the chart, in uPlot's order: the days (x), then identified and anonymous page views. */
export type ChartSeries = 'day' | 'identified' | 'anonymous';

/** The legend's text for `series` at the hovered day `idx`, or for the whole range when `idx` is null. */
export function legendValue(daily: readonly DailyTotals[], series: ChartSeries, idx: number | null | undefined): string {
  const day = idx == null ? undefined : daily[idx];
  if (series === 'day') {
    if (day) return formatDate(day.day);
    if (!daily.length) return 'no days';
    const first = formatDate(daily[0].day);
    const last = formatDate(daily[daily.length - 1].day);
    return first === last ? `${first} (total)` : `${first} to ${last} (total)`;
  }
  if (day) return formatCount(day[series]);
  return formatCount(daily.reduce((n, d) => n + d[series], 0));
}
