/**
 * Single sign-on through the server's routes, over real HTTP, against a real OpenID Connect provider
 * (server/testing/oidc-provider.ts): start → the provider → the callback → a session; the refusals (a wrong
 * state, an expired code, a code used twice, an email of another domain or of another workspace) each a
 * redirect to the console's sign-in page with the reason, and an audit record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../core/user-records.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { type OidcTestProvider, startOidcProvider } from '../testing/oidc-provider.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const CLIENT_ID = 'svc-acme';
const CLIENT_SECRET = 'acme-client-secret-5b1d9e0a';
const ACCOUNTS = [
  { sub: 'alice', email: 'Alice@Acme.test', email_verified: true },
  { sub: 'bob', email: 'bob@other.test', email_verified: true },
  { sub: 'erin', email: 'erin@acme.test', email_verified: true },
  { sub: 'frank', email: 'frank@acme.test', email_verified: true },
];

let srv: TestServer;
let op: OidcTestProvider;

const operator = (method: string, path: string, body?: unknown) =>
  fetch(srv.url + path, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });

async function useProvider(issuer: string): Promise<void> {
  const res = await operator('PUT', '/admin/api/customers/acme/sso', {
    issuer,
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    allowed_domains: ['acme.test'],
    default_role: 'marketer',
    display_name: 'Acme SSO',
  });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await res.json()).not.toHaveProperty('client_secret');
}

/** `name=value` of the Set-Cookie named `name`, and its attributes. */
function cookie(res: Response, name: string): { pair: string; value: string; header: string } | null {
  const header = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  if (!header) return null;
  const pair = header.split(';')[0]!;
  return { pair, value: pair.slice(name.length + 1), header };
}

