/**
 * The user store's storage in the SQLite state file: users, invitations, sessions, SSO providers, the audit
 * log and failure counts (tables from the one migration list, sqlite/schema.ts), on the process's one
 * connection (sqlite/db.ts). Storage only: the rules are service.ts; export and import are
 * sqlite-transfer.ts. Every write is a write of the request lane (somebody waits for the answer: a sign-in,
 * a role change, the audit event of a change): behind another process's lock it waits on a timer, never on
 * the event loop, and gives up with a 503 after LOCK_DEADLINE_MS.request. A change of several rows (a user
 * and its sessions, invitations) is one IMMEDIATE transaction. Reads take no lock (WAL).
 *
 * Housekeeping rides on the writes that make rows: a new session deletes sessions past their end, a new
 * invitation expired invitations, a failure windows over, a bounded batch each; nothing runs on a timer.
 * Audit events past the retention (when one is given) go in a pass at open and with the first event of
 * each UTC day: writes of the background lane of at most AUDIT_PRUNE_ROWS rows, the event loop free
 * between them.
 */
import type Database from 'better-sqlite3';
import type { Role } from '../../../core/roles.ts';
import type { AuditEvent, InvitationRecord, SessionRecord, SsoProvider } from '../../../core/user-records.ts';
import { DailyPasses, type PassStep } from '../sqlite/daily-passes.ts';
import { holdStateDb, type SqliteStateDb } from '../sqlite/db.ts';
import type { UserEntry } from '../transfer/transfer.ts';
import type { LastOwner, SessionTouch, StoredUser, UserImport, UserStorage } from './port.ts';
import { auditKeptFrom, auditRetentionMs, UserService } from './service.ts';
import {
  auditRecord,
  auditRow,
  INSERT_AUDIT,
  INSERT_INVITATION,
  INSERT_SESSION,
  INSERT_USER,
  invitationRecord,
  providerRecord,
  providerRow,
  type Row,
  SET_PROVIDER,
  sessionRecord,
  storedUser,
  userRow,
} from './sqlite-rows.ts';
import { exportUserRows, userRowsEmpty, userRowsImporter } from './sqlite-transfer.ts';

/** Rows past their end deleted by one new session, invitation or failure at most (they are few: one per sign-in). */
const PRUNE_BATCH = 100;
/**
 * Audit rows one write of the retention pass deletes at most, and customers it looks at: each write holds
 * the file's lock, which other processes' writes wait for, so it stays a few milliseconds long.
 */
const AUDIT_PRUNE_ROWS = 1_000;
const AUDIT_PRUNE_CUSTOMERS = 100;

export interface SqliteUserStorageOptions {
  /** The audit retention (auditRetentionMs), null: kept for ever. */
  retentionMs: number | null;
  /** Rows one write of the retention pass deletes at most (AUDIT_PRUNE_ROWS). */
  auditPruneRows?: number;
}

export class SqliteUserStorage implements UserStorage {
  private readonly sqlite: SqliteStateDb;
  private closed = false;
  private readonly retentionMs: number | null;
  private readonly pruneRows: number;
  /** The audit log's retention passes this process started, once per UTC day. */
  private readonly retention: DailyPasses;

  /** The state store's connection (what a server passes: backend.ts), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb, options: SqliteUserStorageOptions) {
    this.retentionMs = options.retentionMs;
    this.pruneRows = options.auditPruneRows ?? AUDIT_PRUNE_ROWS;
    this.sqlite = holdStateDb(source);
    this.retention = new DailyPasses(this.sqlite, () => this.closed);
    // Nobody waits on it; a failed pass is tried again by the next event.
    this.retainAudit().catch(() => {});
  }

  private sql(source: string): Database.Statement {
    return this.sqlite.sql(source);
  }

  /** A read: no lock in WAL mode, so it runs directly (io() only turns a rare failure into a 503). */
  private read<T>(fn: () => T): T {
    return this.sqlite.io(fn);
  }

  /** One IMMEDIATE transaction on the request lane (sqlite/db.ts: queued behind another process's lock, never a busy wait). */
  private write<T>(fn: () => T): Promise<T> {
    return this.sqlite.write(() => this.sqlite.db.transaction(fn).immediate());
  }

