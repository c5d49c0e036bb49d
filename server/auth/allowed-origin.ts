/**
 * Allowed-domain checks for tags and browser-used identification tokens.
 * An entry is an exact host (`www.example.com`, `localhost`, `127.0.0.1`) or `*.example.com` for any
 * subdomain (not the apex: list `example.com` too if the apex serves pages). Ports and schemes are ignored;
 * hosts compare case-insensitively.
 */
import { BoundedCache } from '../cache/bounded-cache.ts';

/** The page host a browser request comes from: its Origin, else its Referer; null when neither is usable. */
export function requestHost(origin: string | undefined, referer: string | undefined): string | null {
  for (const candidate of [origin, referer]) {
    if (!candidate || candidate === 'null') continue;
    const host = hostOf(candidate);
    if (host) return host;
  }
  return null;
}

/**
 * Every tag lookup parses its Origin (a URL parse); a site sends the same few origins all day, so their
 * hosts are remembered (bounded: cleared when full, so distinct junk headers cannot grow memory). With the
 * normalised lists below, tag authentication fell from 3–5% to ~2.7% of a tag lookup's CPU (--cpu-prof
 * under the identification benchmark's tag mode; the origin check itself to 0.5%).
 */
const hosts = new BoundedCache<string, string>(10_000);

function hostOf(candidate: string): string {
  let host = hosts.get(candidate);
  if (host === undefined) {
    try {
      host = new URL(candidate).hostname.toLowerCase().replace(/^\[|\]$/g, '');
    } catch {
      // An unparsable header identifies no page: try the next one.
      host = '';
    }
    // Referers carry paths and queries (unbounded variety): only short candidates are remembered.
    if (candidate.length <= 256) hosts.set(candidate, host);
  }
  return host;
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
  // An IPv6 literal (`::1`, `[::1]`): compared as hostOf gives a page's host, without brackets.
  if (/^\[?[0-9a-f:.]+\]?$/.test(d) && d.split(':').length > 2) return d.replace(/^\[|\]$/g, '');
  d = d
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '')
    .replace(/\.$/, '');
  return wildcard ? '*.' + d : d;
}

/**
 * Allowed-domain lists normalised once per list: records come from the auth cache, frozen, so a list
 * is the same array on every request until its record changes (then it is a new array).
 */
const normalised = new WeakMap<readonly string[], string[]>();

function normalisedList(allowed: readonly string[]): string[] {
  let list = normalised.get(allowed);
  if (list === undefined) {
    list = allowed.map(normaliseAllowedDomain);
    if (Object.isFrozen(allowed)) normalised.set(allowed, list);
  }
  return list;
}

/**
 * Verdicts per (frozen list, host): a tag's page sends the same few hosts all day. Why: lower-casing,
 * a regex and a closure over the list on every tag lookup were ~0.5% of its CPU (--cpu-prof under
 * `npm run bench -- identification`, tag mode); a hit is two map reads. Bounded per list.
 */
const verdicts = new WeakMap<readonly string[], BoundedCache<string, boolean>>();

export function isHostAllowed(host: string | null, allowed: readonly string[]): boolean {
  if (!host) return false;
  if (!Object.isFrozen(allowed)) return checkHost(host, allowed);
  let byHost = verdicts.get(allowed);
  if (byHost === undefined) verdicts.set(allowed, (byHost = new BoundedCache(1_000)));
  return byHost.get(host) ?? byHost.set(host, checkHost(host, allowed));
}

function checkHost(host: string, allowed: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return normalisedList(allowed).some((entry) => {
    if (entry.startsWith('*.')) {
      const base = entry.slice(2);
      return h.endsWith('.' + base) && h.length > base.length + 1;
    }
    return h === entry;
  });
}
