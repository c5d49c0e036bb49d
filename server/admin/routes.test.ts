import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, startTestServer, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${srv.url}/admin/api${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
  });

describe('admin API', () => {
  it('creates (201), lists without secrets, rotates, deactivates and deletes (204) tokens', async () => {
    const created = await admin('/tokens', { method: 'POST', body: JSON.stringify({ customer_id: 'acme', api_group: 'company-firmographics', name: 'hubspot', integrations: ['hubspot'] }) });
    expect(created.status).toBe(201);
    const body = await created.json();
    expect(body.token).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(body).toMatchObject({ id: expect.stringMatching(/^tok_/), name: 'hubspot', needs_rotation: false });

    const list = await (await admin('/tokens?customer=acme')).json();
    expect(JSON.stringify(list)).not.toContain(body.token);
    expect(list.some((t: { id: string }) => t.id === body.id)).toBe(true);

    const rotated = await (await admin(`/tokens/${body.id}/rotate`, { method: 'POST', body: '{}' })).json();
    expect(rotated.token).not.toBe(body.token);
    expect((await (await admin(`/tokens/${body.id}/deactivate`, { method: 'POST', body: '{}' })).json()).status).toBe('inactive');
    expect((await admin(`/tokens/${body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin(`/tokens/${body.id}`)).status).toBe(404);
  });

  it('flags default_existing_token for migration', async () => {
    const res = await admin('/tokens', { method: 'POST', body: JSON.stringify({ customer_id: 'acme', api_group: 'identification', name: 'default_existing_token' }) });
    expect(await res.json()).toMatchObject({ needs_rotation: true, reasons: [expect.stringMatching(/migrate/)] });
  });

  it('refuses a group the packages do not cover, with a clear message', async () => {
    await admin('/customers', { method: 'POST', body: JSON.stringify({ id: 'basic', name: 'Basic', packages: ['platform'] }) });
    const res = await admin('/tokens', { method: 'POST', body: JSON.stringify({ customer_id: 'basic', api_group: 'people-search', name: 'x' }) });
    expect(res.status).toBe(403);
    expect((await res.json()).message).toMatch(/no package that covers the people-search/);
  });

  it('generates the Lead Scoring token when a customer gets advanced', async () => {
    const res = await admin('/customers', { method: 'POST', body: JSON.stringify({ id: 'adv', name: 'Adv', packages: ['platform', 'advanced'] }) });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.lead_scoring_token.token).toMatch(/^[A-Za-z0-9]{40}$/);
    const again = await admin('/customers/adv', { method: 'PATCH', body: JSON.stringify({ packages: ['platform', 'advanced', 'sales-intelligence'] }) });
    expect((await again.json()).lead_scoring_token).toBeNull();
  });

  it('answers 422 for an invalid body and 401 without the admin credential', async () => {
    expect((await admin('/tokens', { method: 'POST', body: JSON.stringify({ customer_id: 'acme', api_group: 'nope', name: 'x' }) })).status).toBe(422);
    expect((await fetch(`${srv.url}/admin/api/tokens`)).status).toBe(401);
    expect((await fetch(`${srv.url}/admin/api/tokens`, { headers: { authorization: 'Bearer wrong-wrong-wrong-wrong' } })).status).toBe(401);
  });

  it('is safe against CSRF: cross-origin and non-JSON writes are refused', async () => {
    const cross = await admin('/tokens', { method: 'POST', body: JSON.stringify({ customer_id: 'acme', api_group: 'identification', name: 'x' }), headers: { origin: 'https://evil.example' } });
    expect(cross.status).toBe(403);
    const form = await fetch(`${srv.url}/admin/api/tokens`, { method: 'POST', body: 'customer_id=acme', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
  });

  it('reports credits per pool and usage', async () => {
    const report = await (await admin('/customers/acme/credits')).json();
    expect(report.balances.map((b: { pool: string }) => b.pool)).toEqual(['identification', 'enrichment']);
    expect((await admin('/customers/nobody/credits')).status).toBe(404);
  });
});
