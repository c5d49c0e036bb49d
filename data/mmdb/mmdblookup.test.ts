/**
 * (b) libmaxminddb accepts our files and reads them like the `maxmind` package does. libmaxminddb is
 * stricter than the JS reader (metadata integer types, description/languages present), so the JS reader
 * alone is no proof of a valid file. Needs `mmdblookup` (Debian package mmdb-bin): when it is missing
 * these tests FAIL with the install hint — they never skip silently.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Address4, Address6 } from 'ip-address';
import { Reader } from 'maxmind';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MmdbReader } from '../../server/data/mmdb/reader.ts';
import {
  diffLookup,
  loadReferenceSource,
  lookupManyWithMmdblookup,
  lookupWithMmdblookup,
  MMDBLOOKUP_MISSING,
  REFERENCE_DIR,
  runMmdblookup,
  verboseMetadata,
  withReferenceTypes,
} from './test-support.ts';
import { type MmdbValue, mmdb } from './value.ts';
import { MmdbWriter, type MmdbWriterOptions } from './writer.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmdb-lookup-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const v4 = (n: number): string => Address4.fromBigInt(BigInt(n >>> 0)).correctForm();

/** Records covering every data type, including ones mmdblookup prints specially. */
const RECORDS: MmdbValue[] = [
  { kind: 'company', company_id: '100001', confidence: 'High', geo: { country: 'DE', lat: 52.52, lon: 13.405 } },
  {
    kind: 'isp',
    name: 'Ünïcødé ISP 日本',
    asn: 64_512,
    big: 2n ** 70n + 3n,
    u64: 2 ** 40,
    neg: -42,
    f: mmdb.float(0.5),
    on: true,
    off: false,
    raw: new Uint8Array([0, 1, 254, 255]),
    list: [1, 'two', { three: 3 }, [4.25]],
    empty: {},
    none: [],
  },
  { kind: 'hosting', u16: mmdb.uint16(7), u32: mmdb.uint32(7), i32: mmdb.int32(7), d: mmdb.double(7) },
  { kind: 'bot', long: 'x'.repeat(300), zero: 0, min: -2_147_483_648, max32: 4_294_967_295 },
  'just a string',
];

interface Built {
  file: string;
  reader: Reader<never>;
  probes: string[];
}

function build(name: string, options: MmdbWriterOptions, fill: (w: MmdbWriter, probes: string[]) => void): Built {
  const w = new MmdbWriter({ ...options, buildEpoch: 1_700_000_000 });
  const probes: string[] = [];
  fill(w, probes);
  const buf = w.toBuffer();
  const file = join(dir, `${name}.mmdb`);
  writeFileSync(file, buf);
  return { file, reader: new Reader(buf), probes };
}

/** ~120 IPv4 networks (CIDRs and ranges, overlapping) and probes at their edges and inside. */
function fillV4(w: MmdbWriter, probes: string[]): void {
  const rnd = prng(7);
  const fixed = ['1.0.0.0/8', '1.2.3.0/24', '1.2.3.10-1.2.3.99', '0.0.0.0/32', '255.255.255.255/32', '203.0.113.0/25'];
  for (const [i, n] of fixed.entries()) w.insert(n, RECORDS[i % RECORDS.length]);
  probes.push('0.0.0.0', '0.0.0.1', '1.2.3.9', '1.2.3.10', '1.2.3.99', '1.2.3.100', '255.255.255.255', '203.0.113.200');
  for (let i = 0; i < 120; i++) {
    const value = RECORDS[rnd() % RECORDS.length];
    if (i % 3 === 0) {
      const start = rnd();
      const end = Math.min(0xffff_ffff, start + (rnd() % 100_000));
      w.insert(`${v4(start)}-${v4(end)}`, value);
      probes.push(v4(start), v4(end), v4(Math.floor((start + end) / 2)));
    } else {
      const p = 12 + (rnd() % 21);
      const size = 2 ** (32 - p);
      const start = Math.floor(rnd() / size) * size;
      w.insert(`${v4(start)}/${p}`, value);
      probes.push(v4(start), v4(start + size - 1));
    }
  }
  for (let i = 0; i < 20; i++) probes.push(v4(rnd()));
}

function expectLookupsAgree(b: Built): void {
  let found = 0;
  for (const ip of b.probes) {
    const printed = lookupWithMmdblookup(b.file, ip);
    const js = b.reader.get(ip);
    if (printed === null) {
      expect(js, `${ip}: mmdblookup found nothing, maxmind did`).toBeNull();
      continue;
    }
    found++;
    expect(diffLookup(printed, js), `${ip}`).toBeUndefined();
  }
  expect(found).toBeGreaterThan(b.probes.length / 3);
}

