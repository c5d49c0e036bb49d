import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reader } from 'maxmind';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from './errors.ts';
import { formatIPv4, parseIPv4 } from './ipv4.ts';
import { formatIPv6, parseIPv6 } from './ipv6.ts';
import { ipv4Networks, ipv6Networks, openMmdb } from './mmdb-networks.ts';
import { MAXMIND_BAD_DB, MAXMIND_SOURCE_JSON, MAXMIND_TEST_DB, withFirstIpv4Record } from './test-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-mmdb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

describe("ipv4Networks (walking a MaxMind DB's search tree, records decoded by the maxmind package)", () => {
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

  for (const [name, file] of [
    ['GeoLite2-ASN-Test', MAXMIND_TEST_DB.asn],
    ['GeoIP2-Enterprise-Test', MAXMIND_TEST_DB.enterprise],
    ['GeoIP2-ISP-Test', MAXMIND_TEST_DB.isp],
    ['GeoIP2-Domain-Test', MAXMIND_TEST_DB.domain],
    ['GeoIP2-City-Test', MAXMIND_TEST_DB.city],
  ] as const) {
    it(`${name}: IPv6 networks in order, each answering its record at both ends, every IPv6 source network found, no IPv4 alias among them`, () => {
      const oracle = new Reader(readFileSync(file));
      const nets = [...ipv6Networks<object>(openMmdb(file, /./, '--test'))];
      expect(nets.length).toBeGreaterThan(1);
      let next = 0n;
      for (const n of nets) {
        expect(n.first >= next).toBe(true);
        expect(oracle.get(formatIPv6(n.first))).toEqual(n.record);
        expect(oracle.get(formatIPv6(n.last))).toEqual(n.record);
        // ::/96 (IPv4), ::ffff:0:0/96 and 2002::/16 (its aliases) are never IPv6 networks.
        expect(n.first >> 32n === 0n || n.first >> 32n === 0xffffn || n.first >> 112n === 0x2002n).toBe(false);
        next = n.last + 1n;
      }
      const json = JSON.parse(readFileSync(MAXMIND_SOURCE_JSON(name), 'utf8')) as Record<string, unknown>[];
      const v6 = json.map((e) => Object.keys(e)[0].split('/')[0]).filter((k) => k.includes(':') && !k.includes('.'));
      expect(v6.length).toBeGreaterThan(0);
      for (const addr of v6) {
        const a = parseIPv6(addr)!;
        const hit = nets.find((n) => n.first <= a && a <= n.last);
        expect(hit?.record ?? null, addr).toEqual(oracle.get(addr));
      }
    });
  }

  it('an IPv4 database has no IPv6 networks', () => {
    expect([...ipv6Networks(openMmdb(`${MAXMIND_TEST_DB.asn.replace(/GeoLite2-ASN-Test/, 'MaxMind-DB-test-ipv4-24')}`, /./, '--test'))]).toEqual([]);
  });

  it('refuses a file that is not a MaxMind DB, or one of the wrong type, naming the flag', () => {
    expect(() => openMmdb(MAXMIND_SOURCE_JSON('GeoLite2-ASN-Test'), /ASN/, '--asn-mmdb')).toThrow(/--asn-mmdb .*not a readable MaxMind DB/);
    expect(() => openMmdb(MAXMIND_TEST_DB.city, /Enterprise/, '--geoip2-enterprise')).toThrow(ImportError);
    expect(() => openMmdb(MAXMIND_TEST_DB.city, /Enterprise/, '--geoip2-enterprise')).toThrow(/database type "GeoIP2-City"/);
  });
});

describe('broken MaxMind DB files: an ImportError naming the flag, the file and what is wrong; never networks', () => {
  /** Everything the import does with a file: open it, walk it. */
  const read = (file: string) => () => [...ipv4Networks<object>(openMmdb(file, /./, '--asn-mmdb'))];
  const refused = (file: string, why: RegExp) => {
    expect(read(file)).toThrow(ImportError);
    expect(read(file)).toThrow(new RegExp(`^--asn-mmdb ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${why.source}`));
  };

  it('a record pointing into the data section separator (libmaxminddb bad-data)', () => {
    refused(MAXMIND_BAD_DB.pointerIntoSeparator, /broken pointer: node 0 left record \(2\) points into the data section separator/);
    refused(MAXMIND_BAD_DB.pointerIntoSeparatorRight, /broken pointer: node 0 right record \(2\) points into the data section separator/);
  });

  it('a record pointing past the end of the data section', () => {
    refused(
      MAXMIND_BAD_DB.pointerPastData,
      /broken pointer: node 36 left record \(100232\) points past the end of the data section \(65 bytes, node_count 164\)/,
    );
    refused(MAXMIND_BAD_DB.pointerPastDataToo, /broken pointer: .* points past the end of the data section/);
  });

  it('a search tree that loops back to the root, reachable or not', () => {
    refused(MAXMIND_BAD_DB.brokenSearchTree, /broken search tree: node 0 right record \(0\) points back to the root node \(a loop\)/);
    refused(MAXMIND_BAD_DB.corruptSearchTree, /broken search tree: node 1 left record \(0\) points back to the root node/);
  });

  it('a loop below the root, found by the walk', () => {
    const looping = withFirstIpv4Record(MAXMIND_TEST_DB.asn, join(dir, 'loop.mmdb'), (node) => node);
    refused(looping, /broken search tree: the path to [\d.]+ goes on past 32 bits at node \d+ \(a loop\)/);
  });

  it('a node count larger than the file', () => {
    refused(MAXMIND_BAD_DB.invalidNodeCount, /broken MaxMind DB file: node_count 100000 makes the search tree \(700000 bytes\) larger than the file/);
  });

  it('a data record that does not decode, naming its network', () => {
    refused(MAXMIND_BAD_DB.oversizedArray, /broken data section: the record of 0\.0\.0\.0–127\.255\.255\.255 \(data offset 0\) does not decode: /);
    refused(MAXMIND_BAD_DB.oversizedMap, /broken data section: the record of .* does not decode: /);
  });

  it('a GeoLite2-ASN database whose record points into the separator is refused when opened, before any work', () => {
    const broken = withFirstIpv4Record(MAXMIND_TEST_DB.asn, join(dir, 'separator.mmdb'), (_node, nodeCount) => nodeCount + 1);
    expect(() => openMmdb(broken, /ASN/, '--asn-mmdb')).toThrow(
      /--asn-mmdb .*separator\.mmdb: broken pointer: node \d+ (left|right) record \(1342\) points into the data section separator/,
    );
  });
});
