/**
 * The user store as the server uses it (auth, the workspace API, the CLI): users, one-time invitations,
 * server-side sessions, single sign-on providers, the audit log and the failed sign-in counts of a
 * customer's people. The rules are service.ts, over SQLite (sqlite.ts) or Redis (redis.ts) on the state
 * store's connection (backend.ts); the records are core/user-records.ts.
 */
import type { Role } from '../../../core/roles.ts';
import type { AuditEvent, InvitationRecord, NewAuditEvent, SessionRecord, SsoProvider, UserRecord } from '../../../core/user-records.ts';
import type { EntryTransfer, UserEntry } from '../transfer/transfer.ts';

/** A session ends after this long without a request (touchSession's `idleMs`; listSessions' default). */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** touchSession writes last_seen_at at most this often per session (a page's many requests cost one write). */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;
/** Live sessions a user may hold; a new one past it ends the user's oldest. */
export const SESSIONS_PER_USER = 50;
/**
 * Both backends keep the same rules (users.contract.test.ts): emails trimmed and lower-cased, unique across
 * customers; times as ISO instants (normalised by `toISOString`, so they compare as strings); ids made by
 * the store (`usr_`, `ses_`, `aud_` + 16 hex). The export (`svc state export`) moves users (with their
 * password hash), SSO providers (with their client secret) and the audit log, never sessions or
 * invitations: a restored state asks everybody to sign in again.
 */
export interface UserStore extends EntryTransfer<UserEntry> {
  /** A new user (409 `conflict` for an email already in use anywhere: one email is one person). */
  createUser(input: { customer_id: string; email: string; role: Role; password_hash: string | null; sso: boolean }): Promise<UserRecord>;
  getUser(id: string): Promise<UserRecord | null>;
  findUserByEmail(email: string): Promise<(UserRecord & { password_hash: string | null }) | null>;
  /** The customer's users, by email. */
  listUsers(customerId: string): Promise<UserRecord[]>;
  /**
   * `not_found` for an unknown user. With `keepAnOwner`, `conflict` when it would demote its customer's
   * last owner: the count of owners and the change are one atomic step (two owners demoting or removing
   * each other at once on two nodes cannot both succeed).
   */
  setRole(id: string, role: Role, options?: KeepAnOwner): Promise<UserRecord>;
  /**
   * `not_found` for an unknown user. Ends, in the same step, every outstanding reset link of the user (of
   * its customer for its email): a new password, however set, makes older links useless.
   */
  setPassword(id: string, passwordHash: string): Promise<UserRecord>;
  /** Nothing for an unknown user (removed meanwhile), as noteLogin. */
  markSso(id: string): Promise<void>;
  /**
   * Binds the user to a single sign-on identity (the provider's `issuer` and its `sub` for the person) and
   * marks it `sso`, atomically, unless it is bound to another `sub` at the same issuer already: returns the
   * `sub` bound at `issuer` afterwards (the caller refuses a sign-in when it is not its own), null for an
   * unknown user. A binding at another issuer (the customer moved to a new provider) is replaced.
   */
  bindSsoSubject(id: string, issuer: string, subject: string): Promise<string | null>;
  noteLogin(id: string, at: string): Promise<void>;
  /**
   * Removes the user, its sessions and its pending invitations (those of its customer for its email). With
   * `keepAnOwner`, `conflict` when it is its customer's last owner (checked in the same atomic step).
   */
  removeUser(id: string, options?: KeepAnOwner): Promise<boolean>;

  /** Stores an invitation under the hash of its token (the token itself is shown once, never stored). */
  createInvitation(tokenHash: string, invitation: InvitationRecord): Promise<void>;
  /** Takes the invitation once: null when unknown, used or expired (then it is gone). */
  consumeInvitation(tokenHash: string, now: string): Promise<InvitationRecord | null>;

  /**
   * A session under the hash of its secret id (the cookie's value, hashed by the caller); `session.id` is
   * its public id (`ses_` + 16 hex: newId('ses_')), what the user's session list shows. `not_found` for an
   * unknown user, `invalid` for a customer that is not the user's or a malformed id. Past
   * SESSIONS_PER_USER sessions, the user's oldest end.
   */
  createSession(idHash: string, session: SessionRecord): Promise<void>;
  /**
   * The live session of this id hash, its last_seen_at moved to `now` (at most once per
   * SESSION_TOUCH_INTERVAL_MS); null when unknown, idle for more than `idleMs`, or past its absolute end
   * (then it is removed).
   */
  touchSession(idHash: string, now: string, idleMs: number): Promise<SessionRecord | null>;
  /**
   * The user's live sessions at `now` (default: the clock), neither idle for more than `idleMs` (default
   * SESSION_IDLE_MS) nor past their end; newest first.
   */
  listSessions(userId: string, now?: string, idleMs?: number): Promise<SessionRecord[]>;
  /** Ends one session (by its public id, for the user's own list): false when it is not one of the user's. */
  endSession(userId: string, sessionId: string): Promise<boolean>;
  /** Ends the session of this id hash (signing out), whoever's it is. */
  endSessionByHash(idHash: string): Promise<void>;
  /** Ends every session of the user except `keepSessionId` (a password or role change); returns how many ended. */
  endSessions(userId: string, keepSessionId?: string): Promise<number>;

  getSsoProvider(customerId: string): Promise<SsoProvider | null>;
  /** Sets (or replaces) the customer's provider. */
  setSsoProvider(provider: SsoProvider): Promise<void>;
  removeSsoProvider(customerId: string): Promise<boolean>;

  /**
   * Append-only: nothing changes or removes a chosen event. Opened with an audit retention (a server:
   * SVC_AUDIT_RETENTION_DAYS), the store deletes events older than it by itself, in bounded steps: on
   * SQLite a pass at open and with the first event of each UTC day, on Redis the customer's oldest with
   * every event appended (its set then expires a day after its newest is past the retention).
   */
  appendAudit(event: NewAuditEvent): Promise<AuditEvent>;
  /**
   * The customer's events with `from` ≤ at < `to` (ISO instants), oldest first (as appended, for equal
   * times), at most `limit`; with a retention, none older than it (not yet deleted or not).
   */
  listAudit(customerId: string, from: string, to: string, limit: number): Promise<AuditEvent[]>;
  /** Resolves when the retention passes this store started so far are done (failed ones included). */
  auditRetained(): Promise<void>;

  /**
   * Failures counted under `key` (failed sign-ins: server/auth/throttle.ts SharedFailureThrottle), one count
   * for every node and process on this state. The window opens at a key's first failure and lasts
   * `windowMs`; a failure after its end opens a new one. `failuresOf` is null when no window is open.
   */
  countFailure(key: string, nowMs: number, windowMs: number): Promise<void>;
  failuresOf(key: string, nowMs: number): Promise<{ failures: number; endsMs: number } | null>;

  /** Lets go of the connection (the state store's: it stays open for the state store). */
  close(): Promise<void>;
}

/** setRole's and removeUser's option: refuse (`conflict`) to leave the customer without an owner. */
export interface KeepAnOwner {
  keepAnOwner?: boolean;
}
