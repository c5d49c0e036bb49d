/**
 * Declarative personalisation: the thin DOM layer over the pure `render`, `evaluate` and `fillPath`.
 *
 * - `data-svc-text="<path or template>"` sets textContent (never HTML);
 * - `data-svc-show="<rule>"` / `data-svc-hide="<rule>"` toggle the `hidden` attribute: an element is
 *   shown when its show rule holds (if it has one) and its hide rule does not (if it has one);
 * - `data-svc-attr="name:template; name2:template"` sets attributes (never `on…` handlers, never a
 *   `javascript:` URL); a template that renders nothing leaves the attribute alone;
 * - `data-svc-fill="company.name"` fills an empty input, select or textarea once (never overwriting what
 *   the visitor typed) and fires `input` and `change`; `data-svc-fill` without a value on a container
 *   (a `<form>`) fills its controls by the mapping in fill.ts; `data-svc-hide-when-filled` on the
 *   control or an ancestor hides that element when the tag filled the control.
 *
 * Idempotent, so it runs again for elements added later (single-page apps). Returns the elements not yet
 * in `seen` (this view's), for `svc:personalized`.
 */
import { fillPath } from './fill.ts';
import { evaluate } from './rules.ts';
import { lookup, render } from './template.ts';
import type { SvcData, SvcPersonalizedElement } from './types.ts';

type Control = HTMLInputElement;
type Any = any;
const filled = new WeakSet<Element>();

export function personalise(data: SvcData, seen: WeakSet<Element>, log: (...a: unknown[]) => unknown): SvcPersonalizedElement[] {
  const out: SvcPersonalizedElement[] = [];
  const fill = (el: Control, path: string) => {
    const v = lookup(data, path);
    if (path && !filled.has(el) && filled.add(el) && v && !el.value) {
      // The prototype's (native) setter: frameworks that track `value` on the element (React) see the change.
      Reflect.set((el as Any).__proto__, 'value', v, el);
      for (const t of ['input', 'change']) el.dispatchEvent(new Event(t, { bubbles: true }));
      const box = el.value && el.closest<HTMLElement>('[data-svc-hide-when-filled]');
      if (box) box.hidden = true;
      log('fill', el, path);
    }
  };
  document
    .querySelectorAll<HTMLElement>('[data-svc-show],[data-svc-hide],[data-svc-text],[data-svc-attr],[data-svc-fill]')
    .forEach((el) => {
      const { svcShow: show, svcHide: hide, svcText: text, svcAttr: attr, svcFill: path } = el.dataset;
      const t = render(text || '', data); // null: keep the element's text
      if (t != null && el.textContent != t) el.textContent = t;
      if ((show ?? hide) != null) {
        // evaluate(undefined) is false: no hide rule hides nothing
        el.hidden = (show != null && !evaluate(show, data)) || evaluate(hide!, data);
        log(el, show, hide, !el.hidden);
      }
      attr?.split(';').forEach((p) => {
        const [, n, tpl] = /^\s*((?!on)\w[\w-]*)\s*:(.*)/i.exec(p) || [],
          v = n && render(tpl.trim(), data);
        if (v && !/^\s*javascript:/i.test(v)) el.setAttribute(n, v);
      });
      if (path != null)
        path
          ? fill(el as Control, path)
          : [...(el as HTMLFormElement).elements].forEach((c) => fill(c as Control, fillPath((c as Control).name)));
      if (!seen.has(el)) {
        seen.add(el);
        out.push({ element: el, shown: !el.hidden, show, hide, text, attr, fill: path });
      }
    });
  return out;
}
