/**
 * What `svc:personalized` reports: each personalised element once per view, with the `data-svc-*`
 * rules it carries (for exposure analytics: which variant did this visitor see).
 */
import type { SvcPersonalizedElement } from './types.ts';

export const exposureOf = (element: HTMLElement): SvcPersonalizedElement => {
  const { svcText: text, svcShow: show, svcHide: hide, svcAttr: attr, svcFill: fill } = element.dataset;
  return { element, shown: !element.hidden, show, hide, text, attr, fill };
};
