/**
 * What the user service (service.ts) asks of a backend: storage only. The SQLite adapter (sqlite.ts) and
 * the Redis adapter (redis.ts) keep and find records and run the atomic conditional steps the rules need
 * (one email one user, keep an owner, a new password ends reset links, a single sign-on binding, a failure
 * window) with the parameters the service decided: ids, times, caps, the retention. They validate nothing,
 * decide no expiry and write no message a caller sees: a refusal comes back as a value (or DuplicateEntry)
 * and the service words it.
 */
import type { Role } from '../../../core/roles.ts';
import type { AuditEvent, InvitationRecord, SessionRecord, SsoProvider } from '../../../core/user-records.ts';
import type { UserEntry } from '../transfer/transfer.ts';

/** A user's fields as both backends keep them (UserRecord plus the password hash). */
export interface StoredUser {
  id: string;
  customer_id: string;
  email: string;
  role: Role;
  password_hash: string | null;
  sso: boolean;
  created_at: string;
  last_login_at: string | null;
}

/** A change refused because `email` is its customer's last owner (keepAnOwner). */
export interface LastOwner {
  lastOwner: string;
}

/** Thrown by an import batch that meets an entry it holds already (an id listed twice). */
export class DuplicateEntry extends Error {
  constructor(readonly entry: UserEntry) {
    super(`duplicate ${entry.type}`);
  }
}

/** Writes an import's batches (into an empty store), then finishes it (counters that follow its entries). */
export interface UserImport {
  write(batch: UserEntry[]): Promise<void>;
  finish(): Promise<void>;
}

export interface UserStorage {
  /** Stores a new user and claims its email, atomically: `email_taken`, `id_taken` (nothing changed) or `made`. */
  insertUser(user: StoredUser): Promise<'made' | 'email_taken' | 'id_taken'>;
  user(id: string): Promise<StoredUser | null>;
  /** By its email key (trimmed, lower-cased). */
  userByEmail(email: string): Promise<StoredUser | null>;
  /** The customer's users, in no particular order. */
  customerUsers(customerId: string): Promise<StoredUser[]>;
  /** null for an unknown user; with `keepAnOwner`, the owner count and the change are one atomic step. */
  setRole(id: string, role: Role, keepAnOwner: boolean): Promise<StoredUser | LastOwner | null>;
  /** null for an unknown user; ends, in the same step, the user's customer's reset links for its email. */
  setPassword(id: string, passwordHash: string): Promise<StoredUser | null>;
  markSso(id: string): Promise<void>;
  /** The subject bound at `issuer` after (an existing binding at it stays), null for an unknown user. */
  bindSsoSubject(id: string, issuer: string, subject: string): Promise<string | null>;
  noteLogin(id: string, at: string): Promise<void>;
  /** Removes the user, its sessions and its customer's invitations for its email; false for an unknown user. */
  removeUser(id: string, keepAnOwner: boolean): Promise<boolean | LastOwner>;

  /** Stores the invitation until its end; those ended before `nowMs` may go with it. */
  createInvitation(tokenHash: string, invitation: InvitationRecord, nowMs: number): Promise<void>;
  /** Takes it once (whatever its end): null when there is none. */
  takeInvitation(tokenHash: string): Promise<InvitationRecord | null>;

  /** Stores the session; past `cap` sessions the user's oldest go, and sessions ended before `nowMs` may. */
  createSession(idHash: string, session: SessionRecord, cap: number, nowMs: number): Promise<'made' | 'no_user' | 'other_customer' | 'taken'>;
  session(idHash: string): Promise<SessionRecord | null>;
  /**
   * One atomic step with the service's decided rule: a session past its end or idle longer than `idleMs`
   * at `nowMs` is ended (null); else its last_seen_at moves forward to `at` when it was last seen
   * `touchEveryMs` ago or more (never back: another node may have touched it later). Null when gone.
   */
  touchSession(idHash: string, rule: SessionTouch): Promise<SessionRecord | null>;
  /** The user's stored sessions (over or not), in no particular order. */
  userSessions(userId: string): Promise<SessionRecord[]>;
  endSession(userId: string, sessionId: string): Promise<boolean>;
  endSessionByHash(idHash: string): Promise<void>;
  endSessions(userId: string, keepSessionId: string | undefined): Promise<number>;

  ssoProvider(customerId: string): Promise<SsoProvider | null>;
  setSsoProvider(provider: SsoProvider): Promise<void>;
  removeSsoProvider(customerId: string): Promise<boolean>;

  /** Appends; with a retention (given when the storage was made), keeps it as the backend does. */
  appendAudit(event: AuditEvent): Promise<void>;
  /** Events with `from` ≤ at < `to`, oldest first (append order for equal times), at most `limit` (≥ 1). */
  listAudit(customerId: string, from: string, to: string, limit: number): Promise<AuditEvent[]>;
  auditRetained(): Promise<void>;

  /** Every entry as stored (the service checks each against UserEntry). */
  exportEntries(): AsyncIterable<UserEntry>;
  isEmpty(): Promise<boolean>;
  importer(): UserImport;

  /** Counts a failure in the window open at `nowMs`, or opens one ending at `endsMs`. */
  countFailure(key: string, nowMs: number, endsMs: number): Promise<void>;
  /** The window stored under `key`, ended or not. */
  failures(key: string): Promise<{ failures: number; endsMs: number } | null>;

  close(): Promise<void>;
}

/** What touchSession decides with: the service's clock and limits. */
export interface SessionTouch {
  at: string;
  nowMs: number;
  idleMs: number;
  touchEveryMs: number;
}
