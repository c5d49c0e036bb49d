/**
 * The user store in the SQLite state file: users, invitations, sessions, SSO providers and the audit log
 * (tables from the one migration list, sqlite-schema.ts), on the process's one connection (sqlite-db.ts).
 * Every write is a write of the request lane (somebody waits for the answer: a sign-in, a role change, the
 * audit event of a change): behind another process's lock it waits on a timer, never on the event loop,
 * and gives up with a 503 after LOCK_DEADLINE_MS.request. A change of several rows (a user and its
 * sessions, invitations) is one IMMEDIATE transaction. Reads take no lock (WAL).
 *
 * Housekeeping rides on the writes that make rows: a new session deletes sessions past their end, a new
 * invitation expired invitations, a bounded batch each; nothing runs on a timer. Audit events past the
 * retention (when one is given) go in a pass at open and with the first event of each UTC day: writes of
 * the background lane of at most AUDIT_PRUNE_ROWS rows, the event loop free between them.
 */
import type Database from 'better-sqlite3';
import { Role } from '../../core/roles.ts';
import { DailyPasses, type PassStep } from './daily-passes.ts';
import { StateError, StoreUnavailableError } from './errors.ts';
import { holdStateDb, type SqliteStateDb } from './sqlite-db.ts';
import { UserEntry } from './transfer.ts';
import {
  type AuditEvent,
  auditKeptFrom,
  auditRetentionMs,
  checkedInvitation,
  checkedProvider,
  emailKey,
  type InvitationRecord,
  isoTime,
  type KeepAnOwner,
  lastOwnerMessage,
  type NewAuditEvent,
  newAuditEvent,
  newestFirst,
  newSession,
  newUser,
  SESSION_IDLE_MS,
  SESSION_TOUCH_INTERVAL_MS,
  SESSIONS_PER_USER,
  type SessionRecord,
  type SsoProvider,
  type StoredUser,
  sessionOver,
  type UserRecord,
  type UserStore,
  userRecord,
} from './users.ts';

type Row = Record<string, unknown>;

/** Rows an export reads per query and entries an import writes per transaction (as sqlite-visits.ts). */
const TRANSFER_PAGE = 500;
/** Rows past their end deleted by one new session or invitation at most (they are few: one per sign-in). */
const PRUNE_BATCH = 100;

/**
 * Audit rows one write of the retention pass deletes at most, and customers it looks at: each write holds
 * the file's lock, which other processes' writes wait for, so it stays a few milliseconds long.
 */
const AUDIT_PRUNE_ROWS = 1_000;
const AUDIT_PRUNE_CUSTOMERS = 100;

export interface SqliteUserStoreOptions {
  /** Days of audit events kept (a server passes SVC_AUDIT_RETENTION_DAYS); unset: kept for ever. */
  auditRetentionDays?: number;
  /** Rows one write of the retention pass deletes at most (AUDIT_PRUNE_ROWS). */
  auditPruneRows?: number;
}

const isUnique = (e: unknown) => (e as { code?: string } | undefined)?.code === 'SQLITE_CONSTRAINT_UNIQUE';

function storedUser(r: Row): StoredUser {
  return {
    id: r.id as string,
    customer_id: r.customer_id as string,
    email: r.email as string,
    role: Role.parse(r.role),
    password_hash: (r.password_hash as string | null) ?? null,
    sso: r.sso === 1,
    created_at: r.created_at as string,
    last_login_at: (r.last_login_at as string | null) ?? null,
  };
}

function sessionRecord(r: Row): SessionRecord {
  return {
    id: r.id as string,
    user_id: r.user_id as string,
    customer_id: r.customer_id as string,
    created_at: r.created_at as string,
    last_seen_at: r.last_seen_at as string,
    expires_at: r.expires_at as string,
    ip: (r.ip as string | null) ?? null,
    user_agent: (r.user_agent as string | null) ?? null,
    method: r.method as string,
  };
}

