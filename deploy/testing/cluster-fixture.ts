/**
 * A local cluster for tests (deploy/local-cluster.ts) on the fixture dataset in a temp folder, plus
 * what a test does with it the way an operator and a CRM would: customers and tokens through the admin
 * API, lookups and enrichment calls over plain HTTP through nginx, balances from the admin API.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CustomerSeed } from '../../core/customer-records.ts';
import { buildDataset } from '../../data/build/build.ts';
import { BROWSER_UA } from '../../server/testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../../server/testing/fixtures.ts';
import { TEST_ADMIN_TOKEN, writeFixtureSources } from '../../server/testing/test-server.ts';
import { type ClusterOptions, type LocalCluster, type StateBackend, startLocalCluster } from '../local-cluster.ts';

export { BROWSER_UA };

/** A visitor the cluster's clients can really be: 127.0.0.64/26 is a company network in this dataset. */
export const LOOPBACK_VISITOR = '127.0.0.77';

export interface TestCluster extends LocalCluster {
  dir: string;
  /** Creates a customer (admin API) with only the given credits, no tags unless given. */
  customer(seed: Partial<CustomerSeed> & { id: string }): Promise<void>;
  token(customer: string, group: string, rateLimit?: number): Promise<string>;
  /** Used credits per pool in the current contract year (admin API). */
  used(customer: string): Promise<{ identification: number; enrichment: number }>;
  /** nginx's access log lines so far. */
  accessLog(): string[];
  /** Stops everything and removes the temp folder. */
  close(): Promise<void>;
}

export async function startTestCluster(opts: { nodes: number; state: StateBackend } & Partial<ClusterOptions>): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cluster-test-'));
  const sources = join(dir, 'sources');
  writeFixtureSources(sources);
  // Columns past the seven named here (added to the format later) stay empty.
  const columns = readFileSync(join(sources, 'networks.csv'), 'utf8').split('\n', 1)[0]!.split(',').length;
  appendFileSync(
    join(sources, 'networks.csv'),
    `127.0.0.64/26,company,900001,High,United States,California,San Francisco${','.repeat(Math.max(0, columns - 7))}\n`,
  );
  await buildDataset({ in: sources, out: join(dir, 'data') });
  let cluster: LocalCluster;
  try {
    cluster = await startLocalCluster({ dir: join(dir, 'cluster'), data: join(dir, 'data'), adminToken: TEST_ADMIN_TOKEN, ...opts });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cluster.url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  return Object.assign(cluster, {
    dir,
    async customer(seed: Partial<CustomerSeed> & { id: string }) {
      await admin('POST', '/customers', { ...TEST_CUSTOMER, name: seed.id, identification_credits: 0, enrichment_credits: 0, tags: [], ...seed });
    },
    async token(customer: string, group: string, rateLimit = 1_000_000) {
      return (await admin('POST', '/tokens', { customer_id: customer, api_group: group, name: `${group} test`, rate_limit: rateLimit })).token as string;
    },
    async used(customer: string) {
      const report = (await admin('GET', `/customers/${customer}/credits`)) as { balances: { pool: 'identification' | 'enrichment'; used: number }[] };
      const of = (pool: string) => report.balances.find((b) => b.pool === pool)?.used ?? NaN;
      return { identification: of('identification'), enrichment: of('enrichment') };
    },
    accessLog() {
      try {
        return readFileSync(join(dir, 'cluster', 'nginx', 'access.log'), 'utf8')
          .split('\n')
          .filter(Boolean);
      } catch {
        return [];
      }
    },
    async close() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** A Company Identification lookup in token mode (`?ip=`), as a client-side token use sends it. */
export async function lookup(url: string, token: string, ip: string): Promise<{ status: number; match: string | null }> {
  const res = await fetch(`${url}/v3/company/details?ip=${ip}`, { headers: { authorization: `Token ${token}`, 'user-agent': BROWSER_UA } });
  const body = (await res.json().catch(() => null)) as { company?: { company_match?: string } } | null;
  return { status: res.status, match: body?.company?.company_match ?? null };
}

/** A GET from a chosen local address (the visitor nginx sees), with extra headers. */
export function getFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { localAddress, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

export { awayFromWindowEdge } from '../../server/testing/rate-window.ts';
