import type { CompanyRow } from '../../core/catalog-records.ts';
import type { NetworkRecord } from '../../data/build/network-record.ts';
import type { Catalog } from './catalog.ts';

/**
 * The company behind a network, the one rule both tag routes (a lookup, a page view) and every other
 * reader of an address use: a `company` network's catalog row; an ISP, hosting or bot network, a network
 * without a company id, and no network at all are anonymous (null).
 */
export function networkCompany(network: NetworkRecord | null, catalog: Catalog): CompanyRow | null {
  return network?.kind === 'company' && network.company_id ? catalog.company(network.company_id) : null;
}
