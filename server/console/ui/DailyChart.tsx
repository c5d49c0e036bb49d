/**
 * Page views per day, drawn by uPlot (bundled by the console build; it draws on a canvas and sets styles
 * through the CSSOM, which the console's CSP allows). The chart follows its box's width. `measure` picks
 * what it draws: identified vs anonymous page views (the default), or the match rate — the identified
 * share of each day's page views, a gap on a day without any. Its legend shows the hovered day, else the
 * range's totals (chart-legend.ts) or its rate.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { DailyTotals } from '../../../core/visit-records.ts';
import { legendValue } from '../chart-legend.ts';
import { chartSeries, chartSummary, matchRateLegend, matchRateSeries, matchRateSummary } from '../visits-view.ts';
import { formatDate } from './datetime.ts';

const HEIGHT = 260;
const DAY_S = 86_400;
/** Tick spacing in whole days: the axis never labels hours, so every label is a UTC day. */
const DAY_INCREMENTS = [1, 2, 7, 14, 28, 56, 91, 182, 364].map((d) => d * DAY_S);
/** Page views are whole: ticks 1, 2, 5, 10, 20, 50 … apart, never 2.5. */
const COUNT_INCREMENTS = Array.from({ length: 10 }, (_, e) => [1, 2, 5].map((m) => m * 10 ** e)).flat();
/** Percent ticks: 10, 20, 25, 50 apart on a 0–100 axis. */
const PERCENT_INCREMENTS = [10, 20, 25, 50];

export type ChartMeasure = 'views' | 'match-rate';

/**
 * The x scale: a range of one day gets a day either side of it (uPlot widens a single time value by
 * 86,400 of its milliseconds — ~1,000 days in seconds — labelling years around one point).
 */
function xScale(daily: DailyTotals[]): uPlot.Scale {
  if (daily.length !== 1) return { time: true };
  const x = Date.parse(`${daily[0]!.day}T00:00:00Z`) / 1000;
  return { time: true, range: (): uPlot.Range.MinMax => [x - DAY_S, x + DAY_S] };
}

/** The series, axes and data of one measure (the x axis and its day series are common). */
function measureOf(daily: DailyTotals[], measure: ChartMeasure): Pick<uPlot.Options, 'series' | 'axes' | 'scales'> & { data: uPlot.AlignedData } {
  const day: uPlot.Series = { label: 'Day', value: (_u, _v, _s, idx) => legendValue(daily, 'day', idx) };
  const x: uPlot.Axis = { space: 90, incrs: DAY_INCREMENTS, values: (_u, splits) => splits.map((s) => formatDate(s * 1000)) };
  if (measure === 'match-rate') {
    return {
      scales: { x: xScale(daily), y: { range: [0, 100] } },
      series: [
        day,
        {
          label: 'Identified share',
          stroke: '#3f33d6',
          fill: 'rgba(63, 51, 214, 0.12)',
          width: 2,
          spanGaps: false,
          points: { show: true, size: 5 },
          value: (_u, _v, _s, idx) => matchRateLegend(daily, idx),
        },
      ],
      axes: [x, { label: 'Identified (%)', incrs: PERCENT_INCREMENTS, values: (_u, splits) => splits.map((s) => `${s}%`) }],
      data: matchRateSeries(daily),
    };
  }
  return {
    scales: { x: xScale(daily) },
    series: [
      day,
      {
        label: 'Identified',
        stroke: '#3f33d6',
        fill: 'rgba(63, 51, 214, 0.12)',
        width: 2,
        value: (_u, _v, _s, idx) => legendValue(daily, 'identified', idx),
      },
      { label: 'Anonymous', stroke: '#8a8fa8', width: 2, dash: [6, 4], value: (_u, _v, _s, idx) => legendValue(daily, 'anonymous', idx) },
    ],
    axes: [x, { label: 'Page views', incrs: COUNT_INCREMENTS }],
    data: chartSeries(daily),
  };
}

export function DailyChart({ daily, measure = 'views', testId }: { daily: DailyTotals[]; measure?: ChartMeasure; testId?: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const { data, ...options } = measureOf(daily, measure);
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: HEIGHT,
        // The report's days are UTC days: ticks fall on UTC midnights and read as the console's other days do.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        ...options,
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [daily, measure]);
  const summary = measure === 'match-rate' ? matchRateSummary(daily) : chartSummary(daily);
  return (
    <div
      ref={box}
      class="chart"
      role="img"
      aria-label={summary}
      data-testid={testId ?? (measure === 'match-rate' ? 'visits-match-rate-chart' : 'visits-chart')}
    />
  );
}
