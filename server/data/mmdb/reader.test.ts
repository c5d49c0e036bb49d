/**
 * Our lookup reader answers exactly like the `maxmind` package's reader (the oracle): on MaxMind's official
 * test databases (IPv4 and IPv6 trees, asked with IPv4 and IPv6 addresses) and on files built by our
 * writer with every record size, at the first and last address of every network of the IPv4 space (and
 * of the IPv6 space, for IPv6 trees) and at random addresses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { Address6 } from 'ip-address';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { REFERENCE_DIR } from '../../../data/mmdb/test-support.ts';
import { MmdbWriter } from '../../../data/mmdb/writer.ts';
import { formatIPv4 } from './address.ts';
import { MmdbError, MmdbReader } from './reader.ts';
import { jump6BitsFor, recordCacheBitsFor } from './tables.ts';

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

const v6Text = (x: bigint): string => Address6.fromBigInt(x).correctForm();
const TOP = (1n << 128n) - 1n;

/** First and last address of every leaf of the IPv6 space (aliases walked like any record), up to `limit`. */
function leafEdges6(oracle: Oracle, limit = 20_000): bigint[] {
  const out: bigint[] = [];
  let addr = 0n;
  while (addr <= TOP && out.length < limit) {
    const [, prefix] = oracle.getWithPrefixLength(v6Text(addr));
    const span = 1n << BigInt(128 - prefix);
    out.push(addr, addr + span - 1n);
    addr += span;
  }
  return out;
}

/** IPv6 trees: the same answers at IPv6 leaf edges, `extra` addresses and random 128-bit addresses. */
function expectSameAnswers6(buf: Buffer, extra: bigint[] = []): void {
  const oracle = new Reader(buf) as unknown as Oracle;
  const ours = new MmdbReader(buf);
  for (const x of [...leafEdges6(oracle), ...extra, 0n, TOP]) {
    if (x < 0n || x > TOP) continue;
    const ip = v6Text(x);
    expect(ours.get(ip), ip).toEqual(oracle.get(ip));
  }
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: TOP }), (x) => {
      const ip = v6Text(x);
      expect(ours.get(ip)).toEqual(oracle.get(ip));
    }),
    { numRuns: 500 },
  );
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

