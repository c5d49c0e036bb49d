/**
 * (c) The overlap rule: the most specific network wins, independent of insertion order; "most specific"
 * = fewest addresses (a range counts as a whole); equal size → the later insertion wins; no network →
 * null. Worked examples first, then fast-check properties against a naive reference.
 */
import fc from 'fast-check';
import { Address4, Address6 } from 'ip-address';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { MmdbWriter } from './writer.ts';

interface Net {
  text: string;
  /** Bounds in the tree's address space (IPv4 networks of an IPv6 tree sit in ::/96). */
  start: bigint;
  end: bigint;
}

/** The naive reference: among networks containing x, fewest addresses wins; ties → later insertion. */
function expected(nets: Net[], values: number[], x: bigint): { v: number } | null {
  let best = -1;
  for (let i = 0; i < nets.length; i++) {
    const n = nets[i];
    if (n.start <= x && x <= n.end && (best < 0 || n.end - n.start <= nets[best].end - nets[best].start)) best = i;
  }
  return best < 0 ? null : { v: values[best] };
}

const v4Text = (x: bigint): string => Address4.fromBigInt(x).correctForm();
const v6Text = (x: bigint): string => Address6.fromBigInt(x).correctForm();

function v4Writer(): MmdbWriter {
  return new MmdbWriter({ ipVersion: 4, databaseType: 't', description: { en: 't' }, languages: ['en'] });
}

