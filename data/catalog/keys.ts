/** How catalog keys are normalised, the same way when building and when looking up. */

/** Profile URLs compare without scheme, `www.`, trailing slash, query or case. */
export function linkedinKey(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
}

/** Domains compare without scheme, `www.`, path or case. */
export function normaliseDomain(d: string): string {
  return d.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/^www\./, '').replace(/[/?#].*$/, '').replace(/\.$/, '');
}
