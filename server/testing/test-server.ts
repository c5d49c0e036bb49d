/**
 * A real server for integration tests: fixture sources built with `data build` into a temp folder, a temp
 * SQLite state, real HTTP on an ephemeral port.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { type InjectOptions, type Response as InjectResponse, inject } from 'light-my-request';
import type { NewToken } from '../../core/access-records.ts';
import type { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import type { CustomerSeed } from '../../core/customer-records.ts';
import { buildDataset } from '../../data/build/build.ts';
import {
  COMPANY_COLUMNS,
  DOMAIN_COLUMNS,
  type DomainRow,
  ENGAGEMENT_COLUMNS,
  type EngagementRow,
  NETWORK_COLUMNS,
  PERSON_COLUMNS,
} from '../../data/sources/schema.ts';
import { type Config, loadConfig } from '../config.ts';
import { createLogger, type Logger } from '../observability/logger.ts';
import { type RunningServer, type StartOptions, startServer } from '../serve.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, TEST_CUSTOMER } from './fixtures.ts';

/** Addresses of the fixture networks: what tests ask about. */
export const IPS = {
  northwind: '23.10.1.20', // 23.10.1.0/24, company 900001 (Enterprise Software, hot)
  northwindBranch: '23.10.200.50', // inside ISP 23.10.0.0/16 but in the company's nested range
  bluepeak: '51.20.0.5', // company 900002 (excluded, EMEA Manufacturing)
  isp: '23.10.7.7', // ISP 23.10.0.0/16
  hosting: '34.5.6.7',
  bot: '66.249.66.1',
  nowhere: '203.0.113.9',
  /** IPv6 (our extension to the spec, docs/api.md): the index is an IPv6 tree because of these networks. */
  northwind6: '2001:db8:100:1::20', // 2001:db8:100:1::/64, company 900001, inside ISP 2001:db8:100::/40
  isp6: '2001:db8:100:ff::7',
  nowhere6: '2001:db8:ffff::9',
} as const;

const NETWORKS = [
  { network: '23.10.0.0/16', kind: 'isp', company_id: '', confidence: 'High', country: 'United States', state: 'Virginia', city: 'Ashburn' },
  {
    network: '23.10.1.0/24',
    kind: 'company',
    company_id: '900001',
    confidence: 'Very High',
    country: 'United States',
    state: 'California',
    city: 'San Francisco',
  },
  {
    network: '23.10.200.10-23.10.200.99',
    kind: 'company',
    company_id: '900001',
    confidence: 'Moderate',
    country: 'United States',
    state: 'New York',
    city: 'New York',
  },
  { network: '51.20.0.0/24', kind: 'company', company_id: '900002', confidence: 'High', country: 'Germany', state: 'Bavaria', city: 'Munich' },
  { network: '34.5.0.0/16', kind: 'hosting', company_id: '', confidence: 'High', country: 'United States', state: 'Oregon', city: 'The Dalles' },
  { network: '66.249.64.0/19', kind: 'bot', company_id: '', confidence: 'Very High', country: 'United States', state: '', city: '' },
  { network: '2001:db8:100::/40', kind: 'isp', company_id: '', confidence: 'High', country: 'United States', state: 'Virginia', city: 'Ashburn' },
  {
    network: '2001:db8:100:1::/64',
    kind: 'company',
    company_id: '900001',
    confidence: 'Very High',
    country: 'United States',
    state: 'California',
    city: 'San Francisco',
  },
];

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestServer extends RunningServer {
  dir: string;
  /**
   * A request through the server's own request listener, in-process (light-my-request): for route tests
   * where the socket is not what is tested. The peer address is 127.0.0.1. Routes of the table only: the
   * Express app shell (static files, tag bundle, docs, its 404s) swaps the response's prototype, which
   * light-my-request's response cannot follow (its body reads empty): test those over the socket.
   */
  inject(opts: InjectOptions): Promise<InjectResponse>;
  /**
   * `fetch(srv.url + path, init)` made with `inject`, answered as a fetch `Response`: route tests written
   * against fetch move in-process by swapping the call. Sends the headers Node's fetch sends (the host,
   * accept, accept-language, sec-fetch-mode, user-agent `node`, the body's content type) but no
   * `accept-encoding`: the body comes back as the server wrote it. Follows no redirect (as
   * `redirect: 'manual'`). Routes of the table only, as inject.
   */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Rewrites the fixture sources with these companies and runs `data build` into the served folder. */
  rebuild(companies: CompanyRow[]): Promise<void>;
}

