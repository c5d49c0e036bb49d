/** Metrics label a route by its full pattern, also when it failed inside a mounted router (the admin API). */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ env: { SVC_METRICS_PORT: '0' } });
});
afterAll(() => srv?.close());

const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json', 'user-agent': 'curl/8.5.0' };

it('labels a webhook admin route that answered an error with its full /admin/api pattern', async () => {
  // Refused by the route (not a valid endpoint): the error leaves the admin router before the answer.
  const bad = await fetch(`${srv.url}/admin/api/customers/acme/webhooks`, { method: 'POST', headers: admin, body: JSON.stringify({ url: 'not a url' }) });
  expect(bad.status).toBeGreaterThanOrEqual(400);
  const missing = await fetch(`${srv.url}/admin/api/tokens/nope`, { headers: admin });
  expect(missing.status).toBe(404);
  const text = await (await fetch(`http://127.0.0.1:${srv.metricsPort}/metrics`)).text();
  const labels = [...text.matchAll(/svc_http_requests_total\{route="([^"]+)",method="(\w+)",status="(\d+)"\}/g)].map((m) => `${m[2]} ${m[1]} ${m[3]}`);
  expect(labels).toContain(`POST /admin/api/customers/:id/webhooks ${bad.status}`);
  expect(labels).toContain('GET /admin/api/tokens/:id 404');
  expect(labels.filter((l) => l.includes(' /customers/'))).toEqual([]);
});
