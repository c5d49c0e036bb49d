/**
 * Integration: enrichment credits through the real routes (spec "Credits"). A server of its own, so no
 * other test's exports make a record "already exported this month".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiGroup, CustomerSeed } from '../../core/customer-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FIXTURE_PEOPLE, TEST_CUSTOMER } from '../testing/fixtures.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';

const seed = (id: string, enrichment_credits: number): CustomerSeed => ({ ...TEST_CUSTOMER, id, name: id, tags: [], enrichment_credits });

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({
    companies: [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING],
    people: FIXTURE_PEOPLE,
    customers: [seed('one-credit', 1), seed('no-credit', 0), seed('other', 1000), seed('burst', 1000)],
  });
});
afterAll(() => srv?.close());

const token = async (customer: string, group: ApiGroup) => (await srv.store.createToken({ customer_id: customer, api_group: group, name: group })).secret;
const post = async (path: string, token: string, body: Record<string, string>) => {
  const res = await fetch(srv.url + path, {
    method: 'POST',
    headers: { authorization: `Token ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: await res.json() };
};
const usage = async (customer: string) => (await srv.store.usage(customer)).map(({ api, charges }) => ({ api, charges }));

describe('enrichment credits', () => {
  it('402 when the quota is exhausted; a 404 is never charged', async () => {
    const t = await token('no-credit', 'company-firmographics');
    expect((await post('/v1/enrichment/company', t, { email: 'x@unknown.example' })).status).toBe(404);
    const res = await post('/v1/enrichment/company', t, { email: 'x@northwind.example' });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ status: 'error', message: expect.stringMatching(/quota exhausted/), code: 'quota_exhausted' });
    expect((await post('/v2/enrichment/people', await token('no-credit', 'people-enrichment'), { people_id: 'P1001' })).status).toBe(402);
    expect(await usage('no-credit')).toEqual([]);
  });

  it('Lead Scoring and People Search answer at zero balance', async () => {
    expect((await post('/v2/people/score', await token('no-credit', 'lead-scoring'), { email: 'x@northwind.example', country: 'US' })).status).toBe(200);
    expect((await post('/v2/search/people', await token('no-credit', 'people-search'), { domain: 'northwind.example' })).status).toBe(200);
  });

  it('a re-export in the same month is free at zero balance; the same record through another API is charged again', async () => {
    const v3 = await token('one-credit', 'company-firmographics');
    // The first export spends the only credit.
    expect((await post('/v1/enrichment/company', v3, { email: 'a@bluepeak.example' })).status).toBe(200);
    // Same record (company 900002), same API, same month: free, though the balance is now 0.
    expect((await post('/v1/enrichment/company', v3, { email: 'b@bluepeak.example' })).status).toBe(200);
    expect((await post('/v1/enrichment/company', v3, { domain: 'bluepeak.example' })).status).toBe(200);
    // Another record: nothing left.
    expect((await post('/v1/enrichment/company', v3, { email: 'a@northwind.example' })).status).toBe(402);
    // The same record through other APIs is a new export: charged again, so 402 with nothing left.
    expect((await post('/v2/people/enrichment', v3, { email: 'a@bluepeak.example' })).status).toBe(402);
    expect((await post('/v2/people/full', await token('one-credit', 'lead-scoring-firmographics'), { email: 'a@bluepeak.example' })).status).toBe(402);
    expect(await usage('one-credit')).toEqual([{ api: 'company-firmographics-v3', charges: 1 }]);
  });

  it('People Enrichment charges the people id once a month', async () => {
    const t = await token('other', 'people-enrichment');
    for (const body of [{ people_id: 'P1002' }, { email: 'max.mustermann@bluepeak.example' }, { linkedin_url: 'linkedin.com/in/max-mustermann' }] as Record<
      string,
      string
    >[]) {
      expect((await post('/v2/enrichment/people', t, body)).status).toBe(200);
    }
    expect(await usage('other')).toEqual([{ api: 'people-enrichment', charges: 1 }]);
  });

  // Known defect of the credit ledger (server/credits/rules.ts `dedupeKey`, server/state): the dedupe
  // key is `api|record|month` without the customer, so one customer's export makes the same record free
  // for every other customer that month. Remove `.fails` once the key includes the customer id.
  it("another customer's export does not make a record free", async () => {
    const first = await token('other', 'company-firmographics');
    expect((await post('/v1/enrichment/company', first, { email: 'x@northwind.example' })).status).toBe(200);
    const broke = await token('no-credit', 'company-firmographics');
    expect((await post('/v1/enrichment/company', broke, { email: 'x@northwind.example' })).status).toBe(402);
  });

  it('charges a record once under hundreds of concurrent exports (no double charge)', async () => {
    const t = (await srv.store.createToken({ customer_id: 'burst', api_group: 'company-firmographics', name: 'burst', rate_limit: 100_000 })).secret;
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post('/v1/enrichment/company', t, { email: `lead${i}@northwind.example` }).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await usage('burst')).toEqual([{ api: 'company-firmographics-v3', charges: 1 }]);
  });
});
