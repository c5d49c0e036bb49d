/**
 * The user store's storage on Redis (several nodes), on the state store's command client (backend.ts): it
 * never opens or closes a connection. Storage only: the rules are service.ts; the keys and the Lua scripts
 * are redis-scripts.ts. Where a script's keys depend on what is stored (a user's sessions, invitations, a
 * customer's users), they are read first and the script refuses (-1) when one came meanwhile: the call
 * reads again, RETRIES times at most.
 *
 * Every command has a deadline (`io`, as the visit store's): a stalled Redis keeps the connection "ready"
 * and node-redis would wait for ever; the deadline answers 503 (the command may still run later: a create
 * retried after it may meet `conflict`). Other Redis failures are 503 too.
 */
import type { RedisClientType } from '@redis/client';
import type { Role } from '../../../core/roles.ts';
import { type AuditEvent, InvitationRecord, SessionRecord, SsoProvider } from '../../../core/user-records.ts';
import { StoreUnavailableError } from '../errors.ts';
import { runScript, withinDeadline } from '../redis/commands.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS } from '../redis/connection.ts';
import type { UserEntry } from '../transfer/transfer.ts';
import type { LastOwner, SessionTouch, StoredUser, UserImport, UserStorage } from './port.ts';
import {
  APPEND_AUDIT,
  BIND_SSO,
  COUNT_FAILURE,
  CREATE_INVITATION,
  CREATE_SESSION,
  CREATE_USER,
  END_SESSION,
  END_SESSIONS,
  member,
  memberHash,
  memberId,
  REMOVE_USER,
  SET_PASSWORD,
  SET_ROLE_KEEPING_OWNER,
  TOUCH_SESSION,
  UPDATE_USER,
  userKeys,
} from './redis-scripts.ts';
import { auditMember, exportUserEntries, holdsNoUsers, storedUser, userImporter } from './redis-transfer.ts';
import { auditRetentionMs, UserService } from './service.ts';

/** Reads again at most this often when a user's sessions or invitations changed under a script. */
const RETRIES = 5;

/** A Lua HGETALL reply (field, value, field, value …) as a user. */
function replied(flat: string[]): StoredUser {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]!] = flat[i + 1]!;
  return storedUser(out);
}

const storedSession = (r: string, seen: string): SessionRecord => ({ ...SessionRecord.parse(JSON.parse(r)), last_seen_at: seen });

export interface RedisUserStorageOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS; DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  /** The audit retention (auditRetentionMs), null: kept for ever. */
  retentionMs: number | null;
}

export class RedisUserStorage implements UserStorage {
  private readonly commandTimeoutMs: number;
  private readonly retentionMs: number | null;

  /** On the state store's client (backend.ts), which stays open when this storage closes. */
  constructor(
    private readonly client: RedisClientType,
    options: RedisUserStorageOptions,
  ) {
    this.commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.retentionMs = options.retentionMs;
  }

  /**
   * The answer within the command deadline; a deadline missed or a Redis failure is StoreUnavailableError
   * (503: nothing known to have changed, the call may be retried). StateError passes as it is.
   */
  private io<T>(fn: () => Promise<T>): Promise<T> {
    return withinDeadline(this.commandTimeoutMs, fn);
  }

