import fc from 'fast-check';
import { Address6 } from 'ip-address';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/error-codes.ts';
import { queryIp, rateLimitVisitor, toVisitorIp } from './visitor-ip.ts';

describe('toVisitorIp', () => {
  it('keeps dotted quads', () => expect(toVisitorIp('23.45.67.89')).toBe('23.45.67.89'));
  it.each([
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['199.250.249.100', '199.250.249.100'],
  ])('normalises %s to %s', (input, out) => expect(toVisitorIp(input)).toBe(out));
  it('unwraps IPv4-mapped IPv6 as sockets report it, in any form', () => {
    expect(toVisitorIp('::ffff:23.45.67.89')).toBe('23.45.67.89');
    expect(toVisitorIp('::FFFF:127.0.0.1')).toBe('127.0.0.1');
    expect(toVisitorIp('::ffff:172d:4359')).toBe('23.45.67.89');
    expect(toVisitorIp('0:0:0:0:0:ffff:23.45.67.89')).toBe('23.45.67.89');
  });
  it.each([
    ['2001:db8::1', '2001:db8::1'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    [' 2a00:1450:4001:82b::200e ', '2a00:1450:4001:82b::200e'],
    ['::1', '::1'],
    ['2002:c000:0204::1', '2002:c000:204::1'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
  ])('normalises IPv6 %s to %s (RFC 5952)', (input, out) => expect(toVisitorIp(input)).toBe(out));
  it('gives every form of an IPv6 address the same text', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n << 48n, max: (1n << 128n) - 1n }), (x) => {
        const a = Address6.fromBigInt(x);
        const want = a.correctForm();
        expect(toVisitorIp(a.canonicalForm())).toBe(want);
        expect(toVisitorIp(a.canonicalForm().toUpperCase())).toBe(want);
        expect(toVisitorIp(want)).toBe(want);
      }),
    );
  });
  it.each([
    'fe80::1%eth0',
    '[2001:db8::1]',
    '2001:db8::/32',
    '2001:db8:::1',
    'garbage',
    '',
    '1.2.3',
    '1.2.3.4.5',
    '300.1.1.1',
    '256.1.1.1',
    '1.2.3.4/24',
    '010.001.000.009',
    '1.2.3.04',
    '1..2.3',
    undefined,
    null,
  ])('answers null for %s', (input) => expect(toVisitorIp(input as string)).toBeNull());
});

describe('queryIp (?ip=)', () => {
  it('answers like toVisitorIp', () => {
    for (const ip of ['23.45.67.89', '::ffff:1.2.3.4', '2001:DB8::1', 'garbage', '1.2.3.4/24']) expect(queryIp(ip)).toBe(toVisitorIp(ip));
  });
  it('refuses an IPv6 address with a zone id with a 422 that says why', () => {
    for (const ip of ['fe80::1%eth0', 'fe80::1%25', '2001:db8::1%1']) {
      let error: unknown;
      try {
        queryIp(ip);
      } catch (e) {
        error = e;
      }
      expect(error, ip).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'invalid', status: 422, message: expect.stringMatching(/zone id/) });
    }
  });
  it('leaves other text with a % to the blank answer (not an address at all)', () => {
    expect(queryIp('1.2.3.4%eth0')).toBeNull();
    expect(queryIp('%')).toBeNull();
  });
});

describe('rateLimitVisitor', () => {
  it('is the IPv4 address, or the /64 of an IPv6 address', () => {
    expect(rateLimitVisitor('1.2.3.4')).toBe('1.2.3.4');
    expect(rateLimitVisitor('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(rateLimitVisitor('2001:db8:aa:bb:1:2:3:4')).toBe('2001:db8:aa:bb::/64');
    expect(rateLimitVisitor('2001:db8::1')).toBe('2001:db8::/64');
    expect(rateLimitVisitor('')).toBe('');
  });
});
