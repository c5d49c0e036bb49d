/**
 * `svc crm …` as an operator runs it against a customer's state, and a node that dies mid-sync: the real
 * CLI process SIGKILLed while HubSpot holds its request, and the server's node finishing the run from what
 * was left pending — every record written once, every record holding its values.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { CrmRunRecord } from '../../core/crm-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING } from '../testing/fixtures.ts';
import { type HubSpotStandIn, startHubSpotStandIn } from '../testing/hubspot-stand-in.ts';
import { type RedisCluster, startRedisCluster } from '../testing/redis-cluster.ts';
import { type SalesforceStandIn, startSalesforceStandIn } from '../testing/salesforce-stand-in.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { runCliCollected } from './run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const N = 600;
const TODAY = new Date().toISOString().slice(0, 10);
const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const COMPANIES: CompanyRow[] = Array.from({ length: N }, (_, i) => ({
  ...ACME_SOFTWARE,
  company_id: String(710_000 + i),
  name: `Firm ${i}`,
  domain: `firm-${i}.example`,
}));

describe.each([
  ['SQLite', false],
  ['a Redis Cluster', true],
])('svc crm on %s', (_name, onCluster) => {
  let srv: TestServer;
  let hubspot: HubSpotStandIn;
  let salesforce: SalesforceStandIn;
  let cluster: RedisCluster | undefined;
  let env: NodeJS.ProcessEnv;
  /** HubSpot record id per company index. */
  const records = new Map<number, string>();

  beforeAll(async () => {
    hubspot = await startHubSpotStandIn({ owners: [{ id: '7', email: 'owner@acme-sales.test' }] });
    salesforce = await startSalesforceStandIn();
    for (let i = 0; i < N; i++) records.set(i, hubspot.companies.add({ name: `Firm ${i}`, domain: `firm-${i}.example`, hubspot_owner_id: '7' }));
    salesforce.accounts.seed(Array.from({ length: 50 }, (_, i) => ({ Name: `Firm ${i}`, Website: `https://www.firm-${i}.example` })));
    cluster = onCluster ? await startRedisCluster() : undefined;
    const state = cluster ? { SVC_REDIS_URL: cluster.url, SVC_REDIS_CLUSTER: '1' } : {};
    srv = await startTestServer({
      companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, ...COMPANIES],
      env: { SVC_CRM_SYNC_MINUTES: '1440', SVC_CRM_LEASE_SECONDS: '5', ...state },
    });
    for (let i = 0; i < N; i++) {
      await srv.recorder.visits.recordPageView({
        customer_id: 'acme',
        day: TODAY,
        company_id: String(710_000 + i),
        path: '/pricing',
        session_id: `s${i}`,
        at: `${TODAY}T01:00:00.000Z`,
      });
    }
    env = {
      ...process.env,
      SVC_DATA: join(srv.dir, 'data'),
      SVC_STATE: join(srv.dir, 'svc.db'),
      SVC_JOURNAL_DIR: join(srv.dir, 'cli-journal'),
      SVC_LOG: 'silent',
      SVC_CRM_LEASE_SECONDS: '5',
      ...state,
    };
    if (!cluster) {
      delete env.SVC_REDIS_URL;
      delete env.SVC_REDIS_CLUSTER;
    }
  }, 180_000);
  afterAll(async () => {
    await srv?.close();
    await cluster?.close();
    await hubspot?.close();
    await salesforce?.close();
  });

  const svc = (args: string[]) => runCliCollected(args, { env, cwd: srv.dir });

  /** Times each HubSpot record was sent in a successful batch update since request `from`. */
  function hubspotWrites(from: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const r of hubspot.requests.slice(from)) {
      if (r.path !== '/crm/v3/objects/companies/batch/update' || r.status === 0 || r.status >= 300) continue;
      for (const input of (r.body as { inputs: { id: string }[] }).inputs) out.set(input.id, (out.get(input.id) ?? 0) + 1);
    }
    return out;
  }

  it('refuses a wrong token with HubSpot’s message and stores nothing', async () => {
    const out = await svc(['crm', 'connect', 'hubspot', '--customer', 'acme', '--token', 'pat-na1-wrong', '--base-url', hubspot.url]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/HubSpot refused the credential: .+/);
    expect(JSON.parse((await svc(['crm', 'status', '--customer', 'acme', '--json'])).stdout)).toEqual({ connections: [] });
  });

  it('connects HubSpot, creating its properties, and never prints the token', async () => {
    const out = await svc(['crm', 'connect', 'hubspot', '--customer', 'acme', '--token', hubspot.token, '--base-url', hubspot.url, '--json']);
    expect(out.code, out.stderr).toBe(0);
    const body = JSON.parse(out.stdout);
    expect(body.connection.secret_prefix).toBe(hubspot.token.slice(0, 6));
    expect(out.stdout).not.toContain(hubspot.token);
    expect(body.check.created_fields).toContain('svc_segments');
    expect(hubspot.properties.get('svc_segments')?.groupName).toBe('svc');
  });

  it('lists in a dry run what a sync would write, writing nothing', async () => {
    const from = hubspot.requests.length;
    const out = await svc(['crm', 'sync', '--customer', 'acme', '--dry-run', '--json']);
    expect(out.code, out.stderr).toBe(0);
    const { run, accounts } = JSON.parse(out.stdout);
    expect(run.kind).toBe('dry_run');
    expect(accounts).toHaveLength(N);
    expect(accounts[0].values.svc_page_views_30d).toBe(1);
    expect(hubspotWrites(from).size).toBe(0);
    expect(hubspot.companies.get(records.get(0)!)?.properties.svc_page_views_30d ?? null).toBeNull();
  });

  it('finishes a full run a killed process left: nothing lost, nothing written twice', async () => {
    const from = hubspot.requests.length;
    // The first search after two chunks (200 records) were written and acknowledged is held.
    const held = hubspot.faults.stallNext({ match: (r) => r.path === '/crm/v3/objects/companies/search' && hubspotWrites(from).size >= 200 });
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', 'crm', 'sync', '--customer', 'acme', '--full', '--json'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<void>((r) => child.on('exit', () => r()));
    for (let i = 0; i < 600 && !held.reached(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(held.reached(), stderr).toBe(true);
    expect(hubspotWrites(from).size).toBe(200);
    child.kill('SIGKILL');
    await exited;
    held.release();

    // The dead process's lease runs out (SVC_CRM_LEASE_SECONDS=5): until then the connection is busy.
    const busy = await srv.inject({ method: 'POST', url: '/admin/api/customers/acme/crm/hubspot/sync', headers: ADMIN });
    expect(busy.statusCode).toBe(409);
    let started: { run: CrmRunRecord } | undefined;
    for (let i = 0; i < 100 && !started; i++) {
      const res = await srv.inject({ method: 'POST', url: '/admin/api/customers/acme/crm/hubspot/sync', headers: ADMIN });
      if (res.statusCode === 202) started = res.json();
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(started).toBeDefined();
    let run = started!.run;
    while (run.status === 'running') {
      await new Promise((r) => setTimeout(r, 100));
      run = (await srv.inject({ method: 'GET', url: `/admin/api/customers/acme/crm/hubspot/runs/${run.id}`, headers: ADMIN })).json();
    }
    expect(run.status).toBe('succeeded');
    const writes = hubspotWrites(from);
    expect(writes.size).toBe(N);
    expect([...writes.values()].every((n) => n === 1)).toBe(true);
    for (const [i, id] of records) expect(hubspot.companies.get(id)?.properties.svc_company_id).toBe(String(710_000 + i));
    const runs = (await srv.inject({ method: 'GET', url: '/admin/api/customers/acme/crm/hubspot/runs', headers: ADMIN })).json().runs as CrmRunRecord[];
    expect(runs.find((r) => r.kind === 'full')).toMatchObject({ status: 'failed', message: expect.stringMatching(/stopped mid-run/) });
  }, 120_000);

  it('shows the status, and names the Salesforce fields the admin must create', async () => {
    const status = JSON.parse((await svc(['crm', 'status', '--customer', 'acme', '--json'])).stdout);
    expect(status.connections[0]).toMatchObject({ provider: 'hubspot', status: 'active', pending: 0 });
    expect(status.connections[0].runs[0].status).toBe('succeeded');
    const out = await svc([
      'crm',
      'connect',
      'salesforce',
      '--customer',
      'acme',
      '--client-id',
      salesforce.clientId,
      '--client-secret',
      salesforce.clientSecret,
      '--url',
      salesforce.url,
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/missing \(create them in salesforce\): Svc_Company_Id__c, Svc_Segments__c/);
    expect(out.stdout).not.toContain(salesforce.clientSecret);
  });
});