/** GET /auth/sso/acme/start: the provider's authorization URL and the pending-login cookie. */
async function start(): Promise<{ location: string; pending: string }> {
  const res = await fetch(`${srv.url}/auth/sso/acme/start`, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  const pending = cookie(res, 'svc_sso');
  expect(pending, 'the pending-login cookie').not.toBeNull();
  return { location: res.headers.get('location')!, pending: pending!.pair };
}

/** The browser back at our callback, with the pending-login cookie. */
const callback = (url: string, pendingCookie: string | null) => fetch(url, { redirect: 'manual', headers: pendingCookie ? { cookie: pendingCookie } : {} });

/** A whole login as `sub`: the callback's answer. */
async function signIn(sub: string): Promise<Response> {
  const { location, pending } = await start();
  return callback(await op.login(location, sub), pending);
}

/** The reason a refused login's redirect names (`/console/#signin-error=<reason>: <message>`). */
function refusal(res: Response): { reason: string; message: string } {
  expect(res.status).toBe(302);
  const location = res.headers.get('location')!;
  expect(location).toMatch(/^\/console\/#signin-error=/);
  const text = decodeURIComponent(location.slice('/console/#signin-error='.length));
  const colon = text.indexOf(':');
  // A refusal clears the pending login and starts no session.
  expect(cookie(res, 'svc_sso')?.header).toMatch(/Max-Age=0/);
  expect(cookie(res, 'svc_session')).toBeNull();
  return { reason: text.slice(0, colon), message: text.slice(colon + 1).trim() };
}

async function audit(): Promise<AuditEvent[]> {
  const res = await operator('GET', '/admin/api/customers/acme/audit');
  expect(res.status).toBe(200);
  return ((await res.json()) as { events: AuditEvent[] }).events;
}

beforeAll(async () => {
  srv = await startTestServer({ customers: [TEST_CUSTOMER, { ...TEST_CUSTOMER, id: 'globex', name: 'Globex', tags: [] }] });
  op = await startOidcProvider({
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${srv.url}/auth/sso/callback`] }],
    accounts: ACCOUNTS,
  });
  await useProvider(op.issuer);
});
afterAll(async () => {
  await op?.close();
  await srv?.close();
});

describe('single sign-on through the routes', () => {
  it('answers 404 for a customer without single sign-on', async () => {
    const res = await fetch(`${srv.url}/auth/sso/globex/start`, { redirect: 'manual' });
    expect(res.status).toBe(404);
  });

  it('starts: a redirect to the provider and a short-lived pending-login cookie for /auth/sso only', async () => {
    const res = await fetch(`${srv.url}/auth/sso/acme/start`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location')!);
    expect(location.origin).toBe(op.issuer);
    expect(location.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(location.searchParams.get('redirect_uri')).toBe(`${srv.url}/auth/sso/callback`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('state')).toBeTruthy();
    expect(location.href).not.toContain(CLIENT_SECRET);
    const pending = cookie(res, 'svc_sso')!;
    expect(pending.header).toMatch(/; Max-Age=600; Path=\/auth\/sso; HttpOnly; SameSite=Lax$/);
    // The pending login (base64url JSON) and its HMAC-SHA256.
    expect(pending.value).toMatch(/^[\w-]+\.[\w-]{43}$/);
  });

  it('signs a new person in: a user with the default role, made by single sign-on, and a session; a second login is the same user', async () => {
    const res = await signIn('alice');
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    const session = cookie(res, 'svc_session');
    expect(session?.header).toMatch(/^svc_session=[\w-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(cookie(res, 'svc_sso')?.header).toMatch(/Max-Age=0/);

    const me = await fetch(`${srv.url}/auth/me`, { headers: { cookie: session!.pair } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: 'alice@acme.test', role: 'marketer', customer_id: 'acme' });
    const user = await srv.users.findUserByEmail('alice@acme.test');
    expect(user).toMatchObject({ customer_id: 'acme', role: 'marketer', sso: true, password_set: false, password_hash: null });
    const sessions = await srv.users.listSessions(user!.id);
    expect(sessions.map((s) => s.method)).toEqual(['sso']);

    const again = await signIn('alice');
    expect(again.status).toBe(302);
    expect(again.headers.get('location')).toBe('/console/');
    const second = cookie(again, 'svc_session')!;
    expect(second.value).not.toBe(session!.value);
    const me2 = await fetch(`${srv.url}/auth/me`, { headers: { cookie: second.pair } });
    expect(await me2.json()).toMatchObject({ email: 'alice@acme.test', role: 'marketer' });
    expect((await srv.users.listUsers('acme')).filter((u) => u.email === 'alice@acme.test')).toEqual([expect.objectContaining({ id: user!.id })]);
    expect(await srv.users.listSessions(user!.id)).toHaveLength(2);

    const events = await audit();
    const mine = events.filter((e) => e.target === 'alice@acme.test (sso)');
    expect(mine.map((e) => e.action)).toEqual(['user.joined', 'login']);
    expect(mine[0]).toMatchObject({ actor: `user:${user!.id} alice@acme.test`, after: { email: 'alice@acme.test', role: 'marketer' } });
  });

  it('refuses a callback whose state was tampered with, and one without the pending-login cookie', async () => {
    const { location, pending } = await start();
    const url = new URL(await op.login(location, 'erin'));
    const forged = new URL(url);
    forged.searchParams.set('state', 'attacker-chosen-state');
    expect(refusal(await callback(forged.href, pending)).reason).toBe('state');
    expect(refusal(await callback(url.href, null)).reason).toBe('state');
    // A pending cookie whose signature does not hold.
    const tampered = pending.replace(/\.[\w-]+$/, `.${'A'.repeat(43)}`);
    expect(refusal(await callback(url.href, tampered)).reason).toBe('state');
    expect(await srv.users.findUserByEmail('erin@acme.test')).toBeNull();
    // None of those reached the provider: the code still signs erin in, once.
    const ok = await callback(url.href, pending);
    expect(ok.headers.get('location')).toBe('/console/');
    const replayed = refusal(await callback(url.href, pending));
    expect(replayed.reason).toBe('code');
    expect(op.tokenErrors.at(-1)).toBe('authorization code already consumed');
    const erin = await srv.users.findUserByEmail('erin@acme.test');
    expect(await srv.users.listSessions(erin!.id)).toHaveLength(1);
  });

  it('refuses an email of a domain the provider is not allowed, and creates no user', async () => {
    const users = (await srv.users.listUsers('acme')).length;
    const { reason, message } = refusal(await signIn('bob'));
    expect(reason).toBe('email_domain');
    expect(message).toContain('other.test');
    expect(await srv.users.findUserByEmail('bob@other.test')).toBeNull();
    expect(await srv.users.listUsers('acme')).toHaveLength(users);
  });

  it("refuses an email that is another workspace's user, and leaves that user alone", async () => {
    const other = await srv.users.createUser({ customer_id: 'globex', email: 'frank@acme.test', role: 'owner', password_hash: null, sso: false });
    const { reason } = refusal(await signIn('frank'));
    expect(reason).toBe('email_domain');
    expect(await srv.users.getUser(other.id)).toEqual(other);
    expect(await srv.users.listSessions(other.id)).toEqual([]);
    expect((await audit()).some((e) => e.action === 'login.failed' && e.target === 'sso: frank@acme.test belongs to another customer')).toBe(true);
  });

  it('refuses an expired authorization code', async () => {
    const shortLived = await startOidcProvider({
      clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${srv.url}/auth/sso/callback`] }],
      accounts: ACCOUNTS,
      codeTtlSeconds: 1,
    });
    try {
      await useProvider(shortLived.issuer);
      const { location, pending } = await start();
      expect(new URL(location).origin).toBe(shortLived.issuer);
      const url = await shortLived.login(location, 'erin');
      await new Promise((r) => setTimeout(r, 2100));
      expect(refusal(await callback(url, pending)).reason).toBe('code');
      expect(shortLived.tokenErrors).toEqual([expect.stringMatching(/^authorization code (is expired|not found)$/)]);
    } finally {
      await useProvider(op.issuer);
      await shortLived.close();
    }
  });

  it('keeps the logins and the refusals in the audit log', async () => {
    const events = await audit();
    const failed = events.filter((e) => e.action === 'login.failed').map((e) => e.target);
    expect(failed).toEqual(expect.arrayContaining(['sso (state)', 'sso (code)', 'sso (email_domain)', 'sso: frank@acme.test belongs to another customer']));
    const logins = events.filter((e) => e.action === 'user.joined' || e.action === 'login').map((e) => `${e.action} ${e.target}`);
    expect(logins).toEqual(['user.joined alice@acme.test (sso)', 'login alice@acme.test (sso)', 'user.joined erin@acme.test (sso)']);
    expect(events.filter((e) => e.action === 'sso.set').map((e) => e.target)).toEqual([op.issuer, expect.any(String), op.issuer]);
    for (const e of events) expect(JSON.stringify(e)).not.toContain(CLIENT_SECRET);
  });

  afterAll(() => {
    expect(op.tokenErrors.filter((e) => e.startsWith('server_error'))).toEqual([]);
  });
});
