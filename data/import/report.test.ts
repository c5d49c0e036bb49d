/** `data build --report` on sources with IPv6 networks: IPv4 figures as before, IPv6 ones apart, in /64 blocks. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { COMPANY_COLUMNS } from '../sources/schema.ts';
import { coverageOfSources, formatReport } from './report.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('counts both families: IPv4 in addresses, IPv6 in /64 blocks, most specific network first', async () => {
  const company = (id: string, domain: string, industry: string) =>
    COMPANY_COLUMNS.map((c) => (c === 'company_id' ? id : c === 'name' ? id : c === 'domain' ? domain : c === 'industry' ? industry : '')).join(',');
  writeFileSync(join(dir, 'companies.csv'), `${COMPANY_COLUMNS.join(',')}\n${company('c1', 'one.example', 'Software')}\n${company('c2', 'two.example', '')}\n`);
  writeFileSync(
    join(dir, 'networks.csv'),
    [
      'network,kind,company_id,confidence,country,state,city',
      '192.0.2.0/24,company,c1,High,,,',
      '::ffff:198.51.100.0/120,isp,,High,,,',
      '2001:db8::/32,isp,,High,,,',
      '2001:db8:1::/48,company,c2,High,,,',
      '2001:db8:2::-2001:db8:2:3:ffff:ffff:ffff:ffff,company,c1,Low,,,',
    ].join('\n') + '\n',
  );
  const r = await coverageOfSources(dir);
  expect(r.networks).toEqual({ networks: 2, addresses: 512 });
  expect(r.by_kind).toEqual({ company: { networks: 1, addresses: 256 }, isp: { networks: 1, addresses: 256 } });
  expect(r.companies.with_networks).toBe(1);
  expect(r.ipv6).toEqual({
    // The ISP /32 around the two adjacent company networks: a run before them and one after.
    networks: { networks: 4, blocks_64: 2 ** 32 },
    by_kind: { company: { networks: 2, blocks_64: 2 ** 16 + 4 }, isp: { networks: 2, blocks_64: 2 ** 32 - 2 ** 16 - 4 } },
    companies_with_networks: 2,
  });
  expect(formatReport(r)).toMatch(/IPv6 networks: 4 \(4,294,967,296 \/64 blocks\), 2 companies with IPv6 networks/);
});

it('leaves the IPv6 section out when there are no IPv6 networks', async () => {
  writeFileSync(join(dir, 'networks.csv'), 'network,kind,company_id,confidence,country,state,city\n192.0.2.0/24,company,c1,High,,,\n');
  expect((await coverageOfSources(dir)).ipv6).toBeUndefined();
});
