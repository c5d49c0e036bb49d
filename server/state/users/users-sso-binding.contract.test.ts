/**
 * A user's single sign-on identity (bindSsoSubject) and a provider's email_verified_optional, on both
 * backends: a real SQLite state file and a real redis-server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SsoProvider } from '../../../core/user-records.ts';
import { type RedisServer, startRedisServer } from '../../testing/redis-server.ts';
import { openUserStore } from '../../testing/state-connection.ts';
import { RedisStateStore } from '../redis/store.ts';
import { SqliteStateStore } from '../sqlite/store.ts';
import type { StateStore } from '../store.ts';
import type { UserStore } from './store.ts';

let redis: RedisServer;
const dir = mkdtempSync(join(tmpdir(), 'svc-sso-binding-'));
beforeAll(async () => {
  redis = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

const open: Record<string, () => Promise<StateStore>> = {
  sqlite: async () => new SqliteStateStore(join(dir, 'svc.db'), { log: () => {} }),
  redis: () => RedisStateStore.open({ url: `${redis.url}/3`, journalDir: dir, outageAllowance: 10, log: () => {} }),
};

describe.each(Object.keys(open))('SSO identity binding: %s', (name) => {
  let state: StateStore;
  let users: UserStore;
  beforeAll(async () => {
    state = await open[name]!();
    users = await openUserStore(state);
  });
  afterAll(async () => {
    await users?.close();
    await state?.close();
  });

  it('binds at the first call, refuses another sub at the same issuer, rebinds at a new issuer, and marks the user sso', async () => {
    const u = await users.createUser({ customer_id: 'acme', email: `bind-${name}@acme.test`, role: 'viewer', password_hash: 'scrypt$x', sso: false });
    expect(await users.bindSsoSubject(u.id, 'https://idp.acme.test', 'sub-1')).toBe('sub-1');
    expect(await users.getUser(u.id)).toMatchObject({ sso: true, password_set: true });
    expect(await users.bindSsoSubject(u.id, 'https://idp.acme.test', 'sub-2')).toBe('sub-1');
    expect(await users.bindSsoSubject(u.id, 'https://idp.acme.test', 'sub-1')).toBe('sub-1');
    expect(await users.bindSsoSubject(u.id, 'https://new-idp.acme.test', 'sub-9')).toBe('sub-9');
    expect(await users.bindSsoSubject(u.id, 'https://new-idp.acme.test', 'sub-1')).toBe('sub-9');
    expect(await users.bindSsoSubject('usr_0000000000000000', 'https://idp.acme.test', 'sub-1')).toBeNull();
    await expect(users.bindSsoSubject(u.id, 'https://idp.acme.test', '')).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('keeps email_verified_optional of a provider, and reads a provider without it as given', async () => {
    const provider: SsoProvider = {
      customer_id: 'acme',
      issuer: 'https://idp.acme.test',
      client_id: 'svc',
      client_secret: 'secret',
      allowed_domains: ['acme.test'],
      default_role: 'viewer',
      display_name: 'Acme',
    };
    await users.setSsoProvider(provider);
    expect(await users.getSsoProvider('acme')).toEqual(provider);
    await users.setSsoProvider({ ...provider, email_verified_optional: true });
    expect(await users.getSsoProvider('acme')).toEqual({ ...provider, email_verified_optional: true });
  });
});
