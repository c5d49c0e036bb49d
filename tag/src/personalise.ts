/**
 * Declarative personalisation (thin DOM layer over the pure `render` and `evaluate`):
 * - `data-svc-text="<path or template>"` sets textContent (never HTML);
 * - `data-svc-show="<rule>"` / `data-svc-hide="<rule>"` toggle the `hidden` attribute: an element is
 *   shown when its show rule holds (if it has one) and its hide rule does not (if it has one).
 * Marketers mark `data-svc-show` elements `hidden` in their HTML, so default content shows until data
 * arrives, and stays on an error. Idempotent: safe to run again for late-parsed elements.
 */
import { evaluate } from './rules.ts';
import { render } from './template.ts';
import type { SvcData } from './types.ts';

export function personalise(root: ParentNode, data: SvcData): void {
  root.querySelectorAll<HTMLElement>('[data-svc-text]').forEach((el) => {
    const text = render(el.getAttribute('data-svc-text')!, data);
    if (text != null && el.textContent != text) el.textContent = text;
  });
  root.querySelectorAll<HTMLElement>('[data-svc-show],[data-svc-hide]').forEach((el) => {
    const show = el.getAttribute('data-svc-show'), hide = el.getAttribute('data-svc-hide');
    el.hidden = !((show == null || evaluate(show, data)) && !(hide != null && evaluate(hide, data)));
  });
}
