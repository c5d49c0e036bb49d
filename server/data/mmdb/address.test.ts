/** Address text ↔ numbers: canonical dotted quads and every RFC 4291 IPv6 text form, checked against ip-address. */
import fc from 'fast-check';
import { Address4, Address6 } from 'ip-address';
import { describe, expect, it } from 'vitest';
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from './address.ts';

const TOP = (1n << 128n) - 1n;

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

describe('parseIPv6 and formatIPv6', () => {
  const words = (x: bigint): number[] => [96n, 64n, 32n, 0n].map((s) => Number((x >> s) & 0xffff_ffffn));

  it('parses every text form of an address to the same four words', () => {
    const w = new Uint32Array(4);
    const forms: [string, bigint][] = [
      ['::', 0n],
      ['::1', 1n],
      ['1::', 1n << 112n],
      ['2001:db8::1', (0x2001_0db8n << 96n) | 1n],
      ['2001:0DB8:0000:0000:0000:0000:0000:0001', (0x2001_0db8n << 96n) | 1n],
      ['2001:db8:0:0:1:0:0:1', 0x2001_0db8_0000_0000_0001_0000_0000_0001n],
      ['::ffff:1.2.3.4', 0xffff_0102_0304n],
      ['::1.2.3.4', 0x0102_0304n],
      ['64:ff9b::192.0.2.33', (0x0064_ff9bn << 96n) | 0xc000_0221n],
      ['1:2:3:4:5:6:7::', 0x0001_0002_0003_0004_0005_0006_0007_0000n],
      ['::2:3:4:5:6:7:8', 0x0000_0002_0003_0004_0005_0006_0007_0008n],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', TOP],
    ];
    for (const [text, x] of forms) {
      expect(parseIPv6(text, w), text).toBe(true);
      expect([...w], text).toEqual(words(x));
    }
  });

  it('refuses zone ids, brackets, prefixes and malformed text', () => {
    const w = new Uint32Array(4);
    for (const bad of [
      'fe80::1%eth0',
      'fe80::1%1',
      '[::1]',
      '::1/128',
      '',
      ':',
      ':::',
      '1:::2',
      '1::2::3',
      ':1::',
      '1::2:',
      '12345::',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8::',
      '::1.2.3',
      '::1.2.3.04',
      '1:2:3:4:5:6:7:1.2.3.4',
      '::1.2.3.4:5',
      'g::1',
      ' ::1',
      '1.2.3.4',
    ]) {
      expect(parseIPv6(bad, w), bad).toBe(false);
    }
  });

  it('agrees with ip-address on any 128-bit address, in its canonical and its full form', () => {
    const w = new Uint32Array(4);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: TOP }), fc.integer({ min: 0, max: 8 }), (x, zeroRun) => {
        // Often a run of zero groups, so that `::` lands everywhere.
        const mask = zeroRun === 0 ? 0n : ((1n << BigInt(16 * zeroRun)) - 1n) << BigInt(16 * (Number(x & 7n) % (9 - zeroRun)));
        const y = x & ~mask;
        const a = Address6.fromBigInt(y);
        for (const text of [a.correctForm(), a.canonicalForm(), a.canonicalForm().toUpperCase()]) {
          expect(parseIPv6(text, w), text).toBe(true);
          expect([...w]).toEqual(words(y));
        }
        expect(formatIPv6(words(y))).toBe(a.correctForm());
      }),
      { numRuns: 2000 },
    );
  });
});
