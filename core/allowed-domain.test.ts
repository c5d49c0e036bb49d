import { describe, expect, it } from 'vitest';
import { AllowedDomains, parseAllowedDomain, parseAllowedDomains } from './allowed-domain.ts';

describe('parseAllowedDomain', () => {
  it.each([
    ['www.example.com', 'www.example.com'],
    ['Example.COM', 'example.com'],
    ['  shop.example.co.uk ', 'shop.example.co.uk'],
    ['localhost', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['[2001:DB8:0:0::1]', '2001:db8::1'],
    ['*.example.com', '*.example.com'],
    ['example.com.', 'example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['*.bücher.example', '*.xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
  ])('accepts %j as %j', (entry, stored) => {
    expect(parseAllowedDomain(entry)).toEqual({ ok: true, value: stored });
  });

  it.each([
    '*.com',
    '*',
    '*.',
    'a.com, b.com',
    'a.com b.com',
    'https://www.example.com',
    'www.example.com/path',
    'example.com:8080',
    'localhost:3000',
    'com',
    '',
    'a..com',
    '-a.com',
    'a_b.com',
    'ex*ample.com',
    'www.*.example.com',
    '1.2.3',
    '*.1.2.3.4',
    '[::1]:8080',
    '::g',
    'fe80::1%eth0',
    'user@example.com',
    '0x7f.1',
    '1.2.3.256',
    'ex%41mple.com',
    'a<b.com',
  ])('refuses %j, naming the entry', (entry) => {
    const r = parseAllowedDomain(entry);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain(`"${entry}"`);
  });

  it('de-duplicates after normalisation and names the first bad entry of a list', () => {
    expect(AllowedDomains.parse(['Example.com', 'example.com', 'bücher.example'])).toEqual(['example.com', 'xn--bcher-kva.example']);
    const bad = AllowedDomains.safeParse(['ok.example', '*.com']);
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: [1], message: expect.stringContaining('"*.com"') });
    expect(parseAllowedDomains(['a.example', 'https://b.example'])).toEqual({ ok: false, message: expect.stringContaining('"https://b.example"') });
  });
});