function invitationRecord(r: Row): InvitationRecord {
  return {
    customer_id: r.customer_id as string,
    email: r.email as string,
    role: Role.parse(r.role),
    purpose: r.purpose as InvitationRecord['purpose'],
    created_at: r.created_at as string,
    expires_at: r.expires_at as string,
    created_by: r.created_by as string,
  };
}

function providerRecord(r: Row): SsoProvider {
  return {
    customer_id: r.customer_id as string,
    issuer: r.issuer as string,
    client_id: r.client_id as string,
    client_secret: r.client_secret as string,
    allowed_domains: JSON.parse(r.allowed_domains as string) as string[],
    default_role: Role.parse(r.default_role),
    display_name: r.display_name as string,
    // Only when set: a provider reads back as it was given.
    ...(r.email_verified_optional === 1 ? { email_verified_optional: true } : {}),
  };
}

function auditRecord(r: Row): AuditEvent {
  return {
    id: r.id as string,
    customer_id: r.customer_id as string,
    at: r.at as string,
    actor: r.actor as string,
    ip: (r.ip as string | null) ?? null,
    action: r.action as string,
    target: (r.target as string | null) ?? null,
    before: r.before === null ? null : (JSON.parse(r.before as string) as Record<string, unknown>),
    after: r.after === null ? null : (JSON.parse(r.after as string) as Record<string, unknown>),
  };
}

export class SqliteUserStore implements UserStore {
  private readonly sqlite: SqliteStateDb;
  private closed = false;
  private readonly retentionMs: number | null;
  private readonly pruneRows: number;
  /** The audit log's retention passes this process started, once per UTC day. */
  private readonly retention: DailyPasses;

  /** The state store's connection (what a server passes: open-user-store.ts), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb, options: SqliteUserStoreOptions = {}) {
    this.retentionMs = auditRetentionMs(options.auditRetentionDays);
    this.pruneRows = options.auditPruneRows ?? AUDIT_PRUNE_ROWS;
    this.sqlite = holdStateDb(source);
    this.retention = new DailyPasses(this.sqlite, () => this.closed);
    // Nobody waits on it; a failed pass is tried again by the next event.
    this.retainAudit().catch(() => {});
  }

  /** A statement of the shared connection: a closed store refuses, even while the connection still serves the others. */
  private sql(source: string): Database.Statement {
    if (this.closed) throw new StoreUnavailableError('the user store is closed');
    return this.sqlite.sql(source);
  }

  /** A read: no lock in WAL mode, so it runs directly (io() only turns a rare failure into a 503). */
  private read<T>(fn: () => T): T {
    return this.sqlite.io(fn);
  }

  /** One IMMEDIATE transaction on the request lane (sqlite-db.ts: queued behind another process's lock, never a busy wait). */
  private write<T>(fn: () => T): Promise<T> {
    return this.sqlite.write(() => this.sqlite.db.transaction(fn).immediate());
  }

  private userRow(id: string): StoredUser | null {
    const row = this.sql('SELECT * FROM users WHERE id = ?').get(id) as Row | undefined;
    return row === undefined ? null : storedUser(row);
  }

  // ---------------------------------------------------------------------------------------------
  // Users

  async createUser(input: Parameters<UserStore['createUser']>[0]): Promise<UserRecord> {
    const user = newUser(input);
    await this.write(() => {
      if (this.sql('SELECT 1 FROM users WHERE email = ?').get(user.email) !== undefined)
        throw new StateError(`a user with the email ${user.email} exists already`, 'conflict');
      this.sql(
        `INSERT INTO users (id, customer_id, email, role, password_hash, sso, created_at, last_login_at)
         VALUES (@id, @customer_id, @email, @role, @password_hash, @sso, @created_at, @last_login_at)`,
      ).run({ ...user, sso: user.sso ? 1 : 0 });
    });
    return userRecord(user);
  }

  async getUser(id: string): Promise<UserRecord | null> {
    const user = this.read(() => this.userRow(id));
    return user === null ? null : userRecord(user);
  }

