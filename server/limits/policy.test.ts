import { describe, expect, it } from 'vitest';
import type { Caller } from '../auth/authenticate.ts';
import type { TagRecord } from '../state/store.ts';
import { limitKeys } from './policy.ts';

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
