/**
 * The cached answer: one entry per tag and visitor (a demo test IP is another visitor), stored as
 * `{ t: <ms stored>, d: <answer> }` under `svc:<tag>[:<test ip>]`.
 */
import type { SvcData } from './types.ts';

/**
 * What is stored. tag.ts writes it (`JSON.stringify({t: Date.now(), d: answer})`) and reads it back (fresh when
 * younger than the TTL and holding a company) where it uses it: a function here for either cost the bundle
 * bytes (5 B gzip the write, 9 B the read), and the bundle tests cover both (tag/bundle.test.ts).
 */
export interface CacheEntry {
  t: number;
  d: SvcData;
}

/** Every cache key starts with this; the opt-out flag (`svc:optout`) is not a cache key. */
export const cacheKey = (tag: string, testIp: string | null): string => 'svc:' + tag + (testIp ? ':' + testIp : '');
