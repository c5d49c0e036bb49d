/**
 * The cached answer: one entry per tag and visitor (a demo test IP is another visitor), stored as
 * `{ t: <ms stored>, d: <answer> }` under `svc:<tag>[:<test ip>]`. Pure.
 */
import type { SvcData } from './types.ts';

interface CacheEntry {
  t: number;
  d: SvcData;
}

/** Every cache key starts with this; the opt-out flag (`svc:optout`) is not a cache key. */
export const cacheKey = (tag: string, testIp: string | null): string => 'svc:' + tag + (testIp ? ':' + testIp : '');

export const cacheEntry = (data: SvcData, now: number): string => JSON.stringify({ t: now, d: data } satisfies CacheEntry);

/** The answer in `stored` if younger than `ttl` ms, else null (absent, expired, dropped or unreadable). */
export function freshAnswer(stored: string | null | undefined, ttl: number, now: number): SvcData | null {
  try {
    const entry = JSON.parse(stored!) as CacheEntry;
    return now - entry.t < ttl && entry.d?.company ? entry.d : null;
  } catch {
    return null;
  }
}
