import { describe, expect, it } from 'vitest';
import { AdminApiError, adminClient, authClient, type Fetch, onUnauthorized } from './admin-client.ts';

interface Call {
  url: string;
  init: RequestInit;
}

function fakeFetch(answer: (call: Call) => Response): { fetch: Fetch; calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    fetch: async (url, init = {}) => {
      const call = { url, init };
      calls.push(call);
      return answer(call);
    },
  };
}
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const headers = (c: Call) => c.init.headers as Record<string, string>;

describe('adminClient', () => {
  it('sends the bearer token, JSON bodies on writes, and no cookies', async () => {
    const f = fakeFetch(() => json(201, { id: 'tok_1', token: 'x'.repeat(40) }));
    const api = adminClient('admin-secret', f.fetch);
    await api.createToken({ customer_id: 'demo', api_group: 'identification', name: 'web' });
    await api.setTokenActive('tok_1', false);
    await api.setTokenActive('tok_1', true);
    await api.rotateToken('tok_1');
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'POST /admin/api/tokens',
      'POST /admin/api/tokens/tok_1/deactivate',
      'POST /admin/api/tokens/tok_1/activate',
      'POST /admin/api/tokens/tok_1/rotate',
    ]);
    for (const c of f.calls) {
      expect(headers(c)).toMatchObject({ authorization: 'Bearer admin-secret', 'content-type': 'application/json' });
      expect(c.init.credentials).toBe('omit');
    }
    expect(JSON.parse(f.calls[0].init.body as string)).toEqual({ customer_id: 'demo', api_group: 'identification', name: 'web' });
    expect(f.calls[1].init.body).toBe('{}');
  });

  it('escapes ids in paths and reads lists with GET', async () => {
    const f = fakeFetch(() => json(200, []));
    const api = adminClient('t', f.fetch);
    await api.tokens('a b/c');
    await api.credits('demo');
    await api.customers();
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET /admin/api/tokens?customer=a%20b%2Fc',
      'GET /admin/api/customers/demo/credits',
      'GET /admin/api/customers',
    ]);
    expect(headers(f.calls[0])['content-type']).toBeUndefined();
  });

  it('edits, disables and deletes tags; reads, previews and changes segments', async () => {
    const f = fakeFetch((c) => (c.init.method === 'DELETE' ? new Response(null, { status: 204 }) : json(200, {})));
    const api = adminClient('t', f.fetch);
    await api.updateTag('tag 1', { disabled: true, rate_limit: 10 });
    await api.deleteTag('tag 1');
    await api.segments('demo');
    await api.previewSegment('demo', { industry: ['Software'] });
    await api.createSegment('demo', { name: 'S', match: { region: ['EMEA'] } });
    await api.updateSegment('demo', 105, { name: 'T' });
    await api.deleteSegment('demo', 105);
    expect(f.calls.map((c) => `${c.init.method} ${c.url} ${c.init.body ?? ''}`.trim())).toEqual([
      'PATCH /admin/api/tags/tag%201 {"disabled":true,"rate_limit":10}',
      'DELETE /admin/api/tags/tag%201',
      'GET /admin/api/customers/demo/segments',
      'POST /admin/api/customers/demo/segments/preview {"match":{"industry":["Software"]}}',
      'POST /admin/api/customers/demo/segments {"name":"S","match":{"region":["EMEA"]}}',
      'PATCH /admin/api/customers/demo/segments/105 {"name":"T"}',
      'DELETE /admin/api/customers/demo/segments/105',
    ]);
  });

  it('answers undefined for a 204 delete', async () => {
    const f = fakeFetch(() => new Response(null, { status: 204 }));
    await expect(adminClient('t', f.fetch).deleteToken('tok_1')).resolves.toBeUndefined();
    expect(f.calls[0].init.method).toBe('DELETE');
  });

  it("turns error answers into AdminApiError with the server's message", async () => {
    const api = adminClient(
      't',
      fakeFetch(() => json(403, { status: 'error', message: 'customer basic has no package that covers the people-search API group' })).fetch,
    );
    await expect(api.customers()).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/no package/) });
    const html = adminClient('t', fakeFetch(() => new Response('<h1>Bad gateway</h1>', { status: 502, statusText: 'Bad Gateway' })).fetch);
    await expect(html.customers()).rejects.toMatchObject({ status: 502, message: 'the server answered 502 Bad Gateway' });
    const down = adminClient('t', async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(down.customers()).rejects.toMatchObject({ status: 0, message: 'cannot reach the server: Failed to fetch' });
  });

  it('onUnauthorized reports a 401 with its message and still rejects; other errors pass through', async () => {
    const seen: string[] = [];
    const api401 = onUnauthorized(adminClient('t', fakeFetch(() => json(401, { status: 'error', message: 'admin API: send a token' })).fetch), (m) =>
      seen.push(m),
    );
    await expect(api401.tokens('demo')).rejects.toBeInstanceOf(AdminApiError);
    expect(seen).toEqual(['admin API: send a token']);
    const api500 = onUnauthorized(adminClient('t', fakeFetch(() => json(500, { status: 'error', message: 'internal server error' })).fetch), (m) =>
      seen.push(m),
    );
    await expect(api500.tokens('demo')).rejects.toMatchObject({ status: 500 });
    expect(seen).toHaveLength(1);
  });

  it('without the admin token rides on the session cookie: no Authorization header, credentials same-origin', async () => {
    const f = fakeFetch(() => json(200, []));
    const api = adminClient(null, f.fetch);
    await api.customers();
    await api.users('demo');
    expect(headers(f.calls[0]).authorization).toBeUndefined();
    for (const c of f.calls) expect(c.init.credentials).toBe('same-origin');
  });

  it('calls the users, single sign-on, audit and tag-settings routes', async () => {
    const f = fakeFetch((c) => (c.init.method === 'DELETE' ? new Response(null, { status: 204 }) : json(200, {})));
    const api = adminClient(null, f.fetch);
    await api.invite('demo', { email: 'm@acme.test', role: 'marketer' });
    await api.setUserRole('demo', 'usr_1', 'admin');
    await api.removeUser('demo', 'usr_1');
    await api.resetPassword('demo', 'usr_1');
    await api.setSso('demo', {
      issuer: 'https://id.acme.test',
      client_id: 'c',
      client_secret: 's',
      allowed_domains: ['acme.test'],
      default_role: 'viewer',
      display_name: 'Okta',
    });
    await api.removeSso('demo');
    await api.audit('demo', { from: '2026-01-01', to: '2026-01-31' });
    await api.updateTagSettings('tag 1', { features: { spa: false } });
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'POST /admin/api/customers/demo/invitations',
      'PATCH /admin/api/customers/demo/users/usr_1',
      'DELETE /admin/api/customers/demo/users/usr_1',
      'POST /admin/api/customers/demo/users/usr_1/reset-password',
      'PUT /admin/api/customers/demo/sso',
      'DELETE /admin/api/customers/demo/sso',
      'GET /admin/api/customers/demo/audit?from=2026-01-01&to=2026-01-31',
      'PATCH /admin/api/tags/tag%201/settings',
    ]);
    expect(JSON.parse(f.calls[1].init.body as string)).toEqual({ role: 'admin' });
    expect(JSON.parse(f.calls[7].init.body as string)).toEqual({ features: { spa: false } });
  });

  it('calls the CRM routes: connect, change, test, dry run and sync, runs, disconnect', async () => {
    const f = fakeFetch((c) => (c.init.method === 'DELETE' ? new Response(null, { status: 204 }) : json(200, {})));
    const api = adminClient(null, f.fetch);
    await api.crm('demo');
    await api.connectCrm('demo', 'hubspot', { access_token: 'pat-1', base_url: 'http://127.0.0.1:9', create_missing: false });
    await api.updateCrm('demo', 'hubspot', { mapping: { hot: null }, status: 'paused' });
    await api.testCrm('demo', 'hubspot');
    await api.previewCrm('demo', 'hubspot', { full: false });
    await api.syncCrm('demo', 'salesforce', { full: true });
    await api.crmRuns('demo', 'hubspot');
    expect(await api.disconnectCrm('demo', 'hubspot')).toBeUndefined();
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET /admin/api/customers/demo/crm',
      'PUT /admin/api/customers/demo/crm/hubspot',
      'PATCH /admin/api/customers/demo/crm/hubspot',
      'POST /admin/api/customers/demo/crm/hubspot/test',
      'POST /admin/api/customers/demo/crm/hubspot/sync',
      'POST /admin/api/customers/demo/crm/salesforce/sync',
      'GET /admin/api/customers/demo/crm/hubspot/runs?limit=10',
      'DELETE /admin/api/customers/demo/crm/hubspot',
    ]);
    const bodies = f.calls.map((c) => (c.init.body === undefined ? undefined : JSON.parse(c.init.body as string)));
    expect(bodies[1]).toEqual({ access_token: 'pat-1', base_url: 'http://127.0.0.1:9', create_missing: false });
    expect(bodies[2]).toEqual({ mapping: { hot: null }, status: 'paused' });
    expect(bodies[4]).toEqual({ full: false, dry_run: true });
    expect(bodies[5]).toEqual({ full: true });
  });

  it("calls the alerts and owners routes, and the signed-in user's own digest settings under /auth/me", async () => {
    const f = fakeFetch((c) => (c.init.method === 'DELETE' ? new Response(null, { status: 204 }) : json(200, {})));
    const api = adminClient(null, f.fetch);
    await api.notifications();
    await api.updateNotifications({ digest: 'daily', hour: 7, time_zone: 'America/Los_Angeles' });
    await api.alerts('demo');
    await api.createAlert('demo', { name: 'x', trigger: { type: 'hot', hot_paths: [] }, destination: { type: 'email', to: ['a@acme.test'] } });
    await api.updateAlert('demo', 'wh_1', { paused: true });
    await api.testAlert('demo', 'wh_1');
    await api.alertDeliveries('demo', 'wh_1');
    await api.owners('demo');
    await api.uploadOwners('demo', 'domain,owner_email\nacme.test,a@acme.test\n');
    expect(await api.deleteAlert('demo', 'wh_1')).toBeUndefined();
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET /auth/me/notifications',
      'PATCH /auth/me/notifications',
      'GET /admin/api/customers/demo/alerts',
      'POST /admin/api/customers/demo/alerts',
      'PATCH /admin/api/customers/demo/alerts/wh_1',
      'POST /admin/api/customers/demo/alerts/wh_1/test',
      'GET /admin/api/customers/demo/alerts/wh_1/deliveries?limit=20',
      'GET /admin/api/customers/demo/owners',
      'PUT /admin/api/customers/demo/owners',
      'DELETE /admin/api/customers/demo/alerts/wh_1',
    ]);
    expect(JSON.parse(f.calls[1].init.body as string)).toEqual({ digest: 'daily', hour: 7, time_zone: 'America/Los_Angeles' });
    expect(JSON.parse(f.calls[4].init.body as string)).toEqual({ paused: true });
    expect(headers(f.calls[8])['content-type']).toBe('text/csv');
    expect(f.calls[8].init.body).toBe('domain,owner_email\nacme.test,a@acme.test\n');
    for (const c of f.calls) expect(c.init.credentials).toBe('same-origin');
  });

  it('asks for the audit CSV with Accept: text/csv and answers its text', async () => {
    const f = fakeFetch(() => new Response('at,actor\n', { status: 200, headers: { 'content-type': 'text/csv' } }));
    await expect(adminClient('t', f.fetch).auditCsv('demo', { from: '2026-01-01', to: '2026-01-02' })).resolves.toBe('at,actor\n');
    expect(headers(f.calls[0]).accept).toBe('text/csv');
  });

  it('answers null for a customer without single sign-on (404); other errors still throw', async () => {
    const none = adminClient(null, fakeFetch(() => json(404, { status: 'error', message: 'customer demo has no single sign-on provider' })).fetch);
    await expect(none.sso('demo')).resolves.toBeNull();
    const denied = adminClient(null, fakeFetch(() => json(403, { status: 'error', message: 'your role (admin) may not do this' })).fetch);
    await expect(denied.sso('demo')).rejects.toMatchObject({ status: 403 });
  });
});

