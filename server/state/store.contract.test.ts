/**
 * The state store's contract: the same tests against every backend (SQLite file, real redis-server).
 * Two stores on one state stand for two processes (SQLite) or two nodes (Redis).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { BACKENDS, type BackendFixture } from '../testing/state-backends.ts';
import { StateError } from './errors.ts';
import type { ChargeRequest, RateLimitRequest } from './metering/service.ts';
import type { StateStore } from './store.ts';
import type { StateEntry } from './transfer/transfer.ts';

const charge = (over: Partial<ChargeRequest> = {}): ChargeRequest => ({
  customer_id: 'acme',
  api: 'company-firmographics-v3',
  pool: 'enrichment',
  record: '900001',
  period: 'year-0',
  quota: 2,
  dedupe_key: 'acme|company-firmographics-v3|900001|2026-11',
  month: '2026-11',
  token_id: null,
  partner: null,
  at: '2026-11-10T00:00:00Z',
  ...over,
});
const identification = (i: number, quota: number): ChargeRequest => ({
  customer_id: 'acme',
  api: 'identification',
  pool: 'identification',
  record: `10.0.0.${i % 250}`,
  period: 'year-0',
  quota,
  dedupe_key: null,
  month: '2026-11',
  token_id: null,
  partner: null,
  at: '2026-11-10T00:00:00Z',
});
const hit = (key: string, limit: number, nowMs: number, over: Partial<RateLimitRequest> = {}): RateLimitRequest => ({
  customer_id: 'acme',
  counters: [{ key, limit }],
  windowMs: 60_000,
  nowMs,
  degradable: true,
  ...over,
});
/** Within a second (the promise of every backend), a change made through one store is seen by another. */
const soon = { timeout: 1000, interval: 20 };