describe('overlap rule, worked examples', () => {
  it('a nested /32 beats its /24 whichever is inserted first', () => {
    for (const order of [0, 1]) {
      const w = v4Writer();
      const ins: [string, string][] = [
        ['198.51.100.0/24', 'wide'],
        ['198.51.100.7/32', 'narrow'],
      ];
      if (order) ins.reverse();
      for (const [n, v] of ins) w.insert(n, v);
      const r = new Reader(w.toBuffer());
      expect([r.get('198.51.100.6'), r.get('198.51.100.7'), r.get('198.51.100.8')]).toEqual(['wide', 'narrow', 'wide']);
    }
  });

  it('a range counts as a whole: 90 addresses beat a /25 (128) but lose to a /26 (64)', () => {
    const w = v4Writer();
    w.insert('203.0.113.64/26', 'slash26'); // .64-.127
    w.insert('203.0.113.10-203.0.113.99', 'range'); // its CIDR pieces are smaller than /26, the range is not
    w.insert('203.0.113.0/25', 'slash25'); // .0-.127
    const r = new Reader(w.toBuffer());
    const at = (last: number): unknown => r.get(`203.0.113.${last}`);
    expect([at(9), at(10), at(63), at(64), at(99), at(100), at(127), at(128)]).toEqual([
      'slash25',
      'range',
      'range',
      'slash26',
      'slash26',
      'slash26',
      'slash26',
      null,
    ]);
  });

  it('the same network twice: the later insertion wins; equal-size range vs CIDR too', () => {
    const w = v4Writer();
    w.insert('192.0.2.0/24', 'first');
    w.insert('192.0.2.0/24', 'second');
    w.insert('192.0.2.0-192.0.2.255', 'range, same size, later');
    w.insert('10.0.0.0-10.0.0.255', 'range first');
    w.insert('10.0.0.0/24', 'cidr later');
    const r = new Reader(w.toBuffer());
    expect(r.get('192.0.2.1')).toBe('range, same size, later');
    expect(r.get('10.0.0.255')).toBe('cidr later');
  });

  it('partially overlapping ranges: the smaller one owns the shared part', () => {
    const w = v4Writer();
    w.insert('100.0.0.0-100.0.0.199', 'A'); // 200 addresses
    w.insert('100.0.0.150-100.0.0.255', 'B'); // 106 addresses
    const r = new Reader(w.toBuffer());
    expect([r.get('100.0.0.149'), r.get('100.0.0.150'), r.get('100.0.0.199'), r.get('100.0.0.200')]).toEqual(['A', 'B', 'B', 'B']);
  });

  it('whole address space and its edges', () => {
    const w = v4Writer();
    w.insert('0.0.0.0/0', 'all');
    w.insert('255.255.255.255/32', 'top');
    w.insert('0.0.0.0-0.0.0.0', 'bottom');
    const r = new Reader(w.toBuffer());
    expect([r.get('0.0.0.0'), r.get('0.0.0.1'), r.get('128.0.0.0'), r.get('255.255.255.254'), r.get('255.255.255.255')]).toEqual([
      'bottom',
      'all',
      'all',
      'all',
      'top',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------

const WINDOW = 4096n;

/** IPv4 networks around `anchor` (a 4096-address window, so they overlap a lot), CIDRs and ranges. */
function v4Net(anchor: bigint): fc.Arbitrary<Net> {
  const cidr = fc.record({ off: fc.bigInt(0n, WINDOW - 1n), prefix: fc.integer({ min: 18, max: 32 }) }).map(({ off, prefix }) => {
    const size = 1n << BigInt(32 - prefix);
    const start = ((anchor + off) / size) * size;
    return { text: `${v4Text(start)}/${prefix}`, start, end: start + size - 1n };
  });
  const range = fc.record({ off: fc.bigInt(0n, WINDOW - 1n), len: fc.bigInt(1n, 700n) }).map(({ off, len }) => {
    const start = anchor + off;
    const end = start + len - 1n > 0xffff_ffffn ? 0xffff_ffffn : start + len - 1n;
    return { text: `${v4Text(start)}-${v4Text(end)}`, start, end };
  });
  const wide = fc.constantFrom<Net>(
    { text: '0.0.0.0/0', start: 0n, end: 0xffff_ffffn },
    { text: '0.0.0.0/1', start: 0n, end: 0x7fff_ffffn },
    { text: '128.0.0.0/1', start: 0x8000_0000n, end: 0xffff_ffffn },
  );
  return fc.oneof({ weight: 5, arbitrary: cidr }, { weight: 4, arbitrary: range }, { weight: 1, arbitrary: wide });
}

/** IPv6 networks around `anchor`: mostly in a small window, some spanning many 2^32 blocks. */
function v6Net(anchor: bigint): fc.Arbitrary<Net> {
  const max = (1n << 128n) - 1n;
  const at = (off: bigint): bigint => (anchor + off > max ? max : anchor + off);
  const offset = fc.oneof(fc.bigInt(0n, WINDOW - 1n), fc.bigInt(0n, 1n << 40n));
  const cidr = fc.record({ off: offset, prefix: fc.integer({ min: 84, max: 128 }) }).map(({ off, prefix }) => {
    const size = 1n << BigInt(128 - prefix);
    const start = (at(off) / size) * size;
    return { text: `${v6Text(start)}/${prefix}`, start, end: start + size - 1n };
  });
  const range = fc.record({ off: offset, len: fc.oneof(fc.bigInt(1n, 700n), fc.bigInt(1n, 1n << 36n)) }).map(({ off, len }) => {
    const start = at(off);
    const end = start + len - 1n > max ? max : start + len - 1n;
    return { text: `${v6Text(start)}-${v6Text(end)}`, start, end };
  });
  return fc.oneof(cidr, range);
}

const probeSet = (nets: Net[], extra: bigint[], max: bigint): bigint[] => {
  const out = new Set<bigint>(extra);
  for (const n of nets) for (const x of [n.start - 1n, n.start, n.start + 1n, n.end - 1n, n.end, n.end + 1n]) out.add(x);
  return [...out].filter((x) => x >= 0n && x <= max);
};

describe('overlap rule, property-based against a naive reference', () => {
  it('IPv4 tree: random overlapping CIDRs and ranges in random order', () => {
    const anchors = fc.constantFrom(0n, 0x0a00_0000n, 0xc633_6400n, 0xffff_ffffn - WINDOW + 1n);
    fc.assert(
      fc.property(
        anchors.chain((anchor) =>
          fc.record({
            nets: fc.array(fc.tuple(v4Net(anchor), fc.integer({ min: 0, max: 12 })), { minLength: 1, maxLength: 40 }),
            extra: fc.array(fc.oneof(fc.bigInt(anchor, anchor + WINDOW - 1n), fc.bigInt(0n, 0xffff_ffffn)), {
              maxLength: 40,
            }),
          }),
        ),
        ({ nets: pairs, extra }) => {
          const nets = pairs.map(([n]) => n);
          const values = pairs.map(([, v]) => v);
          const w = v4Writer();
          for (const [n, v] of pairs) w.insert(n.text, { v });
          const r = new Reader(w.toBuffer());
          for (const x of probeSet(nets, extra, 0xffff_ffffn)) {
            const ip = v4Text(x);
            expect(r.get(ip), ip).toEqual(expected(nets, values, x));
          }
        },
      ),
      { numRuns: 250 },
    );
  });

  it('IPv6 tree with aliases: random v6 and v4 networks; mapped and 6to4 forms answer like IPv4', () => {
    const anchors = fc.constantFrom(
      0x2001_0db8n << 96n,
      (0x2400n << 112n) + (1n << 32n) - 2048n, // window straddles a 2^32 block boundary
      (1n << 128n) - WINDOW, // top of the address space
    );
    const v4Anchor = 0x0a00_0000n;
    fc.assert(
      fc.property(
        anchors.chain((anchor) =>
          fc.record({
            nets: fc.array(
              fc.tuple(fc.oneof({ weight: 3, arbitrary: v6Net(anchor) }, { weight: 1, arbitrary: v4Net(v4Anchor) }), fc.integer({ min: 0, max: 12 })),
              { minLength: 1, maxLength: 30 },
            ),
            extra: fc.array(fc.oneof(fc.bigInt(anchor, anchor + WINDOW - 1n), fc.bigInt(v4Anchor, v4Anchor + WINDOW)), {
              maxLength: 30,
            }),
          }),
        ),
        ({ nets: pairs, extra }) => {
          const nets = pairs.map(([n]) => n);
          const values = pairs.map(([, v]) => v);
          const w = new MmdbWriter({ ipVersion: 6, databaseType: 't', description: { en: 't' }, languages: ['en'] });
          for (const [n, v] of pairs) w.insert(n.text, { v });
          const r = new Reader(w.toBuffer());
          for (const x of probeSet(nets, extra, (1n << 128n) - 1n)) {
            const want = expected(nets, values, x);
            if (x <= 0xffff_ffffn) {
              // IPv4: plain, IPv4-mapped (::ffff:0:0/96 alias) and 6to4 (2002::/16 alias) forms.
              for (const ip of [v4Text(x), `::ffff:${v4Text(x)}`, v6Text((0x2002n << 112n) | (x << 80n))]) {
                expect(r.get(ip), ip).toEqual(want);
              }
            } else {
              const ip = v6Text(x);
              expect(r.get(ip), ip).toEqual(want);
            }
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it('IPv6 networks inside, across and around ::/96 compete with IPv4 networks by their whole size (trees 6 and auto)', () => {
    const v4Anchor = 0xffff_ffffn - WINDOW + 1n; // the top of the IPv4 space, where ::/96 ends
    const around = fc.constantFrom<Net>(
      { text: '::/64', start: 0n, end: (1n << 64n) - 1n },
      { text: '::/95', start: 0n, end: (1n << 33n) - 1n },
      { text: '::/96', start: 0n, end: 0xffff_ffffn },
      { text: '::/0', start: 0n, end: (1n << 128n) - 1n },
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.oneof(
              { weight: 3, arbitrary: v6Net(1n << 32n) },
              { weight: 3, arbitrary: v6Net(v4Anchor) },
              { weight: 3, arbitrary: v4Net(v4Anchor) },
              { weight: 1, arbitrary: around },
            ),
            fc.integer({ min: 0, max: 12 }),
          ),
          { minLength: 1, maxLength: 30 },
        ),
        fc.constantFrom<6 | 'auto'>(6, 'auto'),
        (pairs, ipVersion) => {
          const nets = pairs.map(([n]) => n);
          const values = pairs.map(([, v]) => v);
          const w = new MmdbWriter({ ipVersion, databaseType: 't', description: { en: 't' }, languages: ['en'] });
          for (const [n, v] of pairs) w.insert(n.text, { v });
          const tree = w.ipVersion;
          expect(tree).toBe(ipVersion === 6 || nets.some((n) => n.end > 0xffff_ffffn) ? 6 : 4);
          const r = new Reader(w.toBuffer());
          for (const x of probeSet(nets, [], (1n << 128n) - 1n)) {
            const want = expected(nets, values, x);
            if (x <= 0xffff_ffffn) {
              expect(r.get(v4Text(x)), v4Text(x)).toEqual(want);
              if (tree === 6) expect(r.get(v6Text(x)), v6Text(x)).toEqual(want);
            } else if (tree === 6) {
              // (An IPv4 tree — 'auto' with nothing outside ::/96 — holds no IPv6 address to ask about.)
              expect(r.get(v6Text(x)), v6Text(x)).toEqual(want);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