  private userRow(id: string): StoredUser | null {
    const row = this.sql('SELECT * FROM users WHERE id = ?').get(id) as Row | undefined;
    return row === undefined ? null : storedUser(row);
  }

  // Users

  insertUser(user: StoredUser): Promise<'made' | 'email_taken' | 'id_taken'> {
    return this.write(() => {
      if (this.sql('SELECT 1 FROM users WHERE email = ?').get(user.email) !== undefined) return 'email_taken';
      if (this.userRow(user.id) !== null) return 'id_taken';
      this.sql(INSERT_USER).run(userRow(user));
      return 'made';
    });
  }

  async user(id: string): Promise<StoredUser | null> {
    return this.read(() => this.userRow(id));
  }

  async userByEmail(email: string): Promise<StoredUser | null> {
    const row = this.read(() => this.sql('SELECT * FROM users WHERE email = ?').get(email)) as Row | undefined;
    return row === undefined ? null : storedUser(row);
  }

  async customerUsers(customerId: string): Promise<StoredUser[]> {
    return (this.read(() => this.sql('SELECT * FROM users WHERE customer_id = ?').all(customerId)) as Row[]).map(storedUser);
  }

  /**
   * The customer's last owner when `user` is it, else null. Called inside the IMMEDIATE transaction of the
   * change: the count and the change are one step for every process on the file.
   */
  private lastOwner(user: StoredUser): LastOwner | null {
    if (user.role !== 'owner') return null;
    const owners = this.sql("SELECT COUNT(*) FROM users WHERE customer_id = ? AND role = 'owner'").pluck().get(user.customer_id) as number;
    return owners <= 1 ? { lastOwner: user.email } : null;
  }

  async setRole(id: string, role: Role, keepAnOwner: boolean): Promise<StoredUser | LastOwner | null> {
    const set = () => this.sql('UPDATE users SET role = ? WHERE id = ? RETURNING *').get(role, id) as Row | undefined;
    if (!keepAnOwner) {
      const row = await this.sqlite.write(set);
      return row === undefined ? null : storedUser(row);
    }
    return this.write(() => {
      const user = this.userRow(id);
      if (user === null) return null;
      return this.lastOwner(user) ?? storedUser(set() as Row);
    });
  }

  setPassword(id: string, passwordHash: string): Promise<StoredUser | null> {
    return this.write(() => {
      const row = this.sql('UPDATE users SET password_hash = ? WHERE id = ? RETURNING *').get(passwordHash, id) as Row | undefined;
      if (row === undefined) return null;
      const user = storedUser(row);
      // An older reset link must not set the password again over this one.
      this.sql("DELETE FROM invitations WHERE email = ? AND customer_id = ? AND purpose = 'reset'").run(user.email, user.customer_id);
      return user;
    });
  }

  async markSso(id: string): Promise<void> {
    await this.sqlite.write(() => this.sql('UPDATE users SET sso = 1 WHERE id = ?').run(id));
  }

  bindSsoSubject(id: string, issuer: string, subject: string): Promise<string | null> {
    return this.write(() => {
      const row = this.sql('SELECT sso_issuer, sso_subject FROM users WHERE id = ?').get(id) as Row | undefined;
      if (row === undefined) return null;
      if (row.sso_issuer === issuer && typeof row.sso_subject === 'string' && row.sso_subject !== '') return row.sso_subject;
      this.sql('UPDATE users SET sso = 1, sso_issuer = ?, sso_subject = ? WHERE id = ?').run(issuer, subject, id);
      return subject;
    });
  }

  async noteLogin(id: string, at: string): Promise<void> {
    await this.sqlite.write(() => this.sql('UPDATE users SET last_login_at = ? WHERE id = ?').run(at, id));
  }

  removeUser(id: string, keepAnOwner: boolean): Promise<boolean | LastOwner> {
    return this.write(() => {
      const user = this.userRow(id);
      if (user === null) return false;
      const last = keepAnOwner ? this.lastOwner(user) : null;
      if (last !== null) return last;
      this.sql('DELETE FROM sessions WHERE user_id = ?').run(id);
      this.sql('DELETE FROM invitations WHERE email = ? AND customer_id = ?').run(user.email, user.customer_id);
      this.sql('DELETE FROM users WHERE id = ?').run(id);
      return true;
    });
  }

