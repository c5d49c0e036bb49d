/**
 * A web tag disabled and deleted over the admin API, on both state backends: a disabled tag answers lookups
 * and page views 403 with a message that says so (readable by the allowed page: CORS), its bundle URL 404
 * with a JavaScript comment, and comes back when enabled; a deleted tag is unknown everywhere (401, 404),
 * and both changes are in the customer's audit log. Permission: `tags:write` (the role matrix walks it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const PAGE = 'http://localhost:3000';

describe.each(['sqlite', 'redis'] as const)('tag disable and delete on %s', (backend) => {
  let srv: TestServer;
  let redis: RedisServer | undefined;
  let journal: string | undefined;

  const admin = (method: string, path: string, body?: unknown) =>
    srv.request(`/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const lookup = (tagId: string) => srv.request(`/v3/company/details?tag=${tagId}`, { headers: { origin: PAGE, 'user-agent': BROWSER_UA } });
  const pageView = (tagId: string) =>
    srv.request(`/v1/events?tag=${tagId}`, {
      method: 'POST',
      headers: { origin: PAGE, 'user-agent': BROWSER_UA, 'content-type': 'text/plain' },
      body: JSON.stringify({ type: 'pageview', path: '/pricing', session: 'lifecycle-1' }),
    });
  const bundle = (tagId: string) => fetch(`${srv.url}/tag/v1/${tagId}.js`);
  const newTag = async (tag_id: string) => {
    const res = await admin('POST', '/tags', { customer_id: 'acme', tag_id, allowed_domains: ['localhost'] });
    expect(res.status).toBe(201);
    return res.json();
  };
  const auditActions = async () =>
    ((await (await admin('GET', '/customers/acme/audit?from=2000-01-01&to=2100-01-01')).json()).events as { action: string; target: string }[]).map(
      (e) => `${e.action} ${e.target}`,
    );

  beforeAll(async () => {
    if (backend === 'redis') {
      redis = await startRedisServer();
      journal = mkdtempSync(join(tmpdir(), 'svc-journal-'));
    }
    srv = await startTestServer({ env: redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: journal } : {}, customers: [TEST_CUSTOMER] });
  }, 60_000);
  afterAll(async () => {
    await srv?.close();
    await redis?.close();
    if (journal) rmSync(journal, { recursive: true, force: true });
  });

  it('a new tag is enabled; disabled, it refuses lookups and page views (403, CORS, a clear message) and serves no bundle', async () => {
    expect(await newTag('acme-off')).toMatchObject({ tag_id: 'acme-off', disabled: false });
    expect((await lookup('acme-off')).status).toBe(200);
    expect((await pageView('acme-off')).status).toBe(204);
    expect((await bundle('acme-off')).status).toBe(200);

    const patched = await admin('PATCH', '/tags/acme-off', { disabled: true });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ tag_id: 'acme-off', disabled: true, allowed_domains: ['localhost'] });
    expect(await (await admin('GET', '/tags/acme-off')).json()).toMatchObject({ disabled: true });

    const refused = await lookup('acme-off');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(await refused.json()).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/web tag acme-off is disabled/) });
    const view = await pageView('acme-off');
    expect(view.status).toBe(403);
    expect((await view.json()).message).toMatch(/is disabled/);
    // A foreign page still hears only about its origin.
    const foreign = await srv.request(`/v3/company/details?tag=acme-off`, { headers: { origin: 'https://evil.example', 'user-agent': BROWSER_UA } });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).message).not.toMatch(/disabled/);

    const js = await bundle('acme-off');
    expect(js.status).toBe(404);
    expect(js.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(js.headers.get('cache-control')).toBe('no-store');
    expect(await js.text()).toBe('/* svc: disabled tag "acme-off" */\n');

    // Enabled again: answers at once.
    expect(await (await admin('PATCH', '/tags/acme-off', { disabled: false })).json()).toMatchObject({ disabled: false });
    expect((await lookup('acme-off')).status).toBe(200);
    expect((await bundle('acme-off')).status).toBe(200);
    expect((await admin('PATCH', '/tags/acme-off', { disabled: 'yes' })).status).toBe(422);
    expect(await auditActions()).toEqual(expect.arrayContaining(['tag.update acme-off']));
  });

  it('a re-import of the customer keeps a disabled tag disabled', async () => {
    await admin('PATCH', '/tags/acme-tag', { disabled: true });
    await srv.store.importCustomer(TEST_CUSTOMER);
    expect((await srv.store.getTag('acme-tag'))?.disabled).toBe(true);
    await admin('PATCH', '/tags/acme-tag', { disabled: false });
    expect((await lookup('acme-tag')).status).toBe(200);
  });

  it('DELETE: 204, audited; the id is unknown from then on (lookups 401, bundle 404, admin 404) and may be created again', async () => {
    await newTag('acme-gone');
    expect((await lookup('acme-gone')).status).toBe(200);
    const deleted = await admin('DELETE', '/tags/acme-gone');
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');

    expect((await admin('GET', '/tags/acme-gone')).status).toBe(404);
    expect(((await (await admin('GET', '/tags?customer=acme')).json()) as { tag_id: string }[]).map((t) => t.tag_id)).not.toContain('acme-gone');
    const unknown = await lookup('acme-gone');
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).message).toMatch(/unknown web tag/);
    expect((await pageView('acme-gone')).status).toBe(401);
    const js = await bundle('acme-gone');
    expect(js.status).toBe(404);
    expect(await js.text()).toBe('/* svc: unknown tag "acme-gone" */\n');

    expect((await admin('DELETE', '/tags/acme-gone')).status).toBe(404);
    expect((await admin('PATCH', '/tags/acme-gone', { disabled: true })).status).toBe(404);
    expect(await auditActions()).toEqual(expect.arrayContaining(['tag.create acme-gone', 'tag.delete acme-gone']));

    // Its id is free again (no record of it is left behind).
    expect(await newTag('acme-gone')).toMatchObject({ tag_id: 'acme-gone', disabled: false });
    expect((await lookup('acme-gone')).status).toBe(200);
  });

  it('state export carries the flag and import restores it', async () => {
    await newTag('acme-exported');
    await admin('PATCH', '/tags/acme-exported', { disabled: true });
    const entries = [];
    for await (const e of srv.store.exportState()) if (e.type === 'tag' && e.record.tag_id === 'acme-exported') entries.push(e);
    expect(entries).toEqual([expect.objectContaining({ record: expect.objectContaining({ disabled: true }) })]);
  });
});
