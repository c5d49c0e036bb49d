import { describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { NetworkRecord } from '../../data/build/network-record.ts';
import { ACME_SOFTWARE } from '../testing/fixtures.ts';
import { networkVisitor } from './network-company.ts';

const catalog = { company: (id: string): CompanyRow | null => (id === ACME_SOFTWARE.company_id ? ACME_SOFTWARE : null) };
const net = (over: Partial<NetworkRecord>): NetworkRecord => ({ kind: 'isp', confidence: 'High', ...over });

describe('why a visitor is not a company (networkVisitor), as a tag lookup would answer', () => {
  it('a company network’s catalog company is a Match', () => {
    expect(networkVisitor(net({ kind: 'company', company_id: ACME_SOFTWARE.company_id }), catalog, false)).toEqual({
      company: ACME_SOFTWARE,
      unidentified_reason: null,
    });
  });

  it('names the network kind, the privacy reason before the kind, a bot user agent before everything', () => {
    const reason = (network: NetworkRecord | null, bot = false) => networkVisitor(network, catalog, bot).unidentified_reason;
    expect(reason(net({ kind: 'isp' }))).toBe('isp');
    expect(reason(net({ kind: 'hosting' }))).toBe('hosting');
    expect(reason(net({ kind: 'bot' }))).toBe('bot');
    expect(reason(net({ kind: 'hosting', privacy: 'vpn' }))).toBe('vpn');
    expect(reason(net({ kind: 'isp', privacy: 'proxy' }))).toBe('proxy');
    expect(reason(net({ kind: 'isp', privacy: 'tor' }))).toBe('tor');
    expect(reason(net({ kind: 'hosting', privacy: 'relay' }))).toBe('relay');
    expect(reason(net({ kind: 'anonymizer', privacy: 'hosting' }))).toBe('hosting');
    // A company range serving as a VPN exit hides its visitor (identify.ts answers Non-actionable Match).
    expect(networkVisitor(net({ kind: 'company', company_id: ACME_SOFTWARE.company_id, privacy: 'vpn' }), catalog, false)).toEqual({
      company: null,
      unidentified_reason: 'vpn',
    });
    expect(reason(net({ kind: 'company', company_id: ACME_SOFTWARE.company_id }), true)).toBe('bot');
    expect(reason(null, true)).toBe('bot');
  });

  it('no network, or no company data for it, is no_data; another kind is other', () => {
    expect(networkVisitor(null, catalog, false)).toEqual({ company: null, unidentified_reason: 'no_data' });
    expect(networkVisitor(net({ kind: 'company', company_id: '424242' }), catalog, false).unidentified_reason).toBe('no_data');
    expect(networkVisitor(net({ kind: 'company' }), catalog, false).unidentified_reason).toBe('no_data');
    expect(networkVisitor(net({ kind: 'education' }), catalog, false).unidentified_reason).toBe('other');
  });
});
