import fc from 'fast-check';
import { Address6 } from 'ip-address';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../core/error-codes.ts';
import { clientIp, rateLimitSite, rateLimitVisitor, toVisitorIp } from './visitor-ip.ts';

describe('toVisitorIp', () => {
  it('keeps dotted quads', () => expect(toVisitorIp('23.45.67.89')).toBe('23.45.67.89'));
  it.each([
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['199.250.249.100', '199.250.249.100'],
  ])('normalises %s to %s', (input, out) => expect(toVisitorIp(input)).toBe(out));
  it('unwraps NAT64 (64:ff9b::/96, RFC 6052) to the IPv4 address it embeds, in any form', () => {
    expect(toVisitorIp('64:ff9b::192.0.2.33')).toBe('192.0.2.33');
    expect(toVisitorIp('64:FF9B::C000:221')).toBe('192.0.2.33');
    expect(toVisitorIp('0064:ff9b:0000:0000:0000:0000:1710:0114')).toBe('23.16.1.20');
    // Just outside the /96: IPv6 as it is.
    expect(toVisitorIp('64:ff9b::1:c000:221')).toBe('64:ff9b::1:c000:221');
  });
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
    // NAT64's local-use prefix (RFC 8215): where the IPv4 address sits is the operator's choice, so it stays IPv6.
    ['64:ff9b:1::c000:221', '64:ff9b:1::c000:221'],
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

/** The ApiError `clientIp` throws for `input`, or undefined when it answers. */
function refusal(input: string): ApiError | undefined {
  try {
    clientIp(input, 'ip');
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
}

describe('clientIp (?ip=, test_ip): the one rule for an address a client writes', () => {
  it('takes a canonical dotted quad and IPv6 in any text form, normalised as toVisitorIp does', () => {
    for (const ip of [
      '23.45.67.89',
      '0.0.0.0',
      '255.255.255.255',
      '::ffff:1.2.3.4',
      '2001:DB8::1',
      '2001:0db8:0:0:0:0:0:1',
      '::',
      '::1.2.3.4',
      '64:ff9b::c000:221',
    ])
      expect(clientIp(ip, 'ip'), ip).toBe(toVisitorIp(ip));
  });

  it.each([
    ['[2600:1f18::1]', /without brackets/],
    ['[2600:1f18::1]:443', /without brackets/],
    ['49.153.0.5:8080', /has a port/],
    ['1:2:3:4:5:6:7:8:9', /is not an IP address/],
    ['049.153.0.5', /leading zero/],
    ['010.001.000.009', /leading zero/],
    ['822673413', /integer/],
    ['0x31990005', /is not an IP address/],
    ['49.153.5', /is not an IP address/],
    ['1.2.3.4/24', /a network/],
    ['2001:db8::/32', /a network/],
    [' 1.2.3.4', /spaces/],
    ['1.2.3.4 ', /spaces/],
    ['', /empty/],
    ['2001:db8:::1', /is not an IP address/],
    ['1.2.3.4%eth0', /is not an IP address/],
    ['1.2.3.4, 5.6.7.8', /is not an IP address/],
  ])('refuses %j with 422 invalid naming the parameter and what is wrong', (input, why) => {
    const e = refusal(input);
    expect(e).toMatchObject({ code: 'invalid', status: 422 });
    expect(e!.message).toMatch(/^validation error: ip /);
    expect(e!.message).toMatch(why);
    expect(e!.message).toContain(JSON.stringify(input));
  });

  it('refuses an IPv6 address with a zone id with a 422 that says why', () => {
    for (const ip of ['fe80::1%eth0', 'fe80::1%25', '2001:db8::1%1'])
      expect(refusal(ip), ip).toMatchObject({ code: 'invalid', status: 422, message: expect.stringMatching(/zone id/) });
  });

  it.each(['garbage', 'not-an-ip', 'unknown', '999.1.1.1', '256.256.256.256'])(
    'answers null (the spec: an invalid IP gets blank company variables) for plain non-addresses like %j',
    (input) => expect(clientIp(input, 'ip')).toBeNull(),
  );

  it('names the parameter it read', () => {
    expect(() => clientIp('x', 'test_ip')).toThrow(/^validation error: test_ip "x"/);
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
  it('counts a NAT64 visitor as the IPv4 address it embeds', () => {
    expect(rateLimitVisitor('64:ff9b::1.2.3.4')).toBe('1.2.3.4');
  });
});

describe('rateLimitSite', () => {
  it('is the /48 of an IPv6 address, whatever its /64 or form, and null for IPv4 in any form', () => {
    for (const ip of ['2001:db8:aa:bb:1:2:3:4', '2001:db8:aa:ffff::1', '2001:0DB8:00AA:0000:0000:0000:0000:0001'])
      expect(rateLimitSite(ip), ip).toBe('2001:db8:aa::/48');
    expect(rateLimitSite('2001:db8:ab::1')).toBe('2001:db8:ab::/48');
    for (const ip of ['1.2.3.4', '::ffff:1.2.3.4', '64:ff9b::1.2.3.4', '', 'garbage:']) expect(rateLimitSite(ip), ip).toBeNull();
  });
});
