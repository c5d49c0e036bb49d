import { describe, expect, it } from 'vitest';
import { toIPv4 } from './visitor-ip.ts';

describe('toIPv4', () => {
  it('keeps dotted quads', () => expect(toIPv4('23.45.67.89')).toBe('23.45.67.89'));
  it.each([
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['199.250.249.100', '199.250.249.100'],
  ])('normalises %s to %s', (input, out) => expect(toIPv4(input)).toBe(out));
  it('unwraps IPv4-mapped IPv6 as sockets report it', () => {
    expect(toIPv4('::ffff:23.45.67.89')).toBe('23.45.67.89');
    expect(toIPv4('::FFFF:127.0.0.1')).toBe('127.0.0.1');
  });
  it.each([
    '2001:db8::1',
    '::1',
    '2002:c000:0204::1',
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
  ])('answers null for %s', (input) => expect(toIPv4(input as string)).toBeNull());
});
