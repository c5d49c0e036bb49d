/**
 * Our lookup reader answers exactly like the `maxmind` package's reader (the oracle): on MaxMind's official
 * test databases (IPv4 trees, and IPv6 trees asked with IPv4 addresses) and on files built by our writer
 * with every record size, at the first and last address of every network of the IPv4 space and at random
 * addresses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { Address4 } from 'ip-address';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { REFERENCE_DIR } from '../../data/mmdb/test-support.ts';
import { MmdbWriter } from '../../data/mmdb/writer.ts';
import { formatIPv4, MmdbError, MmdbReader, parseIPv4 } from './mmdb-reader.ts';

const TEST_DATA = pathToFileURL(`${REFERENCE_DIR}test-data/`);
/** Files that are broken on purpose (the readers' error paths differ; they are not "answers"). */
const BROKEN = /Broken|Invalid|broken/;

type Oracle = { getWithPrefixLength(ip: string): [unknown, number]; get(ip: string): unknown; metadata: { ipVersion: number } };

/** First and last address of every leaf of the IPv4 space, found through the oracle's prefix lengths. */
function leafEdges(oracle: Oracle, limit = 200_000): number[] {
  const out: number[] = [];
  let addr = 0;
  while (addr <= 0xffff_ffff && out.length < limit) {
    const [, prefix] = oracle.getWithPrefixLength(formatIPv4(addr));
    const span = 2 ** (32 - prefix);
    out.push(addr, addr + span - 1);
    addr += span;
  }
  return out;
}

function expectSameAnswers(buf: Buffer, extra: number[] = [], options?: ConstructorParameters<typeof MmdbReader>[1]): number {
  const oracle = new Reader(buf) as unknown as Oracle;
  const ours = new MmdbReader(buf, options);
  const addrs = [...leafEdges(oracle), ...extra, 0, 0xffff_ffff];
  for (const a of addrs) {
    const ip = formatIPv4(a);
    const expected = oracle.get(ip);
    const got = ours.get(ip);
    if (expected === null) expect(got, ip).toBeNull();
    else expect(got, ip).toEqual(expected);
  }
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), (a) => {
      const ip = formatIPv4(a);
      expect(ours.get(ip)).toEqual(oracle.get(ip));
    }),
    { numRuns: 500 },
  );
  return addrs.length;
}

describe('parseIPv4', () => {
  it('parses canonical dotted quads to uint32', () => {
    expect(parseIPv4('0.0.0.0')).toBe(0);
    expect(parseIPv4('255.255.255.255')).toBe(0xffff_ffff);
    expect(parseIPv4('1.2.3.4')).toBe(0x01020304);
    expect(parseIPv4('203.0.113.77')).toBe(0xcb00714d);
  });

  it('rejects everything else', () => {
    for (const bad of [
      '',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3.04',
      '1..2.3',
      '.1.2.3',
      '1.2.3.',
      ' 1.2.3.4',
      '1.2.3.4 ',
      '::ffff:1.2.3.4',
      '1.2.3.4/24',
      'a.b.c.d',
      '1.2.3.-4',
      '1234.1.1.1',
    ]) {
      expect(parseIPv4(bad), bad).toBe(-1);
    }
  });

  it('agrees with ip-address on any uint32', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), (a) => {
        const ip = Address4.fromBigInt(BigInt(a)).correctForm();
        expect(formatIPv4(a)).toBe(ip);
        expect(parseIPv4(ip)).toBe(a);
      }),
    );
  });
});

describe('answers like the maxmind reader on MaxMind test databases', () => {
  const files = readdirSync(TEST_DATA).filter((f) => f.endsWith('.mmdb') && !BROKEN.test(f));
  it('finds the reference databases', () => expect(files.length).toBeGreaterThanOrEqual(30));
  for (const file of files) {
    it(file, () => {
      const buf = readFileSync(new URL(file, TEST_DATA));
      expect(expectSameAnswers(buf)).toBeGreaterThan(2);
    });
  }

  it('reads metadata like the maxmind reader (also through metadata pointers)', () => {
    for (const file of files) {
      const buf = readFileSync(new URL(file, TEST_DATA));
      const oracle = new Reader(buf).metadata;
      const ours = new MmdbReader(buf).metadata;
      expect({ ...ours, buildEpoch: ours.buildEpoch }).toMatchObject({
        nodeCount: oracle.nodeCount,
        recordSize: oracle.recordSize,
        ipVersion: oracle.ipVersion,
        databaseType: oracle.databaseType,
        languages: oracle.languages ?? [],
        description: oracle.description ?? {},
        searchTreeSize: oracle.searchTreeSize,
      });
    }
  });

  it('refuses a file that is not an MMDB', () => {
    expect(() => new MmdbReader(Buffer.from('not a database'))).toThrow(MmdbError);
  });
});

