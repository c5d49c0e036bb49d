/**
 * Form fill (feature `form_fill`): `data-svc-fill="company.name"` on an input, select or textarea
 * fills it once, when empty, never over what the visitor typed (or cleared); `data-svc-fill` with no
 * value on a container (a `<form>`) fills its controls by their name (fill.ts). The value is set
 * through the prototype's (native) setter, so frameworks that track `value` on the element (React)
 * see the change, and `input` and `change` (bubbling) tell form libraries. `data-svc-hide-when-filled`
 * on the control or an ancestor hides that element when the tag filled the control.
 */
import { lookup } from './template.ts';
import type { SvcData } from './types.ts';

export type FormControl = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** Controls the tag already considered: each is filled at most once per page. */
const considered = new WeakSet<Element>();

/** Fills `control` from the answer at `path` (none: the control is not mapped), unless considered before. */
export function fillControl(control: FormControl, path: string, data: SvcData): void {
  if (!path || considered.has(control)) return;
  considered.add(control);
  const value = lookup(data, path);
  if (!value || control.value) return;
  // The prototype's (native) setter, not the element's own: React tracks `value` on the element itself.
  // biome-ignore lint/suspicious/noProto: the same prototype as Object.getPrototypeOf (every browser has the accessor; an element never shadows it), 5 B gzip less.
  Reflect.set((control as unknown as { __proto__: object }).__proto__, 'value', value, control);
  for (const type of ['input', 'change']) control.dispatchEvent(new Event(type, { bubbles: true }));
  const wrapper = control.value && control.closest<HTMLElement>('[data-svc-hide-when-filled]');
  if (wrapper) wrapper.hidden = true;
}

/** The elements a form-fill pass visits (personalise.ts: a path fills the element, no value its controls). */
export const FILLED = '[data-svc-fill]';
