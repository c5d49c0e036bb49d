import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CRM_RUN_ERRORS_KEPT, CRM_RUNS_KEPT, type CrmConnectionRecord } from '../../../core/crm-records.ts';
import { type BackendName, concernNodes } from '../../testing/concern-nodes.ts';
import { CRM_AT as AT, crmAccount as account, crmConnection as connection, crmMinute as minute, crmRun as run } from '../../testing/crm-records.ts';
import { SqliteStateStore } from '../sqlite/store.ts';
import type { CrmEntry } from '../transfer/transfer.ts';
import { RedisCrmStore } from './redis.ts';
import { SqliteCrmStore } from './sqlite.ts';
import type { CrmStore } from './store.ts';

type Name = BackendName;
const harness = concernNodes<CrmStore>('crm', (s) => (s instanceof SqliteStateStore ? new SqliteCrmStore(s.sqlite) : new RedisCrmStore(s.redis)));

/** Nodes of one backend on one fresh state: `node()` opens another (state store + crm store on its connection). */
function backend(name: Name) {
  return {
    fresh: () => harness.fresh(name),
    node: () => harness.node(name),
    closeAll: () => harness.closeAll(),
    /** Every node closed (the Redis server itself restarted from its AOF), then a node opened again. */
    async restart(): Promise<CrmStore> {
      await harness.closeAll();
      if (name === 'redis') {
        await harness.redis().stop('SIGTERM');
        await harness.redis().start();
      }
      return harness.node(name);
    },
  };
}

const collect = async (store: CrmStore) => {
  const out: CrmEntry[] = [];
  for await (const e of store.exportEntries()) out.push(e);
  return out;
};

/** A connection with something of everything: pending accounts, runs, account records and a lease. */
async function fill(store: CrmStore, customer = 'acme', provider: 'hubspot' | 'salesforce' = 'hubspot', secret = '{"token":"pat-1"}') {
  await store.putConnection({ record: connection(customer, provider), secret });
  await store.markPending(customer, provider, ['900002', '900001'], 1_000, false);
  await store.markPending(customer, provider, ['900003'], 2_000, true);
  for (let i = 0; i < 3; i++) await store.putRun({ ...run(`run_${i}`, minute(i)), customer_id: customer, provider });
  await store.putAccounts([account('900001', { customer_id: customer, provider }), account('900002', { customer_id: customer, provider })]);
  expect(await store.acquireLease(customer, provider, 'node-a', 5_000, 60_000)).toBe(true);
}

/** Everything the store holds of a connection, as callers read it. */
async function snapshot(store: CrmStore, customer = 'acme', provider: 'hubspot' | 'salesforce' = 'hubspot') {
  return {
    record: await store.getConnection(customer, provider),
    secret: await store.connectionSecret(customer, provider),
    pending: await store.pending(customer, provider, 100),
    count: await store.pendingCount(customer, provider),
    runs: await store.listRuns(customer, provider, 100),
    accounts: await store.listAccounts(customer, provider, 100),
  };
}

