/**
 * Allowed-domain checks for tags and browser-used identification tokens.
 * An entry is an exact host (`www.example.com`, `localhost`, `127.0.0.1`) or `*.example.com` for any
 * subdomain (not the apex: list `example.com` too if the apex serves pages). Ports and schemes are ignored;
 * hosts compare case-insensitively.
 */

/** The page host a browser request comes from: its Origin, else its Referer; null when neither is usable. */
export function requestHost(origin: string | undefined, referer: string | undefined): string | null {
  for (const candidate of [origin, referer]) {
    if (!candidate || candidate === 'null') continue;
    try {
      const host = new URL(candidate).hostname.toLowerCase();
      if (host) return host.replace(/^\[|\]$/g, '');
    } catch {
      // An unparsable header identifies no page: try the next one.
    }
  }
  return null;
}

export function normaliseAllowedDomain(entry: string): string {
  let d = entry.trim().toLowerCase();
  const wildcard = d.startsWith('*.');
  if (wildcard) d = d.slice(2);
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//.test(d)) d = new URL(d).hostname;
  } catch {
    // Not a URL: keep it as written.
  }
  d = d.replace(/[/?#].*$/, '').replace(/:\d+$/, '').replace(/\.$/, '');
  return wildcard ? '*.' + d : d;
}

export function isHostAllowed(host: string | null, allowed: readonly string[]): boolean {
  if (!host) return false;
  const h = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((raw) => {
    const entry = normaliseAllowedDomain(raw);
    if (entry.startsWith('*.')) {
      const base = entry.slice(2);
      return h.endsWith('.' + base) && h.length > base.length + 1;
    }
    return h === entry;
  });
}
