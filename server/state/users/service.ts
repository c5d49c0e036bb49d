/**
 * The user store's rules, once for both backends: what a user, an invitation, a session, an SSO provider
 * and an audit event must look like, ids and times, when a session is idle or over and an invitation
 * expired, what the store's refusals say, the audit retention's window, the export's checks. It keeps
 * nothing itself: storage is a UserStorage (port.ts) — SQLite (sqlite.ts) or Redis (redis.ts) on the
 * state store's connection (backend.ts) — which runs the atomic conditional steps with the parameters decided
 * here. The interface callers see is store.ts; one contract test for both (users.contract.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { CustomerId } from '../../../core/customer-records.ts';
import { Role } from '../../../core/roles.ts';
import { AuditEvent, Email, InvitationRecord, type NewAuditEvent, SessionRecord, SsoProvider, UserId, type UserRecord } from '../../../core/user-records.ts';
import { StateError, StoreUnavailableError } from '../errors.ts';
import { importInPages } from '../transfer/import.ts';
import { UserEntry } from '../transfer/transfer.ts';
import { DuplicateEntry, type StoredUser, type UserStorage } from './port.ts';
import { type KeepAnOwner, SESSION_IDLE_MS, SESSION_TOUCH_INTERVAL_MS, SESSIONS_PER_USER, type UserStore } from './store.ts';

const DAY_MS = 86_400_000;

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

/** Days of audit events a store keeps (`auditRetentionDays`), checked: a whole number of at least 1. */
export function auditRetentionMs(days: number | undefined): number | null {
  if (days === undefined) return null;
  if (!Number.isInteger(days) || days < 1) throw new StateError(`the audit retention must be a whole number of days ≥ 1, not ${days}`);
  return days * DAY_MS;
}

/** The first instant a retention keeps at `nowMs` (ISO): events before it are past it. */
export const auditKeptFrom = (retentionMs: number, nowMs = Date.now()) => new Date(nowMs - retentionMs).toISOString();

/** The value if the schema takes it, else StateError `invalid` naming the field. */
function checked<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new StateError(`${issue?.path.join('.')}: ${issue?.message}`);
}

const NewUser = z.object({ customer_id: CustomerId, email: Email, role: Role, password_hash: z.string().min(1).nullable(), sso: z.boolean() });
/** A session's public id names a Redis zset member: no `|`. */
const NewSession = SessionRecord.extend({ id: UserId });
const NewInvitation = InvitationRecord.extend({ email: Email });
const NewAudit = AuditEvent.omit({ id: true });

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

/** Whether a session is over at `nowMs`: past its absolute end, or idle for more than `idleMs`. */
const sessionOver = (s: Pick<SessionRecord, 'last_seen_at' | 'expires_at'>, nowMs: number, idleMs: number) =>
  nowMs >= Date.parse(s.expires_at) || nowMs - Date.parse(s.last_seen_at) > idleMs;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Sessions newest first (creation, then public id: both backends list in one order). */
const newestFirst = (a: SessionRecord, b: SessionRecord) => byText(b.created_at, a.created_at) || byText(b.id, a.id);

const notFound = (id: string) => new StateError(`no user ${id}`, 'not_found');
/** The `conflict` message of a change refused by `keepAnOwner`. */
const lastOwner = (email: string) => new StateError(`${email} is the customer's last owner: make someone else owner first`, 'conflict');

/** An import entry with its times in their one spelling. */
function normalised(e: UserEntry): UserEntry {
  if (e.type === 'user') {
    const r = e.record;
    const last_login_at = r.last_login_at === null ? null : isoTime(r.last_login_at, 'last_login_at');
    return { ...e, record: { ...r, created_at: isoTime(r.created_at, 'created_at'), last_login_at } };
  }
  if (e.type === 'audit_event') return { ...e, event: { ...e.event, at: isoTime(e.event.at, 'at') } };
  return e;
}

const listedTwice = (e: UserEntry) =>
  new StateError(
    e.type === 'user'
      ? `user ${e.record.id} (${e.record.email}): its id or email is listed twice`
      : e.type === 'audit_event'
        ? `audit event ${e.event.id} is listed twice`
        : `the SSO provider of ${e.provider.customer_id} is listed twice`,
    'conflict',
  );

/** The UserStore over a backend's storage: every rule here, every byte there. */
export class UserService implements UserStore {
  private closed = false;

  constructor(
    private readonly storage: UserStorage,
    /** The audit retention the storage was made with (auditRetentionMs), null: kept for ever. */
    private readonly retentionMs: number | null,
  ) {}