describe('authClient', () => {
  it('signs in, takes a link, asks who is signed in and signs out, always with the cookie', async () => {
    const f = fakeFetch((c) =>
      c.url === '/auth/me' ? json(200, { email: 'm@acme.test', role: 'marketer', customer_id: 'demo' }) : new Response(null, { status: 204 }),
    );
    const auth = authClient(f.fetch);
    await expect(auth.login('m@acme.test', 'correct horse')).resolves.toBeUndefined();
    await auth.accept('tok', 'a long enough password');
    await expect(auth.me()).resolves.toEqual({ email: 'm@acme.test', role: 'marketer', customer_id: 'demo' });
    await auth.logout();
    expect(f.calls.map((c) => `${c.init.method} ${c.url}`)).toEqual(['POST /auth/login', 'POST /auth/accept', 'GET /auth/me', 'POST /auth/logout']);
    expect(JSON.parse(f.calls[0].init.body as string)).toEqual({ email: 'm@acme.test', password: 'correct horse' });
    expect(JSON.parse(f.calls[1].init.body as string)).toEqual({ token: 'tok', password: 'a long enough password' });
    for (const c of f.calls) {
      expect(c.init.credentials).toBe('same-origin');
      expect(headers(c).authorization).toBeUndefined();
    }
  });

  it("asks /auth/me with the operator's token when given one", async () => {
    const f = fakeFetch(() => json(200, { email: null, role: 'operator', customer_id: null }));
    await authClient(f.fetch).me('admin-secret');
    expect(headers(f.calls[0]).authorization).toBe('Bearer admin-secret');
    expect(f.calls[0].init.credentials).toBe('omit');
  });

  it("turns a wrong pair (401) and throttling (429) into errors with the server's message", async () => {
    const wrong = authClient(fakeFetch(() => json(401, { status: 'error', message: 'wrong email or password', code: 'unauthenticated' })).fetch);
    await expect(wrong.login('m@acme.test', 'nope')).rejects.toMatchObject({ status: 401, message: 'wrong email or password' });
    const throttled = authClient(fakeFetch(() => json(429, { status: 'error', message: 'too many failed sign-ins: try again later' })).fetch);
    await expect(throttled.login('m@acme.test', 'nope')).rejects.toMatchObject({ status: 429, message: /too many/ });
  });
});
