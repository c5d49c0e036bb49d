import type { CompanyRow } from '../../core/catalog-records.ts';
import type { UnidentifiedReason } from '../../core/vocabulary.ts';
import type { NetworkRecord } from '../../data/build/network-record.ts';
import type { Catalog } from './catalog.ts';
import type { DataSnapshot } from './dataset.ts';

/**
 * The company behind a network, the one rule both tag routes (a lookup, a page view) and every other
 * reader of an address use: a `company` network's catalog row; an ISP, hosting or bot network, a network
 * without a company id, and no network at all are anonymous (null).
 */
export function networkCompany(network: NetworkRecord | null, catalog: Pick<Catalog, 'company'>): CompanyRow | null {
  return network?.kind === 'company' && network.company_id ? catalog.company(network.company_id) : null;
}

/** Who a page view is from: the company on a Match, else null and why (core/vocabulary.ts UNIDENTIFIED_REASONS). */
export type NetworkVisitor = { company: CompanyRow; unidentified_reason: null } | { company: null; unidentified_reason: UnidentifiedReason };

const KIND_REASONS: Readonly<Record<string, UnidentifiedReason>> = { isp: 'isp', hosting: 'hosting', bot: 'bot' };

/**
 * The visitor behind a network (null: the address is in none; `isBot`: a bot user agent), by the
 * identification's own rule (server/identification/identify.ts): a bot user agent, then no network, then
 * the network's privacy reason (a privacy network hides its users whatever its kind, a company range
 * serving as a VPN exit included), then its kind; a company network whose company the catalog lacks is
 * `no_data`, a network of another non-company kind `other`. So a page view counts as identified exactly
 * when a tag lookup from the same address would answer `Match`.
 */
export function networkVisitor(network: NetworkRecord | null, catalog: Pick<Catalog, 'company'>, isBot: boolean): NetworkVisitor {
  const anonymous = (reason: UnidentifiedReason): NetworkVisitor => ({ company: null, unidentified_reason: reason });
  if (isBot) return anonymous('bot');
  if (!network) return anonymous('no_data');
  if (network.privacy) return anonymous(network.privacy);
  const company = networkCompany(network, catalog);
  if (company) return { company, unidentified_reason: null };
  return anonymous(network.kind === 'company' ? 'no_data' : (KIND_REASONS[network.kind] ?? 'other'));
}

/** The visitor of an address (null: no usable address) in a data snapshot (`dataset.current`, taken once per request). */
export function visitorAt(snapshot: Pick<DataSnapshot, 'index' | 'catalog'>, ip: string | null, isBot: boolean): NetworkVisitor {
  return networkVisitor(ip ? snapshot.index.lookup(ip) : null, snapshot.catalog, isBot);
}
