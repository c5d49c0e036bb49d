/**
 * Field mapping of MaxMind's databases to what the import uses (docs/data.md's "Bring your own data" tables
 * repeat it). Records are typed loosely on purpose: every field is optional in MaxMind's data.
 *
 *   GeoIP2 Enterprise   traits.organization (else traits.autonomous_system_organization) → organization
 *                       traits.user_type → kind (./user-type.ts), traits.domain → domain
 *                       country.names.en, subdivisions[0].names.en, city.names.en → geo
 *   GeoIP2 ISP          organization (else autonomous_system_organization) → organization (no user_type)
 *   GeoIP2 Domain       domain → domain
 *   GeoLite2 ASN        autonomous_system_organization → organization
 *   GeoIP2/GeoLite2 City  country.names.en, subdivisions[0].names.en, city.names.en → geo
 *   GeoIP2 Anonymous IP   the first flag set, in this order → privacy (`privacyOf`):
 *                       is_tor_exit_node → tor, is_anonymous_vpn → vpn, is_public_proxy → proxy,
 *                       is_residential_proxy → proxy, is_hosting_provider → hosting, is_anonymous alone → proxy
 */
import type { PrivacyReason } from '../../core/vocabulary.ts';

export interface Geo {
  country: string;
  state: string;
  city: string;
}

/** What a network source says about one network. */
export interface NetworkFacts {
  organization: string;
  userType: string;
  domain: string;
  geo: Geo | null;
}

type Named = { names?: Record<string, string> } | undefined;

interface GeoRecord {
  country?: Named;
  subdivisions?: Named[];
  city?: Named;
}

export interface EnterpriseRecord extends GeoRecord {
  traits?: { organization?: string; autonomous_system_organization?: string; user_type?: string; domain?: string };
}
export interface IspRecord {
  organization?: string;
  autonomous_system_organization?: string;
}
export interface DomainRecord {
  domain?: string;
}
export interface AsnRecord {
  autonomous_system_number?: number;
  autonomous_system_organization?: string;
}
export type CityRecord = GeoRecord;
export interface AnonymousIpRecord {
  is_anonymous?: boolean;
  is_anonymous_vpn?: boolean;
  is_hosting_provider?: boolean;
  is_public_proxy?: boolean;
  is_residential_proxy?: boolean;
  is_tor_exit_node?: boolean;
}

/** Database types each flag accepts (the file's metadata `database_type`). */
export const DATABASE_TYPES = {
  'geoip2-enterprise': /Enterprise/,
  'geoip2-isp': /ISP/,
  'geoip2-domain': /Domain/,
  'asn-mmdb': /ASN/,
  city: /City|Enterprise/,
  'anonymous-ip': /Anonymous-IP|Anonymous-Plus/,
} as const;

const en = (n: Named): string => n?.names?.en ?? '';

export function geoOf(r: GeoRecord): Geo | null {
  const geo = { country: en(r.country), state: en(r.subdivisions?.[0]), city: en(r.city) };
  return geo.country || geo.state || geo.city ? geo : null;
}

export function enterpriseFacts(r: EnterpriseRecord): NetworkFacts {
  const t = r.traits ?? {};
  return { organization: t.organization ?? t.autonomous_system_organization ?? '', userType: t.user_type ?? '', domain: t.domain ?? '', geo: geoOf(r) };
}

export function ispFacts(r: IspRecord): NetworkFacts {
  return { organization: r.organization ?? r.autonomous_system_organization ?? '', userType: '', domain: '', geo: null };
}

export function asnFacts(r: AsnRecord): NetworkFacts {
  return { organization: r.autonomous_system_organization ?? '', userType: '', domain: '', geo: null };
}

/**
 * One reason per network, the most telling first: a network MaxMind flags several ways (a Tor exit on a
 * VPN provider's hosting range) answers by the flag that says most about the visitor. A residential proxy
 * is a `proxy`: the visitor borrows a subscriber's address, so that subscriber says nothing about them.
 * `is_anonymous` without another flag (an anonymiser of no stated type) is a `proxy` too. MaxMind has no
 * flag for privacy relays (iCloud Private Relay): `relay` comes from networks.csv, not from this database.
 */
export function privacyOf(r: AnonymousIpRecord): PrivacyReason | null {
  if (r.is_tor_exit_node) return 'tor';
  if (r.is_anonymous_vpn) return 'vpn';
  if (r.is_public_proxy || r.is_residential_proxy) return 'proxy';
  if (r.is_hosting_provider) return 'hosting';
  if (r.is_anonymous) return 'proxy';
  return null;
}