/** Deterministic pseudo-random networks shaped like ours (ISP blocks with company networks nested). */
function buildOurs(opts: { ipVersion: 4 | 6; recordSize?: 24 | 28 | 32; networks: number; seed: number }): { buf: Buffer; edges: number[] } {
  let s = opts.seed >>> 0;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const writer = new MmdbWriter({
    ipVersion: opts.ipVersion,
    databaseType: 'svc-networks-test',
    description: { en: 't' },
    languages: ['en'],
    recordSize: opts.recordSize,
  });
  const edges: number[] = [];
  const kinds = ['company', 'isp', 'hosting', 'bot', 'education'];
  const conf = ['Very High', 'High', 'Moderate', 'Low'];
  for (let i = 0; i < opts.networks; i++) {
    const kind = kinds[Math.floor(rnd() * (i % 3 === 0 ? 5 : 1))];
    const base = (Math.floor(rnd() * 0xdf00) + 0x0100) << 16; // 1.0.0.0 – 223.255.255.255
    let start: number;
    let end: number;
    let network: string;
    if (kind === 'isp') {
      const len = 14 + Math.floor(rnd() * 6);
      start = (base >>> 0) - ((base >>> 0) % 2 ** (32 - len));
      end = start + 2 ** (32 - len) - 1;
      network = `${formatIPv4(start)}/${len}`;
    } else if (rnd() < 0.3) {
      start = (base + Math.floor(rnd() * 65000)) >>> 0;
      end = start + Math.floor(rnd() * 500);
      network = `${formatIPv4(start)}-${formatIPv4(end)}`;
    } else {
      const len = 24 + Math.floor(rnd() * 9);
      start = (base + Math.floor(rnd() * 65536)) >>> 0;
      start = start - (start % 2 ** (32 - len));
      end = start + 2 ** (32 - len) - 1;
      network = `${formatIPv4(start)}/${len}`;
    }
    const record: Record<string, string> = { kind, confidence: conf[i % 4] };
    if (kind === 'company') record.company_id = String(100000 + Math.floor(rnd() * opts.networks));
    if (rnd() < 0.8) record.country = ['United States', 'Germany', 'France', 'Japan'][i % 4];
    if (rnd() < 0.5) record.city = `City ${i % 97}`;
    writer.insert(network, record);
    edges.push(start, end, start - 1, end + 1);
  }
  return { buf: writer.toBuffer(), edges: edges.filter((a) => a >= 0 && a <= 0xffff_ffff) };
}

describe('answers like the maxmind reader on files built by our writer', () => {
  for (const ipVersion of [4, 6] as const) {
    for (const recordSize of [24, 28, 32] as const) {
      it(`IPv${ipVersion} tree, ${recordSize}-bit records`, () => {
        const { buf, edges } = buildOurs({ ipVersion, recordSize, networks: 3000, seed: recordSize * ipVersion });
        expectSameAnswers(buf, edges);
      });
    }
  }

  it('stays exact when the caches are tiny (constant eviction)', () => {
    const { buf, edges } = buildOurs({ ipVersion: 4, networks: 2000, seed: 7 });
    expectSameAnswers(buf, edges, { recordCacheBits: 1, pointerCacheBits: 1 });
  });

  it('returns the same frozen object for repeated lookups', () => {
    const { buf } = buildOurs({ ipVersion: 4, networks: 200, seed: 3 });
    const reader = new MmdbReader<Record<string, string>>(buf);
    const oracle = new Reader(buf) as unknown as Oracle;
    const ip = formatIPv4(leafEdges(oracle).find((a) => oracle.get(formatIPv4(a)) !== null)!);
    const a = reader.get(ip)!;
    expect(reader.get(ip)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(() => {
      (a as Record<string, string>).kind = 'changed';
    }).toThrow(TypeError);
  });

  it('refuses anything but a canonical dotted quad', () => {
    const { buf } = buildOurs({ ipVersion: 4, networks: 10, seed: 1 });
    const reader = new MmdbReader(buf);
    for (const bad of ['::ffff:1.2.3.4', '1.2.3', 'x', '']) expect(() => reader.get(bad)).toThrow(TypeError);
  });
});

describe('jump table', () => {
  it('is sized to the tree: 16 levels for small trees, up to 24 for big ones', async () => {
    const { jumpBitsFor } = await import('./mmdb-reader.ts');
    expect(jumpBitsFor(1000)).toBe(16);
    expect(jumpBitsFor(6_300_000)).toBe(22);
    expect(jumpBitsFor(21_700_000)).toBe(24);
    expect(jumpBitsFor(100_000_000)).toBe(24);
  });

  it('answers the same whatever its depth', () => {
    const { buf, edges } = buildOurs({ ipVersion: 4, networks: 1500, seed: 11 });
    for (const jumpBits of [1, 8, 20, 24]) expectSameAnswers(buf, edges.slice(0, 2000), { jumpBits });
  });
});