describe('answers like the maxmind reader on MaxMind test databases', () => {
  const files = readdirSync(TEST_DATA).filter((f) => f.endsWith('.mmdb') && !BROKEN.test(f));
  it('finds the reference databases', () => expect(files.length).toBeGreaterThanOrEqual(30));
  for (const file of files) {
    it(file, () => {
      const buf = readFileSync(new URL(file, TEST_DATA));
      expect(expectSameAnswers(buf)).toBeGreaterThan(2);
      if (new Reader(buf).metadata.ipVersion === 6) expectSameAnswers6(buf);
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
function buildOurs(opts: { ipVersion: 4 | 6; recordSize?: 24 | 28 | 32; networks: number; seed: number }): {
  buf: Buffer;
  edges: number[];
  edges6: bigint[];
} {
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
  const edges6: bigint[] = [];
  if (opts.ipVersion === 6) {
    // IPv6 networks shaped like ours: ISP /29–/32 blocks, hosting /40–/48, company /48–/64 nested in them.
    for (let i = 0; i < opts.networks / 2; i++) {
      const kind = kinds[i % 3 === 0 ? 1 : i % 3 === 1 ? 2 : 0];
      const len = kind === 'isp' ? 29 + Math.floor(rnd() * 4) : kind === 'hosting' ? 40 + Math.floor(rnd() * 9) : 48 + Math.floor(rnd() * 17);
      const top = 0x2400_0000n + BigInt(Math.floor(rnd() * 0x0400_0000)); // 2400::/8-ish, away from 2002::/16
      let start = (top << 96n) | (BigInt(Math.floor(rnd() * 2 ** 32)) << 64n) | (BigInt(Math.floor(rnd() * 2 ** 32)) << 32n);
      if (i % 4 === 3) start = edges6[Math.floor(rnd() * edges6.length)] ?? start; // nest inside an earlier one
      const host = (1n << BigInt(128 - len)) - 1n;
      start &= ~host;
      const record: Record<string, string> = { kind, confidence: conf[i % 4] };
      if (kind === 'company') record.company_id = String(100000 + i);
      writer.insert(`${Address6.fromBigInt(start).correctForm()}/${len}`, record);
      edges6.push(start, start | host, start - 1n, (start | host) + 1n);
    }
  }
  return { buf: writer.toBuffer(), edges: edges.filter((a) => a >= 0 && a <= 0xffff_ffff), edges6 };
}

describe('answers like the maxmind reader on files built by our writer', () => {
  for (const ipVersion of [4, 6] as const) {
    for (const recordSize of [24, 28, 32] as const) {
      it(`IPv${ipVersion} tree, ${recordSize}-bit records`, () => {
        const { buf, edges, edges6 } = buildOurs({ ipVersion, recordSize, networks: 3000, seed: recordSize * ipVersion });
        expectSameAnswers(buf, edges);
        if (ipVersion === 6) expectSameAnswers6(buf, edges6);
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

  it('refuses anything but a canonical dotted quad or an IPv6 address', () => {
    const { buf } = buildOurs({ ipVersion: 4, networks: 10, seed: 1 });
    const reader = new MmdbReader(buf);
    for (const bad of ['01.2.3.4', '1.2.3', 'x', '', 'fe80::1%eth0', '[::1]', '::1/128']) expect(() => reader.get(bad), bad).toThrow(TypeError);
  });

  it('IPv4 tree: answers IPv4-mapped and IPv4-compatible addresses as IPv4, other IPv6 addresses with null', () => {
    const w = new MmdbWriter({ ipVersion: 4, databaseType: 't', description: { en: 't' }, languages: ['en'] });
    w.insert('0.0.0.0/0', 'everything');
    w.insert('1.2.3.0/24', 'v4');
    const reader = new MmdbReader(w.toBuffer());
    expect([reader.get('::ffff:1.2.3.4'), reader.get('::1.2.3.4'), reader.get('::ffff:9.9.9.9')]).toEqual(['v4', 'v4', 'everything']);
    expect([reader.get('2001:db8::1'), reader.get('::1:ffff:1.2.3.4'), reader.get('2002:102:304::')]).toEqual([null, null, null]);
  });
});

describe('jump table', () => {
  it('is sized to the tree: 16 levels for small trees, up to 24 for big ones', async () => {
    const { jumpBitsFor } = await import('./tables.ts');
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

/** An IPv6 tree whose networks crowd into a few /32s (as allocated space does), so that their tops are dense. */
function buildDenseV6(seed: number): { buf: Buffer; probes: bigint[] } {
  let s = seed >>> 0;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const writer = new MmdbWriter({ ipVersion: 6, databaseType: 'svc-networks-test', description: { en: 't' }, languages: ['en'] });
  writer.insert('1.2.3.0/24', { kind: 'company' });
  const blocks = Array.from({ length: 8 }, (_, i) => (0x2a00_0000n + BigInt(i * 0x1_0000 + Math.floor(rnd() * 0x1_0000))) << 96n);
  writer.insert(`${Address6.fromBigInt(blocks[0] & ~((1n << 99n) - 1n)).correctForm()}/29`, { kind: 'isp' });
  const probes: bigint[] = [];
  for (let i = 0; i < 2400; i++) {
    const len = [36, 40, 44, 48, 48, 56, 64][i % 7];
    const host = (1n << BigInt(128 - len)) - 1n;
    const start = (blocks[i % 8] | (BigInt(Math.floor(rnd() * 2 ** 32)) << 64n) | (BigInt(Math.floor(rnd() * 2 ** 32)) << 32n)) & ~host;
    writer.insert(`${Address6.fromBigInt(start).correctForm()}/${len}`, { kind: 'company', company_id: String(i) });
    probes.push(start, start | host, start - 1n, (start | host) + 1n);
  }
  // Anywhere inside the crowded /32s, and next to them.
  for (let i = 0; i < 2000; i++)
    probes.push(blocks[i % 8] + (BigInt(Math.floor(rnd() * 2 ** 32)) << 64n) + BigInt(Math.floor(rnd() * 2 ** 32)) - BigInt(i % 3) * (1n << 96n));
  return { buf: writer.toBuffer(), probes };
}

describe('IPv6 shortcuts (jump table, /32 directory, stride tables of dense /32s)', () => {
  it('sizes the IPv6 jump table and the record cache to the tree', () => {
    expect([jump6BitsFor(1000), jump6BitsFor(8_000_000), jump6BitsFor(89_000_000)]).toEqual([16, 20, 20]);
    expect([recordCacheBitsFor(1000), recordCacheBitsFor(21_700_000), recordCacheBitsFor(89_000_000)]).toEqual([17, 17, 18]);
  });

  it('gives dense /32s a stride table and answers the same whatever their depth and the jump table’s', () => {
    const { buf, probes } = buildDenseV6(5);
    const oracle = new Reader(buf) as unknown as Oracle;
    expect((new MmdbReader(buf) as unknown as { strides: Uint32Array }).strides.length).toBeGreaterThan(0);
    for (const options of [{ strideBits: 0 }, { strideBits: 1 }, { strideBits: 4 }, { strideBits: 8, jump6Bits: 1 }, { jump6Bits: 24 }]) {
      const ours = new MmdbReader(buf, options);
      for (const x of probes) {
        const ip = v6Text(x);
        expect(ours.get(ip), `${ip} ${JSON.stringify(options)}`).toEqual(oracle.get(ip));
      }
    }
  });

  it('refuses stride and IPv6 jump depths out of range', () => {
    const { buf } = buildDenseV6(1);
    for (const options of [{ strideBits: 9 }, { strideBits: -1 }, { jump6Bits: 0 }, { jump6Bits: 25 }])
      expect(() => new MmdbReader(buf, options)).toThrow(RangeError);
  });
});
