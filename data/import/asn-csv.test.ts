import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type AsnRange, readAsnCsv } from './asn-csv.ts';
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

describe('ASN range CSV', () => {
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
