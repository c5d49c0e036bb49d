/**
 * Matching accounts to CRM records by domain (pure): what svc's catalog, HubSpot's `domain` property and
 * Salesforce's `Website` hold is brought to one host name — scheme, `www.`, port, path, query, a trailing
 * dot and case dropped — so `https://WWW.Acme.com/about` and `acme.com` match.
 */

// A host name of letters, digits and hyphens in labels of 1–63 characters, with a dot and a letter TLD.
const HOST = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** The host name a website or domain text names, or null when it is not a valid host name. */
export function normaliseDomain(text: string | null | undefined): string | null {
  if (!text) return null;
  let s = text.trim().toLowerCase();
  if (s === '') return null;
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  s = s.replace(/^[^/?#@]*@/, ''); // user info
  const end = s.search(/[/?#]/);
  if (end !== -1) s = s.slice(0, end);
  s = s.replace(/:\d*$/, '').replace(/\.$/, '');
  if (s.startsWith('www.')) s = s.slice(4);
  return HOST.test(s) ? s : null;
}
