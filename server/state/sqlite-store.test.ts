import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { SqliteStateStore } from './sqlite-store.ts';
import type { ChargeRequest } from './store.ts';

let dir: string;
let store: SqliteStateStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-state-'));
  store = new SqliteStateStore(join(dir, 'svc.db'));
  await store.importCustomer(TEST_CUSTOMER);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  customer_id: 'acme', api: 'company-firmographics-v3', pool: 'enrichment', record: '900001', period: 'year-0', quota: 2,
  dedupe_key: 'company-firmographics-v3|900001|2026-11', month: '2026-11', token_id: null, partner: null, at: '2026-11-10T00:00:00Z', ...over,
});

describe('tokens in the SQLite store', () => {
  it('never keeps a secret in plaintext in the state file', async () => {
    const secrets = [];
    for (let i = 0; i < 5; i++) secrets.push((await store.createToken({ customer_id: 'acme', api_group: 'identification', name: `t${i}` })).secret);
    const { record, secret: rotated } = await store.rotateToken((await store.listTokens('acme'))[0].id);
    secrets.push(rotated);
    await store.close();
    const bytes = readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
    for (const s of secrets) expect(bytes.includes(s)).toBe(false);
    expect(record.rotated_at).not.toBeNull();
    store = new SqliteStateStore(join(dir, 'svc.db'));
  });

  it('authenticates active tokens only, and rotation invalidates the old secret', async () => {
    const { record, secret } = await store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
    expect((await store.authenticateToken(secret))?.id).toBe(record.id);
    expect((await store.getToken(record.id))?.last_used_at).not.toBeNull();
    await store.setTokenStatus(record.id, 'inactive');
    expect(await store.authenticateToken(secret)).toBeNull();
    await store.setTokenStatus(record.id, 'active');
    const { secret: next } = await store.rotateToken(record.id);
    expect(await store.authenticateToken(secret)).toBeNull();
    expect((await store.authenticateToken(next))?.id).toBe(record.id);
    await store.deleteToken(record.id);
    expect(await store.authenticateToken(next)).toBeNull();
    await expect(store.deleteToken(record.id)).rejects.toThrow(/unknown token/);
  });

  it('lists tokens without secrets or hashes', async () => {
    await store.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', integrations: ['salesforce'] });
    const [t] = await store.listTokens('acme');
    expect(Object.keys(t)).not.toContain('secret_hash');
    expect(t).toMatchObject({ name: 'crm', integrations: ['salesforce'], scores: false, segment_names: false, rate_limit: 100, status: 'active' });
  });

  it('refuses groups the packages do not cover and allowed domains outside identification', async () => {
    await store.importCustomer({ ...TEST_CUSTOMER, id: 'small', packages: ['platform'], tags: [] });
    await expect(store.createToken({ customer_id: 'small', api_group: 'lead-scoring', name: 'x' })).rejects.toThrow(/no package that covers the lead-scoring/);
    await expect(store.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'x', allowed_domains: ['a.com'] })).rejects.toThrow(/only for identification/);
    await expect(store.createToken({ customer_id: 'nobody', api_group: 'identification', name: 'x' })).rejects.toThrow(/unknown customer/);
  });
});

describe('credits in the SQLite store', () => {
  it('charges a record once per dedupe key and refuses past the quota', async () => {
    expect(await store.charge(charge())).toEqual({ outcome: 'charged', remaining: 1 });
    expect(await store.charge(charge())).toEqual({ outcome: 'free', remaining: 1 });
    expect(await store.charge(charge({ record: '2', dedupe_key: 'k2' }))).toEqual({ outcome: 'charged', remaining: 0 });
    expect(await store.charge(charge({ record: '3', dedupe_key: 'k3' }))).toEqual({ outcome: 'exhausted', remaining: 0 });
    // A re-export that is free this month still succeeds at zero balance.
    expect((await store.charge(charge())).outcome).toBe('free');
    expect(await store.balance('acme', 'enrichment', 'year-0', 2)).toMatchObject({ used: 2, remaining: 0 });
  });

  it('charges identification every time (no dedupe) and reports usage per API and month', async () => {
    const id = (over: Partial<ChargeRequest> = {}) => charge({ api: 'identification', pool: 'identification', record: '1.2.3.4', dedupe_key: null, quota: 10, ...over });
    await store.charge(id());
    await store.charge(id());
    await store.charge(id({ partner: 'p1' }));
    expect(await store.usage('acme')).toEqual([{ pool: 'identification', api: 'identification', month: '2026-11', charges: 3, partner_charges: 1 }]);
  });

  it('counts a new contract year from zero', async () => {
    await store.charge(charge({ quota: 1 }));
    expect((await store.charge(charge({ quota: 1, record: 'x', dedupe_key: 'x' }))).outcome).toBe('exhausted');
    expect((await store.charge(charge({ quota: 1, record: 'x', dedupe_key: 'x2', period: 'year-1' }))).outcome).toBe('charged');
  });
});

describe('rate limits in the SQLite store', () => {
  it('counts per fixed window and resets with the next one', async () => {
    const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await store.hitRateLimit('k', 3, 60_000, t0 + 1000));
    expect(hits.map((h) => h.allowed)).toEqual([true, true, true, false]);
    expect(hits.map((h) => h.remaining)).toEqual([2, 1, 0, 0]);
    expect(hits[0].resetMs).toBe(59_000);
    expect((await store.hitRateLimit('k', 3, 60_000, t0 + 60_000)).allowed).toBe(true);
    expect((await store.hitRateLimit('other', 3, 60_000, t0 + 1000)).remaining).toBe(2);
  });
});
