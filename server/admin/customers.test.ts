/** Customers over the admin API: create never replaces, PATCH changes only the fields given, dates are real. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const admin = (path: string, method = 'GET', body?: unknown) =>
  srv.request(`/admin/api${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'user-agent': 'curl/8.5.0', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  });

describe('POST /admin/api/customers', () => {
  it('answers 409 for an existing id and changes nothing (quotas, products, segments, tags kept)', async () => {
    const before = await srv.store.getCustomer('acme');
    const res = await admin('/customers', 'POST', { id: 'acme', name: 'Oops', packages: ['platform'] });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ status: 'error', message: expect.stringMatching(/customer acme already exists.*update/), code: 'conflict' });
    const after = await srv.store.getCustomer('acme');
    expect(after).toEqual(before);
    expect(after!.identification_credits).toBe(TEST_CUSTOMER.identification_credits);
    expect(after!.products).toHaveLength(1);
    expect((await srv.store.getTag('acme-tag'))!.customer_id).toBe('acme');
  });

  it('creates a new customer (201) with a given contract start, and refuses dates that do not exist (422)', async () => {
    const res = await admin('/customers', 'POST', { id: 'newco', name: 'NewCo', packages: ['platform'], contract_start: '2024-02-29' });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ id: 'newco', contract_start: '2024-02-29', lead_scoring_token: null });
    for (const contract_start of ['2026-02-30', '2026-13-01', '2025-02-29', '2026-1-1', 'soon']) {
      const bad = await admin('/customers', 'POST', { id: `bad-${contract_start}`.replace(/[^A-Za-z0-9-]/g, ''), name: 'Bad', contract_start });
      expect(bad.status, contract_start).toBe(422);
      expect((await bad.json()).message).toMatch(/contract_start/);
    }
  });
});

describe('PATCH /admin/api/customers/:id', () => {
  it('changes only the fields given', async () => {
    await srv.store.importCustomer({ ...TEST_CUSTOMER, id: 'patchme', name: 'Patch Me', tags: [] });
    const res = await admin('/customers/patchme', 'PATCH', { identification_credits: 5000, contract_start: '2026-07-01' });
    expect(res.status).toBe(200);
    const body = await res.json();
    const original = await srv.store.getCustomer('acme');
    expect(body).toMatchObject({
      id: 'patchme',
      name: 'Patch Me',
      identification_credits: 5000,
      contract_start: '2026-07-01',
      enrichment_credits: TEST_CUSTOMER.enrichment_credits,
    });
    expect(body.packages).toEqual(original!.packages);
    expect(body.products).toEqual(original!.products);
    expect(body.segments).toEqual(original!.segments);
    expect(body.hot_accounts).toEqual(original!.hot_accounts);
    expect((await srv.store.getCustomer('patchme'))!.identification_credits).toBe(5000);

    const renamed = await (await admin('/customers/patchme', 'PATCH', { name: 'Patched' })).json();
    expect(renamed).toMatchObject({ name: 'Patched', identification_credits: 5000, contract_start: '2026-07-01' });
  });

  it('answers 404 for an unknown id and 422 for invalid fields, changing nothing', async () => {
    expect((await admin('/customers/nobody', 'PATCH', { name: 'X' })).status).toBe(404);
    const before = await srv.store.getCustomer('acme');
    for (const body of [
      { contract_start: '2026-02-30' },
      { contract_start: '2026-13-01' },
      { identification_credits: -1 },
      { packages: ['gold'] },
      { id: 'other' },
      { name: '' },
    ]) {
      const res = await admin('/customers/acme', 'PATCH', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(await res.json()).toMatchObject({ status: 'error' });
    }
    expect(await srv.store.getCustomer('acme')).toEqual(before);
  });
});
