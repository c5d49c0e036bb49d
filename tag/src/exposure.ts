/**
 * One element of a personalisation pass: its `data-svc-*` rules read once, applied by the enabled
 * features (personalise.ts, form-fill.ts), and returned as what `svc:personalized` reports for it (for
 * exposure analytics: which variant did this visitor see; tag.ts reports each element once per view).
 * Reads the compile-time flags, so it belongs to the bundle's composition like tag.ts.
 */
import { fillForm } from './form-fill.ts';
import { personalise } from './personalise.ts';
import type { SvcData, SvcPersonalizedElement } from './types.ts';

/** Personalises and fills `element` from `data`; its exposure, `shown` as the pass left it. */
export const personaliseElement = (element: HTMLElement, data: SvcData): SvcPersonalizedElement => {
  const { svcText: text, svcShow: show, svcHide: hide, svcAttr: attr, svcFill: fill } = element.dataset;
  if (SVC_FEATURES.personalisation) personalise(element, data, text, show, hide, attr);
  if (SVC_FEATURES.form_fill) fillForm(element, data, fill);
  return { element, shown: !element.hidden, show, hide, text, attr, fill };
};
