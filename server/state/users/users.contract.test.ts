/**
 * One contract, both backends: the user store on a real SQLite state file (the state store's connection,
 * as a server opens it) and on a real redis-server (the state store's client). Times are relative to the
 * clock: Redis expires sessions and invitations by its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { InvitationRecord, SessionRecord, SsoProvider } from '../../../core/user-records.ts';
import { type RedisCluster, startRedisCluster } from '../../testing/redis-cluster.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import { openUserStore, sharedRedis, sharedSqlite } from '../../testing/state-connection.ts';
import { StateError, StoreUnavailableError } from '../errors.ts';
import { RedisStateStore } from '../redis/store.ts';
import { SqliteStateStore } from '../sqlite/store.ts';
import type { StateStore } from '../store.ts';
import type { UserEntry } from '../transfer/transfer.ts';
import { RedisUserStore } from './redis.ts';
import { userKeys } from './redis-scripts.ts';
import { newId } from './service.ts';
import { SqliteUserStore } from './sqlite.ts';
import { SESSION_IDLE_MS, SESSION_TOUCH_INTERVAL_MS, SESSIONS_PER_USER, type UserStore } from './store.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();
/** An audit event of `action` at `at` (epoch ms), by the operator, with nothing before or after. */
const event = (at: number, action: string, customer_id = 'acme') => ({
  customer_id,
  at: iso(at),
  actor: 'operator',
  ip: null,
  action,
  target: null,
  before: null,
  after: null,
});

interface Opened {
  state: StateStore;
  users: UserStore;
}

interface Backend {
  name: 'sqlite' | 'redis' | 'redis-cluster';
  /** A state store and its user store, on empty state (on Redis: database `db`, so two can be open at once). */
  open(db?: number): Promise<Opened>;
  close(): Promise<void>;
}