  /** One script call (EVALSHA, the source once per Redis that does not know it yet), within the deadline. */
  private run(script: string, keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.client, this.commandTimeoutMs, script, keys, args);
  }

  /** Gives up (503) once RETRIES reads of a read-then-check script met a change. */
  private static gaveUp(attempt: number, what: string): void {
    if (attempt >= RETRIES) throw new StoreUnavailableError(`${what}; retry`);
  }

  // Users

  async insertUser(u: StoredUser): Promise<'made' | 'email_taken' | 'id_taken'> {
    const made = Number(
      await this.run(
        CREATE_USER,
        [userKeys.user(u.id), userKeys.email(u.email), userKeys.customer(u.customer_id)],
        [u.id, u.customer_id, u.email, u.role, u.password_hash ?? '', u.sso ? '1' : '0', u.created_at],
      ),
    );
    return made === 1 ? 'made' : made === 0 ? 'email_taken' : 'id_taken';
  }

  async user(id: string): Promise<StoredUser | null> {
    const h = await this.io(() => this.client.hGetAll(userKeys.user(id)));
    return h.id ? storedUser(h) : null;
  }

  async userByEmail(email: string): Promise<StoredUser | null> {
    const id = await this.io(() => this.client.get(userKeys.email(email)));
    return id === null ? null : this.user(id);
  }

  async customerUsers(customerId: string): Promise<StoredUser[]> {
    const ids = await this.io(() => this.client.sMembers(userKeys.customer(customerId)));
    if (ids.length === 0) return [];
    const m = this.client.multi();
    for (const id of ids) m.hGetAll(userKeys.user(id));
    const rows = (await this.io(() => m.exec())) as unknown as Record<string, string>[];
    return rows.filter((h) => h?.id && h.customer_id === customerId).map(storedUser);
  }

  /** Sets one field of an existing user: the user after, or null for an unknown user. */
  private async update(id: string, field: string, value: string): Promise<StoredUser | null> {
    const reply = (await this.run(UPDATE_USER, [userKeys.user(id)], [field, value])) as string[] | null;
    return reply === null ? null : replied(reply);
  }

  async setRole(id: string, role: Role, keepAnOwner: boolean): Promise<StoredUser | LastOwner | null> {
    if (!keepAnOwner) return this.update(id, 'role', role);
    for (let attempt = 0; ; attempt++) {
      const user = await this.user(id);
      if (user === null) return null;
      const ids = await this.io(() => this.client.sMembers(userKeys.customer(user.customer_id)));
      const reply = (await this.run(
        SET_ROLE_KEEPING_OWNER,
        [userKeys.user(id), userKeys.customer(user.customer_id), ...ids.map(userKeys.user)],
        [role, user.customer_id, String(ids.length), ...ids],
      )) as string[] | number | null;
      if (reply === null) return null;
      if (reply === 0) return { lastOwner: user.email };
      if (Array.isArray(reply)) return replied(reply);
      RedisUserStorage.gaveUp(attempt, `customer ${user.customer_id}: its users kept changing while a role changed`);
    }
  }

  async setPassword(id: string, passwordHash: string): Promise<StoredUser | null> {
    for (let attempt = 0; ; attempt++) {
      const user = await this.user(id);
      if (user === null) return null;
      const tokens = await this.io(() => this.client.zRange(userKeys.invitations(user.email), 0, -1));
      const reply = (await this.run(
        SET_PASSWORD,
        [userKeys.user(id), userKeys.invitations(user.email), ...tokens.map(userKeys.invitation)],
        [passwordHash, user.customer_id, ...tokens],
      )) as string[] | number | null;
      if (reply === null) return null;
      if (Array.isArray(reply)) return replied(reply);
      RedisUserStorage.gaveUp(attempt, `user ${id}: its invitations kept changing while its password was set`);
    }
  }

  async markSso(id: string): Promise<void> {
    await this.update(id, 'sso', '1');
  }

  async bindSsoSubject(id: string, issuer: string, subject: string): Promise<string | null> {
    return ((await this.run(BIND_SSO, [userKeys.user(id)], [issuer, subject])) as string | null) ?? null;
  }

  async noteLogin(id: string, at: string): Promise<void> {
    await this.update(id, 'last_login_at', at);
  }

  async removeUser(id: string, keepAnOwner: boolean): Promise<boolean | LastOwner> {
    for (let attempt = 0; ; attempt++) {
      const user = await this.user(id);
      if (user === null) return false;
      const [sessions, invitations, ids] = await this.io(() =>
        Promise.all([
          this.client.zRange(userKeys.sessions(id), 0, -1),
          this.client.zRange(userKeys.invitations(user.email), 0, -1),
          keepAnOwner ? this.client.sMembers(userKeys.customer(user.customer_id)) : Promise.resolve(null),
        ]),
      );
      const done = Number(
        await this.run(
          REMOVE_USER,
          [
            userKeys.user(id),
            userKeys.email(user.email),
            userKeys.customer(user.customer_id),
            userKeys.sessions(id),
            userKeys.invitations(user.email),
            ...sessions.map((m) => userKeys.session(memberHash(m))),
            ...invitations.map((h) => userKeys.invitation(h)),
            ...(ids ?? []).map(userKeys.user),
          ],
          [id, user.customer_id, String(sessions.length), String(invitations.length), String(ids?.length ?? -1), ...sessions, ...invitations, ...(ids ?? [])],
        ),
      );
      if (done === -2) return { lastOwner: user.email };
      if (done !== -1) return done === 1;
      RedisUserStorage.gaveUp(attempt, `user ${id}: its sessions kept changing while it was removed`);
    }
  }

  // Invitations

  async createInvitation(tokenHash: string, i: InvitationRecord, nowMs: number): Promise<void> {
    await this.run(
      CREATE_INVITATION,
      [userKeys.invitation(tokenHash), userKeys.invitations(i.email)],
      [JSON.stringify(i), String(Date.parse(i.expires_at)), tokenHash, String(nowMs)],
    );
  }

  async takeInvitation(tokenHash: string): Promise<InvitationRecord | null> {
    // GETDEL: of two nodes taking the same token, one gets it.
    const raw = await this.io(() => this.client.getDel(userKeys.invitation(tokenHash)));
    if (raw === null) return null;
    const invitation = InvitationRecord.parse(JSON.parse(raw));
    // Its entry in the email's index is only a pointer: left behind, it goes with its time.
    await this.io(() => this.client.zRem(userKeys.invitations(invitation.email), tokenHash)).catch(() => {});
    return invitation;
  }

  // Sessions

  async createSession(idHash: string, s: SessionRecord, cap: number): Promise<'made' | 'no_user' | 'other_customer' | 'taken'> {
    // Sessions past their end expire by themselves (PEXPIREAT): nothing to prune at `nowMs`.
    const members = await this.io(() => this.client.zRange(userKeys.sessions(s.user_id), 0, -1));
    const made = Number(
      await this.run(
        CREATE_SESSION,
        [userKeys.user(s.user_id), userKeys.session(idHash), userKeys.sessions(s.user_id), ...members.map((m) => userKeys.session(memberHash(m)))],
        [
          s.customer_id,
          member(s.id, idHash),
          String(Date.parse(s.created_at)),
          JSON.stringify(s),
          s.last_seen_at,
          String(Date.parse(s.last_seen_at)),
          String(Date.parse(s.expires_at)),
          String(cap),
          ...members,
        ],
      ),
    );
    return made === 1 ? 'made' : made === 0 ? 'no_user' : made === -2 ? 'other_customer' : 'taken';
  }

  async session(idHash: string): Promise<SessionRecord | null> {
    const [r, seen] = await this.io(() => this.client.hmGet(userKeys.session(idHash), ['r', 'seen']));
    return r && seen ? storedSession(r, seen) : null;
  }

  async touchSession(idHash: string, { at, nowMs, idleMs, touchEveryMs }: SessionTouch): Promise<SessionRecord | null> {
    const reply = (await this.run(TOUCH_SESSION, [userKeys.session(idHash)], [String(nowMs), String(idleMs), String(touchEveryMs), at])) as
      | [string, string]
      | null;
    return reply === null ? null : storedSession(reply[0], reply[1]);
  }

  async userSessions(userId: string): Promise<SessionRecord[]> {
    const members = await this.io(() => this.client.zRange(userKeys.sessions(userId), 0, -1));
    if (members.length === 0) return [];
    const m = this.client.multi();
    for (const mb of members) m.hmGet(userKeys.session(memberHash(mb)), ['r', 'seen']);
    const rows = (await this.io(() => m.exec())) as unknown as (string | null)[][];
    const gone = members.filter((_, i) => !rows[i]?.[0]);
    // A member is never reused (the public id is new): dropping one whose session is gone races with nothing.
    if (gone.length > 0) await this.io(() => this.client.zRem(userKeys.sessions(userId), gone)).catch(() => {});
    return rows.flatMap(([r, seen] = []) => (r ? [storedSession(r, seen!)] : []));
  }

  async endSession(userId: string, sessionId: string): Promise<boolean> {
    const members = await this.io(() => this.client.zRange(userKeys.sessions(userId), 0, -1));
    const mb = members.find((m) => memberId(m) === sessionId);
    if (mb === undefined) return false;
    return Number(await this.run(END_SESSION, [userKeys.sessions(userId), userKeys.session(memberHash(mb))], [mb])) === 1;
  }

  async endSessionByHash(idHash: string): Promise<void> {
    const raw = await this.io(() => this.client.hGet(userKeys.session(idHash), 'r'));
    if (raw === null) return;
    const s = SessionRecord.parse(JSON.parse(raw));
    const ended = Number(await this.run(END_SESSION, [userKeys.sessions(s.user_id), userKeys.session(idHash)], [member(s.id, idHash)]));
    // Its member was not in the index (the user removed meanwhile): the session goes all the same.
    if (ended === 0) await this.io(() => this.client.del(userKeys.session(idHash)));
  }

  async endSessions(userId: string, keepSessionId: string | undefined): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const members = await this.io(() => this.client.zRange(userKeys.sessions(userId), 0, -1));
      if (members.length === 0) return 0;
      const keys = [userKeys.sessions(userId), ...members.map((m) => userKeys.session(memberHash(m)))];
      const ended = Number(await this.run(END_SESSIONS, keys, [keepSessionId ?? '', ...members]));
      if (ended !== -1) return ended;
      RedisUserStorage.gaveUp(attempt, `user ${userId}: sessions kept coming while they were ended`);
    }
  }

  // Single sign-on

  async ssoProvider(customerId: string): Promise<SsoProvider | null> {
    const raw = await this.io(() => this.client.get(userKeys.sso(customerId)));
    return raw === null ? null : SsoProvider.parse(JSON.parse(raw));
  }

  async setSsoProvider(p: SsoProvider): Promise<void> {
    await this.io(() => this.client.set(userKeys.sso(p.customer_id), JSON.stringify(p)));
  }

  async removeSsoProvider(customerId: string): Promise<boolean> {
    return (await this.io(() => this.client.del(userKeys.sso(customerId)))) > 0;
  }

  // Audit log: the retention is kept by the appends (APPEND_AUDIT), by Redis's clock.

  async appendAudit(e: AuditEvent): Promise<void> {
    const keys = [userKeys.audit(e.customer_id), userKeys.auditSeq(e.customer_id)];
    await this.run(APPEND_AUDIT, keys, [String(Date.parse(e.at)), JSON.stringify(e), String(this.retentionMs ?? 0)]);
  }

  async listAudit(customerId: string, from: string, to: string, limit: number): Promise<AuditEvent[]> {
    const range = { BY: 'SCORE', LIMIT: { offset: 0, count: limit } } as const;
    const raw = await this.io(() => this.client.zRange(userKeys.audit(customerId), Date.parse(from), `(${Date.parse(to)}`, range));
    return raw.map(auditMember);
  }

  /** Nothing runs in the background here. */
  async auditRetained(): Promise<void> {}

  // Export and import (redis-transfer.ts)

  exportEntries(): AsyncIterable<UserEntry> {
    return exportUserEntries(this.client, (fn) => this.io(fn));
  }

  isEmpty(): Promise<boolean> {
    return holdsNoUsers(this.client);
  }

  importer(): UserImport {
    return userImporter(this.client);
  }

  // Failure counts (failed sign-ins): one hash per key, n and ends (epoch ms), expiring at its window's end.

  async countFailure(key: string, nowMs: number, endsMs: number): Promise<void> {
    await this.run(COUNT_FAILURE, [userKeys.failures(key)], [String(nowMs), String(endsMs)]);
  }

  async failures(key: string): Promise<{ failures: number; endsMs: number } | null> {
    const [n, ends] = await this.io(() => this.client.hmGet(userKeys.failures(key), ['n', 'ends']));
    return n && ends ? { failures: Number(n), endsMs: Number(ends) } : null;
  }

  /** Lets go of the state store's client (it stays open: the state store closes it). */
  async close(): Promise<void> {}
}

export interface RedisUserStoreOptions {
  /** How long a command may go unanswered (SVC_REDIS_TIMEOUT_MS; DEFAULT_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  /** Days of audit events kept (a server passes SVC_AUDIT_RETENTION_DAYS); unset: kept for ever. */
  auditRetentionDays?: number;
}

/** The user store on Redis: the rules (service.ts) over this storage. */
export class RedisUserStore extends UserService {
  /** On the state store's client (backend.ts), which stays open when this store closes. */
  constructor(client: RedisClientType, options: RedisUserStoreOptions = {}) {
    const retentionMs = auditRetentionMs(options.auditRetentionDays);
    super(new RedisUserStorage(client, { commandTimeoutMs: options.commandTimeoutMs, retentionMs }), retentionMs);
  }
}
