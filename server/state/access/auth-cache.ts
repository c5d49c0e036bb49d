/** The per-node cache of access records every API request reads (tokens by secret hash, customers, tags). */
import type { CustomerRecord, TagRecord, TokenRecord } from '../../../core/access-records.ts';

/** `last_used_at` is a "recently used" indicator: written at most once a minute per token and process. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Entries per lookup cache; past it the cache starts over (unknown secrets or tag ids cannot grow it). */
const AUTH_CACHE_LIMIT = 10_000;

/**
 * The records every API request reads (token by secret hash, its customer, a web tag) are cached per
 * process, parsed and frozen. Exact across processes: every change to customers, tokens or tags bumps
 * `auth_version` in the same transaction, and each cached read first checks that number (one indexed
 * read instead of a row read, JSON parsing and zod validation) — a token deactivated or rotated by any
 * process is refused by every process on its next request.
 */
export class AuthCache {
  version = -1;
  readonly tokens = new Map<string, TokenRecord | null>();
  readonly customers = new Map<string, CustomerRecord | null>();
  readonly tags = new Map<string, TagRecord | null>();

  /** Forgets everything when the store's version moved on. */
  sync(version: number): void {
    if (version === this.version) return;
    this.version = version;
    this.tokens.clear();
    this.customers.clear();
    this.tags.clear();
  }

  static put<K, V>(map: Map<K, V>, key: K, value: V): V {
    if (map.size >= AUTH_CACHE_LIMIT) map.clear();
    map.set(key, value);
    return value;
  }
}

/** Cached records are shared between requests: frozen, so a caller that tried to change one would throw. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
