/** How catalog keys are normalised, the same way when building and when looking up. */

/**
 * The rules as regular expressions: the definition. The exported functions below compute the same with
 * string searches (keys.test.ts checks them against these on random input). Why: `data build` keys 5.6
 * million people and 1.3 million domains, and five regex replaces per key cost ≈ 1 µs — about 4 s of a
 * million-company build; the searches cost a fifth of that.
 */
export function linkedinKeyByRegex(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
}

export function normaliseDomainByRegex(d: string): string {
  return d
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[/?#].*$/, '')
    .replace(/\.$/, '');
}

/** `.` in the rules does not match these, so a key holding one takes the regex path. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/** s without a leading `http://` or `https://`, then without a leading `www.`. */
function stripSchemeAndWww(s: string): string {
  if (s.startsWith('http://')) s = s.slice(7);
  else if (s.startsWith('https://')) s = s.slice(8);
  return s.startsWith('www.') ? s.slice(4) : s;
}

/** Index of the first of the characters `a` / `b` / `c` in s, or s.length. */
function cut(s: string, a: string, b: string, c?: string): number {
  let end = s.length;
  const i = s.indexOf(a);
  if (i >= 0) end = i;
  const j = s.indexOf(b);
  if (j >= 0 && j < end) end = j;
  if (c !== undefined) {
    const k = s.indexOf(c);
    if (k >= 0 && k < end) end = k;
  }
  return end;
}

/** Profile URLs compare without scheme, `www.`, trailing slash, query or case. */
export function linkedinKey(url: string): string {
  const s = stripSchemeAndWww(url.trim().toLowerCase());
  if (LINE_TERMINATOR.test(s)) return linkedinKeyByRegex(url);
  let end = cut(s, '?', '#');
  while (end > 0 && s.charCodeAt(end - 1) === 47) end--; // '/'
  return end === s.length ? s : s.slice(0, end);
}

/** Domains compare without scheme, `www.`, path or case. */
export function normaliseDomain(d: string): string {
  const s = stripSchemeAndWww(d.trim().toLowerCase());
  if (LINE_TERMINATOR.test(s)) return normaliseDomainByRegex(d);
  let end = cut(s, '/', '?', '#');
  if (end > 0 && s.charCodeAt(end - 1) === 46) end--; // one trailing '.'
  return end === s.length ? s : s.slice(0, end);
}
