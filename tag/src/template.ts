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

function walk(v: unknown, path: string): unknown {
  path.split('.').forEach((k) => (v = v == null ? v : (v as Record<string, unknown>)[k]));
  return v;
}

/** The value at `path` from the top of the answer, else from `company`. */
export const get = (data: Data, path: string): unknown => {
  const v = walk(data, path);
  return v === undefined && data ? walk(data.company, path) : v;
};

/** The display text of the value at `path`, or "" (absent, null, object or function). */
export function lookup(data: Data, path: string): string {
  let v = get(data, path);
  if (Array.isArray(v)) v = v.join(', ');
  return v == null || typeof v == 'object' || typeof v == 'function' ? '' : String(v);
}

/** Renders a `data-svc-text` value; null means "leave the element's default text". */
export function render(template: string, data: Data): string | null {
  let ok = true;
  const out = (template.indexOf('{') < 0 ? '{' + template + '}' : template).replace(
    /\{\s*([^{}|]*?)\s*(?:\|([^{}]*))?\}/g,
    (_, path: string, fallback?: string) => {
      const v = lookup(data, path);
      if (v || fallback != null) return v || fallback!;
      ok = false;
      return '';
    },
  );
  return ok ? out : null;
}
