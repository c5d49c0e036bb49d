/**
 * What the digest store's rules (service.ts) ask of a backend: storage only, each method one atomic step
 * (an IMMEDIATE transaction on SQLite, a Lua script in the customer's slot on Redis), run with what the
 * service checked. The claim's decision is `decideClaim` below, which SQLite runs as it is and the Redis
 * script mirrors.
 */
import type { DigestEntry } from '../transfer/transfer.ts';
import type { ClaimFinish, ClaimOutcome, ClaimRequest, DigestClaim, StoredDigestSettings } from './store.ts';

/** Claims past their keep forgotten per claim step at most (the rest by the next ones). */
export const CLAIMS_PRUNED_PER_STEP = 50;

export interface DigestPort {
  getSettings(customerId: string, userId: string): Promise<StoredDigestSettings | null>;
  putSettings(settings: StoredDigestSettings): Promise<void>;
  deleteSettings(customerId: string, userId: string): Promise<boolean>;
  /** In no particular order. */
  allSettings(): Promise<StoredDigestSettings[]>;
  claim(request: ClaimRequest): Promise<ClaimOutcome>;
  finish(customerId: string, userId: string, period: string, owner: string, atMs: number, end: ClaimFinish, error: string): Promise<boolean>;
  getClaim(customerId: string, userId: string, period: string): Promise<DigestClaim | null>;
  /** Settings, then the ended claims (in no particular order). */
  exportEntries(): AsyncIterable<DigestEntry>;
  isEmpty(): Promise<boolean>;
  /** Writes a page of entries (into an empty store). */
  importPage(entries: DigestEntry[]): Promise<void>;
  close(): Promise<void>;
}

/** A claim nobody took yet. */
export const noClaim = (r: ClaimRequest): DigestClaim => ({
  customer_id: r.customer_id,
  user_id: r.user_id,
  period: r.period,
  status: 'pending',
  owner: '',
  until_ms: 0,
  attempts: 0,
  next_ms: 0,
  at_ms: r.nowMs,
  error: '',
  keep_until_ms: r.keepUntilMs,
});

/** The claim's answer and, when taken, the claim to keep (redis-scripts.ts CLAIM mirrors it). */
export function decideClaim(current: DigestClaim | null, r: ClaimRequest): { outcome: ClaimOutcome; next: DigestClaim | null } {
  const c = current ?? noClaim(r);
  if (c.status !== 'pending') return { outcome: { kind: 'done', status: c.status }, next: null };
  if (c.owner !== r.owner && c.until_ms > r.nowMs) return { outcome: { kind: 'busy', untilMs: c.until_ms }, next: null };
  if (c.next_ms > r.nowMs) return { outcome: { kind: 'waiting', nextMs: c.next_ms }, next: null };
  const next = { ...c, owner: r.owner, until_ms: r.nowMs + r.leaseMs, attempts: c.attempts + 1, at_ms: r.nowMs, keep_until_ms: r.keepUntilMs };
  return { outcome: { kind: 'claimed', attempts: next.attempts }, next };
}

/** The claim after the owner's finish, or null when the owner does not hold it (redis-scripts.ts FINISH mirrors it). */
export function finishedClaim(c: DigestClaim | null, owner: string, atMs: number, end: ClaimFinish, error: string): DigestClaim | null {
  if (c === null || c.status !== 'pending' || c.owner !== owner) return null;
  const base = { ...c, until_ms: 0, at_ms: atMs, error };
  return end.status === 'retry' ? { ...base, next_ms: end.nextMs } : { ...base, status: end.status };
}

/** An imported ended claim as kept: nobody holds it. */
export function doneClaim(e: Extract<DigestEntry, { type: 'digest_done' }>): DigestClaim {
  return {
    customer_id: e.customer_id,
    user_id: e.user_id,
    period: e.period,
    status: e.status,
    owner: '',
    until_ms: 0,
    attempts: e.attempts,
    next_ms: 0,
    at_ms: e.at_ms,
    error: '',
    keep_until_ms: e.keep_until_ms,
  };
}
