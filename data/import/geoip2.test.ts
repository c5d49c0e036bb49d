import { readFileSync } from 'node:fs';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { type AsnRecord, asnFacts, type CityRecord, type EnterpriseRecord, enterpriseFacts, geoOf, type IspRecord, ispFacts } from './geoip2.ts';
import { MAXMIND_TEST_DB } from './test-data.ts';

const open = <T extends object>(file: string) => new Reader<T>(readFileSync(file));

describe('GeoIP2 / GeoLite2 field mapping on MaxMind test databases', () => {
  it('Enterprise: organization, user_type, domain and geo', () => {
    const db = open<EnterpriseRecord>(MAXMIND_TEST_DB.enterprise);
    expect(enterpriseFacts(db.get('214.78.0.5')!)).toEqual({
      organization: 'US Department of Defense',
      userType: 'military',
      domain: 'health.mil',
      geo: { country: 'United States', state: 'California', city: 'San Diego' },
    });
    expect(enterpriseFacts(db.get('74.209.24.1')!)).toMatchObject({ organization: 'Fairpoint Communications', userType: 'residential', domain: 'frpt.net' });
    expect(enterpriseFacts(db.get('67.43.156.1')!)).toMatchObject({ userType: 'search_engine_spider', geo: { country: 'Bhutan', state: '', city: '' } });
    // No organization, no user_type: empty facts, not a crash.
    expect(enterpriseFacts(db.get('2.125.160.216')!)).toMatchObject({ organization: '', userType: '', domain: '' });
  });

  it('ISP: organization (no user_type, no domain)', () => {
    const db = open<IspRecord>(MAXMIND_TEST_DB.isp);
    expect(ispFacts(db.get('1.128.0.1')!)).toEqual({ organization: 'Telstra Internet', userType: '', domain: '', geo: null });
  });

  it('GeoLite2 ASN: autonomous_system_organization', () => {
    const db = open<AsnRecord>(MAXMIND_TEST_DB.asn);
    expect(asnFacts(db.get('1.0.0.1')!)).toEqual({ organization: 'Google Inc.', userType: '', domain: '', geo: null });
  });

  it('City: English names of country, first subdivision and city', () => {
    const db = open<CityRecord>(MAXMIND_TEST_DB.city);
    expect(geoOf(db.get('81.2.69.160')!)).toEqual({ country: 'United Kingdom', state: 'England', city: 'London' });
    expect(geoOf({})).toBeNull();
  });
});
