/** `importSources` on MaxMind's test databases with the firmographics fixture: the files it writes and its report. */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { Progress } from '../progress.ts';
import { MAX_FIELD_LENGTH } from '../sources/csv-records.ts';
import type { NetworkRow } from '../sources/schema.ts';
import { ImportError } from './errors.ts';
import { importSources } from './import.ts';
import { parseIPv4 } from './ipv4.ts';
import { parseIPv6 } from './ipv6.ts';
import { type CoverageReport, coverageOfSources, IMPORT_REPORT_FILE } from './report.ts';
import { FIRMOGRAPHICS_FIXTURE, MAXMIND_BAD_DB, MAXMIND_TEST_DB, withFirstIpv4Record } from './test-data.ts';

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
    expect(rowFor(networks, '214.78.0.5')).toEqual({
      network: '214.78.0.0/23',
      kind: 'company',
      company_id: 'health.mil',
      confidence: 'Very High',
      country: 'United States',
      state: 'California',
      city: 'San Diego',
      privacy: '',
    });
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
    // navy.mil: a military IPv6 network's own domain (no firmographics), as the IPv4 rules make one.
    expect(companies.map((c) => c.company_id)).toEqual(['health.mil', 'bevtec.se', 'lariatsoftware.com', 'northwind.example', 'navy.mil']);
    expect(companies[0]).toMatchObject({ name: 'U.S. Department of Defense', domain: 'health.mil', industry: 'Government', employee_count: '700000' });
  });

  it('reports networks and addresses by kind, joins per rule, firmographics share and the top unmatched organizations', () => {
    expect(report.by_kind.company).toEqual({ networks: 3, addresses: 512 + 16 + 8 });
    expect(report.by_kind.bot.addresses).toBe(256);
    expect(report.joins['domain+name']).toEqual({ networks: 1, addresses: 512 });
    expect(report.joins.name).toEqual({ networks: 2, addresses: 24 });
    expect(report.company_addresses).toEqual({ total: 536, with_firmographics: 536, share: 1 });
    expect(report.companies).toEqual({ total: 5, with_firmographics: 4, with_networks: 3 });
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

/** The networks.csv row whose IPv6 network contains `ip`. */
function rowFor6(rows: NetworkRow[], ip: string): NetworkRow | undefined {
  const a = parseIPv6(ip)!;
  return rows.find((r) => {
    if (!r.network.includes(':')) return false;
    if (r.network.includes('/')) {
      const [base, prefix] = r.network.split('/');
      const first = parseIPv6(base)!;
      return first <= a && a < first + (1n << BigInt(128 - Number(prefix)));
    }
    const [x, y] = r.network.split('-').map((t) => parseIPv6(t)!);
    return x <= a && a <= y;
  });
}

describe('data import: IPv6 networks of every source, with the IPv4 rules', () => {
  const out = join(dir, 'ipv6');
  let report: CoverageReport;
  let networks: NetworkRow[];
  beforeAll(async () => {
    const asn = join(dir, 'ranges6.csv');
    writeFileSync(
      asn,
      [
        'start,end,asn,organization',
        '2001:219:1::,2001:219:1::ffff,64500,Northwind Analytics', // inside Enterprise's /32: more specific, wins
        '2001:480:10::,2001:480:10:7fff:ffff:ffff:ffff:ffff,64501,Northwind Analytics', // Enterprise's /49 itself: Enterprise wins
        '2001:db8:5::,2001:db8:5:0:ffff:ffff:ffff:ffff,64502,Northwind Analytics', // nobody else's: ASN fallback, City geo where it has one
        '::ffff:1.2.3.0,::ffff:1.2.3.255,64503,Northwind Analytics', // IPv4-mapped: an IPv4 row
      ].join('\n') + '\n',
    );
    report = await importSources({
      out,
      geoip2Enterprise: MAXMIND_TEST_DB.enterprise,
      geoip2Isp: MAXMIND_TEST_DB.isp,
      geoip2Domain: MAXMIND_TEST_DB.domain,
      asnMmdb: MAXMIND_TEST_DB.asn,
      asnCsv: asn,
      city: MAXMIND_TEST_DB.city,
      firmographics: FIRMOGRAPHICS_FIXTURE,
    });
    networks = csv<NetworkRow>(join(out, 'networks.csv'));
  });

  it('Enterprise IPv6 networks join companies as IPv4 ones do (name, domain-only), with their geo', () => {
    expect(rowFor6(networks, '2001:219:ffff::1')).toEqual({
      network: '2001:219:1::1:0-2001:219:ffff:ffff:ffff:ffff:ffff:ffff',
      kind: 'company',
      company_id: 'bevtec.se',
      confidence: 'Moderate',
      country: 'Sweden',
      state: 'Östergötland County',
      city: 'Linköping',
      privacy: '',
    });
    expect(rowFor6(networks, '2001:220::')).toMatchObject({ network: '2001:220::/128', company_id: 'bevtec.se' });
    expect(rowFor6(networks, '2001:480:10::5')).toMatchObject({
      network: '2001:480:10::/49',
      kind: 'company',
      company_id: 'navy.mil',
      confidence: 'Low',
      city: 'San Diego',
    });
  });

  it('precedence: the more specific network wins whatever the source, then the higher-priority source; ASN ranges fill in', () => {
    expect(rowFor6(networks, '2001:219:1::5')).toMatchObject({ network: '2001:219:1::/112', company_id: 'northwind.example', confidence: 'Moderate' });
    expect(rowFor6(networks, '2001:219::1')).toMatchObject({ company_id: 'bevtec.se' });
    expect(rowFor6(networks, '2001:480:10::1')).toMatchObject({ company_id: 'navy.mil' });
    expect(rowFor6(networks, '2001:db8:5::1')).toMatchObject({ network: '2001:db8:5::/64', company_id: 'northwind.example' });
  });

  it('ISP and ASN organizations nobody has firmographics for are not written; nothing IPv4-in-IPv6 is an IPv6 row', () => {
    expect(rowFor6(networks, '2001:1700::1')).toBeUndefined(); // Sunrise Communications AG
    expect(networks.filter((r) => r.network.includes(':')).every((r) => !/^(::ffff:|2002:|::\d)/.test(r.network))).toBe(true);
    expect(
      rowFor(
        networks.filter((r) => !r.network.includes(':')),
        '1.2.3.4',
      ),
    ).toMatchObject({ company_id: 'northwind.example' });
  });

  it('the report counts IPv6 in /64 blocks: kinds, joins, unresolved and unmatched organizations; build --report agrees', async () => {
    expect(report.ipv6?.by_kind.company.networks).toBe(networks.filter((r) => r.network.includes(':')).length);
    expect(report.ipv6?.joins?.name.networks).toBeGreaterThan(0);
    expect(report.ipv6?.unresolved?.networks).toBeGreaterThan(0);
    expect(report.ipv6?.unmatched_organizations?.[0]).toMatchObject({ organization: 'Merit Network Inc.' });
    expect(report.ipv6?.companies_with_networks).toBe(3);
    expect(report.sources['geoip2-enterprise'].ipv6_networks).toBe(4);
    expect(report.sources['asn-csv']).toMatchObject({ networks: 4, ipv6_networks: 3 });
    const again = await coverageOfSources(out);
    expect(again.ipv6?.by_kind).toEqual(report.ipv6?.by_kind);
    expect(again.ipv6?.joins).toEqual(report.ipv6?.joins);
    expect(again.by_kind).toEqual(report.by_kind);
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
    const report = await importSources({
      out,
      geoip2Enterprise: MAXMIND_TEST_DB.enterprise,
      asnCsv: asn,
      city: MAXMIND_TEST_DB.city,
      firmographics: FIRMOGRAPHICS_FIXTURE,
    });
    const rows = csv<NetworkRow>(join(out, 'networks.csv'));
    expect(rowFor(rows, '81.2.69.144')).toMatchObject({
      kind: 'company',
      company_id: 'northwind.example',
      confidence: 'Moderate',
      country: 'United Kingdom',
      city: 'London',
    });
    // Enterprise's STONEHOUSE /27 (government, only a reverse-DNS domain) can say nothing, so the range beneath shows through.
    expect(rowFor(rows, '81.2.69.170')).toMatchObject({ kind: 'company', company_id: 'northwind.example' });
    expect(report.unmatched_organizations.map((u) => u.organization)).not.toContain('STONEHOUSE office network');
    expect(rowFor(rows, '214.78.0.5')).toMatchObject({ company_id: 'health.mil' });
    expect(rowFor(rows, '74.209.24.5')).toMatchObject({ kind: 'company', company_id: 'northwind.example' });
    expect(rowFor(rows, '74.209.24.200')).toMatchObject({ kind: 'isp' });
    expect(report.sources['asn-csv']).toEqual({ file: asn, networks: 3, ipv6_networks: 0 });
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
      { network: '71.160.223.0/24', kind: 'company', company_id: 'verizon.net', confidence: 'High', country: '', state: '', city: '', privacy: '' },
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
    await expect(importSources({ out: join(dir, 'x'), geoip2Enterprise: MAXMIND_TEST_DB.enterprise, mapping })).rejects.toThrow(
      /--mapping .*user_type\.business: a kind is a lower-case word/,
    );
    await expect(importSources({ out: join(dir, 'x'), city: MAXMIND_TEST_DB.city })).rejects.toThrow(/at least one network source/);
    await expect(importSources({ out: join(dir, 'x'), asnMmdb: join(dir, 'nope.mmdb') })).rejects.toThrow(/--asn-mmdb .*nope\.mmdb/);
  });
});

/** Every file of a folder with its content. */
const snapshot = (folder: string): Record<string, string> => Object.fromEntries(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f), 'utf8')]));
/** What the import left beside `out`: temp folders are hidden entries named after it. */
const leftovers = (out: string): string[] => readdirSync(join(out, '..')).filter((f) => f.startsWith('.'));

