/**
 * The answer cache: one entry per tag and test IP, in localStorage when it works, else in memory
 * (private modes, disabled storage, quota). Entries hold the time they were written, so the TTL in force
 * when reading decides (and a clock that went backwards invalidates them). Pure apart from the injected
 * storage and clock; every storage access is wrapped.
 */
import type { SvcData } from './types.ts';

export interface KV {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** Default lifetime of a cached answer: 24 h. */
export const DAY = 864e5;

export const cacheKey = (tag: string, testIp?: string): string => 'svc:' + tag + (testIp ? ':' + testIp : '');

/** The cached answer under `key` if younger than `ttl` ms at time `now`, else null. */
export function cacheRead(kv: KV, key: string, now: number, ttl: number): SvcData | null {
  try {
    const e = JSON.parse(kv.getItem(key) || 'null') as { t: number; d: SvcData } | null;
    return e && e.d && now >= e.t && now - e.t < ttl ? e.d : null;
  } catch {
    return null;
  }
}

export function cacheWrite(kv: KV, key: string, data: SvcData, now: number, ttl: number): void {
  try {
    if (ttl > 0) kv.setItem(key, JSON.stringify({ t: now, d: data }));
  } catch {
    // storage full or gone: the next page view asks again
  }
}

/**
 * A KV over `storage()` (e.g. `() => localStorage`) that falls back to memory (this page view only)
 * when storage throws: disabled, private mode, quota.
 */
export function safeStorage(storage: () => KV): KV {
  const mem: Record<string, string> = {};
  return {
    getItem(k) {
      try {
        return storage().getItem(k);
      } catch {
        return mem[k] || null;
      }
    },
    setItem(k, v) {
      try {
        storage().setItem(k, v);
      } catch {
        mem[k] = v;
      }
    },
  };
}
