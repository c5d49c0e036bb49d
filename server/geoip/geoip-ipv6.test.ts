/** IPv6 visitors and SVC_GEOIP_DB: answered from an IPv6 database, never from an IPv4-only one. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REFERENCE_DIR } from '../../data/mmdb/test-support.ts';
import { MmdbWriter } from '../../data/mmdb/writer.ts';
import { openGeoIp } from './geoip.ts';

const CITY_DB = `${REFERENCE_DIR}test-data/GeoIP2-City-Test.mmdb`;
const dir = mkdtempSync(join(tmpdir(), 'geoip-v4-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('answers an IPv6 visitor from an IPv6 City database', () => {
  expect(openGeoIp(CITY_DB).lookup('2001:218::1')).toMatchObject({ country: 'Japan' });
});

it('answers no IPv6 visitor from an IPv4-only database (whose first 32 bits would read as an IPv4 address)', () => {
  const w = new MmdbWriter({ ipVersion: 4, databaseType: 'GeoLite2-City', description: { en: 't' }, languages: ['en'] });
  w.insert('32.0.0.0/8', { country: { names: { en: 'Nowhere' } } }); // 2001:db8:: read as IPv4 is 32.1.13.184
  const file = join(dir, 'v4.mmdb');
  writeFileSync(file, w.toBuffer());
  const geo = openGeoIp(file);
  expect(geo.lookup('32.1.13.184')).toEqual({ country: 'Nowhere', state: '', city: '' });
  expect(geo.lookup('2001:db8::1')).toBeNull();
});
