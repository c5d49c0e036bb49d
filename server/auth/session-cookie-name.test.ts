/**
 * The session cookie is read under the one name it is set under, over real HTTP: with an https
 * SVC_PUBLIC_URL only `__Host-svc_session` (an unprefixed cookie can be planted by a sibling subdomain or a
 * plain-http answer: session fixation), over plain http only `svc_session`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const PASSWORD = 'a long enough passphrase';

/** Invites and accepts `email`: the session secret (the cookie's value) and the cookie's name. */
async function signedIn(srv: TestServer, email: string): Promise<{ name: string; secret: string }> {
  const invited = await fetch(`${srv.url}/admin/api/customers/acme/invitations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, role: 'viewer' }),
  });
  const { token } = (await invited.json()) as { token: string };
  const accepted = await fetch(`${srv.url}/auth/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, password: PASSWORD }),
  });
  expect(accepted.status).toBe(204);
  const [name, secret] = accepted.headers.get('set-cookie')!.split(';')[0]!.split('=') as [string, string];
  return { name, secret };
}

const me = (srv: TestServer, cookie: string) => fetch(`${srv.url}/auth/me`, { headers: { cookie } });

describe('with an https SVC_PUBLIC_URL', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { SVC_PUBLIC_URL: 'https://svc.example.com' } });
  });
  afterAll(() => srv?.close());

  it('reads __Host-svc_session only: the same secret under the unprefixed name is no session', async () => {
    const { name, secret } = await signedIn(srv, 'https-reader@acme.test');
    expect(name).toBe('__Host-svc_session');
    expect((await me(srv, `__Host-svc_session=${secret}`)).status).toBe(200);
    const unprefixed = await me(srv, `svc_session=${secret}`);
    expect(unprefixed.status).toBe(401);
    // A planted unprefixed cookie beside the real one changes nothing either way.
    expect((await me(srv, `svc_session=${'A'.repeat(43)}; __Host-svc_session=${secret}`)).status).toBe(200);
    const logout = await fetch(`${srv.url}/auth/logout`, { method: 'POST', headers: { cookie: `svc_session=${secret}`, origin: srv.url } });
    expect(logout.status).toBe(204);
    // Signing out under the unprefixed name ended nothing.
    expect((await me(srv, `__Host-svc_session=${secret}`)).status).toBe(200);
  });
});

describe('over plain http', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv?.close());

  it('reads svc_session', async () => {
    const { name, secret } = await signedIn(srv, 'http-reader@acme.test');
    expect(name).toBe('svc_session');
    expect((await me(srv, `svc_session=${secret}`)).status).toBe(200);
    expect((await me(srv, `__Host-svc_session=${secret}`)).status).toBe(401);
  });
});
