/**
 * Declarative personalisation (feature `personalisation`): the thin DOM layer over the pure `render`
 * (template.ts) and `evaluate` (rules.ts).
 *
 * - `data-svc-text="<path or template>"` sets textContent (never HTML); a template that renders
 *   nothing keeps the element's own text;
 * - `data-svc-show="<rule>"` / `data-svc-hide="<rule>"` toggle the `hidden` attribute: shown when the
 *   show rule holds (if there is one) and the hide rule does not (if there is one);
 * - `data-svc-attr="name:template; name2:template"` sets attributes, never an `on…` handler nor a
 *   `javascript:` URL; a template that renders nothing leaves the attribute alone.
 *
 * Idempotent: it runs again for elements added later (single-page apps) without undoing anything.
 */
import { evaluate } from './rules.ts';
import { render } from './template.ts';
import type { SvcData } from './types.ts';

/** `name: template` (a name not starting with "on"). */
const ATTRIBUTE = /^\s*((?!on)[a-z][\w-]*)\s*:\s*(.*?)\s*$/i;
const SCRIPT_URL = /^\s*javascript:/i;

export const PERSONALISED = '[data-svc-text],[data-svc-show],[data-svc-hide],[data-svc-attr]';

/** Applies the element's `data-svc-text`, `-show`, `-hide` and `-attr` values (read once by the caller, exposure.ts). */
export function personalise(element: HTMLElement, data: SvcData, text?: string, show?: string, hide?: string, attributes?: string): void {
  if (text != null) {
    const rendered = render(text, data);
    if (rendered != null && element.textContent !== rendered) element.textContent = rendered;
  }
  if (show != null || hide != null) {
    // hidden when the show rule does not hold or the hide rule holds (evaluate: false for no rule, not a string)
    element.hidden = !(show == null || evaluate(show, data)) || evaluate(hide!, data);
  }
  for (const pair of (attributes ?? '').split(';')) {
    const [, name, template] = ATTRIBUTE.exec(pair) ?? [];
    const value = name && render(template, data);
    if (value && !SCRIPT_URL.test(value)) element.setAttribute(name, value);
  }
}
