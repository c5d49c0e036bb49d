/**
 * Bring your own data, end to end, as an operator runs it: `data import` of MaxMind's official test
 * databases and the firmographics fixture → `data build` → a customer and an identification token from
 * the CLI (`runCli`, in-process) → the real server (`serve`, random port, own process) → `GET /v3/company/details?ip=…`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCollected } from '../../server/cli/run.ts';
import { FIRMOGRAPHICS_FIXTURE, MAXMIND_BAD_DB, MAXMIND_TEST_DB, withFirstIpv4Record } from './test-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-byod-'));
const env = {
  ...process.env,
  SVC_STATE: join(dir, 'svc.db'),
  SVC_DATA: join(dir, 'data'),
  SVC_LOG: 'error',
  SVC_ADMIN_TOKEN: 'byod-admin-token-0123456789abcdef',
  HOST: '127.0.0.1',
};
// A server-side lookup as a CRM script sends it: a plain client User-Agent, no X-svc-Visitor-User-Agent.
const CLIENT_UA = 'curl/8.5.0';

/** `svc ARGS`: its exit code, stdout and stderr. */
const svcRun = (...args: string[]) => runCliCollected(args, { env });
/** `svc ARGS` that has to succeed: its stdout. */
const svc = async (...args: string[]): Promise<string> => {
  const { code, stdout, stderr } = await svcRun(...args);
  if (code !== 0) throw new Error(`svc ${args.join(' ')} exited with ${code}: ${stderr}`);
  return stdout;
};

let server: ChildProcess;
let url: string;
let token: string;
let importReport: { by_kind: Record<string, { networks: number }> };
let buildReport: {
  networks: number;
  report: { by_kind: Record<string, { networks: number }>; company_addresses: { share: number }; unmatched_organizations: { organization: string }[] };
};

beforeAll(async () => {
  importReport = JSON.parse(
    await svc(
      'data',
      'import',
      '--out',
      join(dir, 'sources'),
      '--geoip2-enterprise',
      MAXMIND_TEST_DB.enterprise,
      '--geoip2-isp',
      MAXMIND_TEST_DB.isp,
      '--geoip2-domain',
      MAXMIND_TEST_DB.domain,
      '--asn-mmdb',
      MAXMIND_TEST_DB.asn,
      '--city',
      MAXMIND_TEST_DB.city,
      '--anonymous-ip',
      MAXMIND_TEST_DB.anonymousIp,
      '--firmographics',
      FIRMOGRAPHICS_FIXTURE,
      '--json',
    ),
  );
  buildReport = JSON.parse(await svc('data', 'build', '--in', join(dir, 'sources'), '--out', join(dir, 'data'), '--report', '--json'));
  await svc('customer', 'create', '--id', 'byod', '--name', 'BYOD Inc', '--packages', 'platform', '--identification-credits', '100', '--json');
  token = JSON.parse(await svc('token', 'create', '--customer', 'byod', '--group', 'identification', '--name', 'crm', '--json')).token;
  server = spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', 'serve', '--port', '0', '--json'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = await new Promise<string[]>((resolve, reject) => {
    createInterface({ input: server.stdout! }).once('line', (l) => resolve([l]));
    server.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  url = JSON.parse(line).url;
}, 120_000);

