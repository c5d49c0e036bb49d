/**
 * Email squatting across customers, through the routes: an email is one account in the whole deployment,
 * so an owner of one customer must not get (and accept) an invitation token for another customer's people. A user's
 * invitation of an address outside the customer's own domains (its single sign-on allowed_domains) is only
 * mailed — no url, no token in the answer; refused without SMTP — while the operator's answer the link;
 * and a domain one customer's single sign-on claims cannot be claimed by another's.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const PASSWORD = 'a long enough passphrase';
const CUSTOMERS = [TEST_CUSTOMER, { ...TEST_CUSTOMER, id: 'globex', name: 'Globex', tags: [] }];
const SSO = (allowed_domains: string[]) => ({
  issuer: 'https://login.example.com',
  client_id: 'svc',
  client_secret: 'client-secret-0a9b8c',
  allowed_domains,
  default_role: 'viewer',
  display_name: 'SSO',
});

const operator = (srv: TestServer, method: string, path: string, body?: unknown) =>
  srv.request(path, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });

const browser = (srv: TestServer, cookie: string, method: string, path: string, body?: unknown) =>
  srv.request(path, {
    method,
    headers: { 'user-agent': BROWSER_UA, cookie, origin: srv.url, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });

/** An owner of `customer`, signed in: the session cookie. */
async function owner(srv: TestServer, email: string, customer: string): Promise<string> {
  const invited = await operator(srv, 'POST', `/admin/api/customers/${customer}/invitations`, { email, role: 'owner' });
  expect(invited.status, await invited.clone().text()).toBe(201);
  const { token } = (await invited.json()) as { token: string };
  const accepted = await srv.request(`/auth/accept`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, password: PASSWORD }),
  });
  expect(accepted.status).toBe(204);
  return accepted.headers.get('set-cookie')!.split(';')[0]!;
}

describe('invitations outside the customer’s own domains, without SMTP', () => {
  let srv: TestServer;
  let globexOwner: string;
  beforeAll(async () => {
    srv = await startTestServer({ customers: CUSTOMERS });
    globexOwner = await owner(srv, 'boss@globex.test', 'globex');
  });
  afterAll(() => srv?.close());

  it("refuses an owner's invitation of another customer's address (403, nothing issued), so it cannot be accepted", async () => {
    const res = await browser(srv, globexOwner, 'POST', '/admin/api/customers/globex/invitations', { email: 'ceo@acme.test', role: 'viewer' });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('forbidden');
    expect(body.message).toMatch(/outside this customer's domains .*SVC_SMTP_URL.*operator/);
    expect(JSON.stringify(body)).not.toMatch(/accept=/);
    expect(await srv.users.findUserByEmail('ceo@acme.test')).toBeNull();
    // acme can still invite its own person.
    const real = await operator(srv, 'POST', '/admin/api/customers/acme/invitations', { email: 'ceo@acme.test', role: 'owner' });
    expect(real.status).toBe(201);
  });

  it("answers the link for an address of the customer's single sign-on domains, and to the operator for any address", async () => {
    const sso = await browser(srv, globexOwner, 'PUT', '/admin/api/customers/globex/sso', SSO(['globex.test']));
    expect(sso.status, await sso.clone().text()).toBe(200);
    const own = await browser(srv, globexOwner, 'POST', '/admin/api/customers/globex/invitations', { email: 'Ann@Globex.test', role: 'viewer' });
    expect(own.status).toBe(201);
    expect(await own.json()).toMatchObject({ url: expect.stringMatching(/\/console\/#accept=[\w-]{43}$/), token: expect.any(String), mailed: false });
    // A subdomain is not the domain.
    const sub = await browser(srv, globexOwner, 'POST', '/admin/api/customers/globex/invitations', { email: 'x@eu.globex.test', role: 'viewer' });
    expect(sub.status).toBe(403);
    const byOperator = await operator(srv, 'POST', '/admin/api/customers/globex/invitations', { email: 'contractor@freelance.test', role: 'viewer' });
    expect(byOperator.status).toBe(201);
    expect(await byOperator.json()).toMatchObject({ url: expect.stringContaining('#accept='), token: expect.any(String) });
  });

  it("refuses single sign-on domains another customer's provider claims (409), for owners and the operator alike", async () => {
    expect((await operator(srv, 'PUT', '/admin/api/customers/acme/sso', SSO(['acme.test']))).status).toBe(200);
    const squat = await browser(srv, globexOwner, 'PUT', '/admin/api/customers/globex/sso', SSO(['globex.test', 'ACME.test']));
    expect(squat.status).toBe(409);
    expect(await squat.json()).toMatchObject({ code: 'conflict', message: expect.stringContaining('acme.test') });
    expect((await operator(srv, 'PUT', '/admin/api/customers/globex/sso', SSO(['acme.test']))).status).toBe(409);
    // Unchanged, and acme may set its own again.
    expect(await srv.users.getSsoProvider('globex')).toMatchObject({ allowed_domains: ['globex.test'] });
    expect((await operator(srv, 'PUT', '/admin/api/customers/acme/sso', SSO(['acme.test', 'acme-group.test']))).status).toBe(200);
  });
});

describe('invitations outside the customer’s own domains, with SMTP', () => {
  let srv: TestServer;
  let smtp: SMTPServer;
  const mails: { to: string[]; raw: string }[] = [];
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
    const port = (smtp.server.address() as AddressInfo).port;
    srv = await startTestServer({ customers: CUSTOMERS, env: { SVC_SMTP_URL: `smtp://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await srv?.close();
    await new Promise<void>((r) => smtp.close(() => r()));
  });

  it('mails the link to the address only: the answer holds neither url nor token', async () => {
    const boss = await owner(srv, 'boss@globex.test', 'globex');
    const res = await browser(srv, boss, 'POST', '/admin/api/customers/globex/invitations', { email: 'ceo@acme.test', role: 'owner' });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ expires_at: expect.any(String), mailed: true });
    const mail = mails.find((m) => m.to.includes('ceo@acme.test'));
    expect(mail?.raw).toMatch(/#accept=/);
  });
});