  async findUserByEmail(email: string): Promise<(UserRecord & { password_hash: string | null }) | null> {
    const row = this.read(() => this.sql('SELECT * FROM users WHERE email = ?').get(emailKey(email))) as Row | undefined;
    if (row === undefined) return null;
    const user = storedUser(row);
    return { ...userRecord(user), password_hash: user.password_hash };
  }

  async listUsers(customerId: string): Promise<UserRecord[]> {
    const rows = this.read(() => this.sql('SELECT * FROM users WHERE customer_id = ? ORDER BY email').all(customerId)) as Row[];
    return rows.map((r) => userRecord(storedUser(r)));
  }

  /** Sets one column of an existing user; `not_found` when there is none. */
  private async update(id: string, column: 'role' | 'password_hash', value: string): Promise<UserRecord> {
    const row = (await this.sqlite.write(() => this.sql(`UPDATE users SET ${column} = ? WHERE id = ? RETURNING *`).get(value, id))) as Row | undefined;
    if (row === undefined) throw new StateError(`no user ${id}`, 'not_found');
    return userRecord(storedUser(row));
  }

  /**
   * Refuses (`conflict`) a change that takes away `user`'s ownership when it is its customer's last owner.
   * Called inside the IMMEDIATE transaction of the change: the count and the change are one step for every
   * process on the file.
   */
  private keepAnOwner(user: StoredUser): void {
    if (user.role !== 'owner') return;
    const owners = this.sql("SELECT COUNT(*) FROM users WHERE customer_id = ? AND role = 'owner'").pluck().get(user.customer_id) as number;
    if (owners <= 1) throw new StateError(lastOwnerMessage(user.email), 'conflict');
  }

  async setRole(id: string, role: Role, options: KeepAnOwner = {}): Promise<UserRecord> {
    const next = Role.parse(role);
    if (!options.keepAnOwner) return this.update(id, 'role', next);
    return this.write(() => {
      const user = this.userRow(id);
      if (user === null) throw new StateError(`no user ${id}`, 'not_found');
      if (next !== 'owner') this.keepAnOwner(user);
      return userRecord(storedUser(this.sql('UPDATE users SET role = ? WHERE id = ? RETURNING *').get(next, id) as Row));
    });
  }

  async setPassword(id: string, passwordHash: string): Promise<UserRecord> {
    if (passwordHash === '') throw new StateError('the password hash is empty');
    return this.write(() => {
      const row = this.sql('UPDATE users SET password_hash = ? WHERE id = ? RETURNING *').get(passwordHash, id) as Row | undefined;
      if (row === undefined) throw new StateError(`no user ${id}`, 'not_found');
      const user = storedUser(row);
      // An older reset link must not set the password again over this one.
      this.sql("DELETE FROM invitations WHERE email = ? AND customer_id = ? AND purpose = 'reset'").run(user.email, user.customer_id);
      return userRecord(user);
    });
  }

  async markSso(id: string): Promise<void> {
    await this.sqlite.write(() => this.sql('UPDATE users SET sso = 1 WHERE id = ?').run(id));
  }

  async bindSsoSubject(id: string, issuer: string, subject: string): Promise<string | null> {
    if (issuer === '' || subject === '') throw new StateError('an SSO identity needs an issuer and a subject');
    return this.write(() => {
      const row = this.sql('SELECT sso_issuer, sso_subject FROM users WHERE id = ?').get(id) as Row | undefined;
      if (row === undefined) return null;
      if (row.sso_issuer === issuer && typeof row.sso_subject === 'string' && row.sso_subject !== '') return row.sso_subject;
      this.sql('UPDATE users SET sso = 1, sso_issuer = ?, sso_subject = ? WHERE id = ?').run(issuer, subject, id);
      return subject;
    });
  }

  async noteLogin(id: string, at: string): Promise<void> {
    const when = isoTime(at, 'at');
    await this.sqlite.write(() => this.sql('UPDATE users SET last_login_at = ? WHERE id = ?').run(when, id));
  }