  /** The storage while open: a closed store refuses, even while the shared connection still serves the others. */
  private get port(): UserStorage {
    if (this.closed) throw new StoreUnavailableError('the user store is closed');
    return this.storage;
  }

  // ---------------------------------------------------------------------------------------------
  // Users

  async createUser(input: Parameters<UserStore['createUser']>[0]): Promise<UserRecord> {
    const fields = checked(NewUser, input);
    for (;;) {
      const user: StoredUser = { id: newId('usr_'), ...fields, created_at: new Date().toISOString(), last_login_at: null };
      const made = await this.port.insertUser(user);
      if (made === 'email_taken') throw new StateError(`a user with the email ${user.email} exists already`, 'conflict');
      // 'id_taken': a new id is drawn.
      if (made === 'made') return userRecord(user);
    }
  }

  async getUser(id: string): Promise<UserRecord | null> {
    const user = await this.port.user(id);
    return user === null ? null : userRecord(user);
  }

  async findUserByEmail(email: string): Promise<(UserRecord & { password_hash: string | null }) | null> {
    const user = await this.port.userByEmail(emailKey(email));
    return user === null ? null : { ...userRecord(user), password_hash: user.password_hash };
  }

  async listUsers(customerId: string): Promise<UserRecord[]> {
    return (await this.port.customerUsers(customerId)).map(userRecord).sort((a, b) => byText(a.email, b.email));
  }

  async setRole(id: string, role: Role, options: KeepAnOwner = {}): Promise<UserRecord> {
    const next = Role.parse(role);
    // Becoming (or staying) owner takes no owner away: no count.
    const changed = await this.port.setRole(id, next, options.keepAnOwner === true && next !== 'owner');
    if (changed === null) throw notFound(id);
    if ('lastOwner' in changed) throw lastOwner(changed.lastOwner);
    return userRecord(changed);
  }

  async setPassword(id: string, passwordHash: string): Promise<UserRecord> {
    if (passwordHash === '') throw new StateError('the password hash is empty');
    const user = await this.port.setPassword(id, passwordHash);
    if (user === null) throw notFound(id);
    return userRecord(user);
  }

  async markSso(id: string): Promise<void> {
    await this.port.markSso(id);
  }

  async bindSsoSubject(id: string, issuer: string, subject: string): Promise<string | null> {
    if (issuer === '' || subject === '') throw new StateError('an SSO identity needs an issuer and a subject');
    return this.port.bindSsoSubject(id, issuer, subject);
  }

  async noteLogin(id: string, at: string): Promise<void> {
    await this.port.noteLogin(id, isoTime(at, 'at'));
  }

  async removeUser(id: string, options: KeepAnOwner = {}): Promise<boolean> {
    const removed = await this.port.removeUser(id, options.keepAnOwner === true);
    if (typeof removed === 'object') throw lastOwner(removed.lastOwner);
    return removed;
  }

  // ---------------------------------------------------------------------------------------------
  // Invitations: expired when `now` reaches expires_at.

  async createInvitation(tokenHash: string, invitation: InvitationRecord): Promise<void> {
    const i = checked(NewInvitation, invitation);
    const normal = { ...i, created_at: isoTime(i.created_at, 'created_at'), expires_at: isoTime(i.expires_at, 'expires_at') };
    await this.port.createInvitation(tokenHash, normal, Date.now());
  }

  async consumeInvitation(tokenHash: string, now: string): Promise<InvitationRecord | null> {
    const at = isoTime(now, 'now');
    // Taken whatever its end: an expired one goes as it is refused.
    const invitation = await this.port.takeInvitation(tokenHash);
    return invitation === null || invitation.expires_at <= at ? null : invitation;
  }

  // ---------------------------------------------------------------------------------------------
  // Sessions: over at their absolute end, or after `idleMs` without a request.

  async createSession(idHash: string, session: SessionRecord): Promise<void> {
    const c = checked(NewSession, session);
    const s = {
      ...c,
      created_at: isoTime(c.created_at, 'created_at'),
      last_seen_at: isoTime(c.last_seen_at, 'last_seen_at'),
      expires_at: isoTime(c.expires_at, 'expires_at'),
    };
    const made = await this.port.createSession(idHash, s, SESSIONS_PER_USER, Date.now());
    if (made === 'no_user') throw notFound(s.user_id);
    if (made === 'other_customer') throw new StateError(`user ${s.user_id} is not a user of customer ${s.customer_id}`);
    if (made === 'taken') throw new StateError(`session ${s.id} exists already`, 'conflict');
  }

