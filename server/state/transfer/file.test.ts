/** `svc state import` validates every record before anything is written: ids become paths elsewhere. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteCrmStore } from '../crm/sqlite.ts';
import { SqliteDigestStore } from '../digests/sqlite.ts';
import { SqliteWebhookStore } from '../outbox/sqlite.ts';
import { SqliteStateStore } from '../sqlite/store.ts';
import { SqliteUserStore } from '../users/sqlite.ts';
import { SqliteVisitStore } from '../visits/sqlite.ts';
import { exportStateFile, importStateFile, type TransferStores } from './file.ts';
import type { StateEntry } from './transfer.ts';

let dir: string;
let store: SqliteStateStore;
let stores: TransferStores & {
  visits: SqliteVisitStore;
  webhooks: SqliteWebhookStore;
  users: SqliteUserStore;
  crm: SqliteCrmStore;
  digests: SqliteDigestStore;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-transfer-'));
  store = new SqliteStateStore(join(dir, 'svc.db'), { log: () => {} });
  stores = {
    state: store,
    visits: new SqliteVisitStore(store.sqlite),
    webhooks: new SqliteWebhookStore(store.sqlite),
    users: new SqliteUserStore(store.sqlite),
    crm: new SqliteCrmStore(store.sqlite),
    digests: new SqliteDigestStore(store.sqlite),
  };
});
afterEach(async () => {
  await stores.digests.close();
  await stores.crm.close();
  await stores.users.close();
  await stores.webhooks.close();
  await stores.visits.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const customer = (id: string) => ({
  type: 'customer',
  record: {
    id,
    name: 'X',
    packages: ['platform'],
    identification_credits: 10,
    enrichment_credits: 0,
    contract_start: '2026-01-01',
    products: [],
    segments: [],
    excluded_accounts: [],
    hot_accounts: [],
    created_at: '2026-01-01T00:00:00.000Z',
  },
});

it('refuses an export file whose customer id is a path (../../tmp/x), naming the line, and imports nothing', async () => {
  const file = join(dir, 'state.jsonl');
  writeFileSync(file, [customer('acme'), customer('../../../../tmp/x')].map((e) => JSON.stringify(e)).join('\n') + '\n');
  await expect(importStateFile(stores, file)).rejects.toThrow(/state\.jsonl:2: record\.id: a customer id is 1–64 letters, digits, _ or -/);
  expect(await store.listCustomers()).toEqual([]);
});

it('refuses a charge or balance of a customer id that is a path', async () => {
  const file = join(dir, 'state.jsonl');
  const charge = { type: 'credit_usage', customer_id: '../x', pool: 'identification', period: 'year-0', used: 1 };
  writeFileSync(file, [customer('acme'), charge].map((e) => JSON.stringify(e)).join('\n') + '\n');
  await expect(importStateFile(stores, file)).rejects.toThrow(/state\.jsonl:2: customer_id/);
  expect(await store.listCustomers()).toEqual([]);
});

it('refuses a bad line of the visit or webhook entries before the state store imports anything', async () => {
  const file = join(dir, 'state.jsonl');
  const sighting = { type: 'tag_sighting', tag_id: 't1', origin: 'https://a.test', last_seen_at: '2026-11-20T10:00:00.000Z', hits: 0 };
  writeFileSync(file, [customer('acme'), sighting].map((e) => JSON.stringify(e)).join('\n') + '\n');
  await expect(importStateFile(stores, file)).rejects.toThrow(/state\.jsonl:2: hits/);
  expect(await store.listCustomers()).toEqual([]);
  const endpoint = {
    type: 'webhook_endpoint',
    endpoint: {
      id: '../x',
      customer_id: 'acme',
      url: 'https://a.test/h',
      events: ['account.hot'],
      hot_paths: [],
      description: '',
      secret: 's',
      created_at: 'x',
    },
  };
  writeFileSync(file, [customer('acme'), endpoint].map((e) => JSON.stringify(e)).join('\n') + '\n');
  await expect(importStateFile(stores, file)).rejects.toThrow(/state\.jsonl:2: endpoint\.id/);
  expect(await store.listCustomers()).toEqual([]);
});

it('refuses a target whose visit store or outbox holds something, before writing anything', async () => {
  const file = join(dir, 'state.jsonl');
  writeFileSync(file, JSON.stringify(customer('acme')) + '\n');
  await stores.visits.recordTagSighting('t1', 'https://a.test', '2026-11-20T10:00:00.000Z');
  await expect(importStateFile(stores, file)).rejects.toThrow(/already holds page views or tag sightings: import into an empty state/);
  expect(await store.listCustomers()).toEqual([]);
});

it('leaves no file behind when an export fails half-way', async () => {
  await store.importState([customer('acme') as unknown as StateEntry]);
  const failing: TransferStores = {
    ...stores,
    visits: {
      isEmpty: async () => true,
      importEntries: async () => 0,
      // One entry out, then the failure: the file has a line by then.
      exportEntries: async function* () {
        yield { type: 'visit_anonymous', customer_id: 'acme', day: '2026-11-20', page_views: 1 };
        throw new Error('Redis went away');
      },
    },
  };
  const file = join(dir, 'out.jsonl');
  await expect(exportStateFile(failing, file)).rejects.toThrow('Redis went away');
  expect(existsSync(file)).toBe(false);
});

it('creates the export file readable by its owner only (it holds webhook signing secrets)', async () => {
  const file = join(dir, 'out.jsonl');
  await stores.webhooks.createEndpoint({
    customer_id: 'acme',
    url: 'https://hooks.acme.test/x',
    events: ['account.hot'],
    hot_paths: [],
    description: '',
    secret: 'whsec_secret',
  });
  await exportStateFile(stores, file);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(file, 'utf8')).toContain('"secret":"whsec_secret"');
});

it('moves users, SSO providers and the audit log (never sessions or invitations) when a user store is given, and refuses such a file without one', async () => {
  const users = new SqliteUserStore(store.sqlite);
  const file = join(dir, 'out.jsonl');
  try {
    await store.importState([customer('acme') as unknown as StateEntry]);
    const ann = await users.createUser({ customer_id: 'acme', email: 'ann@acme.test', role: 'owner', password_hash: 'scrypt$x', sso: false });
    const now = new Date().toISOString();
    await users.createSession('h', {
      id: 'ses_0000000000000001',
      user_id: ann.id,
      customer_id: 'acme',
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      ip: null,
      user_agent: null,
      method: 'password',
    });
    await users.setSsoProvider({
      customer_id: 'acme',
      issuer: 'https://login.acme.test',
      client_id: 'c',
      client_secret: 'sso-secret',
      allowed_domains: ['acme.test'],
      default_role: 'viewer',
      display_name: 'Acme',
    });
    await users.appendAudit({
      customer_id: 'acme',
      at: now,
      actor: 'operator',
      ip: null,
      action: 'user.create',
      target: 'ann@acme.test',
      before: null,
      after: null,
    });
    const counts = await exportStateFile({ ...stores, users }, file);
    expect(counts).toMatchObject({ users: 3 });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"client_secret":"sso-secret"');
    expect(text).toContain('"password_hash":"scrypt$x"');
    expect(text).not.toContain('ses_0000000000000001');

    const dir2 = mkdtempSync(join(tmpdir(), 'svc-transfer-'));
    const target = new SqliteStateStore(join(dir2, 'svc.db'), { log: () => {} });
    const into = {
      state: target,
      visits: new SqliteVisitStore(target.sqlite),
      webhooks: new SqliteWebhookStore(target.sqlite),
      users: new SqliteUserStore(target.sqlite),
      crm: new SqliteCrmStore(target.sqlite),
      digests: new SqliteDigestStore(target.sqlite),
    };
    try {
      expect(await target.listCustomers()).toEqual([]);
      expect(await importStateFile(into, file)).toMatchObject({ users: 3 });
      expect(await into.users.findUserByEmail('ann@acme.test')).toMatchObject({ id: ann.id, password_hash: 'scrypt$x' });
      expect(await into.users.listSessions(ann.id)).toEqual([]);
      await expect(importStateFile(into, file)).rejects.toThrow(/already holds customers, .*users, SSO providers or audit events/);
    } finally {
      for (const s of [into.digests, into.crm, into.users, into.webhooks, into.visits, target]) await s.close();
      rmSync(dir2, { recursive: true, force: true });
    }
  } finally {
    await users.close();
  }
});

it('moves CRM connections with their secret, pending accounts, account records and runs, and refuses a target that holds one', async () => {
  const file = join(dir, 'out.jsonl');
  const at = '2026-11-20T10:00:00.000Z';
  await store.importState([customer('acme') as unknown as StateEntry]);
  const record = {
    customer_id: 'acme',
    provider: 'hubspot' as const,
    base_url: 'https://api.hubapi.com',
    client_id: null,
    secret_prefix: 'pat-na1-0',
    status: 'active' as const,
    attention: null,
    mapping: {},
    create_missing: false,
    created_at: at,
    updated_at: at,
    last_run_at: null,
    last_full_at: null,
    config_hash: null,
  };
  await stores.crm.putConnection({ record, secret: '{"access_token":"pat-na1-0123"}' });
  await stores.crm.markPending('acme', 'hubspot', ['900001'], 1_000, true);
  const counts = await exportStateFile(stores, file);
  expect(counts).toMatchObject({ crm: 2 });
  expect(readFileSync(file, 'utf8')).toContain('pat-na1-0123');

  const dir2 = mkdtempSync(join(tmpdir(), 'svc-transfer-'));
  const target = new SqliteStateStore(join(dir2, 'svc.db'), { log: () => {} });
  const into = {
    state: target,
    visits: new SqliteVisitStore(target.sqlite),
    webhooks: new SqliteWebhookStore(target.sqlite),
    users: new SqliteUserStore(target.sqlite),
    crm: new SqliteCrmStore(target.sqlite),
    digests: new SqliteDigestStore(target.sqlite),
  };
  try {
    await into.crm.importEntries([{ type: 'crm_connection', record, secret: 's' }]);
    await expect(importStateFile(into, file)).rejects.toThrow(/already holds CRM connections: import into an empty state/);
    expect(await target.listCustomers()).toEqual([]);
    await into.crm.deleteConnection('acme', 'hubspot');
    expect(await importStateFile(into, file)).toMatchObject({ crm: 2 });
    expect(await into.crm.connectionSecret('acme', 'hubspot')).toBe('{"access_token":"pat-na1-0123"}');
    expect(await into.crm.pending('acme', 'hubspot', 10)).toEqual([{ company_id: '900001', at: 1_000, force: true }]);
  } finally {
    for (const s of [into.digests, into.crm, into.users, into.webhooks, into.visits, target]) await s.close();
    rmSync(dir2, { recursive: true, force: true });
  }
});
