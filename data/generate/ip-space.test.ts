import fc from 'fast-check';
import { Address4 } from 'ip-address';
import { describe, expect, it } from 'vitest';
import { AddressSpaceExhausted, BLOCK_SIZE, Container, cidr, Ipv4Space, ipToString, Pool, range, rangeInside, sizeOf } from './ip-space.ts';
import { Rng } from './random.ts';
import { parseNetwork } from './read-generated.ts';

/** The IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates) plus multicast. */
const SPECIAL = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.31.196.0/24',
  '192.52.193.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '192.175.48.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map(parseNetwork);

function overlapsSpecial(first: number, last: number): boolean {
  return SPECIAL.some((s) => first <= s.last && last >= s.first);
}

describe('Ipv4Space', () => {
  it('hands out every public /16 once and then refuses, never a private, reserved or documentation one', () => {
    const space = new Ipv4Space(new Rng('all'));
    const seen = new Set<number>();
    for (;;) {
      let start: number;
      try {
        start = space.takeBlock();
      } catch (e) {
        expect(e).toBeInstanceOf(AddressSpaceExhausted);
        break;
      }
      expect(start % BLOCK_SIZE).toBe(0);
      expect(seen.has(start)).toBe(false);
      seen.add(start);
      if (overlapsSpecial(start, start + BLOCK_SIZE - 1)) throw new Error(`handed out special-purpose space ${ipToString(start)}/16`);
      // And a second opinion from ip-address, on a sample.
      if (seen.size % 97 === 0) expect(new Address4(ipToString(start + 0x1234)).isGlobal()).toBe(true);
    }
    // 256 /8s minus 0, 10, 127 and 224–255, minus the smaller reserved pieces.
    expect(seen.size).toBeGreaterThan(56_000);
    expect(seen.size).toBeLessThan(56_700);
  });

  it('gives aligned /15s and /14s when asked, falling back to a /16', () => {
    const space = new Ipv4Space(new Rng('runs'));
    for (let i = 0; i < 200; i++) {
      const count = ([1, 2, 4] as const)[i % 3];
      const { start, prefix } = space.takeBlocks(count);
      expect([16, 16 - Math.log2(count)]).toContain(prefix);
      expect(start % sizeOf(prefix)).toBe(0);
    }
  });
});

describe('Pool', () => {
  it('allocates aligned, disjoint networks', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.integer({ min: 16, max: 32 }), { minLength: 1, maxLength: 80 }), (seed, prefixes) => {
        const rng = new Rng(seed);
        const pool = new Pool(new Ipv4Space(rng), rng, 0.3, 4);
        const spans = prefixes.map((p) => {
          const start = pool.alloc(p);
          expect(start % sizeOf(p)).toBe(0);
          return [start, start + sizeOf(p) - 1] as const;
        });
        spans.sort((a, b) => a[0] - b[0]);
        for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThan(spans[i - 1][1]);
      }),
      { numRuns: 50 },
    );
  });
});

describe('Container', () => {
  it('places nested networks inside its [from, to) part only, disjoint and aligned', () => {
    const rng = new Rng('box');
    const box = new Container(0x0b000000, 22, 0.25, 0.75);
    const spans: [number, number][] = [];
    for (let start = box.carve(28, rng); start !== null; start = box.carve(rng.pick([27, 28, 29]), rng)) {
      spans.push([start, start]);
    }
    expect(spans.length).toBeGreaterThan(5);
    for (const [s] of spans) {
      expect(s).toBeGreaterThanOrEqual(box.start + 256);
      expect(s).toBeLessThan(box.start + 768);
    }
    expect(box.carve(22, rng)).toBeNull();
  });
});

describe('rangeInside', () => {
  it('stays strictly inside its chunk with first ≤ last', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 21, max: 30 }), (seed, prefix) => {
        const rng = new Rng(seed);
        const size = sizeOf(prefix);
        const [a, b] = rangeInside(1_000_000 * size, size, rng);
        expect(a).toBeGreaterThan(1_000_000 * size);
        expect(b).toBeGreaterThanOrEqual(a);
        expect(b).toBeLessThan(1_000_000 * size + size - 1);
      }),
    );
  });
});

describe('formatting', () => {
  it('writes dotted quads, CIDRs and ranges that ip-address reads back', () => {
    expect(ipToString(0xcb007105)).toBe('203.0.113.5');
    expect(ipToString(0xffffffff)).toBe('255.255.255.255');
    expect(parseNetwork(cidr(0x08080800, 24))).toEqual({ first: 0x08080800, last: 0x080808ff });
    expect(parseNetwork(range(0x0808080a, 0x08080863))).toEqual({ first: 0x0808080a, last: 0x08080863 });
  });
});
