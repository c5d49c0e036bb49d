/**
 * Network input: CIDRs, inclusive ranges and single addresses are accepted, malformed ones rejected
 * with a message naming them, IPv4 placement in IPv6 trees and the IPv4 aliases.
 */
import fc from 'fast-check';
import { Address4, Address6 } from 'ip-address';
import { Reader } from 'maxmind';
import { describe, expect, it } from 'vitest';
import { canonicalV4, canonicalV6 } from './network.ts';
import { MmdbWriter } from './writer.ts';

describe('IPv4 fast path', () => {
  it('accepts only what ip-address accepts, with the same address and prefix', () => {
    const octet = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('00', '01', '010', '255', '256', ''));
    const text = fc.oneof(
      fc
        .tuple(octet, octet, octet, octet, fc.option(fc.oneof(fc.integer({ min: 0, max: 40 }).map(String), fc.constantFrom('08', '', '032'))))
        .map(([a, b, c, d, p]) => `${a}.${b}.${c}.${d}${p === null ? '' : '/' + p}`),
      fc.string({ unit: fc.constantFrom('0', '1', '2', '5', '9', '.', '/', ' ', 'x'), maxLength: 20 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        const out = { value: 0, prefix: 0 };
        if (!canonicalV4(t, out)) return;
        const a = new Address4(t); // must not throw
        expect(out.value).toBe(Number(a.bigInt()));
        expect(out.prefix).toBe(a.subnetMask);
      }),
      { numRuns: 3000 },
    );
    const out = { value: 0, prefix: 0 };
    expect(canonicalV4('203.0.113.0/24', out)).toBe(true);
    expect(out).toEqual({ value: 0xcb00_7100, prefix: 24 });
    expect(canonicalV4('255.255.255.255', out)).toBe(true);
    expect(out).toEqual({ value: 0xffff_ffff, prefix: 32 });
  });
});

describe('IPv6 fast path', () => {
  it('accepts only what ip-address accepts, with the same address and prefix', () => {
    const group = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((g) => g.toString(16)),
      fc.constantFrom('', '0', 'FFFF', '12345', 'g', '1.2.3.4'),
    );
    const text = fc.oneof(
      fc
        .tuple(
          fc.array(group, { minLength: 0, maxLength: 9 }),
          fc.option(fc.nat(9)),
          fc.option(fc.oneof(fc.integer({ min: 0, max: 140 }).map(String), fc.constantFrom('', '064'))),
        )
        .map(([gs, gap, p]) => {
          const parts = gap === null ? gs : [...gs.slice(0, gap), '', ...gs.slice(gap)];
          const body = parts
            .join(':')
            .replace(/^:(?!:)/, '::')
            .replace(/(?<!:):$/, '::');
          return `${body}${p === null ? '' : '/' + p}`;
        }),
      fc.string({ unit: fc.constantFrom('0', '1', 'a', 'F', ':', '/', '%', '.', ' '), maxLength: 24 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        const out = { value: 0n, prefix: 0 };
        if (!canonicalV6(t, out)) return;
        const a = new Address6(t); // must not throw
        expect(out.value).toBe(a.bigInt());
        expect(out.prefix).toBe(a.subnetMask);
      }),
      { numRuns: 5000 },
    );
    const out = { value: 0n, prefix: 0 };
    for (const t of ['1::2:', ':1::', '1:::2', '1::2::3', '::ffff:1.2.3.4', 'fe80::1%eth0', '1:2:3:4:5:6:7', '2001:db8::/129'])
      expect(canonicalV6(t, out), t).toBe(false);
    expect(canonicalV6('2001:DB8::/32', out)).toBe(true);
    expect(out).toEqual({ value: 0x2001_0db8n << 96n, prefix: 32 });
    expect(canonicalV6('::', out)).toBe(true);
    expect(out).toEqual({ value: 0n, prefix: 128 });
  });
});

