/**
 * Text personalisation: `data-svc-text` holds a path (`company.name`), a path with a fallback
 * (`company.name|your team`) or a template with placeholders (`Hello {company.name|there}`).
 *
 * Paths walk the answer (`confidence`, `segments.names`, `scores.0.buying_stage`); a path that is not
 * found from the top is looked up in `company` (`name` = `company.name`). Lists are joined with ", ".
 * A placeholder whose value is blank uses its fallback (text after `|`, may be empty); without a
 * fallback the whole template renders as null, and the element keeps the text it had in the HTML.
 * Pure: no DOM. The caller assigns the result to textContent, never to innerHTML.
 */
import type { SvcData } from './types.ts';

type Data = SvcData | null | undefined;

const walk = (v: any, path: string): unknown => (path.split('.').forEach((k) => (v = v?.[k])), v);

/** The value at `path` from the top of the answer, else (absent or null there) from `company`. */
export const get = (data: Data, path: string): unknown => walk(data, path) ?? walk(data?.company, path);

/** The display text of the value at `path`, or "" (absent, null, object or function). */
export function lookup(data: Data, path: string): string {
  let v = get(data, path);
  if (Array.isArray(v)) v = v.join(', ');
  return /^[bns]/.test(typeof v) ? v + '' : ''; // boolean, number, string (JSON has no symbols)
}

/** Renders a `data-svc-text` value; null means "leave the element's default text". */
export function render(template: string, data: Data): string | null {
  let ok = 1;
  const out = (template.includes('{') ? template : '{' + template + '}').replace(
    /\{\s*([^{}|]*?)\s*(?:\|([^{}]*))?\}/g,
    (_, path: string, fallback?: string) => lookup(data, path) || (fallback ?? ((ok = 0), '')),
  );
  return ok ? out : null;
}