  // Invitations

  async createInvitation(tokenHash: string, i: InvitationRecord, nowMs: number): Promise<void> {
    await this.write(() => {
      this.sql('DELETE FROM invitations WHERE token_hash IN (SELECT token_hash FROM invitations WHERE expires_at <= ? LIMIT ?)').run(
        new Date(nowMs).toISOString(),
        PRUNE_BATCH,
      );
      this.sql(INSERT_INVITATION).run({ token_hash: tokenHash, ...i });
    });
  }

  async takeInvitation(tokenHash: string): Promise<InvitationRecord | null> {
    // A read first: an unknown token (a guess, a link used twice) takes no write lock.
    if (this.read(() => this.sql('SELECT 1 FROM invitations WHERE token_hash = ?').get(tokenHash)) === undefined) return null;
    const row = (await this.sqlite.write(() => this.sql('DELETE FROM invitations WHERE token_hash = ? RETURNING *').get(tokenHash))) as Row | undefined;
    return row === undefined ? null : invitationRecord(row);
  }

  // Sessions

  createSession(idHash: string, s: SessionRecord, cap: number, nowMs: number): Promise<'made' | 'no_user' | 'other_customer' | 'taken'> {
    return this.write(() => {
      if (this.sql('SELECT 1 FROM sessions WHERE id_hash = ? OR id = ?').get(idHash, s.id) !== undefined) return 'taken';
      const user = this.userRow(s.user_id);
      if (user === null) return 'no_user';
      if (user.customer_id !== s.customer_id) return 'other_customer';
      this.sql('DELETE FROM sessions WHERE id_hash IN (SELECT id_hash FROM sessions WHERE expires_at <= ? LIMIT ?)').run(
        new Date(nowMs).toISOString(),
        PRUNE_BATCH,
      );
      this.sql(INSERT_SESSION).run({ id_hash: idHash, ...s });
      // Past the cap the oldest go.
      this.sql(
        `DELETE FROM sessions WHERE id_hash IN (
           SELECT id_hash FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ?)`,
      ).run(s.user_id, cap);
      return 'made';
    });
  }

  async session(idHash: string): Promise<SessionRecord | null> {
    const row = this.read(() => this.sql('SELECT * FROM sessions WHERE id_hash = ?').get(idHash)) as Row | undefined;
    return row === undefined ? null : sessionRecord(row);
  }

  async touchSession(idHash: string, { at, nowMs, idleMs, touchEveryMs }: SessionTouch): Promise<SessionRecord | null> {
    // Read without the write lock: most requests come within a minute of the last touch and write nothing.
    const row = this.read(() => this.sql('SELECT * FROM sessions WHERE id_hash = ?').get(idHash)) as Row | undefined;
    if (row === undefined) return null;
    const seenMs = Date.parse(row.last_seen_at as string);
    if (nowMs >= Date.parse(row.expires_at as string) || nowMs - seenMs > idleMs) {
      // Ended only if nobody touched it since it was read (the condition again, in the statement).
      await this.sqlite.write(() => this.sql('DELETE FROM sessions WHERE id_hash = ? AND last_seen_at = ?').run(idHash, row.last_seen_at));
      return null;
    }
    if (nowMs - seenMs < touchEveryMs) return sessionRecord(row);
    const moved = (await this.sqlite.write(() =>
      this.sql('UPDATE sessions SET last_seen_at = max(last_seen_at, ?) WHERE id_hash = ? RETURNING *').get(at, idHash),
    )) as Row | undefined;
    return moved === undefined ? null : sessionRecord(moved);
  }

  async userSessions(userId: string): Promise<SessionRecord[]> {
    return (this.read(() => this.sql('SELECT * FROM sessions WHERE user_id = ?').all(userId)) as Row[]).map(sessionRecord);
  }