let redis: RedisServer;
let cluster: RedisCluster;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-users-'));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
}, 30_000);
afterAll(async () => {
  await Promise.all([redis?.close(), cluster?.close()]);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function flushRedis(url: string): Promise<void> {
  const admin = createClient({ url });
  await admin.connect();
  await admin.flushDb();
  await admin.close();
}

const BACKENDS: Backend['name'][] = ['sqlite', 'redis', 'redis-cluster'];

/** Opens one backend on fresh state; `close` closes what it opened. */
function backend(name: Backend['name']): Backend {
  const opened: Opened[] = [];
  return {
    name,
    async open(db = 0) {
      let state: StateStore;
      if (name === 'sqlite') state = new SqliteStateStore(join(tempDir(), 'svc.db'), { log: () => {} });
      else if (name === 'redis-cluster') {
        // A cluster has one database: another `db` empties it (stores opened before see it emptied).
        await cluster.flush();
        state = await RedisStateStore.open({ url: cluster.url, cluster: true, journalDir: tempDir(), outageAllowance: 10, log: () => {} });
      } else {
        const url = `${redis.url}/${db}`;
        await flushRedis(url);
        state = await RedisStateStore.open({ url, journalDir: tempDir(), outageAllowance: 10, log: () => {} });
      }
      const users = await openUserStore(state);
      opened.push({ state, users });
      return { state, users };
    },
    async close() {
      for (const { state, users } of opened.splice(0)) {
        await users.close();
        await state.close();
      }
    },
  };
}

const provider = (over: Partial<SsoProvider> = {}): SsoProvider => ({
  customer_id: 'acme',
  issuer: 'https://login.acme.test',
  client_id: 'svc-console',
  client_secret: 'very-secret',
  allowed_domains: ['acme.test'],
  default_role: 'viewer',
  display_name: 'Acme SSO',
  ...over,
});

describe.each(BACKENDS)('user store contract: %s', (name) => {
  const fx = backend(name);
  let users: UserStore;
  let state: StateStore;
  beforeEach(async () => {
    ({ users, state } = await fx.open());
  });
  afterEach(async () => {
    await fx.close();
  });

  const now = Date.now();
  const newUser = (email: string, over: Partial<Parameters<UserStore['createUser']>[0]> = {}) =>
    users.createUser({ customer_id: 'acme', email, role: 'viewer', password_hash: 'scrypt$hash', sso: false, ...over });
  const session = (user: { id: string; customer_id: string }, over: Partial<SessionRecord> = {}): SessionRecord => ({
    id: newId('ses_'),
    user_id: user.id,
    customer_id: user.customer_id,
    created_at: iso(now),
    last_seen_at: iso(now),
    expires_at: iso(now + 7 * DAY),
    ip: '203.0.113.7',
    user_agent: 'test',
    method: 'password',
    ...over,
  });
  const invitation = (over: Partial<InvitationRecord> = {}): InvitationRecord => ({
    customer_id: 'acme',
    email: 'new@acme.test',
    role: 'marketer',
    purpose: 'invite',
    created_at: iso(now),
    expires_at: iso(now + DAY),
    created_by: 'operator',
    ...over,
  });

  it('opens on the state store’s own connection', async () => {
    if (name === 'sqlite') expect(users).toBeInstanceOf(SqliteUserStore);
    else expect(users).toBeInstanceOf(RedisUserStore);
  });

  it('creates, finds, lists, changes and removes users', async () => {
    const ann = await newUser(' Ann@Acme.test ', { role: 'owner' });
    expect(ann).toEqual({
      id: expect.stringMatching(/^usr_[0-9a-f]{16}$/),
      customer_id: 'acme',
      email: 'ann@acme.test',
      role: 'owner',
      password_set: true,
      sso: false,
      created_at: expect.any(String),
      last_login_at: null,
    });
    expect(Math.abs(Date.parse(ann.created_at) - Date.now())).toBeLessThan(60_000);
    const bob = await newUser('bob@acme.test', { password_hash: null, sso: true });
    expect(bob).toMatchObject({ password_set: false, sso: true });
    await newUser('carl@other.test', { customer_id: 'other' });

    expect(await users.getUser(ann.id)).toEqual(ann);
    expect(await users.getUser('usr_0000000000000000')).toBeNull();
    expect(await users.findUserByEmail('ANN@acme.test')).toEqual({ ...ann, password_hash: 'scrypt$hash' });
    expect(await users.findUserByEmail('bob@acme.test')).toEqual({ ...bob, password_hash: null });
    expect(await users.findUserByEmail('nobody@acme.test')).toBeNull();
    expect((await users.listUsers('acme')).map((u) => u.email)).toEqual(['ann@acme.test', 'bob@acme.test']);
    expect((await users.listUsers('other')).map((u) => u.email)).toEqual(['carl@other.test']);
    expect(await users.listUsers('nobody')).toEqual([]);

    expect(await users.setRole(bob.id, 'admin')).toEqual({ ...bob, role: 'admin' });
    expect(await users.setPassword(bob.id, 'scrypt$new')).toEqual({ ...bob, role: 'admin', password_set: true });
    expect((await users.findUserByEmail('bob@acme.test'))?.password_hash).toBe('scrypt$new');
    await users.markSso(ann.id);
    const login = iso(now + 5_000);
    await users.noteLogin(ann.id, login);
    expect(await users.getUser(ann.id)).toEqual({ ...ann, sso: true, last_login_at: login });
    await expect(users.setRole('usr_0000000000000000', 'admin')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(users.setPassword('usr_0000000000000000', 'x')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(users.setRole(bob.id, 'root' as never)).rejects.toThrow();
    // A login or SSO mark of a user removed meanwhile changes nothing.
    await users.markSso('usr_0000000000000000');
    await users.noteLogin('usr_0000000000000000', login);

    expect(await users.removeUser(bob.id)).toBe(true);
    expect(await users.removeUser(bob.id)).toBe(false);
    expect(await users.getUser(bob.id)).toBeNull();
    expect(await users.findUserByEmail('bob@acme.test')).toBeNull();
    expect((await users.listUsers('acme')).map((u) => u.email)).toEqual(['ann@acme.test']);
  });

  it('one email is one person: a second account for it is a conflict, whatever its case or customer', async () => {
    await newUser('ann@acme.test');
    for (const email of ['ann@acme.test', 'ANN@ACME.TEST', '  Ann@acme.test']) {
      const e = await newUser(email).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(StateError);
      expect((e as StateError).kind).toBe('conflict');
    }
    await expect(newUser('ann@acme.test', { customer_id: 'other' })).rejects.toMatchObject({ kind: 'conflict' });
    expect((await users.listUsers('other')).length).toBe(0);
    expect((await users.listUsers('acme')).length).toBe(1);
  });

  it('refuses what is not a user: a bad email, customer or role', async () => {
    await expect(newUser('not-an-email')).rejects.toMatchObject({ kind: 'invalid' });
    await expect(newUser('a@b.test', { customer_id: '../x' })).rejects.toMatchObject({ kind: 'invalid' });
    await expect(newUser('a@b.test', { role: 'root' as never })).rejects.toMatchObject({ kind: 'invalid' });
    expect(await users.listUsers('acme')).toEqual([]);
  });

  it('removing a user ends its sessions and its invitations (of its customer), and frees its email', async () => {
    const ann = await newUser('ann@acme.test');
    const s1 = session(ann);
    const s2 = session(ann);
    await users.createSession('hash-1', s1);
    await users.createSession('hash-2', s2);
    await users.createInvitation('reset-ann', invitation({ email: 'ann@acme.test', purpose: 'reset' }));
    await users.createInvitation('invite-elsewhere', invitation({ email: 'ann@acme.test', customer_id: 'other' }));

    expect(await users.removeUser(ann.id)).toBe(true);
    expect(await users.touchSession('hash-1', iso(now), SESSION_IDLE_MS)).toBeNull();
    expect(await users.touchSession('hash-2', iso(now), SESSION_IDLE_MS)).toBeNull();
    expect(await users.listSessions(ann.id, iso(now), SESSION_IDLE_MS)).toEqual([]);
    expect(await users.consumeInvitation('reset-ann', iso(now))).toBeNull();
    // Another customer's invitation to the same email is that customer's business.
    expect(await users.consumeInvitation('invite-elsewhere', iso(now))).toMatchObject({ customer_id: 'other', email: 'ann@acme.test' });

    const again = await newUser('ann@acme.test');
    expect(again.id).not.toBe(ann.id);
    expect(await users.listSessions(again.id)).toEqual([]);
  });

  /** Another node's (another process's) user store on this state: on SQLite a connection of its own to the file. */
  const otherNode = async (): Promise<UserStore> =>
    name === 'sqlite' ? new SqliteUserStore(sharedSqlite(state)!.file) : new RedisUserStore((await sharedRedis(state))!);

  it('keepAnOwner refuses to demote or remove the last owner (409 conflict), and allows it while another owner is left', async () => {
    const ann = await newUser('ann@acme.test', { role: 'owner' });
    const viewer = await newUser('vic@acme.test');
    await newUser('olga@other.test', { customer_id: 'other', role: 'owner' });
    const keep = { keepAnOwner: true };
    for (const change of [() => users.setRole(ann.id, 'admin', keep), () => users.removeUser(ann.id, keep)]) {
      const e = await change().catch((err: unknown) => err);
      expect(e).toBeInstanceOf(StateError);
      expect(e).toMatchObject({ kind: 'conflict', message: "ann@acme.test is the customer's last owner: make someone else owner first" });
    }
    expect(await users.getUser(ann.id)).toEqual(ann);
    // Staying owner, and changing or removing someone else, are no business of the check.
    expect(await users.setRole(ann.id, 'owner', keep)).toEqual(ann);
    expect(await users.setRole(viewer.id, 'marketer', keep)).toEqual({ ...viewer, role: 'marketer' });
    await expect(users.setRole('usr_0000000000000000', 'admin', keep)).rejects.toMatchObject({ kind: 'not_found' });
    expect(await users.removeUser('usr_0000000000000000', keep)).toBe(false);
    // With a second owner, the first may go.
    await users.setRole(viewer.id, 'owner', keep);
    expect(await users.setRole(ann.id, 'admin', keep)).toEqual({ ...ann, role: 'admin' });
    expect(await users.removeUser(ann.id, keep)).toBe(true);
    await expect(users.removeUser(viewer.id, keep)).rejects.toMatchObject({ kind: 'conflict' });
    expect((await users.listUsers('acme')).map((u) => [u.email, u.role])).toEqual([['vic@acme.test', 'owner']]);
  });

  it('two owners removing or demoting each other at once, on two nodes, never leave the customer without an owner', async () => {
    const other = await otherNode();
    try {
      const keep = { keepAnOwner: true };
      const change = (store: UserStore, how: 'remove' | 'demote', id: string) =>
        how === 'remove' ? store.removeUser(id, keep) : store.setRole(id, 'viewer', keep);
      const pairs = [
        ['remove', 'remove'],
        ['demote', 'demote'],
        ['remove', 'demote'],
        ['demote', 'remove'],
      ] as const;
      for (let round = 0; round < 3; round++) {
        for (const [i, [first, second]] of pairs.entries()) {
          const customer = `c-${round}-${i}`;
          const ann = await newUser(`ann-${customer}@acme.test`, { customer_id: customer, role: 'owner' });
          const bob = await newUser(`bob-${customer}@acme.test`, { customer_id: customer, role: 'owner' });
          const results = await Promise.allSettled([change(users, first, bob.id), change(other, second, ann.id)]);
          // Whichever came second met the other's change: refused, whatever the order.
          expect(
            results.filter((r) => r.status === 'fulfilled'),
            `${customer}: ${first}/${second}`,
          ).toHaveLength(1);
          expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { kind: 'conflict' } });
          expect((await users.listUsers(customer)).filter((u) => u.role === 'owner')).toHaveLength(1);
        }
      }
    } finally {
      await other.close();
    }
  });

  it('a new password ends every outstanding reset link of the user (its customer’s), so an older link cannot set it again', async () => {
    const ann = await newUser('ann@acme.test');
    await users.createInvitation('reset-older', invitation({ email: 'ann@acme.test', purpose: 'reset' }));
    await users.createInvitation('reset-newer', invitation({ email: 'ann@acme.test', purpose: 'reset' }));
    await users.createInvitation('invite-elsewhere', invitation({ email: 'ann@acme.test', customer_id: 'other' }));
    await users.createInvitation('reset-bob', invitation({ email: 'bob@acme.test', purpose: 'reset' }));
    // The newer link is used (taken, then the password set): the older one is over with it.
    expect(await users.consumeInvitation('reset-newer', iso(now))).toMatchObject({ purpose: 'reset' });
    await users.setPassword(ann.id, 'scrypt$newer');
    expect(await users.consumeInvitation('reset-older', iso(now))).toBeNull();
    // Another customer's invitation to the email, and another person's link, are not the user's links.
    expect(await users.consumeInvitation('invite-elsewhere', iso(now))).toMatchObject({ customer_id: 'other' });
    expect(await users.consumeInvitation('reset-bob', iso(now))).toMatchObject({ email: 'bob@acme.test' });

    // Set otherwise (a signed-in change, an operator's tool): the same, and a link made after still works.
    await users.createInvitation('reset-before', invitation({ email: 'ann@acme.test', purpose: 'reset' }));
    await users.setPassword(ann.id, 'scrypt$changed');
    await users.createInvitation('reset-after', invitation({ email: 'ann@acme.test', purpose: 'reset' }));
    expect(await users.consumeInvitation('reset-before', iso(now))).toBeNull();
    expect(await users.consumeInvitation('reset-after', iso(now))).toMatchObject({ email: 'ann@acme.test' });
    expect((await users.findUserByEmail('ann@acme.test'))?.password_hash).toBe('scrypt$changed');
  });

  it('counts failures per key in a window opened by the first, one count for two nodes on one state', async () => {
    const other = await otherNode();
    try {
      const t = Date.now();
      const W = 15 * 60_000;
      expect(await users.failuresOf('login-address:2001:db8:1:2::/64', t)).toBeNull();
      await users.countFailure('login-address:2001:db8:1:2::/64', t, W);
      await other.countFailure('login-address:2001:db8:1:2::/64', t + 1_000, W);
      await Promise.all([
        users.countFailure('login-address:2001:db8:1:2::/64', t + 2_000, W),
        other.countFailure('login-address:2001:db8:1:2::/64', t + 2_000, W),
      ]);
      const counted = { failures: 4, endsMs: t + W };
      expect(await users.failuresOf('login-address:2001:db8:1:2::/64', t + 2_000)).toEqual(counted);
      expect(await other.failuresOf('login-address:2001:db8:1:2::/64', t + 2_000)).toEqual(counted);
      expect(await users.failuresOf('login-account:ann@acme.test', t)).toBeNull();
      // At its end the window is over; the next failure opens a new one.
      expect(await users.failuresOf('login-address:2001:db8:1:2::/64', t + W)).toBeNull();
      await other.countFailure('login-address:2001:db8:1:2::/64', t + W, W);
      expect(await users.failuresOf('login-address:2001:db8:1:2::/64', t + W)).toEqual({ failures: 1, endsMs: t + 2 * W });
    } finally {
      await other.close();
    }
  });

  it('an invitation is taken once; an unknown or expired one is null, and an expired one is gone', async () => {
    const i = invitation({ email: ' New@Acme.test ' });
    await users.createInvitation('token-1', i);
    const taken = await users.consumeInvitation('token-1', iso(now + HOUR));
    expect(taken).toEqual({ ...i, email: 'new@acme.test' });
    expect(await users.consumeInvitation('token-1', iso(now + HOUR))).toBeNull();
    expect(await users.consumeInvitation('unknown', iso(now))).toBeNull();

    await users.createInvitation('token-2', invitation());
    expect(await users.consumeInvitation('token-2', iso(now + DAY))).toBeNull(); // at its end: over
    expect(await users.consumeInvitation('token-2', iso(now))).toBeNull(); // and gone

    // Already over when made (a clock behind): never taken.
    await users.createInvitation('token-3', invitation({ expires_at: iso(now - 1_000) }));
    expect(await users.consumeInvitation('token-3', iso(now))).toBeNull();

    // Two takers at once: one gets it.
    await users.createInvitation('token-4', invitation());
    const both = await Promise.all([users.consumeInvitation('token-4', iso(now)), users.consumeInvitation('token-4', iso(now))]);
    expect(both.filter((x) => x !== null)).toHaveLength(1);

    await expect(users.createInvitation('token-5', invitation({ email: 'nope' }))).rejects.toMatchObject({ kind: 'invalid' });
    await expect(users.createInvitation('token-5', invitation({ expires_at: 'soon' }))).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('a session lives while it is used: touched at most once a minute, over after 12 h idle or at its absolute end', async () => {
    const ann = await newUser('ann@acme.test');
    const s = session(ann);
    await users.createSession('hash-a', s);
    expect(await users.touchSession('hash-a', iso(now), SESSION_IDLE_MS)).toEqual(s);
    // Within a minute of the last write: the same record, nothing written.
    expect(await users.touchSession('hash-a', iso(now + SESSION_TOUCH_INTERVAL_MS - 1), SESSION_IDLE_MS)).toEqual(s);
    const later = iso(now + SESSION_TOUCH_INTERVAL_MS);
    expect(await users.touchSession('hash-a', later, SESSION_IDLE_MS)).toEqual({ ...s, last_seen_at: later });
    // A node whose clock is behind never moves it back.
    expect((await users.touchSession('hash-a', iso(now + 1_000), SESSION_IDLE_MS))?.last_seen_at).toBe(later);
    // Used every 11 h: alive (idle counts from the last touch).
    const t11 = now + SESSION_TOUCH_INTERVAL_MS + 11 * HOUR;
    expect((await users.touchSession('hash-a', iso(t11), SESSION_IDLE_MS))?.last_seen_at).toBe(iso(t11));
    // 12 h and a moment idle: over, and gone.
    expect(await users.touchSession('hash-a', iso(t11 + SESSION_IDLE_MS + 1), SESSION_IDLE_MS)).toBeNull();
    expect(await users.touchSession('hash-a', iso(t11), SESSION_IDLE_MS)).toBeNull();
    expect(await users.listSessions(ann.id, iso(t11), SESSION_IDLE_MS)).toEqual([]);

    // The absolute end, however active.
    const short = session(ann, { expires_at: iso(now + 2 * HOUR) });
    await users.createSession('hash-b', short);
    expect(await users.touchSession('hash-b', iso(now + HOUR), SESSION_IDLE_MS)).not.toBeNull();
    expect(await users.touchSession('hash-b', iso(now + 2 * HOUR), SESSION_IDLE_MS)).toBeNull();
    expect(await users.touchSession('hash-b', iso(now + HOUR), SESSION_IDLE_MS)).toBeNull();

    expect(await users.touchSession('unknown', iso(now), SESSION_IDLE_MS)).toBeNull();
  });

  it('a session is for a known user of its customer, under a new id hash and public id', async () => {
    const ann = await newUser('ann@acme.test');
    await expect(users.createSession('h', session({ id: 'usr_0000000000000000', customer_id: 'acme' }))).rejects.toMatchObject({ kind: 'not_found' });
    await expect(users.createSession('h', session({ ...ann, customer_id: 'other' }))).rejects.toMatchObject({ kind: 'invalid' });
    await expect(users.createSession('h', session(ann, { id: 'ses_a|b' }))).rejects.toMatchObject({ kind: 'invalid' });
    await expect(users.createSession('h', session(ann, { expires_at: 'later' }))).rejects.toMatchObject({ kind: 'invalid' });
    const s = session(ann);
    await users.createSession('h', s);
    await expect(users.createSession('h', session(ann))).rejects.toMatchObject({ kind: 'conflict' });
    await expect(users.createSession('h2', session(ann, { id: s.id }))).rejects.toMatchObject({ kind: 'conflict' });
    expect(await users.listSessions(ann.id)).toEqual([s]);
  });

  it('ends sessions: one by public id (the user’s own only), by hash, all but the current one; lists live ones newest first', async () => {
    const ann = await newUser('ann@acme.test');
    const bob = await newUser('bob@acme.test');
    const s = [0, 1, 2, 3].map((i) => session(ann, { created_at: iso(now + i), last_seen_at: iso(now + i) }));
    for (const [i, x] of s.entries()) await users.createSession(`ann-${i}`, x);
    const b = session(bob);
    await users.createSession('bob-0', b);
    expect((await users.listSessions(ann.id, iso(now + 10), SESSION_IDLE_MS)).map((x) => x.id)).toEqual([s[3]!.id, s[2]!.id, s[1]!.id, s[0]!.id]);
    // Idle ones are not listed (still there until touched or ended).
    expect(await users.listSessions(ann.id, iso(now + SESSION_IDLE_MS + 10), SESSION_IDLE_MS)).toEqual([]);

    // Bob cannot end Ann's session by its public id, nor Ann Bob's.
    expect(await users.endSession(bob.id, s[0]!.id)).toBe(false);
    expect(await users.endSession(ann.id, b.id)).toBe(false);
    expect(await users.touchSession('ann-0', iso(now), SESSION_IDLE_MS)).not.toBeNull();
    expect(await users.endSession(ann.id, s[0]!.id)).toBe(true);
    expect(await users.endSession(ann.id, s[0]!.id)).toBe(false);
    expect(await users.touchSession('ann-0', iso(now), SESSION_IDLE_MS)).toBeNull();

    await users.endSessionByHash('ann-1');
    await users.endSessionByHash('ann-1');
    expect(await users.touchSession('ann-1', iso(now), SESSION_IDLE_MS)).toBeNull();

    // A password change: every other session ends, the current one stays; Bob's are his.
    await users.createSession('ann-4', session(ann));
    expect(await users.endSessions(ann.id, s[3]!.id)).toBe(2);
    expect((await users.listSessions(ann.id, iso(now), SESSION_IDLE_MS)).map((x) => x.id)).toEqual([s[3]!.id]);
    expect(await users.touchSession('ann-3', iso(now), SESSION_IDLE_MS)).not.toBeNull();
    expect(await users.touchSession('bob-0', iso(now), SESSION_IDLE_MS)).not.toBeNull();
    // A role change: all of them.
    expect(await users.endSessions(ann.id)).toBe(1);
    expect(await users.touchSession('ann-3', iso(now), SESSION_IDLE_MS)).toBeNull();
    expect(await users.endSessions(ann.id)).toBe(0);
    expect(await users.listSessions(bob.id, iso(now), SESSION_IDLE_MS)).toEqual([b]);
  });

  it(`a user holds at most ${SESSIONS_PER_USER} sessions: a new one ends the oldest`, async () => {
    const ann = await newUser('ann@acme.test');
    for (let i = 0; i < SESSIONS_PER_USER + 2; i++) await users.createSession(`h-${i}`, session(ann, { created_at: iso(now + i), last_seen_at: iso(now + i) }));
    expect(await users.listSessions(ann.id, iso(now + 100), SESSION_IDLE_MS)).toHaveLength(SESSIONS_PER_USER);
    expect(await users.touchSession('h-0', iso(now + 100), SESSION_IDLE_MS)).toBeNull();
    expect(await users.touchSession('h-1', iso(now + 100), SESSION_IDLE_MS)).toBeNull();
    expect(await users.touchSession('h-2', iso(now + 100), SESSION_IDLE_MS)).not.toBeNull();
    expect(await users.touchSession(`h-${SESSIONS_PER_USER + 1}`, iso(now + 100), SESSION_IDLE_MS)).not.toBeNull();
  });

  it('keeps one SSO provider per customer: set, replaced, read, removed', async () => {
    expect(await users.getSsoProvider('acme')).toBeNull();
    await users.setSsoProvider(provider({ allowed_domains: [' Acme.TEST '] }));
    expect(await users.getSsoProvider('acme')).toEqual(provider());
    await users.setSsoProvider(provider({ client_secret: 'rotated', display_name: 'Okta' }));
    await users.setSsoProvider(provider({ customer_id: 'other', allowed_domains: ['other.test'] }));
    expect(await users.getSsoProvider('acme')).toEqual(provider({ client_secret: 'rotated', display_name: 'Okta' }));
    expect(await users.getSsoProvider('other')).toMatchObject({ customer_id: 'other' });
    await expect(users.setSsoProvider(provider({ issuer: 'not a url' }))).rejects.toMatchObject({ kind: 'invalid' });
    await expect(users.setSsoProvider(provider({ allowed_domains: [] }))).rejects.toMatchObject({ kind: 'invalid' });
    expect(await users.removeSsoProvider('acme')).toBe(true);
    expect(await users.removeSsoProvider('acme')).toBe(false);
    expect(await users.getSsoProvider('acme')).toBeNull();
    expect(await users.getSsoProvider('other')).not.toBeNull();
  });

  it('keeps the audit log append-only, per customer, listed by time range in order, limited', async () => {
    const t = now - DAY;
    const first = await users.appendAudit({ ...event(t + 2_000, 'user.role'), target: 'bob@acme.test', before: { role: 'viewer' }, after: { role: 'admin' } });
    expect(first).toEqual({
      id: expect.stringMatching(/^aud_[0-9a-f]+$/),
      ...event(t + 2_000, 'user.role'),
      target: 'bob@acme.test',
      before: { role: 'viewer' },
      after: { role: 'admin' },
    });
    // Appended out of time order, and several at one instant (listed as appended).
    await users.appendAudit(event(t + 1_000, 'token.create'));
    for (const action of ['same.1', 'same.2', 'same.3']) await users.appendAudit(event(t + 3_000, action));
    await users.appendAudit(event(t + 4_000, 'login'));
    await users.appendAudit(event(t + 2_500, 'elsewhere', 'other'));
    // A time in another spelling of the same instant.
    await users.appendAudit({ ...event(0, 'late'), at: new Date(t + 5_000).toISOString().replace('Z', '+00:00') });

    const all = await users.listAudit('acme', iso(t), iso(t + DAY), 100);
    expect(all.map((e) => e.action)).toEqual(['token.create', 'user.role', 'same.1', 'same.2', 'same.3', 'login', 'late']);
    expect(all[1]).toEqual(first);
    expect(all[6]!.at).toBe(iso(t + 5_000));
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    // from ≤ at < to.
    expect((await users.listAudit('acme', iso(t + 2_000), iso(t + 4_000), 100)).map((e) => e.action)).toEqual(['user.role', 'same.1', 'same.2', 'same.3']);
    expect((await users.listAudit('acme', iso(t), iso(t + DAY), 3)).map((e) => e.action)).toEqual(['token.create', 'user.role', 'same.1']);
    expect(await users.listAudit('acme', iso(t), iso(t + DAY), 0)).toEqual([]);
    expect((await users.listAudit('other', iso(t), iso(t + DAY), 100)).map((e) => e.action)).toEqual(['elsewhere']);
    expect(await users.listAudit('nobody', iso(t), iso(t + DAY), 100)).toEqual([]);
    await expect(users.listAudit('acme', 'yesterday', iso(t), 10)).rejects.toMatchObject({ kind: 'invalid' });
    await expect(users.appendAudit(event(t, 'x', '../x'))).rejects.toMatchObject({ kind: 'invalid' });
    // Append-only: the interface has nothing a caller could change or remove an event with (the retention given at open deletes old ones by itself).
    for (const method of ['updateAudit', 'removeAudit', 'deleteAudit', 'pruneAudit']) expect(method in users).toBe(false);
  });

  it('deletes audit events past the retention given at open (SQLite: its pass; Redis: the append), keeps newer ones, and never lists old ones', async () => {
    const t = Date.now();
    // Written without a retention (as an import or an older version would have left them).
    await users.appendAudit(event(t - 45 * DAY, 'old.1'));
    await users.appendAudit(event(t - 31 * DAY, 'old.2'));
    await users.appendAudit(event(t - 29 * DAY, 'kept.1'));
    await users.appendAudit(event(t - 31 * DAY, 'old.other', 'other'));
    const retained = await openUserStore(state, { auditRetentionDays: 30 });
    try {
      await retained.appendAudit(event(Date.now(), 'kept.2'));
      await retained.auditRetained();
      const stored = async (store: UserStore, customer: string) => (await store.listAudit(customer, iso(0), iso(Date.now() + DAY), 100)).map((e) => e.action);
      // Deleted, not merely hidden: the store without a retention lists what is left.
      expect(await stored(users, 'acme')).toEqual(['kept.1', 'kept.2']);
      expect(await stored(retained, 'acme')).toEqual(['kept.1', 'kept.2']);
      // A customer without a new event: SQLite's pass deleted it, Redis waits for its next append; listed by neither.
      expect(await stored(retained, 'other')).toEqual([]);
      if (name === 'sqlite') expect(await stored(users, 'other')).toEqual([]);
      await expect(openUserStore(state, { auditRetentionDays: 0 })).rejects.toMatchObject({ kind: 'invalid' });
    } finally {
      await retained.close();
    }
  });

  it('exports users (with their password hash), SSO providers (with their secret) and the audit log, never sessions or invitations; imports them as they were', async () => {
    const ann = await newUser('ann@acme.test', { role: 'owner' });
    await users.noteLogin(ann.id, iso(now));
    await newUser('bob@other.test', { customer_id: 'other', password_hash: null, sso: true });
    await users.createSession('h', session(ann));
    await users.createInvitation('tok', invitation());
    await users.setSsoProvider(provider());
    for (let i = 0; i < 3; i++)
      await users.appendAudit({ customer_id: 'acme', at: iso(now), actor: 'operator', ip: null, action: `a${i}`, target: null, before: null, after: { i } });
    expect(await users.isEmpty()).toBe(false);

    const entries: UserEntry[] = [];
    for await (const e of users.exportEntries()) entries.push(e);
    expect(entries.map((e) => e.type).sort()).toEqual(['audit_event', 'audit_event', 'audit_event', 'sso_provider', 'user', 'user']);
    expect(entries.find((e) => e.type === 'user' && e.record.id === ann.id)).toEqual({
      type: 'user',
      record: { ...ann, last_login_at: iso(now) },
      password_hash: 'scrypt$hash',
    });
    expect(entries.find((e) => e.type === 'sso_provider')).toEqual({ type: 'sso_provider', provider: provider() });
    expect(JSON.stringify(entries)).not.toContain('"h"');
    expect(JSON.stringify(entries)).not.toContain('tok');

    await expect(users.importEntries(entries)).rejects.toMatchObject({ kind: 'conflict' });

    const target = await fx.open(1);
    expect(await target.users.isEmpty()).toBe(true);
    expect(await target.users.importEntries(entries)).toBe(entries.length);
    expect(await target.users.getUser(ann.id)).toEqual({ ...ann, last_login_at: iso(now) });
    expect(await target.users.findUserByEmail('bob@other.test')).toMatchObject({ password_hash: null, sso: true });
    expect(await target.users.getSsoProvider('acme')).toEqual(provider());
    expect((await target.users.listAudit('acme', iso(now - 1), iso(now + 1), 10)).map((e) => e.action)).toEqual(['a0', 'a1', 'a2']);
    // Appends after an import come after what it brought.
    await target.users.appendAudit({ customer_id: 'acme', at: iso(now), actor: 'operator', ip: null, action: 'a3', target: null, before: null, after: null });
    expect((await target.users.listAudit('acme', iso(now - 1), iso(now + 1), 10)).map((e) => e.action)).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(await target.users.listSessions(ann.id)).toEqual([]);
    expect(await target.users.consumeInvitation('tok', iso(now))).toBeNull();
    // The email index came along: a second account for it is still a conflict.
    await expect(target.users.createUser({ customer_id: 'x', email: 'ann@acme.test', role: 'viewer', password_hash: null, sso: false })).rejects.toMatchObject({
      kind: 'conflict',
    });

    const twice = entries.filter((e) => e.type === 'user').slice(0, 1);
    const other = await fx.open(2);
    await expect(other.users.importEntries([...twice, ...twice])).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('exports the audit log in pages, oldest first per customer', async () => {
    const n = 1_234;
    for (let i = 0; i < n; i++)
      await users.appendAudit({
        customer_id: i % 2 ? 'acme' : 'other',
        at: iso(now - n + i),
        actor: 'operator',
        ip: null,
        action: `a${i}`,
        target: null,
        before: null,
        after: null,
      });
    const byCustomer = new Map<string, string[]>();
    for await (const e of users.exportEntries()) {
      if (e.type !== 'audit_event') continue;
      byCustomer.set(e.event.customer_id, [...(byCustomer.get(e.event.customer_id) ?? []), e.event.action]);
    }
    expect(byCustomer.get('acme')).toEqual(Array.from({ length: n / 2 }, (_, i) => `a${2 * i + 1}`));
    expect(byCustomer.get('other')).toEqual(Array.from({ length: n / 2 }, (_, i) => `a${2 * i}`));
  });

  it('closes without closing the state store’s connection', async () => {
    const ann = await newUser('ann@acme.test');
    await users.close();
    await users.close();
    await expect(users.getUser(ann.id)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await state.listCustomers()).toEqual([]);
    const again = await openUserStore(state);
    expect(await again.getUser(ann.id)).toEqual(ann);
    await again.close();
  });
});

describe('user store on SQLite: the lock policy of sqlite-db.ts', () => {
  it('waits for another process’s lock on a timer (the event loop keeps running), then writes; gives up with a 503 after the request deadline', async () => {
    const file = join(tempDir(), 'svc.db');
    const state = new SqliteStateStore(file, { log: () => {} });
    const users = await openUserStore(state);
    const other = new Database(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      const pending = users.createUser({ customer_id: 'acme', email: 'ann@acme.test', role: 'owner', password_hash: null, sso: false });
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 5);
      await new Promise((r) => setTimeout(r, 100));
      clearInterval(ticker);
      expect(ticks).toBeGreaterThan(5);
      other.exec('COMMIT');
      expect((await pending).email).toBe('ann@acme.test');

      other.exec('BEGIN IMMEDIATE');
      const started = Date.now();
      await expect(
        users.appendAudit({ customer_id: 'acme', at: iso(Date.now()), actor: 'operator', ip: null, action: 'x', target: null, before: null, after: null }),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(3_000);
      other.exec('ROLLBACK');
    } finally {
      other.close();
      await users.close();
      await state.close();
    }
  });
});

describe('user store on SQLite: the audit retention', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('deletes in writes of at most the batch, customer after customer, and again with the first event of a new UTC day', async () => {
    const state = new SqliteStateStore(join(tempDir(), 'svc.db'), { log: () => {} });
    const plain = await openUserStore(state);
    const db = sharedSqlite(state)!;
    const t = Date.now();
    for (const c of ['a1', 'a2', 'a3']) {
      for (let i = 0; i < 5; i++) await plain.appendAudit(event(t - (40 + i) * DAY, `old.${i}`, c));
      await plain.appendAudit(event(t - DAY, 'kept', c));
    }
    const writes = vi.spyOn(db, 'write');
    const users = new SqliteUserStore(db, { auditRetentionDays: 30, auditPruneRows: 2 });
    try {
      await users.auditRetained();
      // 15 rows, 2 a write: 8 writes at least, each on the background lane.
      expect(writes.mock.calls.length).toBeGreaterThanOrEqual(8);
      expect(writes.mock.calls.every(([, lane]) => lane === 'background')).toBe(true);
      for (const c of ['a1', 'a2', 'a3']) expect((await plain.listAudit(c, iso(0), iso(t + DAY), 100)).map((e) => e.action)).toEqual(['kept']);
      // Later the same day: no pass (one past the retention stays stored, unlisted); the first event of the next day starts one.
      await plain.appendAudit(event(t - 35 * DAY, 'old.late'));
      await users.appendAudit(event(t, 'same.day'));
      await users.auditRetained();
      expect((await plain.listAudit('acme', iso(0), iso(t + DAY), 100)).map((e) => e.action)).toEqual(['old.late', 'same.day']);
      expect((await users.listAudit('acme', iso(0), iso(t + DAY), 100)).map((e) => e.action)).toEqual(['same.day']);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(t + DAY);
      await users.appendAudit(event(t + DAY, 'next.day'));
      await users.auditRetained();
      expect((await plain.listAudit('acme', iso(0), iso(t + 2 * DAY), 100)).map((e) => e.action)).toEqual(['same.day', 'next.day']);
    } finally {
      writes.mockRestore();
      await users.close();
      await plain.close();
      await state.close();
    }
  });
});

describe('user store on Redis', () => {
  const fx = backend('redis');
  afterEach(async () => {
    vi.restoreAllMocks();
    await fx.close();
  });

  /** The hash tag of a key (what Redis Cluster hashes): the first `{…}` with something inside, else the key. */
  const tagOf = (key: string) => {
    const open = key.indexOf('{');
    const close = key.indexOf('}', open + 1);
    return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
  };

  it('runs every script on keys of one hash tag, and keeps every key of its own under a tag', async () => {
    const { state, users } = await fx.open();
    const client = (await sharedRedis(state))!;
    const scripts: string[][] = [];
    for (const method of ['evalSha', 'eval'] as const) {
      const original = client[method].bind(client) as (...a: unknown[]) => Promise<unknown>;
      vi.spyOn(client, method).mockImplementation(((script: string, opts: { keys: string[] }) => {
        scripts.push(opts.keys);
        return original(script, opts);
      }) as never);
    }
    const ann = await users.createUser({ customer_id: 'acme', email: 'ann@acme.test', role: 'owner', password_hash: 'x', sso: false });
    const s = { ...{ id: newId('ses_'), user_id: ann.id, customer_id: 'acme', ip: null, user_agent: null, method: 'password' } };
    const t = Date.now();
    for (let i = 0; i < 3; i++)
      await users.createSession(`h${i}`, { ...s, id: newId('ses_'), created_at: iso(t), last_seen_at: iso(t), expires_at: iso(t + DAY) });
    await users.touchSession('h0', iso(t + 2 * SESSION_TOUCH_INTERVAL_MS), SESSION_IDLE_MS);
    await users.createInvitation('tok', {
      customer_id: 'acme',
      email: 'ann@acme.test',
      role: 'viewer',
      purpose: 'reset',
      created_at: iso(t),
      expires_at: iso(t + DAY),
      created_by: 'operator',
    });
    await users.setRole(ann.id, 'admin');
    await users.setRole(ann.id, 'owner', { keepAnOwner: true });
    await users.setPassword(ann.id, 'y');
    await users.countFailure('login-account:ann@acme.test', t, 60_000);
    await users.endSession(ann.id, (await users.listSessions(ann.id))[0]!.id);
    await users.endSessionByHash('h1');
    await users.appendAudit({ customer_id: 'acme', at: iso(t), actor: 'operator', ip: null, action: 'x', target: null, before: null, after: null });
    await users.setSsoProvider(provider());
    await users.endSessions(ann.id);
    await users.createUser({ customer_id: 'acme', email: 'bob@acme.test', role: 'owner', password_hash: 'x', sso: false });
    await users.removeUser(ann.id, { keepAnOwner: true });
    expect(scripts.length).toBeGreaterThan(8);
    for (const keys of scripts) expect(new Set(keys.map(tagOf)).size).toBe(1);

    const admin = createClient({ url: redis.url });
    await admin.connect();
    const ours = (await admin.keys('*')).filter((k) => k.startsWith('svc:{users}') || /^svc:\{cust:[^}]+\}:(sso|audit)/.test(k));
    expect(ours.length).toBeGreaterThan(0);
    await admin.close();
  });

  it('trims a customer’s audit set by at most 100 past the retention per append, and sets it to expire a day after its newest is past it', async () => {
    const { state, users } = await fx.open();
    const client = (await sharedRedis(state))! as RedisClientType;
    const t = Date.now();
    const m = client.multi();
    for (let i = 0; i < 150; i++)
      m.zAdd(userKeys.audit('acme'), {
        score: t - 40 * DAY - i,
        value: `${i.toString(16).padStart(16, '0')}${JSON.stringify(event(t - 40 * DAY - i, `old.${i}`))}`,
      });
    await m.exec();
    await users.appendAudit(event(t - 29 * DAY, 'kept.1'));
    expect(await client.zCard(userKeys.audit('acme'))).toBe(151);
    expect(await client.pTTL(userKeys.audit('acme'))).toBe(-1);
    const retained = new RedisUserStore(client, { auditRetentionDays: 30 });
    await retained.appendAudit(event(Date.now(), 'kept.2'));
    expect(await client.zCard(userKeys.audit('acme'))).toBe(52);
    const ttl = await client.pTTL(userKeys.audit('acme'));
    expect(ttl).toBeGreaterThan(31 * DAY - 60_000);
    expect(ttl).toBeLessThanOrEqual(31 * DAY);
    await retained.appendAudit(event(Date.now(), 'kept.3'));
    expect((await users.listAudit('acme', iso(0), iso(Date.now() + DAY), 1000)).map((e) => e.action)).toEqual(['kept.1', 'kept.2', 'kept.3']);
    // The counter never expires: a customer's next events still number after its last.
    expect(await client.pTTL(userKeys.auditSeq('acme'))).toBe(-1);
    await retained.close();
  });

  it('reads again when a session comes between its read and the ending of all of them (none survives)', async () => {
    const { state, users } = await fx.open();
    const client = (await sharedRedis(state))! as RedisClientType;
    const ann = await users.createUser({ customer_id: 'acme', email: 'ann@acme.test', role: 'owner', password_hash: 'x', sso: false });
    const t = Date.now();
    const s = (id: string) => ({
      id,
      user_id: ann.id,
      customer_id: 'acme',
      created_at: iso(t),
      last_seen_at: iso(t),
      expires_at: iso(t + DAY),
      ip: null,
      user_agent: null,
      method: 'password',
    });
    await users.createSession('h0', s(newId('ses_')));
    // Another node signs in right after this one read the user's sessions.
    const other = new RedisUserStore(client);
    const original = client.zRange.bind(client);
    let sneaked = false;
    vi.spyOn(client, 'zRange').mockImplementation((async (...args: Parameters<typeof original>) => {
      const reply = await original(...args);
      if (!sneaked && args[0] === userKeys.sessions(ann.id)) {
        sneaked = true;
        await other.createSession('h1', s(newId('ses_')));
      }
      return reply;
    }) as never);
    expect(await users.endSessions(ann.id)).toBe(2);
    expect(sneaked).toBe(true);
    vi.restoreAllMocks();
    expect(await users.touchSession('h1', iso(t), SESSION_IDLE_MS)).toBeNull();

    // The same for removing the user.
    await users.createSession('h2', s(newId('ses_')));
    sneaked = false;
    vi.spyOn(client, 'zRange').mockImplementation((async (...args: Parameters<typeof original>) => {
      const reply = await original(...args);
      if (!sneaked && args[0] === userKeys.sessions(ann.id)) {
        sneaked = true;
        await other.createSession('h3', s(newId('ses_')));
      }
      return reply;
    }) as never);
    expect(await users.removeUser(ann.id)).toBe(true);
    expect(sneaked).toBe(true);
    vi.restoreAllMocks();
    expect(await users.touchSession('h2', iso(t), SESSION_IDLE_MS)).toBeNull();
    expect(await users.touchSession('h3', iso(t), SESSION_IDLE_MS)).toBeNull();
    await other.close();
  });

  it('answers 503 within the command deadline when Redis stalls', async () => {
    const server = await startRedisServer();
    const client = createClient({ url: server.url, disableOfflineQueue: true }) as RedisClientType;
    client.on('error', () => {});
    await client.connect();
    const users = new RedisUserStore(client, { commandTimeoutMs: 150 });
    try {
      await users.createUser({ customer_id: 'acme', email: 'ann@acme.test', role: 'owner', password_hash: 'x', sso: false });
      server.pause();
      const started = Date.now();
      await expect(users.findUserByEmail('ann@acme.test')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(users.touchSession('h', iso(Date.now()), SESSION_IDLE_MS)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(2_000);
      server.resume();
      expect(await users.findUserByEmail('ann@acme.test')).not.toBeNull();
    } finally {
      server.resume();
      await users.close();
      client.destroy();
      await server.close();
    }
  });
});

describe('user entries move between backends', () => {
  const sqlite = backend('sqlite');
  const redisBackend = backend('redis');
  afterEach(async () => {
    await sqlite.close();
    await redisBackend.close();
  });

  it('SQLite → Redis → SQLite gives the same entries', async () => {
    const from = (await sqlite.open()).users;
    const t = Date.now();
    const ann = await from.createUser({ customer_id: 'acme', email: 'ann@acme.test', role: 'owner', password_hash: 'scrypt$1', sso: false });
    await from.noteLogin(ann.id, iso(t));
    await from.createUser({ customer_id: 'other', email: 'bob@other.test', role: 'viewer', password_hash: null, sso: true });
    await from.setSsoProvider(provider());
    for (let i = 0; i < 5; i++)
      await from.appendAudit({
        customer_id: i % 2 ? 'acme' : 'other',
        at: iso(t - (i % 3)),
        actor: `user:${ann.id} ann@acme.test`,
        ip: '203.0.113.1',
        action: `a${i}`,
        target: null,
        before: { i },
        after: null,
      });

    const collect = async (store: UserStore) => {
      const out: UserEntry[] = [];
      for await (const e of store.exportEntries()) out.push(e);
      return out;
    };
    const lines = async (store: UserStore) => (await collect(store)).map((e) => JSON.stringify(e)).sort();
    const toRedis = (await redisBackend.open()).users;
    await toRedis.importEntries(await collect(from));
    const back = (await sqlite.open()).users;
    await back.importEntries(await collect(toRedis));
    const exported = await lines(from);
    expect(exported).toHaveLength(8);
    expect(await lines(toRedis)).toEqual(exported);
    expect(await lines(back)).toEqual(exported);
    for (const customer of ['acme', 'other']) {
      const actions = async (store: UserStore) => (await store.listAudit(customer, iso(t - 10), iso(t + 10), 10)).map((e) => e.action);
      expect(await actions(toRedis)).toEqual(await actions(from));
      expect(await actions(back)).toEqual(await actions(from));
    }
  });
});
