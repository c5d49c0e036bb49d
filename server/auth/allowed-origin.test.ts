import { describe, expect, it } from 'vitest';
import { AllowedDomains } from '../../core/allowed-domain.ts';
import { isHostAllowed, normaliseAllowedDomain, requestHost } from './allowed-origin.ts';

describe('requestHost', () => {
  it('prefers Origin and falls back to Referer', () => {
    expect(requestHost('https://www.example.com', 'https://other.test/page')).toBe('www.example.com');
    expect(requestHost(undefined, 'https://shop.example.com:8443/cart?x=1')).toBe('shop.example.com');
  });
  it('ignores the opaque "null" origin and unparsable headers', () => {
    expect(requestHost('null', 'http://localhost:3000/')).toBe('localhost');
    expect(requestHost('not a url', undefined)).toBeNull();
    expect(requestHost(undefined, undefined)).toBeNull();
  });
});

describe('isHostAllowed', () => {
  it('matches an exact host, case-insensitively, whatever the port', () => {
    expect(isHostAllowed('www.example.com', ['WWW.Example.com'])).toBe(true);
    expect(isHostAllowed(requestHost('http://localhost:5173', undefined), ['localhost'])).toBe(true);
    expect(isHostAllowed('example.com', ['www.example.com'])).toBe(false);
  });
  it('matches any subdomain with *. but not the apex or look-alikes', () => {
    expect(isHostAllowed('a.b.example.com', ['*.example.com'])).toBe(true);
    expect(isHostAllowed('example.com', ['*.example.com'])).toBe(false);
    expect(isHostAllowed('evilexample.com', ['*.example.com'])).toBe(false);
    expect(isHostAllowed('example.com.evil.test', ['example.com', '*.example.com'])).toBe(false);
  });
  it('accepts entries written as URLs or with ports', () => {
    expect(normaliseAllowedDomain('https://Example.com/path')).toBe('example.com');
    expect(normaliseAllowedDomain('localhost:8080')).toBe('localhost');
    expect(isHostAllowed('example.com', ['https://example.com/'])).toBe(true);
  });
  it('matches a page on an IPv6 literal (Origin http://[::1]:3000) to its entry, bare or in brackets', () => {
    expect(isHostAllowed(requestHost('http://[::1]:3000', undefined), ['::1'])).toBe(true);
    expect(isHostAllowed(requestHost('http://[::1]:3000', undefined), ['[::1]'])).toBe(true);
    expect(isHostAllowed(requestHost('http://[::2]:3000', undefined), ['::1'])).toBe(false);
    expect(isHostAllowed('1', ['::1'])).toBe(false);
  });

  it('refuses a request that names no page', () => {
    expect(isHostAllowed(null, ['localhost'])).toBe(false);
  });
});

describe('remembered work', () => {
  it('answers the same for a repeated Origin, and a Referer with a path', () => {
    for (let i = 0; i < 3; i++) {
      expect(requestHost('https://WWW.Example.com:8443', undefined)).toBe('www.example.com');
      expect(requestHost('not a url', `https://shop.example.com/p/${i}?q=1`)).toBe('shop.example.com');
      expect(requestHost('http://[::1]:3000', undefined)).toBe('::1');
    }
  });

  it('follows a list that changes: a mutable list is never remembered, a frozen one is its own key', () => {
    const mutable = ['a.example'];
    expect(isHostAllowed('a.example', mutable)).toBe(true);
    mutable[0] = 'b.example';
    expect(isHostAllowed('a.example', mutable)).toBe(false);
    expect(isHostAllowed('b.example', mutable)).toBe(true);
    const v1 = Object.freeze(['*.acme.test']);
    const v2 = Object.freeze(['other.test']);
    for (let i = 0; i < 2; i++) {
      expect(isHostAllowed('www.acme.test', v1)).toBe(true);
      expect(isHostAllowed('www.acme.test', v2)).toBe(false);
      // Remembered per host as given: spellings of one host get the same verdict, others their own.
      expect(isHostAllowed('WWW.Acme.Test.', v1)).toBe(true);
      expect(isHostAllowed('acme.test', v1)).toBe(false);
    }
  });
});

describe('allowed domains as stored (core/allowed-domain.ts)', () => {
  it('stores international names so a browser Origin (always punycode) matches', () => {
    const stored = AllowedDomains.parse(['bücher.example']);
    expect(isHostAllowed(requestHost('https://xn--bcher-kva.example', undefined), stored)).toBe(true);
    // A browser given the Unicode form also sends punycode: URL parsing does the same conversion.
    expect(isHostAllowed(requestHost('https://bücher.example', undefined), stored)).toBe(true);
  });
});