export function writeFixtureSources(sources: string, companies: CompanyRow[] = [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING]): void {
  mkdirSync(sources, { recursive: true });
  writeFileSync(join(sources, 'companies.csv'), stringify(companies, { header: true, columns: COMPANY_COLUMNS as string[] }));
  writeFileSync(join(sources, 'networks.csv'), stringify(NETWORKS, { header: true, columns: [...NETWORK_COLUMNS] }));
  writeFileSync(join(sources, 'intent.csv'), 'company_id,topic,strength,observed_at\n900001,customer data platform,80,2026-10-20\n');
}

/** Optional sources beyond the fixture companies and networks (people-level APIs): written only when given. */
export interface ExtraSources {
  people?: PersonRow[];
  domains?: DomainRow[];
  engagement?: EngagementRow[];
}

function writeExtraSources(sources: string, extra: ExtraSources): void {
  if (extra.people) writeFileSync(join(sources, 'people.csv'), stringify(extra.people, { header: true, columns: PERSON_COLUMNS as string[] }));
  if (extra.domains) writeFileSync(join(sources, 'domains.csv'), stringify(extra.domains, { header: true, columns: [...DOMAIN_COLUMNS] }));
  if (extra.engagement) writeFileSync(join(sources, 'engagement.csv'), stringify(extra.engagement, { header: true, columns: [...ENGAGEMENT_COLUMNS] }));
}

export async function startTestServer(
  opts: {
    customers?: CustomerSeed[];
    companies?: CompanyRow[];
    env?: Partial<Record<keyof Config, string>>;
    now?: () => number;
    log?: Logger;
    /** The CRM clients' rates and time budgets, the schedule's tick (server/serve.ts StartOptions). */
    crm?: StartOptions['crm'];
    /** A folder of source files to build the served dataset from instead of the fixtures' (e.g. `data/sample`). */
    sources?: string;
  } & ExtraSources = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const sources = join(dir, 'sources');
  const data = join(dir, 'data');
  writeFixtureSources(sources, opts.companies);
  writeExtraSources(sources, opts);
  await buildDataset({ in: opts.sources ?? sources, out: data });
  const config = loadConfig(
    {},
    {
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_DATA: data,
      SVC_STATE: join(dir, 'svc.db'),
      SVC_EVENTS_DIR: join(dir, 'events'),
      SVC_JOBS_DIR: join(dir, 'jobs'),
      SVC_LOG: 'error',
      SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      SVC_WEBHOOK_ALLOW_PRIVATE: '1',
      ...opts.env,
    },
  );
  const running = await startServer(config, opts.log ?? createLogger('error'), { now: opts.now, crm: opts.crm });
  for (const c of opts.customers ?? [TEST_CUSTOMER]) await running.store.importCustomer(c);
  const listener = running.server.listeners('request')[0] as RequestListener;
  return {
    ...running,
    dir,
    inject: (injectOpts) => inject(listener, injectOpts),
    request: (path, init) => injectAsFetch(listener, running.url, path, init),
    async rebuild(companies) {
      writeFixtureSources(sources, companies);
      await buildDataset({ in: sources, out: data });
    },
    async close() {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Statuses whose answer has no body: a fetch Response refuses one. */
const NO_BODY = new Set([101, 204, 205, 304]);

async function injectAsFetch(listener: RequestListener, base: string, path: string, init: RequestInit = {}): Promise<Response> {
  // A Request reads the init as fetch would: header names lower-cased, a body's content type and bytes.
  const req = new Request(new URL(path, base), init);
  const payload = req.body === null ? undefined : Buffer.from(await req.arrayBuffer());
  const res = await inject(listener, {
    method: req.method as InjectOptions['method'],
    url: path,
    headers: {
      host: new URL(base).host,
      accept: '*/*',
      'accept-language': '*',
      'sec-fetch-mode': 'cors',
      'user-agent': 'node',
      ...Object.fromEntries(req.headers),
    },
    ...(payload === undefined ? {} : { payload }),
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, String(one));
  }
  const empty = NO_BODY.has(res.statusCode) || req.method === 'HEAD';
  return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, statusText: res.statusMessage, headers });
}

/**
 * `token(customer, group, opts)` for route tests: one token per (customer, group, options), created on
 * first use in the server `server()` returns (read lazily: tests assign it in beforeAll).
 */
export function cachedTokens(server: () => TestServer) {
  const tokens = new Map<string, string>();
  return async (customer: string, group: NewToken['api_group'], opts: Partial<Omit<NewToken, 'customer_id' | 'api_group' | 'name'>> = {}): Promise<string> => {
    const key = `${customer}/${group}/${JSON.stringify(opts)}`;
    if (!tokens.has(key)) tokens.set(key, (await server().store.createToken({ customer_id: customer, api_group: group, name: key, ...opts })).secret);
    return tokens.get(key)!;
  };
}
