/** `importSources` on MaxMind's test databases with the firmographics fixture: the files it writes and its report. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow, NetworkRow } from '../sources/schema.ts';
import { importSources } from './import.ts';
import { parseIPv4 } from './ipv4.ts';
import { coverageOfSources, CoverageReport, IMPORT_REPORT_FILE } from './report.ts';
import { FIRMOGRAPHICS_FIXTURE, MAXMIND_TEST_DB } from './test-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const csv = <T>(file: string): T[] => parse(readFileSync(file, 'utf8'), { columns: true }) as T[];
/** The networks.csv row whose network contains `ip`. */
function rowFor(rows: NetworkRow[], ip: string): NetworkRow | undefined {
  const a = parseIPv4(ip)!;
  return rows.find((r) => {
    const [base, prefix] = r.network.includes('/') ? r.network.split('/') : [r.network.split('-')[0], ''];
    const first = parseIPv4(base)!;
    const last = prefix ? first + 2 ** (32 - Number(prefix)) - 1 : parseIPv4(r.network.split('-')[1])!;
    return first <= a && a <= last;
  });
}

describe('data import: every MaxMind source, the City db and the firmographics fixture', () => {
  const out = join(dir, 'all');
  let report: CoverageReport;
  let networks: NetworkRow[];
  let companies: CompanyRow[];
  beforeAll(async () => {
    report = await importSources({
      out,
      geoip2Enterprise: MAXMIND_TEST_DB.enterprise,
      geoip2Isp: MAXMIND_TEST_DB.isp,
      geoip2Domain: MAXMIND_TEST_DB.domain,
      asnMmdb: MAXMIND_TEST_DB.asn,
      city: MAXMIND_TEST_DB.city,
      firmographics: FIRMOGRAPHICS_FIXTURE,
    });
    networks = csv<NetworkRow>(join(out, 'networks.csv'));
    companies = csv<CompanyRow>(join(out, 'companies.csv'));
  });

  it('company networks join by domain (+name) or by name, with the confidence of the rule and the network geo', () => {
    expect(rowFor(networks, '214.78.0.5')).toEqual({ network: '214.78.0.0/23', kind: 'company', company_id: 'health.mil', confidence: 'Very High', country: 'United States', state: 'California', city: 'San Diego' });
    expect(rowFor(networks, '216.160.83.60')).toMatchObject({ kind: 'company', company_id: 'lariatsoftware.com', confidence: 'Moderate', city: 'Milton' });
    expect(rowFor(networks, '89.160.20.115')).toMatchObject({ kind: 'company', company_id: 'bevtec.se', confidence: 'Moderate', country: 'Sweden' });
  });

  it('user_type gives the other kinds, even under more specific ISP / ASN networks that know no kind', () => {
    expect(rowFor(networks, '74.209.24.1')).toMatchObject({ kind: 'isp', company_id: '', confidence: 'High', city: 'Chatham' });
    expect(rowFor(networks, '67.43.156.7')).toMatchObject({ kind: 'bot' });
    expect(rowFor(networks, '214.214.214.221')).toMatchObject({ kind: 'hosting' });
  });

  it('networks without a kind and without a company are not written (ISP / ASN organizations nobody supplied firmographics for)', () => {
    expect(rowFor(networks, '1.0.0.1')).toBeUndefined(); // GeoLite2-ASN: Google Inc., no firmographics
    expect(rowFor(networks, '81.2.69.170')).toBeUndefined(); // government, but only a reverse-DNS domain
  });

  it('writes every firmographics company (one per domain) in our companies.csv format', () => {
    expect(companies.map((c) => c.company_id)).toEqual(['health.mil', 'bevtec.se', 'lariatsoftware.com', 'northwind.example']);
    expect(companies[0]).toMatchObject({ name: 'U.S. Department of Defense', domain: 'health.mil', industry: 'Government', employee_count: '700000' });
  });

  it('reports networks and addresses by kind, joins per rule, firmographics share and the top unmatched organizations', () => {
    expect(report.by_kind.company).toEqual({ networks: 3, addresses: 512 + 16 + 8 });
    expect(report.by_kind.bot.addresses).toBe(256);
    expect(report.joins['domain+name']).toEqual({ networks: 1, addresses: 512 });
    expect(report.joins.name).toEqual({ networks: 2, addresses: 24 });
    expect(report.company_addresses).toEqual({ total: 536, with_firmographics: 536, share: 1 });
    expect(report.companies).toEqual({ total: 4, with_firmographics: 4, with_networks: 3 });
    expect(report.unmatched_organizations.length).toBeLessThanOrEqual(20);
    expect(report.unmatched_organizations[0]).toMatchObject({ organization: 'DoD Network Information Center' });
    expect(report.joins.unmatched.addresses).toBeGreaterThan(0);
    const sorted = report.unmatched_organizations.map((u) => u.addresses);
    expect(sorted).toEqual([...sorted].sort((a, b) => b - a));
    expect(report.sources['geoip2-enterprise'].networks).toBeGreaterThan(20);
    expect(JSON.parse(readFileSync(join(out, IMPORT_REPORT_FILE), 'utf8'))).toEqual(report);
  });

  it('data build --report recomputes the same figures from the sources folder', async () => {
    const again = await coverageOfSources(out);
    expect(again.by_kind).toEqual(report.by_kind);
    expect(again.company_addresses).toEqual(report.company_addresses);
    expect(again.unmatched_organizations).toEqual(report.unmatched_organizations);
  });
});

