/**
 * A customer's people: users, one-time invitations, server-side sessions, single sign-on providers and the
 * audit log. One interface, two backends (SQLite `sqlite-users.ts`, Redis `redis-users.ts`) on the state
 * store's own connection; one contract test for both (`users.contract.test.ts`).
 *
 * Secrets are never stored: invitation tokens and session ids are kept as SHA-256 hashes (they carry
 * ≥ 128 bits of entropy), passwords as scrypt hashes (server/auth/password.ts); an SSO client secret is the
 * one secret kept (it must be sent to the provider), and it is never returned by the API.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { CustomerId } from '../../core/customer-records.ts';
import { Role } from '../../core/roles.ts';
import { StateError } from './errors.ts';
import type { EntryTransfer, UserEntry } from './transfer.ts';

/** A session ends after this long without a request (touchSession's `idleMs`; listSessions' default). */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** touchSession writes last_seen_at at most this often per session (a page's many requests cost one write). */
export const SESSION_TOUCH_INTERVAL_MS = 60_000;
/** Live sessions a user may hold; a new one past it ends the user's oldest. */
export const SESSIONS_PER_USER = 50;
const DAY_MS = 86_400_000;

/** An email address as users type it: trimmed, lower-cased, at most 254 characters. */
export const Email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');

export const UserRecord = z.object({
  id: z.string(),
  customer_id: CustomerId,
  email: z.string(),
  role: Role,
  /** How the user signs in: a password they set, single sign-on, or both. */
  password_set: z.boolean(),
  sso: z.boolean(),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
});
export type UserRecord = z.infer<typeof UserRecord>;

export const InvitationRecord = z.object({
  customer_id: CustomerId,
  email: z.string(),
  role: Role,
  /** `invite` makes a user; `reset` sets a new password for an existing one. */
  purpose: z.enum(['invite', 'reset']),
  created_at: z.string(),
  expires_at: z.string(),
  /** Who asked for it: `operator` or a user id. */
  created_by: z.string(),
});
export type InvitationRecord = z.infer<typeof InvitationRecord>;

export const SessionRecord = z.object({
  id: z.string(),
  user_id: z.string(),
  customer_id: CustomerId,
  created_at: z.string(),
  last_seen_at: z.string(),
  /** The absolute end (7 days after creation); the idle end is last_seen_at + 12 h. */
  expires_at: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  /** `password`, `sso` or `invitation`. */
  method: z.string(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

export const SsoProvider = z.object({
  customer_id: CustomerId,
  issuer: z.string().url(),
  client_id: z.string().min(1).max(500),
  /** Kept to authenticate to the provider; never returned by the API. */
  client_secret: z.string().min(1).max(2000),
  /** Emails of these domains may sign in (and are created on first login). */
  allowed_domains: z.array(z.string().trim().toLowerCase().min(1).max(253)).min(1).max(50),
  default_role: Role,
  /** The button's label ("Sign in with <display_name>"). */
  display_name: z.string().trim().min(1).max(100),
  /**
   * true: an ID token without `email_verified` is accepted (for providers that never send the claim); an
   * explicit `false` is refused all the same. Absent or false: only `email_verified: true` signs in.
   */
  email_verified_optional: z.boolean().optional(),
});
export type SsoProvider = z.infer<typeof SsoProvider>;

export const AuditEvent = z.object({
  id: z.string(),
  customer_id: CustomerId,
  at: z.string(),
  /** `operator`, `user:<id> <email>`, or `anonymous` (a failed login). */
  actor: z.string(),
  ip: z.string().nullable(),
  /** What happened: `token.create`, `tag.update`, `user.role`, `login`, `login.failed` … */
  action: z.string(),
  /** What it happened to (a token id, a tag id, an email …). */
  target: z.string().nullable(),
  /** The fields before and after (never a secret), when the action changed a record. */
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;
export type NewAuditEvent = Omit<AuditEvent, 'id'>;

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
   * Failures counted under `key` (failed sign-ins: server/admin/throttle.ts SharedFailureThrottle), one count
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

/** The `conflict` message of a change refused by `keepAnOwner`. */
export const lastOwnerMessage = (email: string) => `${email} is the customer's last owner: make someone else owner first`;

/** The value if the schema takes it, else StateError `invalid` naming the field. */
function checked<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StateError(`${issue?.path.join('.')}: ${issue?.message}`);
}

/** A user's id as it is kept and moved (it names Redis keys). */
export const UserId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a user id is 1–64 letters, digits, _ or -');

/** `<prefix>` + 16 hex digits: `usr_`, `ses_`, `aud_`. */
export const newId = (prefix: 'usr_' | 'ses_' | 'aud_') => `${prefix}${randomBytes(8).toString('hex')}`;

/** How an email is looked up (what Email stores): trimmed and lower-cased. */
export const emailKey = (email: string) => email.trim().toLowerCase();

/** An ISO instant in its one spelling (`toISOString`), so stored times compare as strings; `invalid` otherwise. */
export function isoTime(value: string, what: string): string {
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new StateError(`${what} must be an ISO time`);
  return new Date(t).toISOString();
}

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

export function userRecord(u: StoredUser): UserRecord {
  return {
    id: u.id,
    customer_id: u.customer_id,
    email: u.email,
    role: u.role,
    password_set: u.password_hash !== null,
    sso: u.sso,
    created_at: u.created_at,
    last_login_at: u.last_login_at,
  };
}

/** A new user's stored fields, checked (`invalid` for a bad email, customer or role). */
export function newUser(input: Parameters<UserStore['createUser']>[0]): StoredUser {
  const fields = checked(z.object({ customer_id: CustomerId, email: Email, role: Role, password_hash: z.string().min(1).nullable(), sso: z.boolean() }), input);
  return { id: newId('usr_'), ...fields, created_at: new Date().toISOString(), last_login_at: null };
}

/** An invitation checked, its email and times normalised. */
export function checkedInvitation(invitation: InvitationRecord): InvitationRecord {
  const i = checked(InvitationRecord.extend({ email: Email }), invitation);
  return { ...i, created_at: isoTime(i.created_at, 'created_at'), expires_at: isoTime(i.expires_at, 'expires_at') };
}

/** A new session checked (its public id names a Redis zset member: no `|`), its times normalised. */
export function newSession(session: SessionRecord): SessionRecord {
  const s = checked(SessionRecord.extend({ id: UserId }), session);
  return {
    ...s,
    created_at: isoTime(s.created_at, 'created_at'),
    last_seen_at: isoTime(s.last_seen_at, 'last_seen_at'),
    expires_at: isoTime(s.expires_at, 'expires_at'),
  };
}

/** Whether a session is over at `nowMs`: past its absolute end, or idle for more than `idleMs`. */
export const sessionOver = (s: Pick<SessionRecord, 'last_seen_at' | 'expires_at'>, nowMs: number, idleMs: number) =>
  nowMs >= Date.parse(s.expires_at) || nowMs - Date.parse(s.last_seen_at) > idleMs;

/** Sessions newest first (creation, then public id: both backends list in one order). */
export const newestFirst = (a: SessionRecord, b: SessionRecord) =>
  a.created_at > b.created_at ? -1 : a.created_at < b.created_at ? 1 : a.id > b.id ? -1 : a.id < b.id ? 1 : 0;

/** An audit event checked (`invalid` otherwise), its time normalised, with its id. */
export function newAuditEvent(event: NewAuditEvent): AuditEvent {
  const parsed = checked(AuditEvent.omit({ id: true }), event);
  return { id: newId('aud_'), ...parsed, at: isoTime(parsed.at, 'at') };
}

/** Days of audit events a store keeps (`auditRetentionDays`), checked: a whole number of at least 1. */
export function auditRetentionMs(days: number | undefined): number | null {
  if (days === undefined) return null;
  if (!Number.isInteger(days) || days < 1) throw new StateError(`the audit retention must be a whole number of days ≥ 1, not ${days}`);
  return days * DAY_MS;
}

/** The first instant a retention keeps at `nowMs` (ISO): events before it are past it. */
export const auditKeptFrom = (retentionMs: number, nowMs = Date.now()) => new Date(nowMs - retentionMs).toISOString();

/** A provider checked (`invalid` otherwise). */
export function checkedProvider(provider: SsoProvider): SsoProvider {
  return checked(SsoProvider, provider);
}
