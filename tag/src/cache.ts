/**
 * The cached answer: one entry per tag and visitor (a demo test IP is another visitor), stored as
 * `{ t: <ms stored>, d: <answer> }` under `svc:<tag>[:<test ip>]`. Pure.
 */
import type { SvcData } from './types.ts';

/** What is stored (tag.ts writes it as `JSON.stringify({t: Date.now(), d: answer})`: written there, not by a function here, 5 B gzip less). */
export interface CacheEntry {
  t: number;
  d: SvcData;
}

/** Every cache key starts with this; the opt-out flag (`svc:optout`) is not a cache key. */
export const cacheKey = (tag: string, testIp: string | null): string => 'svc:' + tag + (testIp ? ':' + testIp : '');

/** The answer in `stored` if younger than `ttl` ms, else undefined (absent, expired, dropped or unreadable). */
export function freshAnswer(stored: string | null | undefined, ttl: number, now: number): SvcData | undefined {
  try {
    const entry = JSON.parse(stored!) as CacheEntry;
    if (now - entry.t < ttl && entry.d?.company) return entry.d;
  } catch {}
}
