/**
 * What `svc:personalized` reports: each personalised element once per view, with the `data-svc-*`
 * rules it carries (for exposure analytics: which variant did this visitor see).
 */
import type { SvcPersonalizedElement } from './types.ts';

export interface Exposure {
  /** Elements already reported in this view (a history navigation starts a new view). */
  seen: WeakSet<Element>;
  /** Elements of the current pass not reported before. */
  elements: SvcPersonalizedElement[];
}

export const newView = (): WeakSet<Element> => new WeakSet();

/** Adds `element` to the pass's report unless this view reported it already. */
export function expose(exposure: Exposure, element: HTMLElement): void {
  if (exposure.seen.has(element)) return;
  exposure.seen.add(element);
  const { svcShow: show, svcHide: hide, svcText: text, svcAttr: attr, svcFill: fill } = element.dataset;
  exposure.elements.push({ element, shown: !element.hidden, show, hide, text, attr, fill });
}
