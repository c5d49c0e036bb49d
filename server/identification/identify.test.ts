import { describe, expect, it } from 'vitest';
import { CustomerRecord } from '../../core/access-records.ts';
import { CustomerSeed } from '../../core/customer-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { COMMENTS, type IdentifyInput, identify } from './identify.ts';
import { IdentificationResponse } from './schema.ts';

const customer = CustomerRecord.parse({ ...CustomerSeed.parse(TEST_CUSTOMER), created_at: '2026-01-01T00:00:00Z' });
const now = new Date('2026-11-01T00:00:00Z');
const companyNet = { kind: 'company', company_id: '900001', confidence: 'Very High', country: 'United States', state: 'California', city: 'Oakland' };

function run(over: Partial<IdentifyInput>) {
  const out = identify({
    ip: '23.1.2.3',
    network: companyNet,
    company: ACME_SOFTWARE,
    signals: [],
    customer,
    settings: { scores: true, segment_names: true },
    isBot: false,
    now,
    ...over,
  });
  IdentificationResponse.parse(out); // every field of the spec's tables, with its type
  return out;
}

describe('identify', () => {
  it('answers Match with firmographics, geo of the network, segments and scores', () => {
    const out = run({ signals: [{ company_id: '900001', topic: 'customer data platform', strength: 80, observed_at: '2026-10-25' }] });
    expect(out.company.company_match).toBe('Match');
    expect(out.company.additional_comment).toBe(COMMENTS.match);
    expect(out.company).toMatchObject({ companyId: '900001', name: 'Northwind Analytics', geoIP_city: 'Oakland', is_svcqa: true, is_blacklisted: false });
    expect(out.company.industry_v2).toEqual([{ industry: 'Software', subindustry: 'Business Intelligence Software' }]);
    expect(out.segments).toEqual({ ids: [101], names: ['Enterprise Software'], list: [{ name: 'Enterprise Software', id: 101 }] });
    expect(out.confidence).toBe('Very High');
    expect(out.scores).toHaveLength(1);
    expect(out.scores[0]).toMatchObject({ product: 'cdp', product_display_name: 'Customer Data Platform', is_svcqa: true });
    expect(out.scores[0].intent_score).toBeGreaterThan(0);
  });

  it('leaves scores out unless enabled and hides segment names unless allowed', () => {
    const out = run({ settings: { scores: false, segment_names: false } });
    expect(out.scores).toEqual([]);
    expect(out.segments).toEqual({ ids: [101], names: [], list: [{ name: null, id: 101 }] });
  });

  it('answers null, never "", for a matched company\'s absent fields (null rule)', () => {
    const out = run({ company: { ...ACME_SOFTWARE, phone: '', state_code: '', subindustry: '', sic: '  ' }, network: { ...companyNet, state: '' } });
    expect(out.company).toMatchObject({ company_match: 'Match', phone: null, state_code: null, sic: null, geoIP_state: null, name: 'Northwind Analytics' });
    expect(out.company.industry_v2).toEqual([{ industry: 'Software', subindustry: null }]);
    expect(JSON.stringify(out)).not.toContain('""');
  });

  it('flags excluded accounts as blacklisted', () => {
    const out = run({ network: { ...companyNet, company_id: '900002' }, company: BLUEPEAK_MANUFACTURING });
    expect(out.company.is_blacklisted).toBe(true);
    expect(out.company.is_svcqa).toBe(false);
    expect(out.segments.ids).toEqual([102]);
  });

  it.each(['isp', 'hosting', 'bot'])('answers Non-actionable Match for a %s network, blank company, geo kept', (kind) => {
    const out = run({ network: { kind, confidence: 'High', country: 'Germany', state: '', city: 'Berlin' }, company: null });
    expect(out.company.company_match).toBe('Non-actionable Match');
    expect(out.company.additional_comment).toMatch(/^No valid B2B use case/);
    expect(out.company.name).toBeNull();
    expect(out.company.geoIP_city).toBe('Berlin');
    expect(out.scores).toEqual([]);
    expect(out.segments).toEqual({ ids: [], names: [], list: [] });
  });

  it.each([
    ['vpn', 'an anonymous VPN'],
    ['tor', 'a Tor exit node'],
    ['proxy', 'a public or residential proxy'],
    ['relay', 'a privacy relay (such as iCloud Private Relay)'],
    ['hosting', 'a hosting or cloud provider'],
  ] as const)('a %s network answers Non-actionable Match naming the reason, privacy set, even over a company network', (privacy, what) => {
    for (const network of [
      { kind: 'anonymizer', confidence: 'High', city: 'Berlin', privacy },
      { ...companyNet, privacy }, // a company range MaxMind flags: the visitor behind it is not the company
    ]) {
      const out = run({ network, company: network.kind === 'company' ? ACME_SOFTWARE : null });
      expect(out.company).toMatchObject({ company_match: 'Non-actionable Match', additional_comment: COMMENTS.nonActionable(what), privacy, companyId: null });
      expect(out.scores).toEqual([]);
      expect(Object.keys(out.company)).toEqual(Object.keys(IdentificationResponse.shape.company.shape));
    }
  });

  it('privacy: hosting for a hosting network, null for a Match, an ISP or No Match', () => {
    expect(run({ network: { kind: 'hosting', confidence: 'High' }, company: null }).company.privacy).toBe('hosting');
    expect(run({ network: { kind: 'isp', confidence: 'High' }, company: null }).company.privacy).toBeNull();
    expect(run({ network: null, company: null }).company.privacy).toBeNull();
    const match = run({});
    expect(match.company.privacy).toBeNull();
    expect(Object.keys(match.company)).toEqual(Object.keys(IdentificationResponse.shape.company.shape));
  });

  it('answers Non-actionable Match for a bot user agent even on a company network', () => {
    const out = run({ isBot: true });
    expect(out.company.company_match).toBe('Non-actionable Match');
    expect(out.company.additional_comment).toContain('bot');
    expect(out.company.companyId).toBeNull();
  });

  it('answers No Match with every company variable blank for an unknown or invalid address', () => {
    for (const over of [
      { network: null, company: null },
      { ip: null, network: null, company: null },
    ]) {
      const out = run(over);
      expect(out.company.company_match).toBe('No Match');
      expect(out.company.additional_comment).toBe(COMMENTS.noMatch);
      for (const [k, v] of Object.entries(out.company)) {
        if (k === 'company_match' || k === 'additional_comment') continue;
        expect(v === null || (Array.isArray(v) && v.length === 0), k).toBe(true);
      }
      expect(out.scores).toEqual([]);
    }
  });

  it('carries the name people say beside the legal name, null when there is no name', () => {
    expect(run({ company: { ...ACME_SOFTWARE, name: 'Northwind Analytics, Inc.' } }).company).toMatchObject({
      name: 'Northwind Analytics, Inc.',
      display_name: 'Northwind Analytics',
    });
    expect(run({ company: { ...ACME_SOFTWARE, name: 'Volkswagen GmbH & Co. KG' } }).company.display_name).toBe('Volkswagen');
    expect(run({}).company).toMatchObject({ name: 'Northwind Analytics', display_name: 'Northwind Analytics' });
    expect(run({ company: { ...ACME_SOFTWARE, name: '' } }).company).toMatchObject({ name: null, display_name: null });
    expect(run({ network: null, company: null }).company.display_name).toBeNull();
  });
});