describe('data import: the output folder is replaced whole, or not at all', () => {
  const ranges = (name: string, lines: string[]): string => {
    const file = join(dir, name);
    writeFileSync(file, ['start,end,asn,organization', ...lines].join('\n') + '\n');
    return file;
  };
  const good = ['214.78.0.0,214.78.1.255,64501,Northwind Analytics'];
  /** A parent folder of its own, so leftovers are the import's. */
  const previous = async (name: string): Promise<{ out: string; before: Record<string, string> }> => {
    const out = join(dir, name, 'sources');
    await importSources({ out, asnCsv: ranges(`${name}.csv`, good), firmographics: FIRMOGRAPHICS_FIXTURE });
    return { out, before: snapshot(out) };
  };

  it('a failure while writing (a full disk, here a progress callback that throws) leaves the previous output untouched and no temp folder', async () => {
    const { out, before } = await previous('write-fails');
    expect(Object.keys(before).sort()).toEqual(['companies.csv', 'import-report.json', 'networks.csv']);
    let phase = '';
    const failing: Progress = {
      phase: (name) => void (phase = name),
      update: () => {
        if (phase === 'write') throw new Error('ENOSPC: no space left on device');
      },
      end: () => {},
    };
    // Other networks than before, so a half-written networks.csv would differ from the previous one.
    const other = ranges('write-fails-2.csv', ['74.209.24.0,74.209.24.127,64502,Northwind Analytics']);
    await expect(importSources({ out, asnCsv: other, firmographics: FIRMOGRAPHICS_FIXTURE, progress: failing })).rejects.toThrow(/ENOSPC/);
    expect(snapshot(out)).toEqual(before);
    expect(leftovers(out)).toEqual([]);
  });

  it('a bad row after good ones leaves the previous output untouched and no temp folder', async () => {
    const { out, before } = await previous('bad-row');
    const bad = ranges('bad-row-2.csv', [...good, '74.209.24.0,74.209.24.127,64502,Fine', '74.209.25.0,nowhere,64503,Broken']);
    await expect(importSources({ out, asnCsv: bad, firmographics: FIRMOGRAPHICS_FIXTURE })).rejects.toThrow(
      /--asn-csv .*bad-row-2\.csv: row 4: end: "nowhere"/,
    );
    expect(snapshot(out)).toEqual(before);
    expect(leftovers(out)).toEqual([]);
  });

  it('a complete import replaces the folder, keeps the files it does not write, and clears temp folders of killed imports', async () => {
    const { out } = await previous('replace');
    writeFileSync(join(out, 'people.csv'), 'person_id,company_id\n');
    writeFileSync(join(out, 'networks.csv'), 'stale\n');
    // pid 999999999 exceeds Linux's pid_max: never a live process.
    mkdirSync(join(out, '..', '.sources.import-999999999-0badc0de'));
    writeFileSync(join(out, '..', '.sources.import-999999999-0badc0de', 'networks.csv'), 'half\n');
    await importSources({ out, asnCsv: ranges('replace-2.csv', good), firmographics: FIRMOGRAPHICS_FIXTURE });
    expect(readFileSync(join(out, 'people.csv'), 'utf8')).toBe('person_id,company_id\n');
    expect(readFileSync(join(out, 'networks.csv'), 'utf8')).toMatch(/^network,kind,/);
    expect(leftovers(out)).toEqual([]);
  });

  it('an --out that is a file, the current folder or one above it is refused before any work', async () => {
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'x');
    await expect(importSources({ out: file, asnMmdb: MAXMIND_TEST_DB.asn })).rejects.toThrow(/--out .*not-a-folder: exists and is not a folder/);
    expect(readFileSync(file, 'utf8')).toBe('x');
    await expect(importSources({ out: '.', asnMmdb: MAXMIND_TEST_DB.asn })).rejects.toThrow(/--out \.: is the current folder or contains it/);
    await expect(importSources({ out: '..', asnMmdb: MAXMIND_TEST_DB.asn })).rejects.toThrow(/--out \.\.: is the current folder or contains it/);
  });
});

