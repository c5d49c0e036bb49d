import { describe, expect, it } from 'vitest';
import { normaliseDomain } from './domain.ts';

describe('normaliseDomain brings websites and domains to one host name', () => {
  it.each([
    ['acme.com', 'acme.com'],
    ['ACME.com', 'acme.com'],
    ['https://www.Acme.com/about?x=1#top', 'acme.com'],
    ['http://acme.com:8080/', 'acme.com'],
    ['www.acme.com', 'acme.com'],
    ['//acme.com/path', null],
    ['acme.com.', 'acme.com'],
    ['  shop.acme.co.uk  ', 'shop.acme.co.uk'],
    ['https://user:pw@acme.com', 'acme.com'],
  ])('%s → %s', (text, host) => {
    expect(normaliseDomain(text)).toBe(host);
  });

  it.each([
    [''],
    ['   '],
    [null],
    [undefined],
    ['localhost'],
    ['acme'],
    ['not a domain'],
    ['acme..com'],
    ['-acme.com'],
    ['acme.com/<script>'.replace('/', ' ')],
    ['1.2.3.4'],
    ['xn--.com'],
  ])('refuses %s (not a valid host name: skipped and counted)', (text) => {
    expect(normaliseDomain(text as string | null)).toBeNull();
  });

  it('does not make notacme.com acme.com', () => {
    expect(normaliseDomain('https://notacme.com')).toBe('notacme.com');
  });
});