afterAll(() => {
  server?.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

const lookup = async (ip: string) => {
  const res = await fetch(`${url}/v3/company/details?ip=${ip}`, { headers: { authorization: `Token ${token}`, 'user-agent': CLIENT_UA } });
  expect(res.status).toBe(200);
  return res.json();
};

describe('bring your own data: import → build → serve → /v3/company/details', () => {
  it('an Enterprise military network whose domain and name match the firmographics: Match, Very High, San Diego', async () => {
    const body = await lookup('214.78.0.5');
    expect(body.confidence).toBe('Very High');
    expect(body.company).toMatchObject({
      company_match: 'Match',
      companyId: 'health.mil',
      name: 'U.S. Department of Defense',
      domain: 'health.mil',
      industry: 'Government',
      employee_count: '700000',
      geoIP_country: 'United States',
      geoIP_state: 'California',
      geoIP_city: 'San Diego',
    });
  });

  it('a government network joined by its organization name: Match, Moderate, Linköping', async () => {
    const body = await lookup('89.160.20.115');
    expect(body.confidence).toBe('Moderate');
    expect(body.company).toMatchObject({ company_match: 'Match', name: 'Bevtec AB', domain: 'bevtec.se', geoIP_country: 'Sweden', geoIP_city: 'Linköping' });
  });

  it('residential, hosting and spider networks: Non-actionable Match with their geo', async () => {
    const isp = await lookup('74.209.24.1');
    expect(isp.company).toMatchObject({
      company_match: 'Non-actionable Match',
      geoIP_country: 'United States',
      geoIP_state: 'New York',
      geoIP_city: 'Chatham',
    });
    expect(isp.company.additional_comment).toMatch(/internet service provider/);
    expect((await lookup('214.214.214.220')).company.additional_comment).toMatch(/hosting/);
    expect((await lookup('67.43.156.7')).company.additional_comment).toMatch(/bot network/);
  });

  it('an ASN organization nobody has firmographics for: No Match', async () => {
    const body = await lookup('1.0.0.1');
    expect(body.company.company_match).toBe('No Match');
    expect(body.confidence).toBe('Low');
    expect(importReport.by_kind.company.networks).toBe(3);
  });
});

describe('IPv6 and privacy networks: import → build → serve → /v3/company/details', () => {
  it('an Enterprise IPv6 network joined by its organization name: Match, as for IPv4', async () => {
    const body = await lookup('2001:219:0:1::5');
    expect(body.confidence).toBe('Moderate');
    expect(body.company).toMatchObject({ company_match: 'Match', domain: 'bevtec.se', geoIP_city: 'Linköping', privacy: null });
  });

  // Every network of MaxMind's GeoIP2-Anonymous-IP-Test, by the flags set (source-data/GeoIP2-Anonymous-IP-Test.json).
  it.each([
    ['1.2.0.5', 'vpn', 'an anonymous VPN'], // is_anonymous_vpn
    ['6.1.0.1', 'vpn', 'an anonymous VPN'],
    ['1.124.213.1', 'tor', 'a Tor exit node'], // is_tor_exit_node with is_anonymous_vpn: Tor says more
    ['65.0.0.5', 'tor', 'a Tor exit node'],
    ['81.2.69.1', 'tor', 'a Tor exit node'], // every flag set
    ['186.30.236.5', 'proxy', 'a public or residential proxy'], // is_public_proxy
    ['6.1.0.3', 'proxy', 'a public or residential proxy'],
    ['6.1.0.4', 'proxy', 'a public or residential proxy'], // is_residential_proxy
    ['abcd:1000::5', 'proxy', 'a public or residential proxy'], // IPv6
    ['2001:480:3a::1', 'proxy', 'a public or residential proxy'], // IPv6
    ['71.160.223.5', 'hosting', 'a hosting or cloud provider'], // is_hosting_provider
    ['6.1.0.2', 'hosting', 'a hosting or cloud provider'],
  ])('%s (Anonymous IP: %s): Non-actionable Match naming the reason, privacy set', async (ip, privacy, what) => {
    const body = await lookup(ip);
    expect(body.company).toMatchObject({
      company_match: 'Non-actionable Match',
      additional_comment: `No valid B2B use case: the IP address matched ${what}, not a company name or domain.`,
      privacy,
      companyId: null,
    });
    expect(body.scores).toEqual([]);
  });

  it('the report counts privacy networks of both families', () => {
    const report = importReport as unknown as { by_privacy: Record<string, { networks: number }>; ipv6: { by_privacy: Record<string, { networks: number }> } };
    expect(Object.keys(report.by_privacy).sort()).toEqual(['hosting', 'proxy', 'tor', 'vpn']);
    expect(report.ipv6.by_privacy.proxy.networks).toBe(2);
  });
});

describe('the commands an operator types', () => {
  it('data build --report --json adds the coverage report to the build summary', () => {
    expect(buildReport.networks).toBeGreaterThan(0);
    expect(buildReport.report.by_kind).toEqual(importReport.by_kind);
    expect(buildReport.report.company_addresses.share).toBe(1);
    expect(buildReport.report.unmatched_organizations[0].organization).toBe('DoD Network Information Center');
  });

  it('a bad firmographics row: exit 2, one JSON error naming the row and the field, nothing half-written', async () => {
    const bad = join(dir, 'bad.csv');
    (await import('node:fs')).writeFileSync(bad, 'domain,name,employee_count\nok.example,OK,5\nbad.example,Bad,many\n');
    const failed = await svcRun('data', 'import', '--out', join(dir, 'bad-out'), '--asn-mmdb', MAXMIND_TEST_DB.asn, '--firmographics', bad, '--json');
    expect(failed.code).toBe(2);
    expect(JSON.parse(failed.stdout)).toEqual({ status: 'error', message: expect.stringMatching(/bad\.csv: row 2: employee_count: a whole number/) });
    expect((await import('node:fs')).existsSync(join(dir, 'bad-out', 'networks.csv'))).toBe(false);
  });

  it('broken inputs (a GeoLite2-ASN db with a broken pointer, a search tree that loops, a 2 MB CSV field): exit 2, a message naming the file, no stack trace, no output', async () => {
    const { existsSync, writeFileSync } = await import('node:fs');
    const brokenAsn = withFirstIpv4Record(MAXMIND_TEST_DB.asn, join(dir, 'broken-asn.mmdb'), (_node, nodeCount) => nodeCount + 1);
    const hugeCsv = join(dir, 'huge.csv');
    writeFileSync(hugeCsv, `start,end,asn,organization\n1.0.0.0,1.0.0.255,1,${'x'.repeat(2 * 1024 * 1024)}\n`);
    for (const [flag, file, why] of [
      ['--asn-mmdb', brokenAsn, /broken pointer: node \d+ \w+ record \(\d+\) points into the data section separator/],
      ['--asn-mmdb', MAXMIND_BAD_DB.brokenSearchTree, /broken search tree: node 0 right record \(0\) points back to the root node/],
      ['--asn-csv', hugeCsv, /line 2: field 4 longer than the limit of 65536 characters/],
    ] as const) {
      const out = join(dir, 'broken-out');
      const failed = await svcRun('data', 'import', '--out', out, flag, file);
      expect(failed.code, file).toBe(2);
      expect(failed.stderr).toContain(`svc data import: ${flag} ${file}: `);
      expect(failed.stderr).toMatch(why);
      expect(failed.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(out)).toBe(false);
    }
  }, 90_000);
});
