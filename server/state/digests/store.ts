/**
 * The email digests' state as callers see it (server/digests/): each user's digest settings, and one claim
 * per (user, period) that makes exactly one node send that period's digest — a lease while it is being
 * sent (a node that dies while sending lets it run out; another node then takes it), the attempts and the
 * next attempt after a failure (a mail server that is down), and the end: sent, nothing to say, or given
 * up. Durable and shared by every node (both backends; on Redis every key of a customer under its
 * `{cust:<id>}` hash tag, so each step is one script in one slot). The rules over a backend are service.ts
 * (SQLite: sqlite.ts, Redis: redis.ts); one contract test for both (digests.contract.test.ts).
 */
import type { DigestSettings } from '../../../core/digest-records.ts';
import type { DigestEntry, EntryTransfer } from '../transfer/transfer.ts';

/** A user's settings as kept, with the customer it belongs to. */
export interface StoredDigestSettings {
  customer_id: string;
  user_id: string;
  settings: DigestSettings;
  updated_at: string;
}

/** How a claim ended: `sent` (SMTP accepted it), `empty` (nothing to say: no mail), `failed` (given up). */
export type DigestClaimEnd = 'sent' | 'empty' | 'failed';

/** A (user, period)'s claim as kept. */
export interface DigestClaim {
  customer_id: string;
  user_id: string;
  /** `day:YYYY-MM-DD` or `week:YYYY-MM-DD` (the local date the period starts on). */
  period: string;
  status: 'pending' | DigestClaimEnd;
  /** The node holding it while pending ('' before anyone did), until `until_ms`. */
  owner: string;
  until_ms: number;
  /** Claims taken so far (a retry, or a node taking over from one that died, is one more). */
  attempts: number;
  /** A pending claim is not taken again before this (a retry's backoff). */
  next_ms: number;
  /** When it last changed hands or ended. */
  at_ms: number;
  /** The last failure's message ('' for none). */
  error: string;
  /** Kept until then, then forgotten (the period and the days it could be sent on are long over). */
  keep_until_ms: number;
}

export interface ClaimRequest {
  customer_id: string;
  user_id: string;
  period: string;
  owner: string;
  nowMs: number;
  leaseMs: number;
  keepUntilMs: number;
}

/**
 * What a claim answered: `claimed` (this owner sends now: its attempt number), `done` (ended already:
 * never sent again), `busy` (another owner's lease runs), `waiting` (a retry not yet due).
 */
export type ClaimOutcome =
  | { kind: 'claimed'; attempts: number }
  | { kind: 'done'; status: DigestClaimEnd }
  | { kind: 'busy'; untilMs: number }
  | { kind: 'waiting'; nextMs: number };

/** How the owner ends its attempt: an end, or `retry` (the lease let go, not taken again before `nextMs`). */
export type ClaimFinish = { status: DigestClaimEnd } | { status: 'retry'; nextMs: number };

export interface DigestStore extends EntryTransfer<DigestEntry> {
  getSettings(customerId: string, userId: string): Promise<StoredDigestSettings | null>;
  /** Creates or replaces the user's settings. */
  putSettings(settings: StoredDigestSettings): Promise<void>;
  deleteSettings(customerId: string, userId: string): Promise<boolean>;
  /** Every user's settings (the schedule's sweep), by customer then user id. */
  allSettings(): Promise<StoredDigestSettings[]>;

  /**
   * Takes the (user, period) claim for `owner` until nowMs + leaseMs, in one atomic step: claimed when
   * nobody took it yet, its holder's lease ran out, or `owner` holds it — unless it ended already or a retry
   * is not due yet. Two nodes never both get `claimed` while a lease runs. Claims past their keep_until_ms
   * are forgotten on the way (a bounded number per step).
   */
  claim(request: ClaimRequest): Promise<ClaimOutcome>;
  /** Ends (or defers) the owner's attempt; false, and nothing changed, when `owner` does not hold the pending claim. */
  finish(customerId: string, userId: string, period: string, owner: string, atMs: number, end: ClaimFinish, error?: string): Promise<boolean>;
  getClaim(customerId: string, userId: string, period: string): Promise<DigestClaim | null>;

  close(): Promise<void>;
}