// One mmdblookup process per probed address: minutes, not seconds, when the machine is busy.
describe('libmaxminddb (mmdblookup) reads our databases like the maxmind package', { timeout: 300_000 }, () => {
  it('mmdblookup is installed (else: apt-get install -y mmdb-bin)', () => {
    let r: ReturnType<typeof runMmdblookup>;
    try {
      r = runMmdblookup(['--version']);
    } catch (e) {
      throw new Error(MMDBLOOKUP_MISSING, { cause: e });
    }
    expect(r.stdout + r.stderr).toMatch(/mmdblookup version/);
  });

  it('a missing mmdblookup fails with the install hint instead of skipping', () => {
    expect(() => runMmdblookup(['--version'], { ...process.env, PATH: dir })).toThrow(MMDBLOOKUP_MISSING);
  });

  for (const recordSize of [24, 28, 32] as const) {
    it(`IPv4 tree with ${recordSize}-bit records: metadata and every probed lookup agree`, () => {
      const b = build(
        `v4-${recordSize}`,
        {
          ipVersion: 4,
          databaseType: 'svc-test',
          description: { en: 'svc test database', de: 'svc Testdatenbank' },
          languages: ['en', 'de'],
          recordSize,
        },
        fillV4,
      );
      const m = verboseMetadata(b.file, '1.2.3.4');
      expect(m).toEqual({
        nodeCount: String(b.reader.metadata.nodeCount),
        recordSize: `${recordSize} bits`,
        ipVersion: 'IPv4',
        binaryFormat: '2.0',
        buildEpoch: expect.stringMatching(/^1700000000 \(2023-11-14 22:13:20 UTC\)$/),
        type: 'svc-test',
        languages: 'en de',
        description: expect.stringMatching(/^de:\s+svc Testdatenbank\s+en:\s+svc test database$/),
      });
      expectLookupsAgree(b);
      // Types survive exactly (the maxmind package cannot show them; mmdblookup can).
      expect(b.reader.get('1.2.3.5')).toMatchObject({ kind: 'isp' });
      const printed = runMmdblookup(['--file', b.file, '--ip', '1.2.3.5']).stdout;
      for (const t of ['<uint128>', '<uint64>', '<int32>', '<float>', '<double>', '<boolean>', '<bytes>', '<uint16>']) {
        expect(printed).toContain(t);
      }
    });
  }

  it('IPv6 tree with IPv4 aliases: ::ffff:a.b.c.d and 2002:xxxx:xxxx:: answer like a.b.c.d', () => {
    const b = build(
      'v6-aliases',
      {
        ipVersion: 6,
        databaseType: 'svc-test-v6',
        description: { en: 'v6' },
        languages: ['en'],
      },
      (w, probes) => {
        fillV4(w, probes);
        const rnd = prng(11);
        for (let i = 0; i < 40; i++) {
          const p = 16 + (rnd() % 113);
          let a = 0n;
          for (let k = 0; k < 4; k++) a = (a << 32n) | BigInt(rnd());
          a |= 0x2400n << 112n; // keep away from the aliased 2002::/16 and ::/96
          a &= ~((1n << BigInt(128 - p)) - 1n);
          const s = Address6.fromBigInt(a).correctForm();
          w.insert(`${s}/${p}`, RECORDS[i % RECORDS.length]);
          probes.push(s, Address6.fromBigInt(a | ((1n << BigInt(128 - p)) - 1n)).correctForm());
        }
      },
    );
    expect(verboseMetadata(b.file, '::1')).toMatchObject({ ipVersion: 'IPv6', recordSize: '24 bits' });
    expectLookupsAgree(b);
    for (const ip of ['1.2.3.10', '1.2.3.50', '1.2.3.200', '255.255.255.255', '0.0.0.0', '9.9.9.9']) {
      const plain = lookupWithMmdblookup(b.file, ip);
      const n = new Address4(ip).bigInt();
      const mapped = `::ffff:${ip}`;
      const sixToFour = Address6.fromBigInt((0x2002n << 112n) | (n << 80n)).correctForm();
      for (const alias of [mapped, sixToFour]) {
        expect(lookupWithMmdblookup(b.file, alias), `${alias}`).toEqual(plain);
        expect(b.reader.get(alias), `${alias}`).toEqual(b.reader.get(ip));
      }
    }
  });

  it('IPv6 tree shaped like networks.mmdb: mmdblookup and our reader agree on 10,000 random IPv6 probes', () => {
    const rnd = prng(23);
    const big = (): bigint => (BigInt(rnd()) << 96n) | (BigInt(rnd()) << 64n) | (BigInt(rnd()) << 32n) | BigInt(rnd());
    const nets: { start: bigint; end: bigint }[] = [];
    const b = build('v6-probes', { ipVersion: 6, databaseType: 'svc-networks', description: { en: 'v6' }, languages: ['en'] }, (w) => {
      fillV4(w, []);
      // ISP /29–/32, hosting /40–/48, company /48–/64 (a quarter nested in earlier ones), ranges, in 2400::/6.
      for (let i = 0; i < 3000; i++) {
        const kind = ['isp', 'hosting', 'company'][i % 3];
        const len = kind === 'isp' ? 29 + (rnd() % 4) : kind === 'hosting' ? 40 + (rnd() % 9) : 48 + (rnd() % 17);
        let start = (big() & ((1n << 122n) - 1n)) | (0x24n << 120n);
        if (i % 4 === 3 && nets.length > 0) start = nets[rnd() % nets.length].start | (big() & ((1n << 64n) - 1n));
        const host = (1n << BigInt(128 - len)) - 1n;
        start &= ~host;
        const value = { kind, confidence: 'High', ...(kind === 'company' ? { company_id: String(100_000 + i) } : {}) };
        if (i % 10 === 9) {
          const end = start + (big() % (1n << 70n));
          w.insert(`${Address6.fromBigInt(start).correctForm()}-${Address6.fromBigInt(end).correctForm()}`, value);
          nets.push({ start, end });
        } else {
          w.insert(`${Address6.fromBigInt(start).correctForm()}/${len}`, value);
          nets.push({ start, end: start | host });
        }
      }
    });
    const ours = new MmdbReader(readFileSync(b.file));
    const probes: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const n = nets[rnd() % nets.length];
      const pick = i % 5;
      let x: bigint;
      if (pick === 0) x = n.start;
      else if (pick === 1) x = n.end + 1n;
      else if (pick === 2) x = n.start + (big() % (n.end - n.start + 1n));
      else if (pick === 3)
        x = big(); // anywhere, mostly no data
      else x = (0xffffn << 32n) | BigInt(rnd()); // IPv4-mapped: through the alias
      // Every text form our reader takes: compressed, full, upper case.
      const a = Address6.fromBigInt(x);
      probes.push(i % 3 === 0 ? a.correctForm() : i % 3 === 1 ? a.canonicalForm() : a.correctForm().toUpperCase());
    }
    const printed = lookupManyWithMmdblookup(b.file, probes, dir);
    let found = 0;
    for (const [i, ip] of probes.entries()) {
      const mine = ours.get(ip);
      if (printed[i] === null) {
        expect(mine, `${ip}: mmdblookup found nothing`).toBeNull();
        continue;
      }
      found++;
      expect(diffLookup(printed[i]!, mine), ip).toBeUndefined();
    }
    expect(found).toBeGreaterThan(4000);
  });

  it('GeoIP2-City built from MaxMind source prints exactly like the official file (values and types)', () => {
    const official = `${REFERENCE_DIR}test-data/GeoIP2-City-Test.mmdb`;
    const nets = loadReferenceSource('GeoIP2-City-Test.json');
    const b = build(
      'city',
      {
        ipVersion: 6,
        databaseType: 'GeoIP2-City',
        description: {
          en: 'GeoIP2 City Test Database (fake GeoIP2 data, for example purposes only)',
          zh: '小型数据库',
        },
        languages: ['en', 'zh'],
      },
      (w, probes) => {
        for (const n of nets) w.insert(n.network, withReferenceTypes('', n.record));
        for (const n of nets.filter((_, i) => i % 5 === 0)) {
          const text = (x: bigint): string => (n.v4 ? Address4.fromBigInt(x).correctForm() : Address6.fromBigInt(x).correctForm());
          probes.push(text(n.start), text(n.end));
        }
      },
    );
    const mine = verboseMetadata(b.file, '81.2.69.142');
    const theirs = verboseMetadata(official, '81.2.69.142');
    // Node count and record size differ by design (MaxMind's generator forces 28-bit records and adds
    // reserved-network holes and a Teredo alias; we pick the smallest record size that fits).
    const same = { nodeCount: '', buildEpoch: '', recordSize: '' };
    expect({ ...mine, ...same }).toEqual({ ...theirs, ...same });
    for (const ip of b.probes) {
      expect(lookupWithMmdblookup(b.file, ip), ip).toEqual(lookupWithMmdblookup(official, ip));
    }
    expectLookupsAgree(b);
  });

  it('a database with > 16 MiB of data (auto 28-bit records, high nibbles in use) reads correctly', () => {
    const w = new MmdbWriter({ ipVersion: 4, databaseType: 'big', description: { en: 'big' }, languages: ['en'] });
    const big = (c: string): Uint8Array => Buffer.alloc(9_000_000, c);
    w.insert('10.0.0.0/8', { blob: big('a') });
    w.insert('11.0.0.0/8', { blob: big('b') });
    w.insert('12.0.0.0/8', { tag: 'after the blobs' });
    const file = join(dir, 'big.mmdb');
    writeFileSync(file, w.toBuffer());
    expect(verboseMetadata(file, '12.0.0.1').recordSize).toBe('28 bits');
    expect(runMmdblookup(['--file', file, '--ip', '12.0.0.1', 'tag']).stdout).toContain('"after the blobs" <utf8_string>');
    const reader = new Reader(readFileSync(file));
    expect(reader.get('12.0.0.1')).toEqual({ tag: 'after the blobs' });
    expect((reader.get('11.0.0.1') as unknown as { blob: Buffer }).blob.subarray(0, 3).toString()).toBe('bbb');
  });
});
