import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const admin = (path: string, init: RequestInit = {}) =>
  srv.request(`/admin/api${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...(init.headers as Record<string, string>),
    },
  });

describe('admin API', () => {
  it('creates (201), lists without secrets, rotates, deactivates and deletes (204) tokens', async () => {
    const created = await admin('/tokens', {
      method: 'POST',
      body: JSON.stringify({ customer_id: 'acme', api_group: 'company-firmographics', name: 'hubspot', integrations: ['hubspot'] }),
    });
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
    const res = await admin('/tokens', {
      method: 'POST',
      body: JSON.stringify({ customer_id: 'acme', api_group: 'identification', name: 'default_existing_token' }),
    });
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
    expect((await srv.request(`/admin/api/tokens`)).status).toBe(401);
    expect((await srv.request(`/admin/api/tokens`, { headers: { authorization: 'Bearer wrong-wrong-wrong-wrong' } })).status).toBe(401);
  });

  it('is safe against CSRF: cross-origin and non-JSON writes are refused', async () => {
    const cross = await admin('/tokens', {
      method: 'POST',
      body: JSON.stringify({ customer_id: 'acme', api_group: 'identification', name: 'x' }),
      headers: { origin: 'https://evil.example' },
    });
    expect(cross.status).toBe(403);
    const form = await srv.request(`/admin/api/tokens`, {
      method: 'POST',
      body: 'customer_id=acme',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });

  it('reports credits per pool and usage', async () => {
    const report = await (await admin('/customers/acme/credits')).json();
    expect(report.balances.map((b: { pool: string }) => b.pool)).toEqual(['identification', 'enrichment']);
    expect((await admin('/customers/nobody/credits')).status).toBe(404);
  });
});

/** A POST as HTTP clients send one, over a raw connection: exactly these header lines, then `body`. */
function rawPost(path: string, headerLines: string[], body = ''): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.end(
        [
          `POST /admin/api${path} HTTP/1.1`,
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${TEST_ADMIN_TOKEN}`,
          'Connection: close',
          ...headerLines,
          '',
          body,
        ].join('\r\n'),
      );
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]), text: answer.slice(answer.indexOf('\r\n\r\n') + 4) }));
  });
}

/** A POST through node:http, the way HTTP libraries send a call without a body: `Content-Length: 0`. */
function emptyPost(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${srv.url}/admin/api${path}`,
      { method: 'POST', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-length': '0', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('token actions without a body (deactivate, activate, rotate)', () => {
  const newToken = async () =>
    (await (
      await admin('/tokens', { method: 'POST', body: JSON.stringify({ customer_id: 'acme', api_group: 'company-firmographics', name: 'crm' }) })
    ).json()) as { id: string; token: string };
  const statusOf = async (id: string) => ((await (await admin(`/tokens/${id}`)).json()) as { status: string }).status;
  const enrich = (secret: string) =>
    srv.request(`/v1/enrichment/company`, {
      method: 'POST',
      headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
      body: '{"domain":"northwind.example"}',
    });

  it.each([
    ['curl -X POST -H "Content-Type: application/json" (no length)', ['Content-Type: application/json']],
    ['curl -X POST (no type, no length)', []],
    ['Content-Length: 0 with a JSON type', ['Content-Type: application/json', 'Content-Length: 0']],
    ['Content-Length: 0 without a type', ['Content-Length: 0']],
    ['Content-Length: 0 with a form type', ['Content-Type: application/x-www-form-urlencoded', 'Content-Length: 0']],
  ])('really deactivates and activates the token when sent as %s', async (_client, headerLines) => {
    const { id, token } = await newToken();
    const off = await rawPost(`/tokens/${id}/deactivate`, headerLines);
    expect(off.status).toBe(200);
    expect(JSON.parse(off.text)).toMatchObject({ id, status: 'inactive' });
    expect(await statusOf(id)).toBe('inactive');
    expect((await enrich(token)).status).toBe(401);
    expect((await rawPost(`/tokens/${id}/activate`, headerLines)).status).toBe(200);
    expect(await statusOf(id)).toBe('active');
  });

  it('works from node:http and python-requests-like calls (Content-Length: 0), with or without Content-Type, rotate included', async () => {
    const { id, token } = await newToken();
    expect(await emptyPost(`/tokens/${id}/deactivate`, { 'content-type': 'application/json' })).toBe(200);
    expect(await statusOf(id)).toBe('inactive');
    expect(await emptyPost(`/tokens/${id}/activate`, {})).toBe(200);
    expect(await statusOf(id)).toBe('active');
    expect(await emptyPost(`/tokens/${id}/rotate`, {})).toBe(200);
    expect((await enrich(token)).status).toBe(401);
    const viaFetch = await fetch(`${srv.url}/admin/api/tokens/${id}/deactivate`, { method: 'POST', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(viaFetch.status).toBe(200);
    expect(await statusOf(id)).toBe('inactive');
  });

  it('still refuses a body that is not JSON (415) and a cross-origin call (403), leaving the token as it was', async () => {
    const { id } = await newToken();
    const text = await rawPost(`/tokens/${id}/deactivate`, ['Content-Type: text/plain', 'Content-Length: 2'], 'hi');
    expect(text.status).toBe(415);
    expect(JSON.parse(text.text)).toEqual({ status: 'error', message: expect.stringMatching(/send JSON/), code: 'unsupported_type' });
    expect((await rawPost(`/tokens/${id}/deactivate`, ['Content-Length: 2'], '{}')).status).toBe(415);
    const cross = await rawPost(`/tokens/${id}/deactivate`, ['Origin: https://evil.example']);
    expect(cross.status).toBe(403);
    expect(JSON.parse(cross.text)).toMatchObject({ code: 'forbidden' });
    expect(await statusOf(id)).toBe('active');
  });
});
