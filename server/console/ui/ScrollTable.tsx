/**
 * The box of every wide table: on a narrow screen the table keeps all its columns and scrolls sideways
 * inside this box, never the page. A box that scrolls says so: a shade on each edge that has more columns
 * beyond it, and a "scroll" hint above it while some columns are out of view.
 */
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

interface Edges {
  /** Columns are hidden beyond the left edge (the box is scrolled). */
  left: boolean;
  /** Columns are hidden beyond the right edge. */
  right: boolean;
}

/** A pixel of slack: zoomed pages report fractional scroll positions. */
const SLACK = 1;

export function ScrollTable({
  label,
  labelledBy,
  testId,
  children,
}: {
  /** The region's accessible name (or `labelledBy`: the id of the heading that names it). */
  label?: string;
  labelledBy?: string;
  testId?: string;
  children: ComponentChildren;
}) {
  const box = useRef<HTMLElement>(null);
  const [edges, setEdges] = useState<Edges>({ left: false, right: false });
  const observed = useRef<{ resize: ResizeObserver; table: Element | null } | null>(null);

  const measure = () => {
    const el = box.current;
    if (!el) return;
    const left = el.scrollLeft > SLACK;
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - SLACK;
    setEdges((e) => (e.left === left && e.right === right ? e : { left, right }));
  };

  useLayoutEffect(() => {
    const el = box.current!;
    const resize = new ResizeObserver(measure);
    resize.observe(el);
    observed.current = { resize, table: null };
    el.addEventListener('scroll', measure, { passive: true });
    return () => {
      resize.disconnect();
      el.removeEventListener('scroll', measure);
      observed.current = null;
    };
  }, []);

  // After every render: rows may have come or gone, so the table (and whether it overflows) may have changed.
  useLayoutEffect(() => {
    const o = observed.current;
    const table = box.current?.querySelector('table') ?? null;
    if (o && table !== o.table) {
      if (o.table) o.resize.unobserve(o.table);
      if (table) o.resize.observe(table);
      o.table = table;
    }
    measure();
  });

  const hint = edges.right ? 'Scroll sideways for more columns →' : edges.left ? '← Scroll back for the first columns' : '';
  return (
    <div class="scroll-table" data-more-left={edges.left ? '' : undefined} data-more-right={edges.right ? '' : undefined} data-testid={testId}>
      {/* The columns are all in the table for screen readers; the hint is for eyes only. */}
      <p class="scroll-hint" aria-hidden="true" hidden={!hint} data-testid="scroll-hint">
        {hint}
      </p>
      <div class="scroll-frame">
        {/* Keyboard users focus the region to scroll it (axe scrollable-region-focusable). */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable (WCAG 2.1.1). */}
        <section ref={box} class="table-wrap" aria-label={label} aria-labelledby={labelledBy} tabIndex={0}>
          {children}
        </section>
      </div>
    </div>
  );
}
