/**
 * GeoIP from MaxMind's own test databases (../shared/reference/maxmind-db/test-data), unit and through a
 * real server: the geoIP_* fields come from the database, the network's own geo where it knows nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Reader } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_DIR } from '../../data/mmdb/test-support.ts';
import { createLogger } from '../observability/logger.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { IPS, startTestServer, type TestServer } from '../testing/test-server.ts';
import { openGeoIp, overlayGeo } from './geoip.ts';

const TEST_DATA = `${REFERENCE_DIR}test-data`;
const CITY_DB = `${TEST_DATA}/GeoIP2-City-Test.mmdb`;

describe('openGeoIp', () => {
  it('reads country, first subdivision and city from a City database', () => {
    expect(openGeoIp(CITY_DB).lookup('81.2.69.160')).toEqual({ country: 'United Kingdom', state: 'England', city: 'London' });
    expect(openGeoIp(CITY_DB).lookup('203.0.113.9')).toBeNull();
  });

  it('reads the country only from a Country database', () => {
    expect(openGeoIp(`${TEST_DATA}/GeoIP2-Country-Test.mmdb`).lookup('81.2.69.160')).toEqual({ country: 'United Kingdom', state: '', city: '' });
  });

  it('refuses a file that is not a City or Country database, naming it', () => {
    expect(() => openGeoIp(`${TEST_DATA}/GeoIP2-ISP-Test.mmdb`)).toThrow(/expected a GeoIP2\/GeoLite2 City or Country database/);
    expect(() => openGeoIp(`${TEST_DATA}/nope.mmdb`)).toThrow(/SVC_GEOIP_DB .*nope\.mmdb/);
  });
});

describe('overlayGeo', () => {
  const network = { geoIP_country: 'United States', geoIP_state: 'California', geoIP_city: 'San Francisco' };
  it('lets the database win and keeps the network for what it lacks in the same country', () => {
    expect(overlayGeo(network, { country: 'United States', state: 'Washington', city: '' }, '')).toEqual({
      geoIP_country: 'United States',
      geoIP_state: 'Washington',
      geoIP_city: 'San Francisco',
    });
  });
  it('never mixes a network city of another country into the database answer', () => {
    expect(overlayGeo(network, { country: 'Germany', state: '', city: '' }, null)).toEqual({ geoIP_country: 'Germany', geoIP_state: null, geoIP_city: null });
  });
  it('keeps the network geo when the database has no answer', () => {
    expect(overlayGeo(network, null, '')).toBe(network);
  });
});

describe('GET /v3/company/details with SVC_GEOIP_DB', () => {
  let srv: TestServer;
  let token: string;
  beforeAll(async () => {
    srv = await startTestServer({ env: { SVC_GEOIP_DB: CITY_DB } });
    token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' })).secret;
  });
  afterAll(() => srv?.close());
  const ask = async (ip: string) =>
    (await (await fetch(`${srv.url}/v3/company/details?ip=${ip}`, { headers: { authorization: `Token ${token}`, 'user-agent': BROWSER_UA } })).json()) as {
      company: Record<string, unknown>;
    };

  it('takes geoIP_* from the database for an address it knows', async () => {
    const { company } = await ask('81.2.69.160');
    expect(company).toMatchObject({ company_match: 'No Match', geoIP_country: 'United Kingdom', geoIP_state: 'England', geoIP_city: 'London' });
  });

  it("falls back to the network's own geo for an address it does not know", async () => {
    const { company } = await ask(IPS.northwind);
    expect(company).toMatchObject({ company_match: 'Match', geoIP_country: 'United States', geoIP_state: 'California', geoIP_city: 'San Francisco' });
  });
});

/** The City test database with the start of its data section overwritten: its lookups throw (garbage types, endless pointers). */
function corruptCityDb(dir: string): string {
  const bytes = Buffer.from(readFileSync(CITY_DB));
  const { nodeCount, recordSize } = new Reader(bytes).metadata;
  const dataStart = (nodeCount * recordSize * 2) / 8 + 16;
  bytes.fill(0xff, dataStart, dataStart + 4000);
  const file = join(dir, 'damaged-City.mmdb');
  writeFileSync(file, bytes);
  return file;
}

describe('a damaged SVC_GEOIP_DB', () => {
  let dir: string;
  let srv: TestServer;
  let logged = '';
  let token: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-geoip-'));
    const sink = new PassThrough();
    sink.on('data', (d: Buffer) => (logged += d.toString()));
    srv = await startTestServer({ env: { SVC_GEOIP_DB: corruptCityDb(dir) }, log: createLogger('error', { destination: sink }) });
    token = (await srv.store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' })).secret;
  });
  afterAll(async () => {
    await srv?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers as "not found" and reports once, without the address', () => {
    const errors: string[] = [];
    const geo = openGeoIp(corruptCityDb(dir), (m) => errors.push(m));
    expect(geo.lookup('81.2.69.160')).toBeNull();
    expect(geo.lookup('2.125.160.216')).toBeNull();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/damaged-City\.mmdb is damaged/);
    expect(errors[0]).not.toContain('81.2.69.160');
  });

  it("identifies with the network's own geo instead of a 500, and logs no visitor address", async () => {
    for (const ip of ['81.2.69.160', '2.125.160.216', IPS.northwind]) {
      const res = await fetch(`${srv.url}/v3/company/details?ip=${ip}`, { headers: { authorization: `Token ${token}`, 'user-agent': BROWSER_UA } });
      expect(res.status).toBe(200);
    }
    expect(logged).toMatch(/is damaged/);
    expect(logged).not.toContain('81.2.69.160');
  });
});
