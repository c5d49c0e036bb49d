/**
 * One element of a personalisation pass: its `data-svc-*` rules read once, applied by the enabled
 * features — personalisation (text, visibility, attributes: the rules are described in personalise.ts)
 * and form fill (form-fill.ts) — and returned as what `svc:personalized` reports for it (for exposure
 * analytics: which variant did this visitor see; tag.ts reports each element once per view).
 * Reads the compile-time flags, so it belongs to the bundle's composition like tag.ts.
 *
 * One function rather than one per feature: terser inlines a function called once as a function
 * expression called with its arguments, and the parameter and argument lists cost 16 B gzip on the full bundle.
 */
import { fillControl, type FormControl } from './form-fill.ts';
import { fillPath } from './fill.ts';
import { ATTRIBUTE, SCRIPT_URL } from './personalise.ts';
import { evaluate } from './rules.ts';
import { render } from './template.ts';
import type { SvcData, SvcPersonalizedElement } from './types.ts';

/** Personalises and fills `element` from `data`; its exposure, `shown` as the pass left it. Idempotent. */
export const personaliseElement = (element: HTMLElement, data: SvcData): SvcPersonalizedElement => {
  const { svcText: text, svcShow: show, svcHide: hide, svcAttr: attr, svcFill: fill } = element.dataset;
  if (SVC_FEATURES.personalisation) {
    if (text != null) {
      const rendered = render(text, data);
      // (unchanged text is not written again: the SPA observer would see a mutation)
      if (rendered != null && element.textContent !== rendered) element.textContent = rendered;
    }
    if (show != null || hide != null) {
      // hidden when the show rule does not hold or the hide rule holds (evaluate: false for no rule, not a string)
      element.hidden = !(show == null || evaluate(show, data)) || evaluate(hide!, data);
    }
    for (const pair of (attr ?? '').split(';')) {
      const [, name, template] = ATTRIBUTE.exec(pair) ?? [];
      const value = name && render(template, data);
      if (value && !SCRIPT_URL.test(value)) element.setAttribute(name, value);
    }
  }
  // Form fill: a path fills the element itself; no value fills its controls, mapped by name (fill.ts).
  if (SVC_FEATURES.form_fill && fill != null) {
    for (const control of fill ? [element as FormControl] : element.querySelectorAll<FormControl>('input,select,textarea'))
      fillControl(control, fill || fillPath(control.name || control.id), data);
  }
  return { element, shown: !element.hidden, show, hide, text, attr, fill };
};
