/** PATCH /admin/api/tags/:id/settings: the server-managed settings the per-tag bundle inlines. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  srv.request(`/admin/api/tags/${id}/settings`, {
    method: 'PATCH',
    body: JSON.stringify(body),
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json', ...headers },
  });

describe('PATCH /admin/api/tags/:id/settings', () => {
  it('replaces the settings and answers the tag', async () => {
    const settings = {
      fields: ['name', 'industry'],
      min_confidence: 'High',
      cache_ttl_ms: 3_600_000,
      consent_default: 'pending',
      anti_flicker_timeout_ms: 600,
      honor_gpc: false,
    };
    const res = await patch('acme-tag', settings);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ tag_id: 'acme-tag', settings });
    expect((await srv.store.getTag('acme-tag'))!.settings).toEqual(settings);
    expect((await (await patch('acme-tag', {})).json()).settings).toEqual({});
  });

  it('refuses invalid settings (422), unknown tags (404), no credential (401) and cross-origin writes (403)', async () => {
    expect((await patch('acme-tag', { min_confidence: 'Sure' })).status).toBe(422);
    expect((await patch('acme-tag', { anti_flicker_timeout_ms: 60_000 })).status).toBe(422);
    expect((await patch('acme-tag', { colour: 'red' })).status).toBe(422);
    expect((await patch('no-such-tag', {})).status).toBe(404);
    expect((await patch('acme-tag', {}, { authorization: '' })).status).toBe(401);
    expect((await patch('acme-tag', {}, { origin: 'https://evil.example' })).status).toBe(403);
  });
});
