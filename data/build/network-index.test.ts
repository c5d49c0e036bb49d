/** networks.csv with IPv6 networks builds an IPv6 index answering both families; IPv4-only sources keep an IPv4 index. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MmdbReader } from '../../server/data/mmdb/reader.ts';
import { openNetworkIndex } from '../../server/data/network-index.ts';
import { NETWORKS_FILE } from '../catalog/schema.ts';
import { SourceError } from '../sources/read.ts';
import { writeNetworkIndex } from './network-index.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-network-index-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const HEADER = 'network,kind,company_id,confidence,country,state,city\n';
let n = 0;
async function build(rows: string): Promise<string> {
  const dir = join(root, `d${n++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'networks.csv'), HEADER + rows);
  await writeNetworkIndex(dir, dir, new Set(['900001', '900002']));
  return join(dir, NETWORKS_FILE);
}

describe('network index of IPv4 and IPv6 networks', () => {
  it('IPv4-only sources: an IPv4 tree, IPv6 addresses find nothing', async () => {
    const file = await build('192.0.2.0/24,company,900001,High,,,\n');
    expect(new MmdbReader(readFileSync(file)).metadata.ipVersion).toBe(4);
    const index = openNetworkIndex(file);
    expect(index.lookup('192.0.2.9')).toMatchObject({ company_id: '900001' });
    expect(index.lookup('2001:db8::1')).toBeNull();
  });

  it('an IPv6 CIDR or range anywhere: an IPv6 tree that answers both families, most specific first', async () => {
    const file = await build(
      [
        '192.0.2.0/24,company,900001,High,United States,,',
        '2001:db8::/32,isp,,Very High,Germany,,',
        '2001:DB8:0:1::/64,company,900002,Moderate,Germany,Berlin,Berlin',
        '2001:db8:0:2::10 - 2001:db8:0:2::ff,company,900001,Low,,,',
        '::ffff:198.51.100.0/120,hosting,,High,,,',
      ].join('\n') + '\n',
    );
    expect(new MmdbReader(readFileSync(file)).metadata.ipVersion).toBe(6);
    const index = openNetworkIndex(file);
    expect(index.lookup('192.0.2.9')).toEqual({ kind: 'company', company_id: '900001', confidence: 'High', country: 'United States' });
    expect(index.lookup('198.51.100.7')).toMatchObject({ kind: 'hosting' });
    expect(index.lookup('2001:db8:0:1:ffff::1')).toMatchObject({ kind: 'company', company_id: '900002', city: 'Berlin' });
    expect(index.lookup('2001:db8:0:2::10')).toMatchObject({ company_id: '900001', confidence: 'Low' });
    expect(index.lookup('2001:db8:0:2::100')).toMatchObject({ kind: 'isp' });
    expect(index.lookup('2001:db9::1')).toBeNull();
    // The aliases: IPv4-mapped and 6to4 forms answer like the IPv4 address.
    expect(index.lookup('::ffff:192.0.2.9')).toMatchObject({ company_id: '900001' });
    expect(index.lookup('2002:c000:209::1')).toMatchObject({ company_id: '900001' });
  });

  it('refuses a bad IPv6 row with its row number', async () => {
    for (const [row, message] of [
      ['2001:db8::1/32,isp,,High,,,', /row 2: Invalid network "2001:db8::1\/32": host bits are set/],
      ['fe80::1%eth0,isp,,High,,,', /row 2: .*zone index/],
      ['2002:c000:200::/40,isp,,High,,,', /row 2: .*2002::\/16/],
      ['192.0.2.1-2001:db8::1,isp,,High,,,', /row 2: .*same IP version/],
    ] as const) {
      await expect(build(`${row}\n`), row).rejects.toThrow(SourceError);
      await expect(build(`${row}\n`), row).rejects.toThrow(message);
    }
  });

  it('carries a privacy reason into the record (an optional column); refuses an unknown one with its row number', async () => {
    const dir = join(root, `d${n++}`);
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'networks.csv'),
      'network,kind,company_id,confidence,country,state,city,privacy\n198.51.100.0/24,hosting,,High,,,,vpn\n2001:db8::/64,anonymizer,,High,,,,relay\n192.0.2.0/24,company,900001,High,,,,\n',
    );
    await writeNetworkIndex(dir, dir, new Set(['900001']));
    const index = openNetworkIndex(join(dir, NETWORKS_FILE));
    expect(index.lookup('198.51.100.1')).toEqual({ kind: 'hosting', confidence: 'High', privacy: 'vpn' });
    expect(index.lookup('2001:db8::1')).toEqual({ kind: 'anonymizer', confidence: 'High', privacy: 'relay' });
    expect(index.lookup('192.0.2.1')).toEqual({ kind: 'company', company_id: '900001', confidence: 'High' });
    writeFileSync(join(dir, 'networks.csv'), 'network,kind,company_id,confidence,country,state,city,privacy\n198.51.100.0/24,hosting,,High,,,,anonymous\n');
    await expect(writeNetworkIndex(dir, dir, new Set(['900001']))).rejects.toThrow(/row 2: .*privacy must be blank or one of vpn, tor, proxy, relay, hosting/);
  });
});
