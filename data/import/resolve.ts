/**
 * Company resolution: which company a network belongs to, and how sure we are. Pure.
 *
 *   rule          when                                                           confidence
 *   domain+name   its domain is a firmographics company's, and the names agree   Very High
 *   domain        its domain is a firmographics company's                         High
 *   name          its normalised organization is exactly one firmographics
 *                 company's normalised name                                      Moderate
 *   domain-only   it has a domain no firmographics company has: a company is     Low
 *                 made from the domain (name = organization, else the domain)
 *   unmatched     none of these (no domain, name unknown or shared by several
 *                 companies): the network is not written and shows in the report
 *
 * Companies are keyed by domain (one company per domain). Reverse-DNS pseudo-domains (`*.arpa`) are no
 * company's domain and are ignored.
 */
import type { Confidence } from '../sources/schema.ts';
import type { FirmographicsRow } from './firmographics.ts';
import { normaliseOrganization } from './organization-name.ts';

export const JOIN_RULES = ['domain+name', 'domain', 'name', 'domain-only', 'unmatched'] as const;
export type JoinRule = (typeof JOIN_RULES)[number];

export const CONFIDENCE_BY_RULE: Record<Exclude<JoinRule, 'unmatched'>, Confidence> = {
  'domain+name': 'Very High',
  domain: 'High',
  name: 'Moderate',
  'domain-only': 'Low',
};

export interface FirmographicsIndex {
  byDomain: ReadonlyMap<string, FirmographicsRow>;
  /** Normalised name → the company, or null when several companies share it (never joined by name). */
  byName: ReadonlyMap<string, FirmographicsRow | null>;
}

export function indexFirmographics(rows: readonly FirmographicsRow[]): FirmographicsIndex {
  const byDomain = new Map<string, FirmographicsRow>();
  const byName = new Map<string, FirmographicsRow | null>();
  for (const r of rows) {
    byDomain.set(r.domain, r);
    const key = normaliseOrganization(r.name);
    if (key) byName.set(key, byName.has(key) ? null : r);
  }
  return { byDomain, byName };
}

export type Join =
  | { rule: 'domain+name' | 'domain' | 'name'; company: FirmographicsRow }
  | { rule: 'domain-only'; domain: string; name: string }
  | { rule: 'unmatched' };

export function usableDomain(domain: string): string {
  const d = domain.trim().toLowerCase().replace(/\.$/, '');
  return d === '' || d === 'arpa' || d.endsWith('.arpa') ? '' : d;
}

export function joinCompany(organization: string, rawDomain: string, index: FirmographicsIndex): Join {
  const domain = usableDomain(rawDomain);
  const name = normaliseOrganization(organization);
  const byDomain = domain ? index.byDomain.get(domain) : undefined;
  if (byDomain) return { rule: name !== '' && normaliseOrganization(byDomain.name) === name ? 'domain+name' : 'domain', company: byDomain };
  const byName = name ? index.byName.get(name) : undefined;
  if (byName) return { rule: 'name', company: byName };
  if (domain) return { rule: 'domain-only', domain, name: organization.trim() || domain };
  return { rule: 'unmatched' };
}
