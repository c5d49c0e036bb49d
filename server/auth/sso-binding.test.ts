/**
 * Who a single sign-on signs in is the provider's (issuer, sub), not an email, over real HTTP against a real
 * OpenID Connect provider (server/testing/oidc-provider.ts): the first sign-in binds the user to its `sub`,
 * another identity asserting the same address is refused, and a password account is never converted by an
 * SSO sign-in of its address — only linked by its user, signed in with the password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type OidcTestProvider, startOidcProvider } from '../testing/oidc-provider.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { hashPassword } from './password.ts';

const CLIENT_ID = 'svc-acme';
const CLIENT_SECRET = 'acme-client-secret-77a0c2d4';
const PASSWORD = 'a long enough passphrase';
const ACCOUNTS = [
  { sub: 'gina', email: 'gina@acme.test', email_verified: true },
  // Another identity at the same provider that asserts gina's address (a renamed account, a second directory …).
  { sub: 'gina-impostor', email: 'Gina@acme.test', email_verified: true },
  { sub: 'olive', email: 'olive@acme.test', email_verified: true },
  { sub: 'olive-impostor', email: 'olive@acme.test', email_verified: true },
  { sub: 'hank', email: 'hank@acme.test', email_verified: true },
  { sub: 'nobody-verified', email: 'nina@acme.test' },
];

let srv: TestServer;
let op: OidcTestProvider;

const operator = (method: string, path: string, body?: unknown) =>
  fetch(srv.url + path, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });

const pair = (res: Response, name: string) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0] ?? null;

/** A whole login as `sub` (with `cookie`, the browser's session, and `?link=1` when linking): the callback's answer. */
async function signIn(sub: string, opts: { session?: string; link?: boolean } = {}): Promise<Response> {
  const start = await fetch(`${srv.url}/auth/sso/acme/start${opts.link ? '?link=1' : ''}`, {
    redirect: 'manual',
    headers: opts.session ? { cookie: opts.session } : {},
  });
  expect(start.status, await start.clone().text()).toBe(302);
  const pending = pair(start, 'svc_sso')!;
  const callback = await op.login(start.headers.get('location')!, sub);
  return fetch(callback, { redirect: 'manual', headers: { cookie: [pending, opts.session].filter(Boolean).join('; ') } });
}

function outcome(res: Response): { signedIn: boolean; reason?: string; message?: string } {
  expect(res.status).toBe(302);
  const location = res.headers.get('location')!;
  if (location === '/console/') return { signedIn: pair(res, 'svc_session') !== null };
  const text = decodeURIComponent(location.slice('/console/#signin-error='.length));
  expect(pair(res, 'svc_session')).toBeNull();
  return { signedIn: false, reason: text.slice(0, text.indexOf(':')), message: text.slice(text.indexOf(':') + 1).trim() };
}

async function failures(): Promise<string[]> {
  const res = await operator('GET', '/admin/api/customers/acme/audit');
  const { events } = (await res.json()) as { events: { action: string; target: string | null }[] };
  return events.filter((e) => e.action === 'login.failed').map((e) => e.target ?? '');
}

beforeAll(async () => {
  srv = await startTestServer({ customers: [TEST_CUSTOMER] });
  op = await startOidcProvider({
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${srv.url}/auth/sso/callback`] }],
    accounts: ACCOUNTS,
  });
  const res = await operator('PUT', '/admin/api/customers/acme/sso', {
    issuer: op.issuer,
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    allowed_domains: ['acme.test'],
    default_role: 'viewer',
    display_name: 'Acme SSO',
  });
  expect(res.status, await res.clone().text()).toBe(200);
});
afterAll(async () => {
  await op?.close();
  await srv?.close();
});

describe('single sign-on binds a user to the identity that first signed in', () => {
  it('refuses a second identity at the provider asserting the same email (another sub), and keeps signing in the first', async () => {
    expect(outcome(await signIn('gina'))).toEqual({ signedIn: true });
    const gina = await srv.users.findUserByEmail('gina@acme.test');
    expect(gina).toMatchObject({ sso: true });

    const impostor = outcome(await signIn('gina-impostor'));
    expect(impostor).toMatchObject({ signedIn: false, reason: 'identity' });
    expect(impostor.message).toMatch(/linked to another identity/);
    expect(await srv.users.listSessions(gina!.id)).toHaveLength(1);
    expect(await failures()).toContain(`sso: gina@acme.test is bound to another identity at ${op.issuer}`);

    expect(outcome(await signIn('gina'))).toEqual({ signedIn: true });
    expect(await srv.users.listSessions(gina!.id)).toHaveLength(2);
  });

  it('refuses an identity whose email the provider does not say is verified, and creates no user', async () => {
    expect(outcome(await signIn('nobody-verified'))).toMatchObject({ signedIn: false, reason: 'no_email' });
    expect(await srv.users.findUserByEmail('nina@acme.test')).toBeNull();
  });
});

describe('a password account and single sign-on', () => {
  let olive: string;
  beforeAll(async () => {
    const user = await srv.users.createUser({
      customer_id: 'acme',
      email: 'olive@acme.test',
      role: 'owner',
      password_hash: await hashPassword(PASSWORD),
      sso: false,
    });
    olive = user.id;
  });

  it('is not converted by a first SSO sign-in of its address: refused, with a message saying how to link it', async () => {
    const refused = outcome(await signIn('olive'));
    expect(refused).toMatchObject({ signedIn: false, reason: 'password_account' });
    expect(refused.message).toMatch(/sign in with it, then link single sign-on/);
    expect(await srv.users.getUser(olive)).toMatchObject({ sso: false, password_set: true, role: 'owner' });
    expect(await srv.users.listSessions(olive)).toEqual([]);
    expect(await failures()).toContain('sso: olive@acme.test has a password and has not linked single sign-on');
  });

  it('cannot be linked without being signed in', async () => {
    const res = await fetch(`${srv.url}/auth/sso/acme/start?link=1`, { redirect: 'manual' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'unauthenticated', message: expect.stringMatching(/sign in with your password first/) });
  });

  it("is not linked to an identity of another email, even with the user's session", async () => {
    const login = await fetch(`${srv.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: srv.url },
      body: JSON.stringify({ email: 'olive@acme.test', password: PASSWORD }),
    });
    expect(login.status, await login.clone().text()).toBe(204);
    const session = pair(login, 'svc_session')!;
    expect(outcome(await signIn('hank', { session, link: true }))).toMatchObject({ signedIn: false, reason: 'link' });
    expect(await srv.users.getUser(olive)).toMatchObject({ sso: false });
    expect(await srv.users.findUserByEmail('hank@acme.test')).toBeNull();
  });

  it('is linked by its user signed in with the password; SSO then signs it in, as that identity only', async () => {
    const login = await fetch(`${srv.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: srv.url },
      body: JSON.stringify({ email: 'olive@acme.test', password: PASSWORD }),
    });
    const session = pair(login, 'svc_session')!;
    expect(outcome(await signIn('olive', { session, link: true }))).toEqual({ signedIn: true });
    expect(await srv.users.getUser(olive)).toMatchObject({ sso: true, password_set: true, role: 'owner' });

    // Without any session now.
    expect(outcome(await signIn('olive'))).toEqual({ signedIn: true });
    expect(outcome(await signIn('olive-impostor'))).toMatchObject({ signedIn: false, reason: 'identity' });
  });
});
