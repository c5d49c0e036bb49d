/**
 * Identified vs anonymous page views per day, drawn by uPlot (bundled by the console build; it draws on a
 * canvas and sets styles through the CSSOM, which the console's CSP allows). The chart follows its box's width.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { DailyTotals } from '../../state/visits.ts';
import { chartSeries, chartSummary } from '../visits-view.ts';

const HEIGHT = 260;

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
        series: [
          { label: 'Day', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 10)) },
          { label: 'Identified', stroke: '#3f33d6', fill: 'rgba(63, 51, 214, 0.12)', width: 2 },
          { label: 'Anonymous', stroke: '#8a8fa8', width: 2, dash: [6, 4] },
        ],
        axes: [{}, { label: 'Page views' }],
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