  async removeUser(id: string, options: KeepAnOwner = {}): Promise<boolean> {
    return this.write(() => {
      const user = this.userRow(id);
      if (user === null) return false;
      if (options.keepAnOwner) this.keepAnOwner(user);
      this.sql('DELETE FROM sessions WHERE user_id = ?').run(id);
      this.sql('DELETE FROM invitations WHERE email = ? AND customer_id = ?').run(user.email, user.customer_id);
      this.sql('DELETE FROM users WHERE id = ?').run(id);
      return true;
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Invitations

  async createInvitation(tokenHash: string, invitation: InvitationRecord): Promise<void> {
    const i = checkedInvitation(invitation);
    await this.write(() => {
      this.sql('DELETE FROM invitations WHERE token_hash IN (SELECT token_hash FROM invitations WHERE expires_at <= ? LIMIT ?)').run(
        new Date().toISOString(),
        PRUNE_BATCH,
      );
      this.sql(
        `INSERT INTO invitations (token_hash, customer_id, email, role, purpose, created_at, expires_at, created_by)
         VALUES (@token_hash, @customer_id, @email, @role, @purpose, @created_at, @expires_at, @created_by)`,
      ).run({ token_hash: tokenHash, ...i });
    });
  }

  async consumeInvitation(tokenHash: string, now: string): Promise<InvitationRecord | null> {
    const at = isoTime(now, 'now');
    // A read first: an unknown token (a guess, a link used twice) takes no write lock.
    if (this.read(() => this.sql('SELECT 1 FROM invitations WHERE token_hash = ?').get(tokenHash)) === undefined) return null;
    const row = (await this.sqlite.write(() => this.sql('DELETE FROM invitations WHERE token_hash = ? RETURNING *').get(tokenHash))) as Row | undefined;
    if (row === undefined) return null;
    const invitation = invitationRecord(row);
    return invitation.expires_at <= at ? null : invitation;
  }

  // ---------------------------------------------------------------------------------------------
  // Sessions

  async createSession(idHash: string, session: SessionRecord): Promise<void> {
    const s = newSession(session);
    await this.write(() => {
      if (this.sql('SELECT 1 FROM sessions WHERE id_hash = ? OR id = ?').get(idHash, s.id) !== undefined)
        throw new StateError(`session ${s.id} exists already`, 'conflict');
      const user = this.userRow(s.user_id);
      if (user === null) throw new StateError(`no user ${s.user_id}`, 'not_found');
      if (user.customer_id !== s.customer_id) throw new StateError(`user ${s.user_id} is not a user of customer ${s.customer_id}`);
      this.sql('DELETE FROM sessions WHERE id_hash IN (SELECT id_hash FROM sessions WHERE expires_at <= ? LIMIT ?)').run(new Date().toISOString(), PRUNE_BATCH);
      this.sql(
        `INSERT INTO sessions (id_hash, id, user_id, customer_id, created_at, last_seen_at, expires_at, ip, user_agent, method)
         VALUES (@id_hash, @id, @user_id, @customer_id, @created_at, @last_seen_at, @expires_at, @ip, @user_agent, @method)`,
      ).run({ id_hash: idHash, ...s });
      // Past the cap the oldest go.
      this.sql(
        `DELETE FROM sessions WHERE id_hash IN (
           SELECT id_hash FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ?)`,
      ).run(s.user_id, SESSIONS_PER_USER);
    });
  }

  async touchSession(idHash: string, now: string, idleMs: number): Promise<SessionRecord | null> {
    const at = isoTime(now, 'now');
    const nowMs = Date.parse(at);
    const row = this.read(() => this.sql('SELECT * FROM sessions WHERE id_hash = ?').get(idHash)) as Row | undefined;
    if (row === undefined) return null;
    const session = sessionRecord(row);
    if (sessionOver(session, nowMs, idleMs)) {
      await this.sqlite.write(() => this.sql('DELETE FROM sessions WHERE id_hash = ?').run(idHash));
      return null;
    }
    if (nowMs - Date.parse(session.last_seen_at) < SESSION_TOUCH_INTERVAL_MS) return session;
    // Only moves forward (another node may have touched it meanwhile); no row: ended meanwhile.
    const moved = (await this.sqlite.write(() =>
      this.sql('UPDATE sessions SET last_seen_at = max(last_seen_at, ?) WHERE id_hash = ? RETURNING *').get(at, idHash),
    )) as Row | undefined;
    return moved === undefined ? null : sessionRecord(moved);
  }

  async listSessions(userId: string, now = new Date().toISOString(), idleMs = SESSION_IDLE_MS): Promise<SessionRecord[]> {
    const nowMs = Date.parse(isoTime(now, 'now'));
    const rows = this.read(() => this.sql('SELECT * FROM sessions WHERE user_id = ?').all(userId)) as Row[];
    return rows
      .map(sessionRecord)
      .filter((s) => !sessionOver(s, nowMs, idleMs))
      .sort(newestFirst);
  }

  async endSession(userId: string, sessionId: string): Promise<boolean> {
    const changes = await this.sqlite.write(() => this.sql('DELETE FROM sessions WHERE user_id = ? AND id = ?').run(userId, sessionId).changes);
    return changes > 0;
  }

  async endSessionByHash(idHash: string): Promise<void> {
    await this.sqlite.write(() => this.sql('DELETE FROM sessions WHERE id_hash = ?').run(idHash));
  }

  async endSessions(userId: string, keepSessionId?: string): Promise<number> {
    return this.sqlite.write(() => this.sql('DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?').run(userId, keepSessionId ?? null).changes);
  }

  // ---------------------------------------------------------------------------------------------
  // Single sign-on

  async getSsoProvider(customerId: string): Promise<SsoProvider | null> {
    const row = this.read(() => this.sql('SELECT * FROM sso_providers WHERE customer_id = ?').get(customerId)) as Row | undefined;
    return row === undefined ? null : providerRecord(row);
  }

  async setSsoProvider(provider: SsoProvider): Promise<void> {
    const p = checkedProvider(provider);
    await this.sqlite.write(() =>
      this.sql(
        `INSERT OR REPLACE INTO sso_providers (customer_id, issuer, client_id, client_secret, allowed_domains, default_role, display_name, email_verified_optional)
         VALUES (@customer_id, @issuer, @client_id, @client_secret, @allowed_domains, @default_role, @display_name, @email_verified_optional)`,
      ).run({ ...p, allowed_domains: JSON.stringify(p.allowed_domains), email_verified_optional: p.email_verified_optional ? 1 : 0 }),
    );
  }

  async removeSsoProvider(customerId: string): Promise<boolean> {
    return (await this.sqlite.write(() => this.sql('DELETE FROM sso_providers WHERE customer_id = ?').run(customerId).changes)) > 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Audit log

  private insertAudit(e: AuditEvent): void {
    this.sql(
      `INSERT INTO audit_events (id, customer_id, at, actor, ip, action, target, before, after)
       VALUES (@id, @customer_id, @at, @actor, @ip, @action, @target, @before, @after)`,
    ).run({
      ...e,
      before: e.before === null ? null : JSON.stringify(e.before),
      after: e.after === null ? null : JSON.stringify(e.after),
    });
  }

  async appendAudit(event: NewAuditEvent): Promise<AuditEvent> {
    const e = newAuditEvent(event);
    await this.sqlite.write(() => this.insertAudit(e));
    this.retainAudit().catch(() => {});
    return e;
  }

  async listAudit(customerId: string, from: string, to: string, limit: number): Promise<AuditEvent[]> {
    let [start, end] = [isoTime(from, 'from'), isoTime(to, 'to')];
    // Events past the retention may wait for the next pass: they are never listed.
    if (this.retentionMs !== null) {
      const kept = auditKeptFrom(this.retentionMs);
      if (kept > start) start = kept;
    }
    if (!(limit > 0)) return [];
    const rows = this.read(() =>
      this.sql('SELECT * FROM audit_events WHERE customer_id = ? AND at >= ? AND at < ? ORDER BY at, seq LIMIT ?').all(
        customerId,
        start,
        end,
        Math.floor(limit),
      ),
    ) as Row[];
    return rows.map(auditRecord);
  }

  /**
   * With a retention, once per UTC day (the first call of the day: at open, then an event's append): deletes
   * the events older than it, customer by customer, in writes of at most `pruneRows` rows on the background
   * lane, the event loop free between two; resolves with the rows deleted. Runs after the passes before it.
   */
  private retainAudit(): Promise<number> {
    const retentionMs = this.retentionMs;
    const today = new Date().toISOString().slice(0, 10);
    if (retentionMs === null || today <= this.retention.startedFor) return this.retention.latest;
    const before = auditKeptFrom(retentionMs);
    const next = this.sql('SELECT customer_id FROM audit_events WHERE customer_id > ? ORDER BY customer_id LIMIT 1').pluck();
    const deleteOld = this.sql('DELETE FROM audit_events WHERE customer_id = ? AND at < ? LIMIT ?');
    const step = (after: string): PassStep<string> => {
      let budget = this.pruneRows;
      for (let looked = 0; looked < AUDIT_PRUNE_CUSTOMERS; looked++) {
        const customer = next.get(after) as string | undefined;
        if (customer === undefined) return { next: null, deleted: this.pruneRows - budget };
        budget -= deleteOld.run(customer, before, budget).changes;
        // The budget used up: this customer may have more, so the next write starts at it again.
        if (budget === 0) break;
        after = customer;
      }
      return { next: after, deleted: this.pruneRows - budget };
    };
    return this.retention.start(today, '', (after) => this.sqlite.db.transaction(() => step(after)).immediate());
  }

  async auditRetained(): Promise<void> {
    await this.retention.settled();
  }

  // ---------------------------------------------------------------------------------------------
  // Export and import (svc state export / import): users, providers, the audit log; never sessions or invitations.

  async *exportEntries(): AsyncIterable<UserEntry> {
    // Keyset pages, not one open iterator: the connection is shared with the other stores.
    const users = this.sql(`SELECT rowid AS row_id, * FROM users WHERE rowid > ? ORDER BY rowid LIMIT ${TRANSFER_PAGE}`);
    for (let after = 0; ; ) {
      const rows = this.read(() => users.all(after)) as Row[];
      for (const r of rows) {
        const user = storedUser(r);
        yield UserEntry.parse({ type: 'user', record: userRecord(user), password_hash: user.password_hash });
      }
      if (rows.length < TRANSFER_PAGE) break;
      after = rows[rows.length - 1]!.row_id as number;
    }
    const providers = this.sql(`SELECT * FROM sso_providers WHERE customer_id > ? ORDER BY customer_id LIMIT ${TRANSFER_PAGE}`);
    for (let after = ''; ; ) {
      const rows = this.read(() => providers.all(after)) as Row[];
      for (const r of rows) yield UserEntry.parse({ type: 'sso_provider', provider: providerRecord(r) });
      if (rows.length < TRANSFER_PAGE) break;
      after = rows[rows.length - 1]!.customer_id as string;
    }
    // Per customer, oldest first (as appended for equal times): an import appends them in this order.
    const events = this.sql(`SELECT * FROM audit_events WHERE (customer_id, at, seq) > (?, ?, ?) ORDER BY customer_id, at, seq LIMIT ${TRANSFER_PAGE}`);
    for (let after: [string, string, number] = ['', '', 0]; ; ) {
      const rows = this.read(() => events.all(...after)) as Row[];
      for (const r of rows) yield UserEntry.parse({ type: 'audit_event', event: auditRecord(r) });
      if (rows.length < TRANSFER_PAGE) break;
      const last = rows[rows.length - 1]!;
      after = [last.customer_id as string, last.at as string, last.seq as number];
    }
  }

  async isEmpty(): Promise<boolean> {
    const any = this.read(() =>
      this.sql('SELECT EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM sso_providers) OR EXISTS (SELECT 1 FROM audit_events)').pluck().get(),
    );
    return any === 0;
  }

  async importEntries(entries: AsyncIterable<UserEntry> | Iterable<UserEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target already holds users, SSO providers or audit events: import into an empty state', 'conflict');
    const user = this.sql(
      `INSERT INTO users (id, customer_id, email, role, password_hash, sso, created_at, last_login_at)
       VALUES (@id, @customer_id, @email, @role, @password_hash, @sso, @created_at, @last_login_at)`,
    );
    const write = this.sqlite.db.transaction((batch: UserEntry[]) => {
      for (const e of batch) {
        switch (e.type) {
          case 'user': {
            const r = e.record;
            try {
              user.run({
                id: r.id,
                customer_id: r.customer_id,
                email: r.email,
                role: r.role,
                password_hash: e.password_hash,
                sso: r.sso ? 1 : 0,
                created_at: isoTime(r.created_at, 'created_at'),
                last_login_at: r.last_login_at === null ? null : isoTime(r.last_login_at, 'last_login_at'),
              });
            } catch (err) {
              if (isUnique(err)) throw new StateError(`user ${r.id} (${r.email}): its id or email is listed twice`, 'conflict');
              throw err;
            }
            break;
          }
          case 'sso_provider': {
            const p = e.provider;
            this.sql(
              `INSERT OR REPLACE INTO sso_providers (customer_id, issuer, client_id, client_secret, allowed_domains, default_role, display_name, email_verified_optional)
               VALUES (@customer_id, @issuer, @client_id, @client_secret, @allowed_domains, @default_role, @display_name, @email_verified_optional)`,
            ).run({ ...p, allowed_domains: JSON.stringify(p.allowed_domains), email_verified_optional: p.email_verified_optional ? 1 : 0 });
            break;
          }
          case 'audit_event':
            try {
              this.insertAudit({ ...e.event, at: isoTime(e.event.at, 'at') });
            } catch (err) {
              if (isUnique(err)) throw new StateError(`audit event ${e.event.id} is listed twice`, 'conflict');
              throw err;
            }
            break;
        }
      }
    });
    let n = 0;
    let batch: UserEntry[] = [];
    const flush = async () => {
      const b = batch;
      batch = [];
      // The background lane's deadline: a CLI import outwaits a live server's short writes.
      if (b.length > 0) await this.sqlite.write(() => write.immediate(b), 'background');
    };
    for await (const raw of entries) {
      batch.push(UserEntry.parse(raw));
      n++;
      if (batch.length >= TRANSFER_PAGE) await flush();
    }
    await flush();
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // Failure counts (failed sign-ins)

  async countFailure(key: string, nowMs: number, windowMs: number): Promise<void> {
    await this.write(() => {
      // Windows over go a bounded batch at a time, with the failures that open new ones.
      this.sql('DELETE FROM failure_counts WHERE key IN (SELECT key FROM failure_counts WHERE ends_ms <= ? LIMIT ?)').run(nowMs, PRUNE_BATCH);
      this.sql(
        `INSERT INTO failure_counts (key, ends_ms, failures) VALUES (@key, @ends, 1)
         ON CONFLICT (key) DO UPDATE SET
           failures = CASE WHEN ends_ms > @now THEN failures + 1 ELSE 1 END,
           ends_ms = CASE WHEN ends_ms > @now THEN ends_ms ELSE excluded.ends_ms END`,
      ).run({ key, ends: nowMs + windowMs, now: nowMs });
    });
  }

  async failuresOf(key: string, nowMs: number): Promise<{ failures: number; endsMs: number } | null> {
    const row = this.read(() => this.sql('SELECT failures, ends_ms FROM failure_counts WHERE key = ? AND ends_ms > ?').get(key, nowMs)) as
      | { failures: number; ends_ms: number }
      | undefined;
    return row === undefined ? null : { failures: row.failures, endsMs: row.ends_ms };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sqlite.release();
  }
}