describe('data import: input limits and encodings', () => {
  it('a firmographics field of 2 MB: refused naming the file, the line and the limit; nothing written', async () => {
    const firmographics = join(dir, 'huge-field.csv');
    writeFileSync(firmographics, `domain,name,industry\nok.example,OK,Retail\nbig.example,"${'x'.repeat(2 * 1024 * 1024)}",Retail\n`);
    const out = join(dir, 'huge-field-out');
    await expect(importSources({ out, asnMmdb: MAXMIND_TEST_DB.asn, firmographics })).rejects.toThrow(
      new ImportError(`--firmographics ${firmographics}: line 3: field 2 longer than the limit of ${MAX_FIELD_LENGTH} characters`),
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a UTF-16 ASN CSV (with its BOM) is decoded', async () => {
    const asn = join(dir, 'utf16.csv');
    writeFileSync(
      asn,
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('start,end,asn,organization\r\n1.0.0.0,1.0.0.255,64500,Zürich Ärzte AG\r\n', 'utf16le')]),
    );
    const report = await importSources({ out: join(dir, 'utf16-out'), asnCsv: asn });
    expect(report.unmatched_organizations.map((u) => u.organization)).toEqual(['Zürich Ärzte AG']);
  });

  it('a Latin-1 firmographics CSV is refused, naming the file and the line and how to convert it, not imported as mojibake', async () => {
    const firmographics = join(dir, 'latin1.csv');
    writeFileSync(
      firmographics,
      Buffer.concat([
        Buffer.from('domain,name,city\nok.example,OK,Berlin\nzh.example,Gr'),
        Buffer.from([0xfc]),
        Buffer.from('n AG,Z'),
        Buffer.from([0xfc]),
        Buffer.from('rich\n'),
      ]),
    );
    const out = join(dir, 'latin1-out');
    await expect(importSources({ out, asnMmdb: MAXMIND_TEST_DB.asn, firmographics })).rejects.toThrow(
      new ImportError(
        `--firmographics ${firmographics}: line 3: not valid UTF-8 (byte 0xFC), perhaps Latin-1 or Windows-1252: convert to UTF-8 (e.g. iconv -f latin1 -t utf-8)`,
      ),
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a broken GeoLite2-ASN database is refused before any work; the bad-data files too', async () => {
    const broken = withFirstIpv4Record(MAXMIND_TEST_DB.asn, join(dir, 'asn-past-data.mmdb'), (_node, nodeCount) => nodeCount + 1_000_000);
    const out = join(dir, 'broken-mmdb-out');
    await expect(importSources({ out, asnMmdb: broken })).rejects.toThrow(
      /^--asn-mmdb .*asn-past-data\.mmdb: broken pointer: .* points past the end of the data section/,
    );
    await expect(importSources({ out, asnMmdb: MAXMIND_BAD_DB.pointerIntoSeparator })).rejects.toThrow(ImportError);
    await expect(importSources({ out, geoip2Isp: MAXMIND_BAD_DB.brokenSearchTree })).rejects.toThrow(/^--geoip2-isp .*: broken search tree/);
    expect(existsSync(out)).toBe(false);
  });
});