describe('data import: precedence, fallbacks and the mapping file', () => {
  it('ASN CSV ranges are the fallback: joined by name, geo from the City db; a more specific network wins, then the higher-priority source', async () => {
    const out = join(dir, 'asn');
    const asn = join(dir, 'ranges.csv');
    writeFileSync(
      asn,
      [
        'start,end,asn,organization',
        '81.2.69.128,81.2.69.191,64500,"Northwind Analytics, Inc."', // Enterprise's /27 inside it is more specific, but joins nothing
        '214.78.0.0,214.78.1.255,64501,Northwind Analytics', // the same network as Enterprise's: Enterprise wins
        '74.209.24.0,74.209.24.127,64502,Northwind Analytics', // more specific than Enterprise's /20: wins
      ].join('\n') + '\n',
    );
    const report = await importSources({ out, geoip2Enterprise: MAXMIND_TEST_DB.enterprise, asnCsv: asn, city: MAXMIND_TEST_DB.city, firmographics: FIRMOGRAPHICS_FIXTURE });
    const rows = csv<NetworkRow>(join(out, 'networks.csv'));
    expect(rowFor(rows, '81.2.69.144')).toMatchObject({ kind: 'company', company_id: 'northwind.example', confidence: 'Moderate', country: 'United Kingdom', city: 'London' });
    // Enterprise's STONEHOUSE /27 (government, only a reverse-DNS domain) can say nothing, so the range beneath shows through.
    expect(rowFor(rows, '81.2.69.170')).toMatchObject({ kind: 'company', company_id: 'northwind.example' });
    expect(report.unmatched_organizations.map((u) => u.organization)).not.toContain('STONEHOUSE office network');
    expect(rowFor(rows, '214.78.0.5')).toMatchObject({ company_id: 'health.mil' });
    expect(rowFor(rows, '74.209.24.5')).toMatchObject({ kind: 'company', company_id: 'northwind.example' });
    expect(rowFor(rows, '74.209.24.200')).toMatchObject({ kind: 'isp' });
    expect(report.sources['asn-csv']).toEqual({ file: asn, networks: 3 });
  });

  it('a network without a user_type joins through the Domain db only to a firmographics company, never to a made-up one', async () => {
    const asn = join(dir, 'verizon.csv');
    writeFileSync(asn, '71.160.223.0,71.160.223.255,701,Verizon Online\n');
    const without = join(dir, 'verizon-without');
    const report = await importSources({ out: without, asnCsv: asn, geoip2Domain: MAXMIND_TEST_DB.domain, firmographics: FIRMOGRAPHICS_FIXTURE });
    expect(csv<NetworkRow>(join(without, 'networks.csv'))).toEqual([]);
    expect(report.unmatched_organizations).toEqual([{ organization: 'Verizon Online', domain: 'verizon.net', user_type: '', networks: 1, addresses: 256 }]);

    const firmographics = join(dir, 'with-verizon.csv');
    writeFileSync(firmographics, 'domain,name,industry\nverizon.net,Verizon Communications Inc.,Telecommunications\n');
    const withIt = join(dir, 'verizon-with');
    await importSources({ out: withIt, asnCsv: asn, geoip2Domain: MAXMIND_TEST_DB.domain, firmographics });
    expect(csv<NetworkRow>(join(withIt, 'networks.csv'))).toEqual([
      { network: '71.160.223.0/24', kind: 'company', company_id: 'verizon.net', confidence: 'High', country: '', state: '', city: '' },
    ]);
  });

  it('the mapping file overrides the user_type table', async () => {
    const out = join(dir, 'mapped');
    const mapping = join(dir, 'mapping.json');
    writeFileSync(mapping, JSON.stringify({ user_type: { military: 'isp', search_engine_spider: null, residential: 'company' } }));
    await importSources({ out, geoip2Enterprise: MAXMIND_TEST_DB.enterprise, firmographics: FIRMOGRAPHICS_FIXTURE, mapping });
    const rows = csv<NetworkRow>(join(out, 'networks.csv'));
    expect(rowFor(rows, '214.78.0.5')).toMatchObject({ kind: 'isp', company_id: '' });
    expect(rowFor(rows, '67.43.156.7')).toBeUndefined();
    // residential → company: Fairpoint's own domain makes a company with no firmographics (Low).
    expect(rowFor(rows, '74.209.24.1')).toMatchObject({ kind: 'company', company_id: 'frpt.net', confidence: 'Low' });
    expect(csv<CompanyRow>(join(out, 'companies.csv')).find((c) => c.domain === 'frpt.net')).toMatchObject({ name: 'Fairpoint Communications', industry: '' });
  });

  it('a bad mapping file, a missing network source, a missing file: clear errors', async () => {
    const mapping = join(dir, 'bad-mapping.json');
    writeFileSync(mapping, JSON.stringify({ user_type: { business: 'Company!' } }));
    await expect(importSources({ out: join(dir, 'x'), geoip2Enterprise: MAXMIND_TEST_DB.enterprise, mapping })).rejects.toThrow(/--mapping .*user_type\.business: a kind is a lower-case word/);
    await expect(importSources({ out: join(dir, 'x'), city: MAXMIND_TEST_DB.city })).rejects.toThrow(/at least one network source/);
    await expect(importSources({ out: join(dir, 'x'), asnMmdb: join(dir, 'nope.mmdb') })).rejects.toThrow(/--asn-mmdb .*nope\.mmdb/);
  });
});
