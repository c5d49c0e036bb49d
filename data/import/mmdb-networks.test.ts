import { readFileSync } from 'node:fs';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { ImportError } from './errors.ts';
import { formatIPv4, parseIPv4 } from './ipv4.ts';
import { ipv4Networks, openMmdb } from './mmdb-networks.ts';
import { MAXMIND_SOURCE_JSON, MAXMIND_TEST_DB } from './test-data.ts';

/** Every IPv4 network of the official source JSON (plain, or in ::/96), as its first address. */
function sourceAddresses(name: string): string[] {
  const json = JSON.parse(readFileSync(MAXMIND_SOURCE_JSON(name), 'utf8')) as Record<string, unknown>[];
  return json
    .map((e) => Object.keys(e)[0])
    .flatMap((k) => {
      const [net, prefix] = k.split('/');
      if (!net.includes(':')) return [net];
      return net.startsWith('::') && net.includes('.') && Number(prefix) >= 96 ? [net.slice(2)] : [];
    });
}

describe('ipv4Networks (iterating a MaxMind DB through the maxmind package)', () => {
  for (const [name, file] of [
    ['GeoLite2-ASN-Test', MAXMIND_TEST_DB.asn],
    ['GeoIP2-Enterprise-Test', MAXMIND_TEST_DB.enterprise],
    ['GeoIP2-Domain-Test', MAXMIND_TEST_DB.domain],
    ['GeoIP2-City-Test', MAXMIND_TEST_DB.city],
  ] as const) {
    it(`${name}: networks in order, each answering its record at both ends, gaps empty, every source network found`, () => {
      const oracle = new Reader(readFileSync(file));
      const nets = [...ipv4Networks<object>(openMmdb(file, /./, '--test'))];
      expect(nets.length).toBeGreaterThan(5);
      let next = 0;
      for (const n of nets) {
        expect(n.first).toBeGreaterThanOrEqual(next);
        if (n.first > next) expect(oracle.get(formatIPv4(next))).toBeNull();
        expect(oracle.get(formatIPv4(n.first))).toEqual(n.record);
        expect(oracle.get(formatIPv4(n.last))).toEqual(n.record);
        next = n.last + 1;
      }
      for (const addr of sourceAddresses(name)) {
        const a = parseIPv4(addr)!;
        const hit = nets.find((n) => n.first <= a && a <= n.last);
        expect(hit?.record ?? null, addr).toEqual(oracle.get(addr));
      }
    });
  }

  it('refuses a file that is not a MaxMind DB, or one of the wrong type, naming the flag', () => {
    expect(() => openMmdb(MAXMIND_SOURCE_JSON('GeoLite2-ASN-Test'), /ASN/, '--asn-mmdb')).toThrow(/--asn-mmdb .*not a readable MaxMind DB/);
    expect(() => openMmdb(MAXMIND_TEST_DB.city, /Enterprise/, '--geoip2-enterprise')).toThrow(ImportError);
    expect(() => openMmdb(MAXMIND_TEST_DB.city, /Enterprise/, '--geoip2-enterprise')).toThrow(/database type "GeoIP2-City"/);
  });
});
