import { describe, expect, it } from 'vitest';
import { cleanPath, parseBeacon, referrerHost } from './beacon.ts';

describe('page-view beacon', () => {
  it('keeps only utm_* query parameters and drops the fragment', () => {
    expect(cleanPath('/pricing?utm_source=x&email=a@b.c&UTM_Medium=y#top')).toBe('/pricing?utm_source=x&UTM_Medium=y');
    expect(cleanPath('/a/b?token=secret')).toBe('/a/b');
    expect(cleanPath('/')).toBe('/');
  });

  it('reduces a referrer to its host', () => {
    expect(referrerHost('news.example')).toBe('news.example');
    expect(referrerHost('https://News.Example/path?q=1')).toBe('news.example');
    expect(referrerHost('')).toBeNull();
    expect(referrerHost(undefined)).toBeNull();
    expect(referrerHost('http://')).toBeNull();
  });

  it('accepts the tag’s beacon and refuses anything else with a reason', () => {
    expect(parseBeacon('{"type":"pageview","path":"/pricing","referrer":"news.example","session":"abcDEF12_-"}')).toEqual({
      ok: true,
      beacon: { type: 'pageview', path: '/pricing', referrer: 'news.example', session: 'abcDEF12_-' },
    });
    expect(parseBeacon('{"type":"pageview","path":"/","session":"abcdefgh"}').ok).toBe(true);
    for (const bad of [
      '',
      'not json',
      '[]',
      '{"type":"click","path":"/","session":"abcdefgh"}',
      '{"type":"pageview","path":"pricing","session":"abcdefgh"}',
      '{"type":"pageview","path":"/","session":"short"}',
      '{"type":"pageview","path":"/","session":"has space!"}',
    ]) {
      const r = parseBeacon(bad);
      expect(r.ok, bad).toBe(false);
    }
  });
});
