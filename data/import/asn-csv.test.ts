import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AsnRange, type AsnRange6, readAsnCsv } from './asn-csv.ts';
import { parseIPv4 } from './ipv4.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-asn-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
async function read(text: string): Promise<{ ranges: AsnRange[]; skippedIpv6: number }> {
  const f = join(dir, `f${Math.random()}.csv`);
  writeFileSync(f, text);
  const ranges: AsnRange[] = [];
  const stats = await readAsnCsv(f, (r) => ranges.push(r));
  return { ranges, skippedIpv6: stats.skippedIpv6 };
}

async function read6(text: string): Promise<{ ranges: AsnRange[]; ranges6: AsnRange6[] }> {
  const f = join(dir, `f${Math.random()}.csv`);
  writeFileSync(f, text);
  const ranges: AsnRange[] = [];
  const ranges6: AsnRange6[] = [];
  await readAsnCsv(
    f,
    (r) => ranges.push(r),
    undefined,
    (r) => ranges6.push(r),
  );
  return { ranges, ranges6 };
}

describe('ASN range CSV', () => {
  it('IPv6 rows, given a reader for them: ranges in any text form, GeoLite2 IPv6 CIDRs (host bits dropped as for IPv4)', async () => {
    const ranges = await read6('start,end,asn,organization\n1.0.0.0,1.0.0.255,13335,Cloudflare\n2001:DB8::,2001:0db8:0:0:0:0:0:ffff,AS64500,Example v6\n');
    expect(ranges.ranges).toHaveLength(1);
    expect(ranges.ranges6).toEqual([{ first: 0x2001_0db8n << 96n, last: (0x2001_0db8n << 96n) | 0xffffn, asn: '64500', organization: 'Example v6' }]);
    const geolite = await read6(
      'network,autonomous_system_number,autonomous_system_organization\n2001:db8:1::/48,64501,EXAMPLE\n2001:db8:2::1/127,64502,HOST\n',
    );
    expect(geolite.ranges6).toEqual([
      { first: 0x2001_0db8_0001n << 80n, last: ((0x2001_0db8_0001n + 1n) << 80n) - 1n, asn: '64501', organization: 'EXAMPLE' },
      { first: 0x2001_0db8_0002n << 80n, last: (0x2001_0db8_0002n << 80n) | 1n, asn: '64502', organization: 'HOST' },
    ]);
  });

  it('bad IPv6 rows fail with the row and the field', async () => {
    await expect(read6('2001:db8::ff,2001:db8::1,1,X\n')).rejects.toThrow(/row 1: end 2001:db8::1 is before start/);
    await expect(read6('2001:db8::,2001:db8::g,1,X\n')).rejects.toThrow(/row 1: end: "2001:db8::g" is not an IPv6 address/);
    await expect(read6('network,a,b\n2001:db8::/129,1,X\n')).rejects.toThrow(/row 2: network: "2001:db8::\/129" is not an IPv6 CIDR/);
    await expect(read6('network,a,b\nfe80::1%eth0/64,1,X\n')).rejects.toThrow(/row 2: network: .* is not an IPv6 CIDR/);
  });

  it('start,end,asn,organization with a header, dotted quads or integers, IPv6 rows skipped', async () => {
    const { ranges, skippedIpv6 } = await read(
      'start,end,asn,organization\n1.0.0.0,1.0.0.255,AS13335,"Cloudflare, Inc."\n16777472,16777727,15169,Google LLC\n2001:db8::,2001:db8::ffff,64500,Example v6\n',
    );
    expect(ranges).toEqual([
      { first: parseIPv4('1.0.0.0'), last: parseIPv4('1.0.0.255'), asn: '13335', organization: 'Cloudflare, Inc.' },
      { first: 16777472, last: 16777727, asn: '15169', organization: 'Google LLC' },
    ]);
    expect(skippedIpv6).toBe(1);
  });

  it('without a header; and the GeoLite2 ASN CSV layout (network,asn,organization)', async () => {
    expect((await read('1.0.0.0,1.0.0.255,13335,Cloudflare\n')).ranges).toHaveLength(1);
    const geolite = await read('network,autonomous_system_number,autonomous_system_organization\n1.0.0.0/24,13335,CLOUDFLARENET\n');
    expect(geolite.ranges).toEqual([{ first: 16777216, last: 16777471, asn: '13335', organization: 'CLOUDFLARENET' }]);
  });

  it('bad rows fail with the row and the field', async () => {
    await expect(read('start,end,asn,organization\n1.0.0.0,1.0.0.999,1,X\n')).rejects.toThrow(/row 2: end: "1\.0\.0\.999" is not an IPv4 address/);
    await expect(read('1.0.0.9,1.0.0.1,1,X\n')).rejects.toThrow(/row 1: end 1\.0\.0\.1 is before start/);
    await expect(read('1.0.0.0,1.0.0.9\n')).rejects.toThrow(/row 1: expected start,end,asn,organization/);
  });
});
