import { describe, expect, it } from 'vitest';
import type { TagRecord } from '../../core/access-records.ts';
import type { Caller } from '../auth/authenticate.ts';
import { IPV6_SITE_FACTOR, limitKeys } from './policy.ts';

const tag = (over: Partial<TagRecord>): Caller =>
  ({ token: null, tag: { tag_id: 't1', rate_limit: 6000, visitor_rate_limit: 300, ...over } as TagRecord }) as Caller;

describe('limitKeys', () => {
  it("uses the tag's own limits: per visitor first (reported in headers), then the whole tag", () => {
    expect(limitKeys(tag({ rate_limit: 250_000, visitor_rate_limit: 20_000 }), '1.2.3.4')).toEqual([
      { key: 'tag:t1:ip:1.2.3.4', limit: 20_000 },
      { key: 'tag:t1', limit: 250_000 },
    ]);
  });
});

describe('limitKeys per visitor', () => {
  const visitorKey = (ip: string) => limitKeys(tag({}), ip)[0].key;

  it('counts an IPv6 visitor per /64, whatever the form or the host part', () => {
    const key = 'tag:t1:ip:2001:db8:1:2::/64';
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0DB8:0001:0002:0000:0000:0000:0099']) expect(visitorKey(ip), ip).toBe(key);
    expect(visitorKey('2001:db8:1:3::1')).toBe('tag:t1:ip:2001:db8:1:3::/64');
  });

  it('counts an IPv4-mapped visitor as its IPv4 address', () => {
    expect(visitorKey('::ffff:1.2.3.4')).toBe('tag:t1:ip:1.2.3.4');
  });
});

describe('limitKeys per IPv6 site (/48)', () => {
  it('adds a per-(tag, /48) counter at IPV6_SITE_FACTOR × the per-visitor limit between the visitor and the tag', () => {
    expect(IPV6_SITE_FACTOR).toBe(8);
    expect(limitKeys(tag({ visitor_rate_limit: 300 }), '2001:db8:aa:bb::1')).toEqual([
      { key: 'tag:t1:ip:2001:db8:aa:bb::/64', limit: 300 },
      { key: 'tag:t1:site:2001:db8:aa::/48', limit: 2400 },
      { key: 'tag:t1', limit: 6000 },
    ]);
  });

  it('counts every /64 of a /48 on one site counter, another /48 on its own', () => {
    const siteKey = (ip: string) => limitKeys(tag({}), ip)[1].key;
    for (const ip of ['2001:db8:aa:1::1', '2001:db8:aa:ffff::2', '2001:0DB8:00AA:0042:0:0:0:1']) expect(siteKey(ip), ip).toBe('tag:t1:site:2001:db8:aa::/48');
    expect(siteKey('2001:db8:ab:1::1')).toBe('tag:t1:site:2001:db8:ab::/48');
  });

  it('has no site counter for IPv4 visitors, in any form', () => {
    for (const ip of ['1.2.3.4', '::ffff:1.2.3.4', '64:ff9b::1.2.3.4'])
      expect(
        limitKeys(tag({}), ip).map((k) => k.key),
        ip,
      ).toEqual(['tag:t1:ip:1.2.3.4', 'tag:t1']);
  });
});
