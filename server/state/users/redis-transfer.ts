/**
 * The user store's export and import on Redis (redis.ts): users, SSO providers and the audit log, found by
 * SCAN (never sessions or invitations); an import writes a MULTI per hash tag and batch.
 */
import type { RedisClientType } from '@redis/client';
import { Role } from '../../../core/roles.ts';
import type { AuditEvent } from '../../../core/user-records.ts';
import { scanKeys } from '../redis/connection.ts';
import type { UserEntry } from '../transfer/transfer.ts';
import type { StoredUser, UserImport } from './port.ts';
import { AUDIT_KEY, AUDIT_KEYS, SEQ_DIGITS, SSO_KEY, SSO_KEYS, USER_KEYS, userKeys } from './redis-scripts.ts';
import { userRecord } from './service.ts';

/** Audit events an export reads per ZRANGE. */
const EXPORT_PAGE = 500;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function storedUser(h: Record<string, string>): StoredUser {
  return {
    id: h.id!,
    customer_id: h.customer_id!,
    email: h.email!,
    role: Role.parse(h.role),
    password_hash: h.password_hash ? h.password_hash : null,
    sso: h.sso === '1',
    created_at: h.created_at!,
    last_login_at: h.last_login_at ? h.last_login_at : null,
  };
}

export const auditMember = (raw: string): AuditEvent => JSON.parse(raw.slice(SEQ_DIGITS)) as AuditEvent;

/** Keys matching `pattern`, a SCAN page at a time, sorted within it (a key may come twice while Redis resizes). */
async function* scan(client: RedisClientType, pattern: string): AsyncIterable<string[]> {
  for await (const batch of scanKeys(client, pattern)) yield [...batch].sort(byText);
}

/** Every user, SSO provider and audit event stored, as found (`io`: the storage's command deadline). */
export async function* exportUserEntries(client: RedisClientType, io: <T>(fn: () => Promise<T>) => Promise<T>): AsyncIterable<UserEntry> {
  for await (const batch of scan(client, USER_KEYS)) {
    if (batch.length === 0) continue;
    const m = client.multi();
    for (const key of batch) m.hGetAll(key);
    const rows = (await io(() => m.exec())) as unknown as Record<string, string>[];
    for (const h of rows) {
      if (!h?.id) continue;
      const user = storedUser(h);
      yield { type: 'user', record: userRecord(user), password_hash: user.password_hash };
    }
  }
  for await (const batch of scan(client, SSO_KEYS)) {
    for (const key of batch) {
      if (!SSO_KEY.test(key)) continue;
      const raw = await io(() => client.get(key));
      if (raw !== null) yield { type: 'sso_provider', provider: JSON.parse(raw) };
    }
  }
  for await (const batch of scan(client, AUDIT_KEYS)) {
    for (const key of batch) {
      if (!AUDIT_KEY.test(key)) continue;
      for (let offset = 0; ; offset += EXPORT_PAGE) {
        const page = await io(() => client.zRange(key, offset, offset + EXPORT_PAGE - 1));
        for (const raw of page) yield { type: 'audit_event', event: auditMember(raw) };
        if (page.length < EXPORT_PAGE) break;
      }
    }
  }
}

export async function holdsNoUsers(client: RedisClientType): Promise<boolean> {
  for (const [pattern, match] of [
    [USER_KEYS, null],
    [SSO_KEYS, SSO_KEY],
    [AUDIT_KEYS, AUDIT_KEY],
  ] as const) {
    for await (const batch of scan(client, pattern)) if (batch.some((k) => match === null || match.test(k))) return false;
  }
  return true;
}

/** An import into an empty store: a MULTI per hash tag and batch, then each customer's audit counter. */
export function userImporter(client: RedisClientType): UserImport {
  /** Each customer's audit counter: the file lists its events oldest first, numbered in its order they list back in it. */
  const seq = new Map<string, number>();
  const write = async (batch: UserEntry[]) => {
    // One MULTI per hash tag: in Redis Cluster a transaction's keys share a slot.
    const multis = new Map<string, ReturnType<RedisClientType['multi']>>();
    const multi = (tag: string) => {
      let m = multis.get(tag);
      if (m === undefined) multis.set(tag, (m = client.multi()));
      return m;
    };
    for (const e of batch) {
      if (e.type === 'user') {
        const r = e.record;
        const fields = { id: r.id, customer_id: r.customer_id, email: r.email, role: r.role, password_hash: e.password_hash ?? '' };
        const more = { sso: r.sso ? '1' : '0', created_at: r.created_at, last_login_at: r.last_login_at ?? '' };
        multi('users')
          .hSet(userKeys.user(r.id), new Map(Object.entries({ ...fields, ...more })))
          .set(userKeys.email(r.email), r.id)
          .sAdd(userKeys.customer(r.customer_id), r.id);
      } else if (e.type === 'sso_provider') {
        multi(e.provider.customer_id).set(userKeys.sso(e.provider.customer_id), JSON.stringify(e.provider));
      } else {
        const ev = e.event;
        const next = (seq.get(ev.customer_id) ?? 0) + 1;
        seq.set(ev.customer_id, next);
        const value = next.toString(16).padStart(SEQ_DIGITS, '0') + JSON.stringify(ev);
        multi(ev.customer_id).zAdd(userKeys.audit(ev.customer_id), { score: Date.parse(ev.at), value });
      }
    }
    // No deadline for the whole batch: a big import is many commands, each answered in its turn.
    for (const m of multis.values()) await m.exec();
  };
  const finish = async () => {
    for (const [customer, last] of seq) await client.set(userKeys.auditSeq(customer), String(last));
  };
  return { write, finish };
}
