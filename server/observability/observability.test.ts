/**
 * Logs, metrics and health on a real server (real HTTP, real SQLite state): the request log line, the
 * request id, masking (every secret this file creates is grepped for in everything it logged), /metrics
 * with its guard and its separate port, /healthz and /readyz.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { FIXTURE_PEOPLE } from '../testing/fixtures.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { createLogger } from './logger.ts';

let srv: TestServer;
let logged = '';
const secrets: string[] = [TEST_ADMIN_TOKEN];
let idToken: string;
let enrichToken: string;
const CURL = { 'user-agent': 'curl/8.5.0' };
// A CRM looking up its visitors' addresses forwards their browser's User-Agent (curl's would be a bot: no company).

beforeAll(async () => {
  const sink = new PassThrough();
  sink.on('data', (d: Buffer) => (logged += d.toString()));
  srv = await startTestServer({
    env: { SVC_TRUST_PROXY: 'loopback', SVC_METRICS_PORT: '0' },
    people: FIXTURE_PEOPLE,
    log: createLogger('info', { destination: sink }),
  });
  // Tokens are created the way an operator does: through the admin API.
  const create = async (api_group: string) => {
    const res = await fetch(`${srv.url}/admin/api/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer_id: 'acme', api_group, name: 'crm' }),
    });
    const secret = ((await res.json()) as { token: string }).token;
    secrets.push(secret);
    return secret;
  };
  idToken = await create('identification');
  enrichToken = await create('company-firmographics');
});
afterAll(() => srv?.close());

const lines = () =>
  logged
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const requestLine = (id: string) => lines().find((l) => l.msg === 'request' && l.request_id === id);
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('request log', () => {
  it('writes one JSON line per request with id, method, route, status, duration, customer and credits', async () => {
    const res = await fetch(`${srv.url}/v3/company/details?ip=${IPS.northwind}`, {
      headers: { 'user-agent': BROWSER_UA, authorization: `Token ${idToken}`, 'x-request-id': 'crm-call-42' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('crm-call-42');
    await settle();
    expect(requestLine('crm-call-42')).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/v3/company/details',
      path: '/v3/company/details',
      status: 200,
      duration_ms: expect.any(Number),
      customer: 'acme',
      credits: 1,
    });
  });

  it('generates a request id when none (or an unsafe one) is sent, and logs routes by pattern', async () => {
    const res = await fetch(`${srv.url}/admin/api/customers/acme`, {
      headers: { ...CURL, authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-request-id': 'bad id "forged": true' },
    });
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await settle();
    expect(requestLine(id)).toMatchObject({ route: '/admin/api/customers/:id', status: 200, customer: null, credits: 0 });
  });

  it('never logs a secret, the admin token or a full email address', async () => {
    const email = 'Jane.Doe@northwind.example';
    const form = (body: Record<string, string>, token: string) =>
      fetch(`${srv.url}/v1/enrichment/company`, {
        method: 'POST',
        headers: { 'user-agent': 'python-requests/2.31.0', authorization: `Token ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body).toString(),
      });
    expect((await form({ email }, enrichToken)).status).toBe(200);
    expect((await form({ email }, 'WrongWrongWrongWrongWrongWrongWrongWrong')).status).toBe(401);
    // Secrets in places a careless integrator puts them: the query string and the path.
    await fetch(`${srv.url}/v3/company/details?token=${idToken}&email=${encodeURIComponent(email)}`, { headers: CURL });
    await fetch(`${srv.url}/lookup/${email}/${idToken}`, { headers: CURL });
    await fetch(`${srv.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}x` } });
    await settle();
    expect(logged.length).toBeGreaterThan(0);
    for (const s of secrets) expect(logged).not.toContain(s);
    expect(logged.toLowerCase()).not.toContain(email.toLowerCase());
    expect(logged).toContain('J***@northwind.example');
  });
});

describe('metrics', () => {
  it('refuses /metrics without the admin token (401 unauthenticated)', async () => {
    const res = await fetch(`${srv.url}/metrics`, { headers: CURL });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ status: 'error', message: expect.stringMatching(/Bearer/), code: 'unauthenticated' });
  });

  it('reports requests, latency, credits, refusals, data version and event-loop lag', async () => {
    const res = await fetch(`${srv.url}/metrics`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/svc_http_requests_total\{route="\/v3\/company\/details",method="GET",status="200"\} \d+/);
    expect(text).toMatch(/svc_http_request_duration_seconds_bucket\{le="0\.005",route="\/v3\/company\/details",method="GET"\} \d+/);
    expect(text).toMatch(/svc_credits_charged_total\{pool="identification",api="identification"\} [1-9]/);
    expect(text).toMatch(/svc_credits_charged_total\{pool="enrichment",api="[a-z0-9-]+"\} [1-9]/);
    expect(text).toContain('# TYPE svc_rate_limit_refusals_total counter');
    expect(text).toContain('# TYPE svc_state_store_errors_total counter');
    expect(text).toMatch(/svc_data_built_timestamp_seconds \d{10}/);
    expect(text).toMatch(/svc_data_age_seconds \d/);
    expect(text).toMatch(/nodejs_eventloop_lag_seconds \d/);
  });

  it('serves /metrics unauthenticated on SVC_METRICS_PORT', async () => {
    const res = await fetch(`http://127.0.0.1:${srv.metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('svc_http_requests_total');
    expect((await fetch(`http://127.0.0.1:${srv.metricsPort}/`)).status).toBe(404);
  });
});

describe('health', () => {
  it('is alive and ready with data and state', async () => {
    expect(await (await fetch(`${srv.url}/healthz`, { headers: CURL })).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${srv.url}/readyz`, { headers: CURL });
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { data: 'ok', state: 'ok' } });
  });
});

describe('when the state store fails', () => {
  it('answers 503, counts the error and reports not ready with the reason', async () => {
    const errors = async () => {
      const text = await (await fetch(`http://127.0.0.1:${srv.metricsPort}/metrics`)).text();
      return [...text.matchAll(/^svc_state_store_errors_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
    };
    const before = await errors();
    await srv.store.close();
    const res = await fetch(`${srv.url}/v1/enrichment/company`, {
      method: 'POST',
      headers: { 'user-agent': 'python-requests/2.31.0', authorization: `Token ${enrichToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=someone%40northwind.example',
    });
    expect([401, 503]).toContain(res.status);
    const ready = await fetch(`${srv.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/^not ready: state store: unreachable/),
      code: 'unavailable',
      checks: { data: 'ok' },
    });
    expect(await errors()).toBeGreaterThan(before);
  });
});
