/**
 * Declarative personalisation (feature `personalisation`), one element at a time: the thin DOM layer over
 * the pure `render` (template.ts) and `evaluate` (rules.ts), plus form fill (feature `form_fill`,
 * form-fill.ts) on the same pass, and what `svc:personalized` reports for the element (for exposure
 * analytics: which variant did this visitor see; tag.ts reports each element once per view).
 *
 * - `data-svc-text="<path or template>"` sets textContent (never HTML); a template that renders
 *   nothing keeps the element's own text;
 * - `data-svc-show="<rule>"` / `data-svc-hide="<rule>"` toggle the `hidden` attribute: shown when the
 *   show rule holds (if there is one) and the hide rule does not (if there is one);
 * - `data-svc-attr="name:template; name2:template"` sets attributes, never an `on…` handler nor a
 *   `javascript:` URL; a template that renders nothing leaves the attribute alone;
 * - `data-svc-fill`: see form-fill.ts.
 *
 * Idempotent: it runs again for elements added later (single-page apps) without undoing anything.
 * Reads the compile-time flags, so it belongs to the bundle's composition like tag.ts. One function for
 * both features rather than one each: terser inlines a function called once as a function expression
 * called with its arguments, and those parameter and argument lists cost 16 B gzip on the full bundle.
 */

import { fillPath } from './fill.ts';
import { type FormControl, fillControl } from './form-fill.ts';
import { evaluate } from './rules.ts';
import { render } from './template.ts';
import type { SvcData, SvcPersonalizedElement } from './types.ts';

/** The elements a personalisation pass visits. */
export const PERSONALISED = '[data-svc-text],[data-svc-show],[data-svc-hide],[data-svc-attr]';

/** Personalises and fills `element` from `data`; its exposure, `shown` as the pass left it. Idempotent. */
export function personaliseElement(element: HTMLElement, data: SvcData): SvcPersonalizedElement {
  const { svcText: text, svcShow: show, svcHide: hide, svcAttr: attr, svcFill: fill } = element.dataset;
  if (SVC_FEATURES.personalisation) {
    if (text != null) {
      const rendered = render(text, data);
      // (unchanged text is not written again: the SPA observer would see a mutation)
      if (rendered != null && element.textContent != rendered) element.textContent = rendered;
    }
    if (show != null || hide != null) {
      // hidden when the show rule does not hold or the hide rule holds (evaluate: false for no rule, not a string)
      element.hidden = !(show == null || evaluate(show, data)) || evaluate(hide!, data);
    }
    for (const pair of (attr ?? '').split(';')) {
      // `name: template` (a name not starting with "on"), never set to a `javascript:` URL
      const [, name, template] = /^\s*((?!on)[a-z][\w-]*)\s*:\s*(.*?)\s*$/i.exec(pair) ?? [];
      const value = name && render(template, data);
      if (value && !/^\s*javascript:/i.test(value)) element.setAttribute(name, value);
    }
  }
  // Form fill: a path fills the element itself; no value fills its controls, mapped by name (fill.ts).
  if (SVC_FEATURES.form_fill && fill != null) {
    for (const control of fill ? [element as FormControl] : element.querySelectorAll<FormControl>('input,select,textarea'))
      fillControl(control, fill || fillPath(control.name || control.id), data);
  }
  return { element, shown: !element.hidden, show, hide, text, attr, fill };
}
