/**
 * Which column of a CSV an enrichment job reads, and as what: the rule `svc enrich`, the console upload
 * and the console's column picker share. In the neutral core: the server's job and the console bundle
 * read the same rule.
 */

export const norm = (s: string) => s.trim().toLowerCase();

/** Index of `name` in the header: matched exactly, else ignoring case and surrounding spaces; -1 when absent. */
export function findColumn(header: readonly string[], name: string): number {
  const exact = header.indexOf(name);
  return exact >= 0 ? exact : header.findIndex((h) => norm(h) === norm(name));
}

/** The column read when none is named: `email`, else `domain`; -1 when the header has neither. */
export function defaultColumn(header: readonly string[]): number {
  const email = findColumn(header, 'email');
  return email >= 0 ? email : findColumn(header, 'domain');
}

/** A column whose name says domain or website holds domains; any other holds emails. */
export const kindOfColumn = (name: string): 'email' | 'domain' => (/domain|website/i.test(name) ? 'domain' : 'email');
