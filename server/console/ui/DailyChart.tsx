/**
 * Identified vs anonymous page views per day, drawn by uPlot (bundled by the console build; it draws on a
 * canvas and sets styles through the CSSOM, which the console's CSP allows). The chart follows its box's width.
 * Its legend shows the hovered day, else the range's totals (chart-legend.ts).
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { DailyTotals } from '../../../core/visit-records.ts';
import { legendValue } from '../chart-legend.ts';
import { chartSeries, chartSummary } from '../visits-view.ts';
import { formatDate } from './datetime.ts';

const HEIGHT = 260;
const DAY_S = 86_400;
/** Tick spacing in whole days: the axis never labels hours, so every label is a UTC day. */
const DAY_INCREMENTS = [1, 2, 7, 14, 28, 56, 91, 182, 364].map((d) => d * DAY_S);
/** Page views are whole: ticks 1, 2, 5, 10, 20, 50 … apart, never 2.5. */
const COUNT_INCREMENTS = Array.from({ length: 10 }, (_, e) => [1, 2, 5].map((m) => m * 10 ** e)).flat();

export function DailyChart({ daily }: { daily: DailyTotals[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const plot = new uPlot(
      {
        width: Math.max(320, el.clientWidth),
        height: HEIGHT,
        scales: { x: { time: true } },
        // The report's days are UTC days: ticks fall on UTC midnights and read as the console's other days do.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        series: [
          { label: 'Day', value: (_u, _v, _s, idx) => legendValue(daily, 'day', idx) },
          {
            label: 'Identified',
            stroke: '#3f33d6',
            fill: 'rgba(63, 51, 214, 0.12)',
            width: 2,
            value: (_u, _v, _s, idx) => legendValue(daily, 'identified', idx),
          },
          { label: 'Anonymous', stroke: '#8a8fa8', width: 2, dash: [6, 4], value: (_u, _v, _s, idx) => legendValue(daily, 'anonymous', idx) },
        ],
        axes: [
          { space: 90, incrs: DAY_INCREMENTS, values: (_u, splits) => splits.map((s) => formatDate(s * 1000)) },
          { label: 'Page views', incrs: COUNT_INCREMENTS },
        ],
      },
      chartSeries(daily),
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [daily]);
  return <div ref={box} class="chart" role="img" aria-label={chartSummary(daily)} data-testid="visits-chart" />;
}
