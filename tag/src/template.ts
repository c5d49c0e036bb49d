/**
 * Text personalisation: `data-svc-text` holds a path (`company.name`), a path with a fallback
 * (`company.name|your team`) or a template with placeholders (`Hello {company.name|there}`).
 *
 * Paths walk the answer (`confidence`, `segments.names`, `scores.0.buying_stage`); a path that is not
 * found from the top is looked up in `company` (`name` = `company.name`). Lists are joined with ", ".
 * A placeholder whose value is blank (absent, null or "") uses its fallback (text after `|`, may be
 * empty); without a fallback the whole template renders as null, and the element keeps the text it had
 * in the HTML. Pure: no DOM. The caller assigns the result to textContent, never to innerHTML.
 */
import type { SvcData } from './types.ts';

export type Answer = SvcData | null | undefined;

/** The value at a dotted path (inherited members such as `constructor` are functions: `lookup` shows none). */
function walk(value: unknown, path: string): unknown {
  for (const key of path.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[key];
  return value;
}

/** The value at `path` from the top of the answer, else (absent or null there) from `company`. */
export const get = (data: Answer, path: string): unknown => walk(data, path) ?? walk(data?.company, path);

/** The display text of the value at `path`, or "" (absent, null, an object). */
export function lookup(data: Answer, path: string): string {
  const value = get(data, path);
  if (Array.isArray(value)) return value.join(', ');
  // Objects and functions (an inherited member such as `constructor`) have no display text.
  return value === Object(value) ? '' : '' + (value ?? '');
}

// What a placeholder without a value or a fallback renders: a NUL, which no answer's text holds (and the HTML
// parser turns into U+FFFD in attributes), so the template is known incomplete without a flag.
const MISSING = '\u0000';

/** Renders a `data-svc-text` value; null means "leave the element's default text". */
export function render(template: string, data: Answer): string | null {
  const text = (template.includes('{') ? template : '{' + template + '}').replace(
    /\{\s*([^{}|]*?)\s*(?:\|([^{}]*))?\}/g, // {path} or {path|fallback}
    (_, path: string, fallback?: string) => lookup(data, path) || (fallback ?? MISSING),
  );
  return text.includes(MISSING) ? null : text;
}