describe.each<Name>(['sqlite', 'redis', 'redis-cluster'])('CRM store contract: %s', (name) => {
  const fx = backend(name);
  let a: CrmStore;
  let b: CrmStore;
  beforeEach(async () => {
    await fx.fresh();
    a = await fx.node();
    b = await fx.node();
  });
  afterEach(() => fx.closeAll());

  it('keeps one connection per customer and provider, its secret apart from every record, listed in order', async () => {
    const put = await a.putConnection({ record: { ...connection('acme', 'salesforce'), secret: 'leak' } as CrmConnectionRecord, secret: 'sf-secret' });
    await a.putConnection({ record: connection('globex', 'hubspot'), secret: 'gx-secret' });
    await a.putConnection({ record: connection('acme', 'hubspot'), secret: 'hs-secret' });
    expect(put).toEqual(connection('acme', 'salesforce'));
    expect(await b.getConnection('acme', 'salesforce')).toEqual(put);
    expect(JSON.stringify([await b.allConnections(), await b.listConnections('acme')])).not.toMatch(/secret"|leak|sf-secret/);
    expect((await b.listConnections('acme')).map((c) => c.provider)).toEqual(['hubspot', 'salesforce']);
    expect((await b.allConnections()).map((c) => `${c.customer_id}/${c.provider}`)).toEqual(['acme/hubspot', 'acme/salesforce', 'globex/hubspot']);
    expect(await b.connectionSecret('acme', 'salesforce')).toBe('sf-secret');
    expect([await b.getConnection('initech', 'hubspot'), await b.connectionSecret('initech', 'hubspot')]).toEqual([null, null]);
    // Put again: record and secret replaced, what the connection has kept.
    await a.markPending('acme', 'salesforce', ['900001'], 1, false);
    await b.putConnection({ record: connection('acme', 'salesforce', { base_url: 'https://other.my.salesforce.com' }), secret: 'sf-2' });
    expect((await a.getConnection('acme', 'salesforce'))?.base_url).toBe('https://other.my.salesforce.com');
    expect([await a.connectionSecret('acme', 'salesforce'), await a.pendingCount('acme', 'salesforce')]).toEqual(['sf-2', 1]);
  });

  it('changes fields of a connection (never its secret), refuses the fields it may not change, and never brings a deleted one back', async () => {
    await a.putConnection({ record: connection('acme', 'hubspot'), secret: 'hs-secret' });
    const changed = await b.updateConnection('acme', 'hubspot', { status: 'needs_attention', attention: 'token revoked', mapping: {}, last_run_at: AT });
    expect(changed).toEqual(connection('acme', 'hubspot', { status: 'needs_attention', attention: 'token revoked', mapping: {}, last_run_at: AT }));
    expect(await a.updateConnection('acme', 'hubspot', { attention: null, status: 'active' })).toMatchObject({
      attention: null,
      status: 'active',
      mapping: {},
    });
    expect(await a.updateConnection('acme', 'hubspot', {})).toEqual(await b.getConnection('acme', 'hubspot'));
    expect(await a.connectionSecret('acme', 'hubspot')).toBe('hs-secret');
    for (const bad of [{ secret_prefix: 'x' }, { secret: 'x' }, { customer_id: 'globex' }, { status: 'gone' }])
      await expect(a.updateConnection('acme', 'hubspot', bad as never)).rejects.toMatchObject({ kind: 'invalid' });
    expect(await a.updateConnection('acme', 'salesforce', { status: 'paused' })).toBeNull();
    await b.deleteConnection('acme', 'hubspot');
    expect(await a.updateConnection('acme', 'hubspot', { status: 'paused' })).toBeNull();
    expect([await a.getConnection('acme', 'hubspot'), await a.listConnections('acme')]).toEqual([null, []]);
  });

  it('refuses invalid input as StateError invalid, naming the field', async () => {
    await a.putConnection({ record: connection('acme', 'hubspot'), secret: 's' });
    const refusals: [Promise<unknown>, RegExp][] = [
      [a.putConnection({ record: connection('../x', 'hubspot'), secret: 's' }), /^record\.customer_id/],
      [a.putConnection({ record: connection('acme', 'pipedrive' as never), secret: 's' }), /^record\.provider/],
      [a.putConnection({ record: { ...connection('acme', 'hubspot'), status: undefined } as never, secret: 's' }), /^record\.status/],
      [a.putConnection({ record: connection('acme', 'hubspot'), secret: '' }), /^secret/],
      [a.getConnection('a}b', 'hubspot'), /^customer_id/],
      [a.markPending('acme', 'hubspot', ['900001'], -1, false), /^pending\.at/],
      [a.markPending('acme', 'hubspot', [''], 1, false), /^pending\.companyIds/],
      [a.pending('acme', 'hubspot', -1), /^limit/],
      [a.ackPending('acme', 'hubspot', [{ company_id: '900001', at: 1.5 }]), /^items/],
      [a.acquireLease('acme', 'hubspot', '', 1, 1), /^owner/],
      [a.acquireLease('acme', 'hubspot', 'n', 1, 0), /^leaseMs/],
      [a.putRun(run('run_1', 'yesterday')), /^run\.started_at/],
      [a.putRun(run('', AT)), /^run\.id/],
      [a.putAccounts([account('900001', { customer_id: 'a b' })]), /^rows\.0\.customer_id/],
    ];
    for (const [call, message] of refusals) await expect(call).rejects.toMatchObject({ kind: 'invalid', message: expect.stringMatching(message) });
    expect(await a.isEmpty()).toBe(false);
    expect(await a.pendingCount('acme', 'hubspot')).toBe(0);
  });

  it('lists pending accounts oldest first (ties by company id) in pages; a re-mark keeps the later time, and force sticks until acknowledged', async () => {
    await a.putConnection({ record: connection('acme', 'hubspot'), secret: 's' });
    await a.markPending('acme', 'hubspot', ['900003', '900001', '900002', '900001'], 2_000, false);
    await b.markPending('acme', 'hubspot', ['900009'], 1_000, true);
    const page1 = await b.pending('acme', 'hubspot', 2);
    expect(page1).toEqual([
      { company_id: '900009', at: 1_000, force: true },
      { company_id: '900001', at: 2_000, force: false },
    ]);
    expect(await b.pending('acme', 'hubspot', 10, page1[1])).toEqual([
      { company_id: '900002', at: 2_000, force: false },
      { company_id: '900003', at: 2_000, force: false },
    ]);
    // Earlier times never move an item back; a later one moves it to the end; force once set stays.
    await Promise.all([a.markPending('acme', 'hubspot', ['900009'], 5_000, false), b.markPending('acme', 'hubspot', ['900009'], 500, false)]);
    await a.markPending('acme', 'hubspot', ['900001'], 1_500, true);
    expect(await a.pending('acme', 'hubspot', 10)).toEqual([
      { company_id: '900001', at: 2_000, force: true },
      { company_id: '900002', at: 2_000, force: false },
      { company_id: '900003', at: 2_000, force: false },
      { company_id: '900009', at: 5_000, force: true },
    ]);
    expect(await a.pendingCount('acme', 'hubspot')).toBe(4);
  });

  it('acknowledging removes the items synced, but keeps those marked again after their time (with the new time)', async () => {
    await a.putConnection({ record: connection('acme', 'hubspot'), secret: 's' });
    await a.markPending('acme', 'hubspot', ['900001', '900002', '900003'], 1_000, true);
    const read = await a.pending('acme', 'hubspot', 10);
    // While a node syncs what it read, a page view marks 900002 again.
    await b.markPending('acme', 'hubspot', ['900002'], 3_000, false);
    await a.ackPending('acme', 'hubspot', [...read, { company_id: 'never-pending', at: 9_000 }]);
    expect(await b.pending('acme', 'hubspot', 10)).toEqual([{ company_id: '900002', at: 3_000, force: true }]);
    await b.ackPending('acme', 'hubspot', [{ company_id: '900002', at: 3_000 }]);
    expect(await a.pendingCount('acme', 'hubspot')).toBe(0);
    // Acknowledged: a new mark starts without force.
    await a.markPending('acme', 'hubspot', ['900002'], 4_000, false);
    expect(await a.pending('acme', 'hubspot', 10)).toEqual([{ company_id: '900002', at: 4_000, force: false }]);
  });

  it('gives a lease to exactly one of two nodes racing for it; the holder renews, expiry lets another take over, release frees it', async () => {
    const providers = ['hubspot', 'salesforce'] as const;
    const customers = Array.from({ length: 10 }, (_, i) => `cust-${i}`);
    for (const c of customers) for (const p of providers) await a.putConnection({ record: connection(c, p), secret: 's' });
    const races = await Promise.all(
      customers.flatMap((c) => providers.map((p) => Promise.all([a.acquireLease(c, p, 'node-a', 1_000, 500), b.acquireLease(c, p, 'node-b', 1_000, 500)]))),
    );
    for (const won of races) expect(won.filter(Boolean)).toHaveLength(1);

    await a.releaseLease('cust-0', 'hubspot', 'node-a');
    await b.releaseLease('cust-0', 'hubspot', 'node-b');
    expect(await a.acquireLease('cust-0', 'hubspot', 'node-a', 1_000, 500)).toBe(true);
    expect(await b.acquireLease('cust-0', 'hubspot', 'node-b', 1_499, 500)).toBe(false);
    // The holder renews until 1,400 + 500; another node gets it only once that has passed.
    expect(await a.acquireLease('cust-0', 'hubspot', 'node-a', 1_400, 500)).toBe(true);
    expect(await b.acquireLease('cust-0', 'hubspot', 'node-b', 1_899, 500)).toBe(false);
    expect(await b.acquireLease('cust-0', 'hubspot', 'node-b', 1_900, 500)).toBe(true);
    expect(await a.acquireLease('cust-0', 'hubspot', 'node-a', 1_950, 500)).toBe(false);
    // Only the holder's release frees it.
    await a.releaseLease('cust-0', 'hubspot', 'node-a');
    expect(await a.acquireLease('cust-0', 'hubspot', 'node-a', 2_000, 500)).toBe(false);
    await b.releaseLease('cust-0', 'hubspot', 'node-b');
    expect(await a.acquireLease('cust-0', 'hubspot', 'node-a', 2_000, 500)).toBe(true);
    // No lease on a connection that does not exist.
    expect(await a.acquireLease('nobody', 'hubspot', 'node-a', 2_000, 500)).toBe(false);
  });

  it('keeps the newest CRM_RUNS_KEPT runs, newest first (ties by id), replaced by id, with the first CRM_RUN_ERRORS_KEPT errors', async () => {
    await a.putConnection({ record: connection('acme', 'hubspot'), secret: 's' });
    const order = Array.from({ length: CRM_RUNS_KEPT + 5 }, (_, i) => i).sort((x, y) => ((x * 7919) % 61) - ((y * 7919) % 61));
    for (const i of order) await (i % 2 ? a : b).putRun(run(`run_${String(i).padStart(3, '0')}`, minute(i)));
    const listed = await b.listRuns('acme', 'hubspot', 100);
    expect(listed.map((r) => r.id)).toEqual(Array.from({ length: CRM_RUNS_KEPT }, (_, i) => `run_${String(CRM_RUNS_KEPT + 4 - i).padStart(3, '0')}`));
    expect(await a.getRun('acme', 'hubspot', 'run_004')).toBeNull();
    expect(await a.listRuns('acme', 'hubspot', 2)).toEqual(listed.slice(0, 2));
    // Replaced by id (its time may change), one started at the same instant as another: by id.
    const errors = Array.from({ length: CRM_RUN_ERRORS_KEPT + 50 }, (_, i) => ({
      company_id: `${i}`,
      domain: null,
      crm_id: null,
      field: null,
      message: `e${i}`,
    }));
    await a.putRun(run('run_010', minute(CRM_RUNS_KEPT + 4), { status: 'partial', errors }));
    const got = await b.getRun('acme', 'hubspot', 'run_010');
    expect(got).toMatchObject({ status: 'partial', started_at: minute(CRM_RUNS_KEPT + 4) });
    expect(got?.errors).toEqual(errors.slice(0, CRM_RUN_ERRORS_KEPT));
    expect((await b.listRuns('acme', 'hubspot', 3)).map((r) => r.id)).toEqual(['run_054', 'run_010', 'run_053']);
    expect(await b.listRuns('acme', 'hubspot', 100)).toHaveLength(CRM_RUNS_KEPT);
    expect(await b.getRun('acme', 'salesforce', 'run_010')).toBeNull();
  });

  it('keeps account records by company id, lists them in company id order in pages, and writes nothing for a connection that does not exist', async () => {
    await a.putConnection({ record: connection('acme', 'hubspot'), secret: 's' });
    await a.putAccounts([account('900003'), account('900001'), account('900002', { stage: 'customer' }), account('900002', { stage: 'opportunity' })]);
    await b.putAccounts([account('900001', { crm_ids: [], written_hash: 'h1', written_at: AT })]);
    expect((await b.getAccounts('acme', 'hubspot', ['900002', 'none', '900001'])).sort((x, y) => x.company_id.localeCompare(y.company_id))).toEqual([
      account('900001', { crm_ids: [], written_hash: 'h1', written_at: AT }),
      account('900002', { stage: 'opportunity' }),
    ]);
    const first = await a.listAccounts('acme', 'hubspot', 2);
    expect(first.map((r) => r.company_id)).toEqual(['900001', '900002']);
    expect((await a.listAccounts('acme', 'hubspot', 2, '900002')).map((r) => r.company_id)).toEqual(['900003']);
    expect(await a.getAccounts('acme', 'salesforce', ['900001'])).toEqual([]);
    // A node that read the list before a connection went leaves nothing of it behind.
    await a.markPending('acme', 'salesforce', ['900001'], 1, true);
    await a.putRun(run('run_1', AT, { provider: 'salesforce' }));
    await a.putAccounts([account('900001', { provider: 'salesforce' })]);
    expect(await snapshot(b, 'acme', 'salesforce')).toEqual({ record: null, secret: null, pending: [], count: 0, runs: [], accounts: [] });
  });

  it('deletes a connection with its pending accounts, lease, runs and account records, and nothing of the others', async () => {
    await fill(a, 'acme', 'hubspot');
    await fill(a, 'acme', 'salesforce');
    const kept = await snapshot(b, 'acme', 'salesforce');
    expect(await b.deleteConnection('acme', 'hubspot')).toBe(true);
    expect(await a.deleteConnection('acme', 'hubspot')).toBe(false);
    expect(await snapshot(a, 'acme', 'hubspot')).toEqual({ record: null, secret: null, pending: [], count: 0, runs: [], accounts: [] });
    expect(await a.getRun('acme', 'hubspot', 'run_0')).toBeNull();
    expect(await a.getAccounts('acme', 'hubspot', ['900001'])).toEqual([]);
    expect((await a.allConnections()).map((c) => c.provider)).toEqual(['salesforce']);
    expect(await snapshot(a, 'acme', 'salesforce')).toEqual(kept);
    // Made again: it starts empty, its old lease gone too.
    await b.putConnection({ record: connection('acme', 'hubspot'), secret: 'new' });
    expect(await b.acquireLease('acme', 'hubspot', 'node-b', 5_001, 1_000)).toBe(true);
    expect(await snapshot(a, 'acme', 'hubspot')).toMatchObject({ pending: [], runs: [], accounts: [] });
    await a.deleteConnection('acme', 'hubspot');
    await a.deleteConnection('acme', 'salesforce');
    expect(await b.isEmpty()).toBe(true);
  });

  it('keeps everything across a restart', async () => {
    await fill(a, 'acme', 'hubspot');
    await fill(b, 'globex', 'salesforce', 'gx');
    const before = [await snapshot(a, 'acme', 'hubspot'), await snapshot(a, 'globex', 'salesforce'), await a.allConnections()];
    const after = await fx.restart();
    expect([await snapshot(after, 'acme', 'hubspot'), await snapshot(after, 'globex', 'salesforce'), await after.allConnections()]).toEqual(before);
    // The lease too: another node waits for it to run out.
    expect(await after.acquireLease('acme', 'hubspot', 'node-b', 6_000, 1_000)).toBe(false);
    expect(await after.acquireLease('acme', 'hubspot', 'node-b', 65_000, 1_000)).toBe(true);
  });

  it('exports every connection with its secret and all it has, imports into an empty store only, and refuses data before its connection', async () => {
    await fill(a, 'globex', 'salesforce', 'gx');
    await fill(a, 'acme', 'hubspot');
    const entries = await collect(b);
    expect(entries.map((e) => e.type)).toEqual([
      ...['hubspot', 'salesforce'].flatMap(() => [
        'crm_connection',
        ...Array(3).fill('crm_pending'),
        'crm_account',
        'crm_account',
        ...Array(3).fill('crm_run'),
      ]),
    ]);
    expect(entries[0]).toEqual({ type: 'crm_connection', record: connection('acme', 'hubspot'), secret: '{"token":"pat-1"}' });
    await expect(a.importEntries(entries)).rejects.toMatchObject({ kind: 'conflict' });
    await a.deleteConnection('acme', 'hubspot');
    await a.deleteConnection('globex', 'salesforce');
    await expect(a.importEntries(entries.slice(1))).rejects.toThrow(/crm_pending entry of acme\/hubspot comes before its connection/);
    expect(await a.isEmpty()).toBe(true);
    expect(await b.importEntries(entries)).toBe(entries.length);
    expect(await collect(a)).toEqual(entries);
  });

  it('refuses calls once closed, while the state store still serves', async () => {
    await a.close();
    await expect(a.listConnections('acme')).rejects.toThrow(/closed/);
    expect(await b.listConnections('acme')).toEqual([]);
  });
});

describe.each<Name>(['redis', 'redis-cluster'])('CRM entries move between SQLite and %s', (name) => {
  const sqlite = backend('sqlite');
  const other = backend(name);
  afterEach(async () => {
    await sqlite.closeAll();
    await other.closeAll();
  });

  it('SQLite → Redis → SQLite gives the same entries and the same reads', async () => {
    await sqlite.fresh();
    const from = await sqlite.node();
    await fill(from, 'acme', 'hubspot');
    await fill(from, 'acme', 'salesforce', '{"client_secret":"sf"}');
    await fill(from, 'globex', 'hubspot', 'gx');
    await from.updateConnection('globex', 'hubspot', { status: 'needs_attention', attention: 'revoked' });
    const entries = await collect(from);
    await other.fresh();
    const to = await other.node();
    expect(await to.importEntries(entries)).toBe(entries.length);
    expect(await collect(to)).toEqual(entries);
    await sqlite.fresh();
    const back = await sqlite.node();
    expect(await back.importEntries(await collect(to))).toBe(entries.length);
    expect(await collect(back)).toEqual(entries);
    for (const [c, p] of [
      ['acme', 'hubspot'],
      ['acme', 'salesforce'],
      ['globex', 'hubspot'],
    ] as const) {
      expect(await snapshot(to, c, p)).toEqual(await snapshot(from, c, p));
      expect(await snapshot(back, c, p)).toEqual(await snapshot(from, c, p));
    }
    // Leases are not moved: any node may take one at once.
    expect(await to.acquireLease('acme', 'hubspot', 'node-b', 6_000, 1_000)).toBe(true);
  });
});