describe.each(BACKENDS)('state store contract: $name', (backend) => {
  let fx: BackendFixture;
  let a: StateStore;
  let b: StateStore;
  beforeAll(async () => {
    fx = await backend.start();
  }, 20_000);
  afterAll(async () => fx?.close());
  beforeEach(async () => {
    a = await fx.open();
    b = await fx.open();
    await a.importCustomer(TEST_CUSTOMER);
  });
  afterEach(async () => fx.reset());

  describe('access records', () => {
    it('createCustomer refuses an existing id and changes nothing; updateCustomer touches only the given fields', async () => {
      const before = await a.getCustomer('acme');
      await expect(a.createCustomer({ ...TEST_CUSTOMER, name: 'Replaced', identification_credits: 0, products: [], tags: [] })).rejects.toMatchObject({
        kind: 'conflict',
      });
      expect(await a.getCustomer('acme')).toEqual(before);
      const created = await a.createCustomer({ ...TEST_CUSTOMER, id: 'fresh', name: 'Fresh', tags: [] });
      expect(created).toMatchObject({ id: 'fresh', name: 'Fresh' });
      const updated = await a.updateCustomer('acme', { identification_credits: 7, contract_start: '2026-06-01' });
      expect(updated).toMatchObject({
        name: TEST_CUSTOMER.name,
        identification_credits: 7,
        contract_start: '2026-06-01',
        enrichment_credits: TEST_CUSTOMER.enrichment_credits,
      });
      expect(updated.products).toEqual(before!.products);
      await expect.poll(async () => (await b.getCustomer('acme'))?.identification_credits, soon).toBe(7);
      await expect(a.updateCustomer('nobody', { name: 'X' })).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('keeps per-tag limits and the demo flag, and updateTag changes only the given fields', async () => {
      expect(await a.getTag('acme-tag')).toMatchObject({ rate_limit: 6000, visitor_rate_limit: 300, demo: false });
      const tag = await a.createTag({
        customer_id: 'acme',
        tag_id: 'acme-big',
        allowed_domains: ['Bücher.example'],
        rate_limit: 90_000,
        visitor_rate_limit: 900,
        demo: true,
      });
      expect(tag).toMatchObject({ allowed_domains: ['xn--bcher-kva.example'], rate_limit: 90_000, visitor_rate_limit: 900, demo: true });
      const patched = await a.updateTag('acme-big', { visitor_rate_limit: 1200, scores: true });
      expect(patched).toMatchObject({ rate_limit: 90_000, visitor_rate_limit: 1200, scores: true, demo: true, allowed_domains: ['xn--bcher-kva.example'] });
      await expect.poll(async () => (await b.getTag('acme-big'))?.visitor_rate_limit, soon).toBe(1200);
      await expect(a.updateTag('no-such-tag', { scores: true })).rejects.toMatchObject({ kind: 'not_found' });
      await a.importCustomer({ ...TEST_CUSTOMER, tags: [{ ...TEST_CUSTOMER.tags[0], demo: true, rate_limit: 50 }] });
      expect(await a.getTag('acme-tag')).toMatchObject({ demo: true, rate_limit: 50, visitor_rate_limit: 300 });
    });

    it('authenticates active tokens only, and rotation invalidates the old secret', async () => {
      const { record, secret } = await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
      expect((await a.authenticateToken(secret))?.id).toBe(record.id);
      expect((await a.getToken(record.id))?.last_used_at).not.toBeNull();
      await a.setTokenStatus(record.id, 'inactive');
      expect(await a.authenticateToken(secret)).toBeNull();
      await a.setTokenStatus(record.id, 'active');
      const { secret: next, record: rotated } = await a.rotateToken(record.id);
      expect(rotated.rotated_at).not.toBeNull();
      expect(await a.authenticateToken(secret)).toBeNull();
      expect((await a.authenticateToken(next))?.id).toBe(record.id);
      await a.deleteToken(record.id);
      expect(await a.authenticateToken(next)).toBeNull();
      await expect(a.deleteToken(record.id)).rejects.toThrow(/unknown token/);
      await expect(a.setTokenStatus(record.id, 'active')).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('lists tokens without secrets or hashes, in creation order', async () => {
      await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', integrations: ['salesforce'] });
      // Creation times are milliseconds: the second token is made in a later one.
      await new Promise((r) => setTimeout(r, 5));
      await a.createToken({ customer_id: 'acme', api_group: 'lead-scoring', name: 'second' });
      const [t, u] = await a.listTokens('acme');
      expect(Object.keys(t)).not.toContain('secret_hash');
      expect(t).toMatchObject({ name: 'crm', integrations: ['salesforce'], scores: false, segment_names: false, rate_limit: 100, status: 'active' });
      expect(u.name).toBe('second');
      expect(await a.listTokens()).toHaveLength(2);
    });

    it('refuses with domain errors: package not bought, domains outside identification, unknown customer, duplicate tag', async () => {
      await a.importCustomer({ ...TEST_CUSTOMER, id: 'small', packages: ['platform'], tags: [] });
      await expect(a.createToken({ customer_id: 'small', api_group: 'lead-scoring', name: 'x' })).rejects.toMatchObject({
        kind: 'not_entitled',
        message: expect.stringMatching(/no package that covers the lead-scoring/),
      });
      await expect(a.createToken({ customer_id: 'acme', api_group: 'company-firmographics', name: 'x', allowed_domains: ['a.com'] })).rejects.toMatchObject({
        kind: 'invalid',
      });
      await expect(a.createToken({ customer_id: 'nobody', api_group: 'identification', name: 'x' })).rejects.toMatchObject({ kind: 'not_found' });
      await expect(a.createTag({ customer_id: 'acme', tag_id: 'acme-tag', allowed_domains: ['x.example'] })).rejects.toMatchObject({ kind: 'conflict' });
      await expect(a.importCustomer({ ...TEST_CUSTOMER, id: 'thief' })).rejects.toBeInstanceOf(StateError);
      await expect(a.updateTagSettings('nope', {})).rejects.toMatchObject({ kind: 'not_found' });
    });

    it('keeps customers and tags, and settings first-writer-wins', async () => {
      expect((await a.listCustomers()).map((c) => c.id)).toEqual(['acme']);
      const c = (await a.getCustomer('acme'))!;
      expect(c).toMatchObject({ name: 'Acme Test', identification_credits: 1000, excluded_accounts: ['900002'] });
      expect(await a.getCustomer('nobody')).toBeNull();
      const tag = await a.createTag({ customer_id: 'acme', allowed_domains: ['shop.example'], settings: { min_confidence: 'High' } });
      expect(tag.tag_id).toMatch(/^tag_/);
      expect((await a.listTags('acme')).map((t) => t.tag_id).sort()).toEqual(['acme-tag', tag.tag_id].sort());
      expect(await a.setSettingIfAbsent('k', 'one')).toBe(true);
      expect(await b.setSettingIfAbsent('k', 'two')).toBe(false);
      expect(await b.getSetting('k')).toBe('one');
      expect(await a.getSetting('none')).toBeNull();
    });

    it('hands out frozen records, and writes last_used_at at most once a minute', async () => {
      const { record, secret } = await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
      const t = (await a.authenticateToken(secret))!;
      expect(Object.isFrozen(t) && Object.isFrozen(t.allowed_domains)).toBe(true);
      expect(Object.isFrozen(await a.getCustomer('acme'))).toBe(true);
      await expect.poll(async () => (await b.getToken(record.id))!.last_used_at, soon).not.toBeNull();
      const first = (await b.getToken(record.id))!.last_used_at;
      await a.authenticateToken(secret);
      await new Promise((r) => setTimeout(r, 50));
      expect((await b.getToken(record.id))!.last_used_at).toBe(first);
    });
  });

  describe('a change reaches every process or node within a second', () => {
    it('refuses a token deactivated, rotated or deleted through another store', async () => {
      const { record, secret } = await b.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm' });
      await expect.poll(async () => (await a.authenticateToken(secret))?.id, soon).toBe(record.id);
      await b.setTokenStatus(record.id, 'inactive');
      await expect.poll(() => a.authenticateToken(secret), soon).toBeNull();
      await b.setTokenStatus(record.id, 'active');
      await expect.poll(async () => (await a.authenticateToken(secret))?.id, soon).toBe(record.id);
      const { secret: next } = await b.rotateToken(record.id);
      await expect.poll(() => a.authenticateToken(secret), soon).toBeNull();
      expect((await a.authenticateToken(next))?.id).toBe(record.id);
      await b.deleteToken(record.id);
      await expect.poll(() => a.authenticateToken(next), soon).toBeNull();
    });

    it('sees a token created elsewhere after a miss was cached', async () => {
      expect(await a.authenticateToken('x'.repeat(40))).toBeNull();
      const { secret } = await b.createToken({ customer_id: 'acme', api_group: 'identification', name: 'new' });
      await expect.poll(() => a.authenticateToken(secret), soon).not.toBeNull();
    });

    it('sees package, customer and tag changes made elsewhere', async () => {
      expect((await a.getCustomer('acme'))?.identification_credits).toBe(1000);
      expect((await a.getTag('acme-tag'))?.allowed_domains).toContain('localhost');
      await b.importCustomer({
        ...TEST_CUSTOMER,
        packages: ['platform'],
        identification_credits: 7,
        tags: [{ ...TEST_CUSTOMER.tags[0], allowed_domains: ['only.example'] }],
      });
      await expect.poll(async () => (await a.getCustomer('acme'))?.packages, soon).toEqual(['platform']);
      expect((await a.getCustomer('acme'))?.identification_credits).toBe(7);
      expect((await a.getTag('acme-tag'))?.allowed_domains).toEqual(['only.example']);
      await b.updateTagSettings('acme-tag', { cache_ttl_ms: 5000 });
      await expect.poll(async () => (await a.getTag('acme-tag'))?.settings, soon).toEqual({ cache_ttl_ms: 5000 });
      expect(await a.getTag('nope-tag')).toBeNull();
      await b.createTag({ customer_id: 'acme', tag_id: 'nope-tag', allowed_domains: ['x.example'] });
      await expect.poll(async () => (await a.getTag('nope-tag'))?.customer_id, soon).toBe('acme');
    });
  });

  describe('metering', () => {
    it('charges a record once per dedupe key and refuses past the quota', async () => {
      expect(await a.charge(charge())).toEqual({ outcome: 'charged', remaining: 1 });
      expect(await a.charge(charge())).toEqual({ outcome: 'free', remaining: 1 });
      expect(await a.charge(charge({ record: '2', dedupe_key: 'k2' }))).toEqual({ outcome: 'charged', remaining: 0 });
      expect(await a.charge(charge({ record: '3', dedupe_key: 'k3' }))).toEqual({ outcome: 'exhausted', remaining: 0 });
      // A re-export that is free this month still succeeds at zero balance.
      expect((await a.charge(charge())).outcome).toBe('free');
      expect(await a.balance('acme', 'enrichment', 'year-0', 2)).toMatchObject({ used: 2, remaining: 0 });
    });

    it('charges identification every time (no dedupe) and reports usage per API and month', async () => {
      const id = (over: Partial<ChargeRequest> = {}) => ({ ...identification(1, 10), ...over });
      await a.charge(id());
      await a.charge(id());
      await a.charge(id({ partner: 'p1' }));
      await a.charge(charge({ month: '2026-12', dedupe_key: 'dec' }));
      expect(await a.usage('acme')).toEqual([
        { pool: 'identification', api: 'identification', month: '2026-11', charges: 3, partner_charges: 1 },
        { pool: 'enrichment', api: 'company-firmographics-v3', month: '2026-12', charges: 1, partner_charges: 0 },
      ]);
      expect(await a.usage('nobody')).toEqual([]);
    });

    it('counts a new contract year from zero', async () => {
      await a.charge(charge({ quota: 1 }));
      expect((await a.charge(charge({ quota: 1, record: 'x', dedupe_key: 'x' }))).outcome).toBe('exhausted');
      expect((await a.charge(charge({ quota: 1, record: 'x', dedupe_key: 'x2', period: 'year-1' }))).outcome).toBe('charged');
    });

    it('counts rate limits per fixed window, every counter of a request together, and resets with the next window', async () => {
      const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
      const hits = [];
      for (let i = 0; i < 4; i++) hits.push((await a.hitRateLimits(hit('k', 3, t0 + 1000)))[0]);
      expect(hits.map((h) => h.allowed)).toEqual([true, true, true, false]);
      expect(hits.map((h) => h.remaining)).toEqual([2, 1, 0, 0]);
      expect(hits[0].resetMs).toBe(59_000);
      const two = await a.hitRateLimits({
        ...hit('other', 3, t0 + 1000),
        counters: [
          { key: 'other', limit: 3 },
          { key: 'k', limit: 3 },
        ],
      });
      expect(two.map((h) => [h.allowed, h.remaining])).toEqual([
        [true, 2],
        [false, 0],
      ]);
      expect((await a.hitRateLimits(hit('k', 3, t0 + 60_000)))[0].allowed).toBe(true);
    });

    it('counts a request refused by one counter against none of them, so one visitor cannot spend the tag-wide budget', async () => {
      const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
      const visit = (store: StateStore, ip: string) =>
        store.hitRateLimits({
          ...hit('tag:t', 5, t0 + 1000),
          counters: [
            { key: `tag:t:ip:${ip}`, limit: 3 },
            { key: 'tag:t', limit: 5 },
          ],
        });
      const fromA = [];
      for (let i = 0; i < 10; i++) fromA.push(await visit(a, 'A'));
      expect(fromA.map((h) => h.every((c) => c.allowed))).toEqual([...Array(3).fill(true), ...Array(7).fill(false)]);
      // A refusal reports the count the request would have made: nothing left on the counter that refused.
      expect(fromA[9].map((c) => [c.allowed, c.remaining])).toEqual([
        [false, 0],
        [true, 1],
      ]);
      // The tag-wide counter holds A's 3 admitted requests, not its 10 attempts: B still gets in twice.
      const fromB = [await visit(b, 'B'), await visit(a, 'B'), await visit(b, 'B')];
      expect(fromB.map((h) => h.map((c) => c.allowed))).toEqual([
        [true, true],
        [true, true],
        [true, false],
      ]);
      // Refused by the tag-wide counter, B's third request did not count against B's own either.
      expect((await a.hitRateLimits(hit('tag:t:ip:B', 3, t0 + 2000)))[0]).toMatchObject({ allowed: true, remaining: 0 });
      expect((await visit(b, 'C')).map((c) => c.allowed)).toEqual([true, false]);
    });

    it('decides a batch of requests in one turn as one by one: refused hits count against no counter', async () => {
      const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
      const visit = (ip: string) =>
        a.hitRateLimits({
          ...hit('tag:t', 5, t0 + 1000),
          counters: [
            { key: `tag:t:ip:${ip}`, limit: 3 },
            { key: 'tag:t', limit: 5 },
          ],
        });
      // Ten requests of A in one turn (one metering batch): its first three pass, in order.
      const fromA = await Promise.all(Array.from({ length: 10 }, () => visit('A')));
      expect(fromA.map((h) => h.every((c) => c.allowed))).toEqual([...Array(3).fill(true), ...Array(7).fill(false)]);
      expect(fromA.map((h) => h[0].remaining)).toEqual([2, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
      // The counters hold the admitted requests only, in the next batch too: 2 left on the tag, 0 on A.
      const next = await Promise.all([visit('B'), visit('A'), visit('B'), visit('B')]);
      expect(next.map((h) => h.map((c) => c.allowed))).toEqual([
        [true, true],
        [false, true],
        [true, true],
        [true, false],
      ]);
      expect((await a.hitRateLimits(hit('tag:t', 5, t0 + 2000)))[0]).toMatchObject({ allowed: false, remaining: 0 });
    });

    it('lets exactly the limit through when two stores count the same key at once', async () => {
      const now = Date.UTC(2026, 10, 10, 12, 0, 0);
      const hits = (await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).hitRateLimits(hit('token:t1', 120, now))))).map((h) => h[0]);
      expect(hits.filter((h) => h.allowed)).toHaveLength(120);
      expect(new Set(hits.filter((h) => h.allowed).map((h) => h.remaining)).size).toBe(120);
    });

    it('spends exactly the quota when two stores charge at once, in waves across turns', async () => {
      const results = [];
      for (let wave = 0; wave < 4; wave++) {
        results.push(...(await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 3 ? a : b).charge(identification(wave * 100 + i, 250))))));
      }
      expect(results.filter((r) => r.outcome === 'charged')).toHaveLength(250);
      expect(results.filter((r) => r.outcome === 'exhausted')).toHaveLength(150);
      expect(await a.balance('acme', 'identification', 'year-0', 250)).toMatchObject({ used: 250, remaining: 0 });
      expect((await b.usage('acme'))[0]).toMatchObject({ charges: 250 });
    });

    it('dedupes concurrent re-exports of one record to one charge', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).charge(charge({ quota: 100 }))));
      expect(results.filter((r) => r.outcome === 'charged')).toHaveLength(1);
      expect(results.filter((r) => r.outcome === 'free')).toHaveLength(19);
    });

    it('answers a batch (one turn) as if its operations ran one by one, and stores what they add up to', async () => {
      const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
      // One turn: counters shared between requests, charges on one balance, a dedupe key met twice.
      const [hits, charges] = await Promise.all([
        Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            a.hitRateLimits({
              ...hit('k', 4, t0 + 1000),
              counters: [
                { key: `v${i % 2}`, limit: 2 },
                { key: 'k', limit: 4 },
              ],
            }),
          ),
        ),
        Promise.all([
          a.charge(identification(1, 3)),
          a.charge(charge({ pool: 'identification', api: 'identification', quota: 3, dedupe_key: 'same' })),
          a.charge(charge({ pool: 'identification', api: 'identification', quota: 3, dedupe_key: 'same' })),
          a.charge(identification(2, 3)),
          a.charge(identification(3, 3)),
        ]),
      ]);
      expect(hits.map((h) => h.map((c) => c.remaining))).toEqual([
        [1, 3],
        [1, 2],
        [0, 1],
        [0, 0],
        [0, 0],
        [0, 0],
      ]);
      expect(hits.map((h) => h.map((c) => c.allowed))).toEqual([
        [true, true],
        [true, true],
        [true, true],
        [true, true],
        [false, false],
        [false, false],
      ]);
      expect(charges.map((c) => c.outcome)).toEqual(['charged', 'charged', 'free', 'charged', 'exhausted']);
      expect(charges.map((c) => c.remaining)).toEqual([2, 1, 1, 0, 0]);
      // The next turn, and another store, continue from the totals: the 4 admitted requests (the 2 refused
      // counted nowhere) and this one.
      expect((await b.hitRateLimits(hit('k', 10, t0 + 2000)))[0].remaining).toBe(10 - 5);
      expect(await b.balance('acme', 'identification', 'year-0', 3)).toMatchObject({ used: 3 });
      expect((await b.usage('acme'))[0]).toMatchObject({ charges: 3 });
    });

    it('commits what is queued when the store closes', async () => {
      const pending = a.charge(identification(1, 10));
      await a.close();
      expect((await pending).outcome).toBe('charged');
      expect(await b.balance('acme', 'identification', 'year-0', 10)).toMatchObject({ used: 1 });
    });
  });

  describe('export and import', () => {
    it('moves every record, balance, charge and setting, and nothing is lost on the way back', async () => {
      const { secret } = await a.createToken({ customer_id: 'acme', api_group: 'identification', name: 'crm', allowed_domains: ['x.example'] });
      await a.createTag({ customer_id: 'acme', tag_id: 'tag-two', allowed_domains: ['y.example'], settings: { honor_gpc: false } });
      await a.setSettingIfAbsent('admin', 'hash');
      await a.charge(identification(1, 10));
      await a.charge(identification(2, 10));
      await a.charge(charge({ partner: 'p1' }));
      await a.authenticateToken(secret);
      const exported: StateEntry[] = [];
      for await (const e of a.exportState()) exported.push(e);
      expect(new Set(exported.map((e) => e.type))).toEqual(new Set(['customer', 'token', 'tag', 'setting', 'credit_usage', 'charge']));

      await fx.reset();
      const c = await fx.open();
      expect(await c.isEmpty()).toBe(true);
      expect(await c.importState(exported)).toBe(exported.length);
      expect(await c.isEmpty()).toBe(false);
      const again: StateEntry[] = [];
      for await (const e of c.exportState()) again.push(e);
      expect(again).toEqual(exported);
      // The imported state works: the token authenticates, the dedup holds, balances continue.
      expect((await c.authenticateToken(secret))?.name).toBe('crm');
      expect((await c.charge(charge({ partner: 'p1' }))).outcome).toBe('free');
      expect(await c.balance('acme', 'identification', 'year-0', 10)).toMatchObject({ used: 2 });
      await expect(c.importState(exported)).rejects.toMatchObject({ kind: 'conflict' });
    });
  });
});
