/**
 * Regenerates ./examples.json — the OpenAPI document's examples — from real answers of a real server on
 * the sample data (data/sample): `npx tsx server/openapi/sample-examples.ts`. Run it when a response
 * shape changes; openapi.test.ts validates every example against the document, so a stale one fails.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { Address4 } from 'ip-address';
import { buildDataset } from '../../data/build/build.ts';
import { readCustomersFile } from '../../data/sources/read.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../http/logger.ts';
import { startServer } from '../serve.ts';

const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const ADMIN = 'sample-examples-admin-token-0123456789';

/** A person of the sample data (data/sample/people.csv) and their company's domain and id. */
const SAMPLE = { email: 'nielsvos@gemeente-den-haag.nl', domain: 'gemeente-den-haag.nl', company_id: '100001' };

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-examples-'));
  try {
    await buildDataset({ in: 'data/sample', out: join(dir, 'data') });
    const config = loadConfig({}, { PORT: '0', HOST: '127.0.0.1', SVC_DATA: join(dir, 'data'), SVC_STATE: join(dir, 'svc.db'), SVC_ADMIN_TOKEN: ADMIN, SVC_LOG: 'silent' });
    const srv = await startServer(config, createLogger('silent'));
    try {
      for (const c of readCustomersFile('data/sample/customers.json').customers) await srv.store.importCustomer(c);
      const ip = firstAddressOf(SAMPLE.company_id);
      const tokens: Record<string, string> = {};
      for (const g of ['identification', 'company-firmographics', 'lead-scoring-firmographics', 'lead-scoring', 'people-enrichment', 'people-search']) {
        tokens[g] = (await srv.store.createToken({ customer_id: 'demo', api_group: g as never, name: 'examples' })).secret;
      }
      const get = async (path: string, token: string) => (await fetch(srv.url + path, { headers: { authorization: `Token ${token}`, 'user-agent': BROWSER_UA } })).json();
      const post = async (path: string, token: string, body: Record<string, string>) =>
        (await fetch(srv.url + path, { method: 'POST', headers: { authorization: `Token ${token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() })).json();
      const examples = {
        request: { ip, ...SAMPLE, tag: 'demo-web-tag' },
        identification: await get(`/v3/company/details?ip=${ip}`, tokens.identification),
        identificationNoMatch: await get('/v3/company/details?ip=198.51.100.7', tokens.identification),
        firmographicsV3: await post('/v1/enrichment/company', tokens['company-firmographics'], { email: SAMPLE.email }),
        firmographicsV3NotFound: await post('/v1/enrichment/company', tokens['company-firmographics'], { domain: 'unknown-company.example' }),
        firmographicsV2: await post('/v2/people/enrichment', tokens['company-firmographics'], { email: SAMPLE.email }),
        combined: await post('/v2/people/full', tokens['lead-scoring-firmographics'], { email: SAMPLE.email }),
        leadScoring: await post('/v2/people/score', tokens['lead-scoring'], { email: SAMPLE.email, country: 'Netherlands' }),
        peopleEnrichment: await post('/v2/enrichment/people', tokens['people-enrichment'], { email: SAMPLE.email }),
        peopleSearch: await post('/v2/search/people', tokens['people-search'], { domain: SAMPLE.domain, page_size: '2' }),
        customer: await (await fetch(`${srv.url}/admin/api/customers/demo`, { headers: { authorization: `Bearer ${ADMIN}` } })).json(),
        credits: await (await fetch(`${srv.url}/admin/api/customers/demo/credits`, { headers: { authorization: `Bearer ${ADMIN}` } })).json(),
        tags: await (await fetch(`${srv.url}/admin/api/tags?customer=demo`, { headers: { authorization: `Bearer ${ADMIN}` } })).json(),
      };
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

await main();
