/**
 * A customer's people, end to end over the API as a browser and an operator use it: invitation → password →
 * session cookie → what the role may do → sign out; login failures, throttling and what they reveal; a new
 * role or password ends sessions; the audit log; the cookie's attributes; the CLI's invitation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

const PASSWORD = 'a long enough passphrase';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ customers: [TEST_CUSTOMER, { ...TEST_CUSTOMER, id: 'globex', name: 'Globex', tags: [] }] });
});
afterAll(() => srv?.close());

const operator = (method: string, path: string, body?: unknown) =>
  srv.request(path, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });

/** A browser's request: its cookie, its own Origin on writes. */
const browser = (cookie: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  srv.request(path, {
    method,
    headers: {
      'user-agent': BROWSER_UA,
      ...(cookie ? { cookie } : {}),
      ...(method !== 'GET' ? { origin: srv.url } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });

const cookieOf = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!;

async function invite(email: string, role: string, customer = 'acme'): Promise<{ url: string; token: string; expires_at: string }> {
  const res = await operator('POST', `/admin/api/customers/${customer}/invitations`, { email, role });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { url: string; token: string; expires_at: string };
}

async function join(email: string, role: string, customer = 'acme'): Promise<string> {
  const { token } = await invite(email, role, customer);
  const res = await browser(null, 'POST', '/auth/accept', { token, password: PASSWORD });
  expect(res.status, await res.clone().text()).toBe(204);
  return cookieOf(res);
}

describe('an invitation', () => {
  it('is a one-time link to the console, valid 72 hours, that sets a password and signs the person in', async () => {
    const before = Date.now();
    const link = await invite('Mia.Marketer@Acme.test', 'marketer');
    expect(link.url).toBe(`${srv.url}/console/#accept=${link.token}`);
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const ttl = new Date(link.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThan(72 * 3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(72 * 3600_000 + 1000);

    const weak = await browser(null, 'POST', '/auth/accept', { token: link.token, password: 'short' });
    expect(weak.status).toBe(422);
    expect((await weak.json()).message).toMatch(/at least 12 characters/);
    const common = await browser(null, 'POST', '/auth/accept', { token: link.token, password: 'password1234' });
    expect(common.status).toBe(422);

    const accepted = await browser(null, 'POST', '/auth/accept', { token: link.token, password: PASSWORD });
    expect(accepted.status).toBe(204);
    const setCookie = accepted.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    const me = await browser(cookieOf(accepted), 'GET', '/auth/me');
    expect(await me.json()).toMatchObject({ email: 'mia.marketer@acme.test', role: 'marketer', customer_id: 'acme' });

    const again = await browser(null, 'POST', '/auth/accept', { token: link.token, password: PASSWORD });
    expect(again.status).toBe(401);
    expect(await again.json()).toMatchObject({ status: 'error', code: 'unauthenticated' });
  });

  it('is stored only as a hash, and an email that has an account is a conflict', async () => {
    const link = await invite('hash.check@acme.test', 'viewer');
    const entries: unknown[] = [];
    for await (const entry of srv.users.exportEntries()) entries.push(entry);
    const exported = JSON.stringify(entries);
    expect(exported).not.toContain(link.token);
    await browser(null, 'POST', '/auth/accept', { token: link.token, password: PASSWORD });
    const dup = await operator('POST', '/admin/api/customers/globex/invitations', { email: 'HASH.check@acme.test', role: 'viewer' });
    expect(dup.status).toBe(409);
  });
});

describe('signing in', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await join('olga.owner@acme.test', 'owner');
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const wrong = await browser(null, 'POST', '/auth/login', { email: 'olga.owner@acme.test', password: 'not the password at all' });
    const unknown = await browser(null, 'POST', '/auth/login', { email: 'nobody@acme.test', password: 'not the password at all' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const [a, b] = [await wrong.json(), await unknown.json()];
    expect(a).toEqual(b);
    expect(a).toEqual({ status: 'error', message: 'wrong email or password', code: 'unauthenticated' });
  });

  it('signs in with the right pair (email in any case) and sets the cookie', async () => {
    const res = await browser(null, 'POST', '/auth/login', { email: ' Olga.Owner@ACME.test ', password: PASSWORD });
    expect(res.status).toBe(204);
    expect((await browser(cookieOf(res), 'GET', '/auth/me')).status).toBe(200);
  });

  it('throttles failures per account: 429 with Retry-After, even for the right password', async () => {
    await join('target@acme.test', 'viewer');
    for (let i = 0; i < 10; i++) {
      const res = await browser(
        null,
        'POST',
        '/auth/login',
        { email: 'target@acme.test', password: `guess number ${i} here` },
        { 'x-forwarded-for': `198.51.100.${i}` },
      );
      expect(res.status).toBe(401);
    }
    const blocked = await browser(null, 'POST', '/auth/login', { email: 'target@acme.test', password: PASSWORD });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('lists the user own sessions and ends one; sign-out ends the current one', async () => {
    const second = cookieOf(await browser(null, 'POST', '/auth/login', { email: 'olga.owner@acme.test', password: PASSWORD }));
    const list = (await (await browser(cookie, 'GET', '/auth/sessions')).json()) as { id: string; current: boolean }[];
    expect(list.length).toBeGreaterThanOrEqual(2);
    const other = list.find((s) => !s.current)!;
    expect((await browser(cookie, 'DELETE', `/auth/sessions/${other.id}`)).status).toBe(204);
    const out = await browser(second, 'POST', '/auth/logout');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^svc_session=; Max-Age=0/);
    expect((await browser(second, 'GET', '/auth/me')).status).toBe(401);
    expect((await browser(cookie, 'GET', '/auth/me')).status).toBe(200);
  });
});

describe('what a signed-in user may do', () => {
  let marketer: string;
  let owner: string;
  beforeAll(async () => {
    marketer = await join('max.marketer@acme.test', 'marketer');
    owner = await join('oscar.owner@acme.test', 'owner');
  });

  it("reads its own customer's reports, and another customer's answer 404, never 403", async () => {
    expect((await browser(marketer, 'GET', '/admin/api/customers/acme/visits')).status).toBe(200);
    expect((await browser(marketer, 'GET', '/admin/api/customers/globex/visits')).status).toBe(404);
    expect((await browser(marketer, 'GET', '/admin/api/customers/globex')).status).toBe(404);
    const customers = (await (await browser(marketer, 'GET', '/admin/api/customers')).json()) as { id: string }[];
    expect(customers.map((c) => c.id)).toEqual(['acme']);
  });

  it('gets 403 for what its role may not do, and changes what it may', async () => {
    expect((await browser(marketer, 'GET', '/admin/api/tokens')).status).toBe(403);
    expect((await browser(marketer, 'POST', '/admin/api/tokens', { customer_id: 'acme', api_group: 'identification', name: 'x' })).status).toBe(403);
    expect((await browser(marketer, 'POST', '/admin/api/customers/acme/invitations', { email: 'x@acme.test', role: 'owner' })).status).toBe(403);
    const settings = await browser(marketer, 'PATCH', '/admin/api/tags/acme-tag/settings', { min_confidence: 'High' });
    expect(settings.status, await settings.clone().text()).toBe(200);
  });

  it('refuses a write that rides on the cookie without this server Origin (cross-site) or with a foreign one', async () => {
    const noOrigin = await srv.request(`/admin/api/tags/acme-tag/settings`, {
      method: 'PATCH',
      headers: { cookie: marketer, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(noOrigin.status).toBe(403);
    const foreign = await browser(marketer, 'PATCH', '/admin/api/tags/acme-tag/settings', {}, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    // A classic cross-site form post: urlencoded, the cookie, a foreign Origin.
    const form = await srv.request(`/admin/api/customers/acme/invitations`, {
      method: 'POST',
      headers: { cookie: owner, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=attacker%40evil.example&role=owner',
    });
    expect(form.status).toBe(403);
    const users = (await (await operator('GET', '/admin/api/customers/acme/users')).json()) as { email: string }[];
    expect(users.some((u) => u.email === 'attacker@evil.example')).toBe(false);
  });

  it('a new role ends the user sessions; a customer keeps its last owner', async () => {
    const users = (await (await browser(owner, 'GET', '/admin/api/customers/acme/users')).json()) as { id: string; email: string }[];
    const max = users.find((u) => u.email === 'max.marketer@acme.test')!;
    const res = await browser(owner, 'PATCH', `/admin/api/customers/acme/users/${max.id}`, { role: 'viewer' });
    expect(res.status).toBe(200);
    expect((await browser(marketer, 'GET', '/auth/me')).status).toBe(401);
    const relogin = cookieOf(await browser(null, 'POST', '/auth/login', { email: 'max.marketer@acme.test', password: PASSWORD }));
    expect(await (await browser(relogin, 'GET', '/auth/me')).json()).toMatchObject({ role: 'viewer' });
    expect((await browser(relogin, 'PATCH', '/admin/api/tags/acme-tag/settings', {})).status).toBe(403);

    // Globex's only owner cannot be demoted or removed.
    await join('gina@globex.test', 'owner', 'globex');
    const gina = ((await (await operator('GET', '/admin/api/customers/globex/users')).json()) as { id: string }[])[0]!;
    expect((await operator('PATCH', `/admin/api/customers/globex/users/${gina.id}`, { role: 'admin' })).status).toBe(409);
    expect((await operator('DELETE', `/admin/api/customers/globex/users/${gina.id}`)).status).toBe(409);
  });

  it('a password reset link sets a new password and ends every other session', async () => {
    const users = (await (await operator('GET', '/admin/api/customers/acme/users')).json()) as { id: string; email: string }[];
    const oscar = users.find((u) => u.email === 'oscar.owner@acme.test')!;
    const link = await operator('POST', `/admin/api/customers/acme/users/${oscar.id}/reset-password`);
    expect(link.status).toBe(201);
    const { token } = (await link.json()) as { token: string };
    const reset = await browser(null, 'POST', '/auth/accept', { token, password: 'a brand new passphrase' });
    expect(reset.status).toBe(204);
    expect((await browser(owner, 'GET', '/auth/me')).status).toBe(401);
    expect((await browser(null, 'POST', '/auth/login', { email: 'oscar.owner@acme.test', password: PASSWORD })).status).toBe(401);
    owner = cookieOf(await browser(null, 'POST', '/auth/login', { email: 'oscar.owner@acme.test', password: 'a brand new passphrase' }));
    expect((await browser(owner, 'GET', '/auth/me')).status).toBe(200);
  });

  it('keeps every change and sign-in in the audit log, never a secret; JSON and CSV', async () => {
    const created = await operator('POST', '/admin/api/tokens', { customer_id: 'acme', api_group: 'identification', name: 'audited' });
    const { token: secret, id } = (await created.json()) as { token: string; id: string };
    const res = await browser(owner, 'GET', '/admin/api/customers/acme/audit');
    expect(res.status).toBe(200);
    const { events } = (await res.json()) as { events: { actor: string; action: string; target: string | null; ip: string | null }[] };
    const actions = events.map((e) => e.action);
    for (const a of ['user.invite', 'user.joined', 'login', 'login.failed', 'tag.settings', 'user.role', 'user.password_reset', 'token.create'])
      expect(actions).toContain(a);
    expect(events.find((e) => e.action === 'token.create' && e.target === id)!.actor).toBe('operator');
    expect(events.find((e) => e.action === 'tag.settings')!.actor).toMatch(/^user:usr_[0-9a-f]+ max\.marketer@acme\.test$/);
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(JSON.stringify(events)).not.toContain(PASSWORD);
    const csv = await browser(owner, 'GET', '/admin/api/customers/acme/audit', undefined, { accept: 'text/csv' });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect((await csv.text()).split('\n')[0]).toBe('at,actor,ip,action,target,before,after,id');
    // Another customer's log is not the marketer's business, nor is its own (audit is owner/admin).
    const viewer = await join('vera@acme.test', 'viewer');
    expect((await browser(viewer, 'GET', '/admin/api/customers/acme/audit')).status).toBe(403);
    expect((await browser(owner, 'GET', '/admin/api/customers/globex/audit')).status).toBe(404);
  });
});

describe('the session cookie over HTTPS', () => {
  it('is Secure with the __Host- prefix when SVC_PUBLIC_URL is https, and links are built on it', async () => {
    const https = await startTestServer({ env: { SVC_PUBLIC_URL: 'https://svc.example.com/' } });
    try {
      const res = await fetch(`${https.url}/admin/api/customers/acme/invitations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'sec@acme.test', role: 'viewer' }),
      });
      const { url, token } = (await res.json()) as { url: string; token: string };
      expect(url).toBe(`https://svc.example.com/console/#accept=${token}`);
      const accepted = await fetch(`${https.url}/auth/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, password: PASSWORD }),
      });
      expect(accepted.headers.get('set-cookie')).toMatch(/^__Host-svc_session=[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    } finally {
      await https.close();
    }
  });
});

describe('svc user', () => {
  it('invites from the shell (--json prints the link once) and lists, changes and removes users', async () => {
    const out: string[] = [];
    const io = {
      env: { ...process.env, SVC_STATE: `${srv.dir}/svc.db`, SVC_DATA: `${srv.dir}/data`, SVC_LOG: 'error' },
      cwd: process.cwd(),
      stdout: { write: (s: string) => out.push(s), isTTY: false },
      stderr: { write: (s: string) => out.push(s), isTTY: false },
    };
    const run = async (...argv: string[]) => {
      out.length = 0;
      const code = await runCli(argv, io as never);
      return { code, text: out.join('') };
    };
    const invited = await run('user', 'invite', '--customer', 'globex', '--email', 'cli@globex.test', '--role', 'admin', '--json');
    expect(invited.code, invited.text).toBe(0);
    const link = JSON.parse(invited.text) as { url: string; token: string; expires_at: string };
    expect(link.url).toMatch(/\/console\/#accept=[A-Za-z0-9_-]{43}$/);
    const accepted = await browser(null, 'POST', '/auth/accept', { token: link.token, password: PASSWORD });
    expect(accepted.status).toBe(204);
    expect((await run('user', 'list', '--customer', 'globex')).text).toContain('cli@globex.test  admin');
    expect((await run('user', 'set-role', '--customer', 'globex', 'cli@globex.test', '--role', 'viewer')).code).toBe(0);
    expect((await browser(cookieOf(accepted), 'GET', '/auth/me')).status).toBe(401);
    expect((await run('user', 'remove', '--customer', 'globex', 'cli@globex.test')).code).toBe(0);
    expect((await run('user', 'list', '--customer', 'globex')).text).not.toContain('cli@globex.test');
    expect((await run('user', 'invite', '--customer', 'globex', '--email', 'x@globex.test', '--role', 'emperor')).code).not.toBe(0);
    // A change from the shell is the operator's, in the customer's audit log like the API's.
    const token = JSON.parse(
      (await run('token', 'create', '--customer', 'globex', '--group', 'identification', '--name', 'from-the-shell', '--json')).text,
    ) as { id: string; token: string };
    expect((await run('token', 'deactivate', token.id)).code).toBe(0);
    const { events } = (await (await operator('GET', '/admin/api/customers/globex/audit')).json()) as {
      events: { actor: string; action: string; target: string }[];
    };
    expect(events.filter((e) => e.target === token.id).map((e) => [e.actor, e.action])).toEqual([
      ['operator', 'token.create'],
      ['operator', 'token.deactivate'],
    ]);
    expect(JSON.stringify(events)).not.toContain(token.token);
  });
});