  async endSession(userId: string, sessionId: string): Promise<boolean> {
    return (await this.sqlite.write(() => this.sql('DELETE FROM sessions WHERE user_id = ? AND id = ?').run(userId, sessionId).changes)) > 0;
  }

  async endSessionByHash(idHash: string): Promise<void> {
    await this.sqlite.write(() => this.sql('DELETE FROM sessions WHERE id_hash = ?').run(idHash));
  }

  endSessions(userId: string, keepSessionId: string | undefined): Promise<number> {
    return this.sqlite.write(() => this.sql('DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?').run(userId, keepSessionId ?? null).changes);
  }

  // Single sign-on

  async ssoProvider(customerId: string): Promise<SsoProvider | null> {
    const row = this.read(() => this.sql('SELECT * FROM sso_providers WHERE customer_id = ?').get(customerId)) as Row | undefined;
    return row === undefined ? null : providerRecord(row);
  }

  async setSsoProvider(p: SsoProvider): Promise<void> {
    await this.sqlite.write(() => this.sql(SET_PROVIDER).run(providerRow(p)));
  }

  async removeSsoProvider(customerId: string): Promise<boolean> {
    return (await this.sqlite.write(() => this.sql('DELETE FROM sso_providers WHERE customer_id = ?').run(customerId).changes)) > 0;
  }

  // Audit log

  async appendAudit(e: AuditEvent): Promise<void> {
    await this.sqlite.write(() => this.sql(INSERT_AUDIT).run(auditRow(e)));
    this.retainAudit().catch(() => {});
  }

  async listAudit(customerId: string, from: string, to: string, limit: number): Promise<AuditEvent[]> {
    const rows = this.read(() =>
      this.sql('SELECT * FROM audit_events WHERE customer_id = ? AND at >= ? AND at < ? ORDER BY at, seq LIMIT ?').all(customerId, from, to, limit),
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

  // Export and import (sqlite-transfer.ts)

  exportEntries(): AsyncIterable<UserEntry> {
    return exportUserRows(this.sqlite);
  }

  async isEmpty(): Promise<boolean> {
    return userRowsEmpty(this.sqlite);
  }

  importer(): UserImport {
    return userRowsImporter(this.sqlite);
  }

  // Failure counts (failed sign-ins)

  async countFailure(key: string, nowMs: number, endsMs: number): Promise<void> {
    await this.write(() => {
      // Windows over go a bounded batch at a time, with the failures that open new ones.
      this.sql('DELETE FROM failure_counts WHERE key IN (SELECT key FROM failure_counts WHERE ends_ms <= ? LIMIT ?)').run(nowMs, PRUNE_BATCH);
      this.sql(
        `INSERT INTO failure_counts (key, ends_ms, failures) VALUES (@key, @ends, 1)
         ON CONFLICT (key) DO UPDATE SET
           failures = CASE WHEN ends_ms > @now THEN failures + 1 ELSE 1 END,
           ends_ms = CASE WHEN ends_ms > @now THEN ends_ms ELSE excluded.ends_ms END`,
      ).run({ key, ends: endsMs, now: nowMs });
    });
  }

  async failures(key: string): Promise<{ failures: number; endsMs: number } | null> {
    const row = this.read(() => this.sql('SELECT failures, ends_ms FROM failure_counts WHERE key = ?').get(key)) as
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

export interface SqliteUserStoreOptions {
  /** Days of audit events kept (a server passes SVC_AUDIT_RETENTION_DAYS); unset: kept for ever. */
  auditRetentionDays?: number;
  /** Rows one write of the retention pass deletes at most (AUDIT_PRUNE_ROWS). */
  auditPruneRows?: number;
}

/** The user store on SQLite: the rules (service.ts) over this storage. */
export class SqliteUserStore extends UserService {
  /** The state store's connection (what a server passes: backend.ts), or a file path: a connection of its own. */
  constructor(source: string | SqliteStateDb, options: SqliteUserStoreOptions = {}) {
    const retentionMs = auditRetentionMs(options.auditRetentionDays);
    super(new SqliteUserStorage(source, { retentionMs, auditPruneRows: options.auditPruneRows }), retentionMs);
  }
}
