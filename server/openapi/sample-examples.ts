/**
 * Regenerates ./examples.json — the OpenAPI document's examples — from real answers of a real server on
 * the sample data (data/sample), started as `npm start` starts it (demo mode, the customers of
 * data/sample/customers.json seeded): `npx tsx server/openapi/sample-examples.ts`. Run it when a response
 * shape changes; openapi.test.ts validates every example against the document, and readme-examples.test.ts
 * replays every call below against such a server and compares the answers, so a stale one fails.
 *
 * The calls are exported (`exampleCalls`, `callExample`) so the replay and the generator send the same
 * requests — the ones /docs shows (the document's request examples are `request` below plus the bodies here).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import { Address4 } from 'ip-address';
import { buildDataset } from '../../data/build/build.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../observability/logger.ts';
import { startServer } from '../serve.ts';
import type { AccessRecords } from '../state/access/service.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';

const ADMIN = 'sample-examples-admin-token-0123456789';

/** A person of the sample data (data/sample/people.csv) and their company's domain and id. */
export const SAMPLE = { email: 'nielsvos@gemeente-den-haag.nl', domain: 'gemeente-den-haag.nl', company_id: '100001' };

/** The API groups the examples call: one token of the demo customer each, with default settings (no scores, no segment names). */
export const EXAMPLE_GROUPS = [
  'identification',
  'company-firmographics',
  'lead-scoring-firmographics',
  'lead-scoring',
  'people-enrichment',
  'people-search',
] as const;
export type ExampleGroup = (typeof EXAMPLE_GROUPS)[number];

export interface ExampleCall {
  method: 'GET' | 'POST';
  path: string;
  /** A token of this API group (the demo customer's), or the admin token. */
  auth: ExampleGroup | 'admin';
  /** Form fields (sent as application/x-www-form-urlencoded, as /docs' "try it" sends them). */
  body?: Record<string, string>;
  /** The status the answer has. */
  status: number;
}

/** The request values /docs shows (examples.json `request`). */
export interface ExampleRequest {
  ip: string;
  email: string;
  domain: string;
}

/** Every answer of examples.json (but `request`) and the call that gets it, in the order they are made. */
export function exampleCalls(request: ExampleRequest) {
  const { ip, email, domain } = request;
  return {
    identification: { method: 'GET', path: `/v3/company/details?ip=${ip}`, auth: 'identification', status: 200 },
    identificationNoMatch: { method: 'GET', path: '/v3/company/details?ip=198.51.100.7', auth: 'identification', status: 200 },
    firmographicsV3: { method: 'POST', path: '/v1/enrichment/company', auth: 'company-firmographics', body: { email }, status: 200 },
    firmographicsV3NotFound: {
      method: 'POST',
      path: '/v1/enrichment/company',
      auth: 'company-firmographics',
      body: { domain: 'unknown-company.example' },
      status: 404,
    },
    firmographicsV2: { method: 'POST', path: '/v2/people/enrichment', auth: 'company-firmographics', body: { email }, status: 200 },
    combined: { method: 'POST', path: '/v2/people/full', auth: 'lead-scoring-firmographics', body: { email, country: 'Netherlands' }, status: 200 },
    leadScoring: { method: 'POST', path: '/v2/people/score', auth: 'lead-scoring', body: { email, country: 'Netherlands' }, status: 200 },
    peopleEnrichment: { method: 'POST', path: '/v2/enrichment/people', auth: 'people-enrichment', body: { email }, status: 200 },
    peopleSearch: { method: 'POST', path: '/v2/search/people', auth: 'people-search', body: { domain, page_size: '2' }, status: 200 },
    customer: { method: 'GET', path: '/admin/api/customers/demo', auth: 'admin', status: 200 },
    credits: { method: 'GET', path: '/admin/api/customers/demo/credits', auth: 'admin', status: 200 },
    tags: { method: 'GET', path: '/admin/api/tags?customer=demo', auth: 'admin', status: 200 },
  } satisfies Record<string, ExampleCall>;
}

/** One token per example group for the demo customer (what the examples are answered with). */
export async function createExampleTokens(store: AccessRecords): Promise<Record<ExampleGroup, string>> {
  const tokens = {} as Record<ExampleGroup, string>;
  for (const g of EXAMPLE_GROUPS) tokens[g] = (await store.createToken({ customer_id: 'demo', api_group: g, name: 'examples' })).secret;
  return tokens;
}

/** Sends one example call to the server at `baseUrl`; the answer's status and parsed JSON body. */
export async function callExample(
  baseUrl: string,
  call: ExampleCall,
  credentials: { tokens: Record<ExampleGroup, string>; admin: string },
): Promise<{ status: number; body: unknown }> {
  const authorization = call.auth === 'admin' ? `Bearer ${credentials.admin}` : `Token ${credentials.tokens[call.auth]}`;
  const res = await fetch(baseUrl + call.path, {
    method: call.method,
    headers: { authorization, 'user-agent': BROWSER_UA, ...(call.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(call.body ? { body: new URLSearchParams(call.body).toString() } : {}),
  });
  return { status: res.status, body: await res.json() };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-examples-'));
  try {
    await buildDataset({ in: 'data/sample', out: join(dir, 'data') });
    const config = loadConfig(
      {},
      {
        PORT: '0',
        HOST: '127.0.0.1',
        SVC_DATA: join(dir, 'data'),
        SVC_STATE: join(dir, 'svc.db'),
        SVC_EVENTS_DIR: join(dir, 'events'),
        SVC_ADMIN_TOKEN: ADMIN,
        SVC_LOG: 'silent',
        SVC_DEMO: '1',
        SVC_SEED: 'data/sample/customers.json',
      },
    );
    const srv = await startServer(config, createLogger('silent'));
    try {
      const request = { ip: firstAddressOf(SAMPLE.company_id), ...SAMPLE, tag: 'demo-web-tag' };
      const credentials = { tokens: await createExampleTokens(srv.store), admin: ADMIN };
      const examples: Record<string, unknown> = { request };
      for (const [name, call] of Object.entries(exampleCalls(request))) {
        const { status, body } = await callExample(srv.url, call, credentials);
        if (status !== call.status) throw new Error(`${name}: ${call.method} ${call.path} answered ${status}, not ${call.status}: ${JSON.stringify(body)}`);
        examples[name] = body;
      }
      writeFileSync(new URL('./examples.json', import.meta.url), JSON.stringify(examples, null, 2) + '\n');
    } finally {
      await srv.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The first address of the company's first network in data/sample/networks.csv (CIDR or range). */
function firstAddressOf(companyId: string): string {
  const rows = parse(readFileSync('data/sample/networks.csv'), { columns: true }) as { network: string; company_id: string }[];
  const row = rows.find((r) => r.company_id === companyId);
  if (!row) throw new Error(`no network of company ${companyId} in the sample data`);
  return row.network.includes('-') ? row.network.split('-')[0]! : new Address4(row.network).startAddress().address;
}

// Run as a script (not when a test imports the calls).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