describe('network input', () => {
  const v4 = (): MmdbWriter => new MmdbWriter({ ipVersion: 4, databaseType: 't', description: {}, languages: [] });
  const v6 = (): MmdbWriter => new MmdbWriter({ ipVersion: 6, databaseType: 't', description: {}, languages: [] });

  it('rejects malformed networks with a message naming them', () => {
    const w = v4();
    const bad: [string, RegExp][] = [
      ['203.0.113.0/33', /Invalid network "203\.0\.113\.0\/33"/],
      ['203.0.113.0/24x', /Invalid network/],
      ['203.0.113', /Invalid network "203\.0\.113"/],
      ['256.0.0.0/8', /Invalid network/],
      ['010.0.0.0/8', /leading zeroes/],
      ['203.0.113.5/24', /host bits are set \(the network address is 203\.0\.113\.0\/24\)/],
      ['203.0.113.99-203.0.113.10', /the range ends before it starts/],
      ['203.0.113.0/24-203.0.113.99', /two plain addresses/],
      ['1.2.3.4-1.2.3.5-1.2.3.6', /exactly one "-"/],
      ['1.2.3.4-::1', /same IP version/],
      ['', /Invalid network ""/],
      ['2001:db8::/32', /IPv6 network cannot be stored in an IPv4 database/],
    ];
    for (const [network, message] of bad) expect(() => w.insert(network, 1), network).toThrow(message);
    const w6 = v6();
    expect(() => w6.insert('2001:db8::1/32', 1)).toThrow(/host bits are set \(the network address is 2001:db8::\/32\)/);
    expect(() => w6.insert('fe80::1%eth0', 1)).toThrow(/zone index/);
    expect(() => w6.insert('2002:c000:200::/40', 1)).toThrow(/2002::\/16, which this database aliases/);
    expect(w.networkCount + w6.networkCount).toBe(0);
  });

  it('accepts CIDRs, ranges with spaces, single addresses and IPv4-mapped IPv6 networks', () => {
    const w = v4();
    w.insert('192.0.2.0/24', 'cidr');
    w.insert(' 198.51.100.10 - 198.51.100.20 ', 'range');
    w.insert('203.0.113.7', 'one');
    w.insert('::ffff:100.64.0.0/112', 'mapped'); // = 100.64.0.0/16
    const r = new Reader(w.toBuffer());
    expect([r.get('192.0.2.9'), r.get('198.51.100.20'), r.get('203.0.113.7'), r.get('203.0.113.8'), r.get('100.64.9.9')]).toEqual([
      'cidr',
      'range',
      'one',
      null,
      'mapped',
    ]);
  });

  it('IPv6 trees: IPv4 networks live in ::/96; aliases can be switched off', () => {
    const on = v6();
    on.insert('192.0.2.0/24', 'v4');
    on.insert('::ffff:198.51.100.0/120', 'mapped');
    on.insert('::/0', 'everything');
    const r = new Reader(on.toBuffer());
    expect([r.get('192.0.2.1'), r.get('::c000:201'), r.get('::ffff:192.0.2.1'), r.get('2002:c000:0201::1')]).toEqual(['v4', 'v4', 'v4', 'v4']);
    expect([r.get('198.51.100.1'), r.get('2001:db8::1'), r.get('2002:0808:0808::'), r.get('8.8.8.8')]).toEqual([
      'mapped',
      'everything',
      'everything', // 6to4 of 8.8.8.8, answered by the IPv4 subtree, covered by ::/0
      'everything',
    ]);

    const off = new MmdbWriter({ ipVersion: 6, databaseType: 't', description: {}, languages: [], ipv4Aliases: false });
    off.insert('192.0.2.0/24', 'v4');
    off.insert('2002::/16', '6to4 as plain IPv6');
    off.insert('::ffff:0:0/96', 'mapped as plain IPv6');
    const r2 = new Reader(off.toBuffer());
    expect([r2.get('192.0.2.1'), r2.get('::ffff:192.0.2.1'), r2.get('2002:c000:0201::1')]).toEqual(['v4', 'mapped as plain IPv6', '6to4 as plain IPv6']);
  });
});