  async touchSession(idHash: string, now: string, idleMs: number): Promise<SessionRecord | null> {
    const at = isoTime(now, 'now');
    const nowMs = Date.parse(at);
    // One step in storage (one round trip on Redis, as every signed-in request pays it): a read, a
    // decision here and a write would let a session another node just touched be ended as idle.
    return this.port.touchSession(idHash, { at, nowMs, idleMs, touchEveryMs: SESSION_TOUCH_INTERVAL_MS });
  }

  async listSessions(userId: string, now = new Date().toISOString(), idleMs = SESSION_IDLE_MS): Promise<SessionRecord[]> {
    const nowMs = Date.parse(isoTime(now, 'now'));
    return (await this.port.userSessions(userId)).filter((s) => !sessionOver(s, nowMs, idleMs)).sort(newestFirst);
  }

  async endSession(userId: string, sessionId: string): Promise<boolean> {
    return this.port.endSession(userId, sessionId);
  }

  async endSessionByHash(idHash: string): Promise<void> {
    return this.port.endSessionByHash(idHash);
  }

  async endSessions(userId: string, keepSessionId?: string): Promise<number> {
    return this.port.endSessions(userId, keepSessionId);
  }

  // ---------------------------------------------------------------------------------------------
  // Single sign-on (a customer id names a Redis key: anything else is nobody's)

  async getSsoProvider(customerId: string): Promise<SsoProvider | null> {
    return CustomerId.safeParse(customerId).success ? this.port.ssoProvider(customerId) : null;
  }

  async setSsoProvider(provider: SsoProvider): Promise<void> {
    await this.port.setSsoProvider(checked(SsoProvider, provider));
  }

  async removeSsoProvider(customerId: string): Promise<boolean> {
    return CustomerId.safeParse(customerId).success ? this.port.removeSsoProvider(customerId) : false;
  }

  // ---------------------------------------------------------------------------------------------
  // Audit log

  async appendAudit(event: NewAuditEvent): Promise<AuditEvent> {
    const parsed = checked(NewAudit, event);
    const e = { id: newId('aud_'), ...parsed, at: isoTime(parsed.at, 'at') };
    await this.port.appendAudit(e);
    return e;
  }

  async listAudit(customerId: string, from: string, to: string, limit: number): Promise<AuditEvent[]> {
    let start = isoTime(from, 'from');
    const end = isoTime(to, 'to');
    // Events past the retention may wait for their deletion (SQLite's next pass, Redis's next append): never listed.
    if (this.retentionMs !== null) {
      const kept = auditKeptFrom(this.retentionMs);
      if (kept > start) start = kept;
    }
    const most = Math.floor(limit);
    if (!(most >= 1) || !CustomerId.safeParse(customerId).success) return [];
    return this.port.listAudit(customerId, start, end, most);
  }

  async auditRetained(): Promise<void> {
    return this.port.auditRetained();
  }

  // ---------------------------------------------------------------------------------------------
  // Export and import (svc state export / import): users, providers, the audit log; never sessions or invitations.

  async *exportEntries(): AsyncIterable<UserEntry> {
    for await (const e of this.port.exportEntries()) yield UserEntry.parse(e);
  }

  async isEmpty(): Promise<boolean> {
    return this.port.isEmpty();
  }

  async importEntries(entries: AsyncIterable<UserEntry> | Iterable<UserEntry>): Promise<number> {
    const importer = this.port.importer();
    // One email is one person, whichever customer: checked across the whole file, not per page.
    const ids = new Set<string>();
    const emails = new Set<string>();
    const n = await importInPages(entries, {
      schema: {
        parse: (raw) => {
          const e = normalised(UserEntry.parse(raw));
          if (e.type === 'user') {
            if (ids.has(e.record.id) || emails.has(e.record.email)) throw listedTwice(e);
            ids.add(e.record.id);
            emails.add(e.record.email);
          }
          return e;
        },
      },
      isEmpty: () => this.isEmpty(),
      notEmpty: 'the target already holds users, SSO providers or audit events: import into an empty state',
      write: (page) =>
        importer.write(page).catch((e: unknown) => {
          throw e instanceof DuplicateEntry ? listedTwice(e.entry) : e;
        }),
    });
    await importer.finish();
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // Failure counts (failed sign-ins): a window opens at a key's first failure and lasts `windowMs`.

  async countFailure(key: string, nowMs: number, windowMs: number): Promise<void> {
    await this.port.countFailure(key, nowMs, nowMs + windowMs);
  }

  async failuresOf(key: string, nowMs: number): Promise<{ failures: number; endsMs: number } | null> {
    const window = await this.port.failures(key);
    return window === null || window.endsMs <= nowMs ? null : window;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.storage.close();
  }
}
