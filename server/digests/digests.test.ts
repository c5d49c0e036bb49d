/**
 * Email digests end to end with real parts: a server (and a second node on the same state file) with a
 * fake clock, real page views in the visit store, a real SMTP server in process (smtp-server) and the
 * mails parsed with mailparser. Pinned: a daily digest for a user in America/Los_Angeles arrives once at
 * the configured local hour — not before, not twice, with two nodes looking; a node that died holding a
 * claim is taken over once its lease runs out; a mail server that is down is retried within the day;
 * nothing to say sends nothing; the one-click unsubscribe works without a session, is audited, and its
 * token serves one user and one purpose only; `svc digest send` sends; the preview answers HTML.
 */
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '../../core/user-records.ts';
import { hashPassword } from '../auth/password.ts';
import { runCliCollected } from '../cli/run.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../observability/logger.ts';
import { type RunningServer, startServer } from '../serve.ts';
import type { AlertStateStore } from '../state/alerts/store.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { lastPeriod } from './period.ts';
import { DIGEST_LEASE_MS } from './service.ts';

interface Mail {
  to: string[];
  raw: string;
}

/** A real SMTP server on a fixed loopback port that can go down and come back on it. */
async function startSmtp() {
  const mails: Mail[] = [];
  let server: SMTPServer | null = null;
  let port = 0;
  const up = async () => {
    server = new SMTPServer({
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
    await new Promise<void>((resolve, reject) => {
      server!.server.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.server.address() as AddressInfo).port;
  };
  const down = () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await up();
  return { url: () => `smtp://127.0.0.1:${port}`, mails, up, down, to: (email: string) => mails.filter((m) => m.to.includes(email)) };
}

const PASSWORD = 'a long enough passphrase';
const PUBLIC = 'https://svc.example';
/** Thursday 2026-12-03 in Los Angeles (PST, UTC−8) runs 08:00Z to 08:00Z the next day; 07:00 there on the 4th is 15:00Z. */
const AT_HOUR = Date.parse('2026-12-04T15:00:00Z');
const DAILY_LA = { digest: 'daily', hour: 7, time_zone: 'America/Los_Angeles', scope: { type: 'all' } } as const;

let smtp: Awaited<ReturnType<typeof startSmtp>>;
let srv: TestServer;
let node2: RunningServer;
let clock = AT_HOUR - 3_600_000;
const now = () => clock;

const parse = (m: Mail): Promise<ParsedMail> => simpleParser(m.raw);
const header = (p: ParsedMail, name: string) => p.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, '') ?? null;

async function userOf(email: string): Promise<{ user: UserRecord; cookie: string }> {
  const user = await srv.users.createUser({ customer_id: 'acme', email, role: 'viewer', password_hash: await hashPassword(PASSWORD), sso: false });
  const res = await srv.request('/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: srv.url, 'user-agent': BROWSER_UA },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status).toBe(204);
  return { user, cookie: res.headers.get('set-cookie')!.split(';')[0]! };
}

const as = (cookie: string | null, method: string, path: string, body?: unknown) =>
  srv.request(path, {
    method,
    headers: {
      'user-agent': BROWSER_UA,
      ...(cookie ? { cookie } : {}),
      ...(method !== 'GET' ? { origin: srv.url } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function subscribe(email: string, settings: object = DAILY_LA) {
  const me = await userOf(email);
  const res = await as(me.cookie, 'PATCH', '/auth/me/notifications', settings);
  expect(res.status, await res.clone().text()).toBe(200);
  return me;
}

const tickBoth = () => Promise.all([srv.digestScheduler.tick(), node2.digestScheduler.tick()]);

async function view(company: string, at: string, path: string, times = 1) {
  for (let i = 0; i < times; i++) {
    await srv.recorder.visits.recordPageView({ customer_id: 'acme', day: at.slice(0, 10), company_id: company, path, session_id: `s-${company}-${at}`, at });
  }
}

beforeAll(async () => {
  smtp = await startSmtp();
  const env = { SVC_SMTP_URL: smtp.url(), SVC_PUBLIC_URL: PUBLIC };
  srv = await startTestServer({ now, env });
  // A second node on the same state file and data (another process would be the same: one file, its locks).
  node2 = await startServer(
    loadConfig(
      {},
      {
        PORT: '0',
        HOST: '127.0.0.1',
        SVC_DATA: join(srv.dir, 'data'),
        SVC_STATE: join(srv.dir, 'svc.db'),
        SVC_EVENTS_DIR: join(srv.dir, 'events-2'),
        SVC_JOBS_DIR: join(srv.dir, 'jobs-2'),
        SVC_LOG: 'error',
        SVC_ADMIN_TOKEN: TEST_ADMIN_TOKEN,
        ...env,
      },
    ),
    createLogger('error'),
    { now, initialise: false },
  );
  // The hot account 900001 reads the pricing page on Thursday afternoon in Los Angeles (its stage moves up);
  // 900002 looks once; 900003 came on Wednesday evening there (the same UTC day): not Thursday's.
  await view('900001', '2026-12-03T18:00:00.000Z', '/pricing', 6);
  await view('900002', '2026-12-03T19:30:00.000Z', '/blog/<b>bold</b>');
  await view('900003', '2026-12-03T05:00:00.000Z', '/careers');
  // The CLI runs on the real clock: a view on its yesterday in Los Angeles.
  await view('900001', new Date(lastPeriod('day', 'America/Los_Angeles', Date.now()).startMs + 3_600_000).toISOString(), '/docs');
}, 60_000);

afterAll(async () => {
  await node2?.close();
  await srv?.close();
  await smtp?.down();
});

describe('notification settings', () => {
  it('are read and changed by the signed-in user (each field optional), refused with 422 when wrong, and audited', async () => {
    const { cookie } = await userOf('settings@acme.test');
    expect(await (await as(cookie, 'GET', '/auth/me/notifications')).json()).toEqual({ digest: 'off', hour: 8, time_zone: 'UTC', scope: { type: 'all' } });
    const res = await as(cookie, 'PATCH', '/auth/me/notifications', { digest: 'weekly', time_zone: 'Europe/Berlin' });
    expect(await res.json()).toEqual({ digest: 'weekly', hour: 8, time_zone: 'Europe/Berlin', scope: { type: 'all' } });
    const scoped = await as(cookie, 'PATCH', '/auth/me/notifications', { scope: { type: 'segments', segments: [101], lists: ['hot'] } });
    expect(scoped.status).toBe(200);
    for (const bad of [
      { hour: 24 },
      { time_zone: 'Mars/Olympus_Mons' },
      { digest: 'hourly' },
      { scope: { type: 'segments', segments: [999] } },
      { colour: 'red' },
    ]) {
      const refused = await as(cookie, 'PATCH', '/auth/me/notifications', bad);
      expect(refused.status, JSON.stringify(bad)).toBe(422);
    }
    expect((await (await as(cookie, 'GET', '/auth/me/notifications')).json()).digest).toBe('weekly');
    const audit = await srv.users.listAudit('acme', '2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z', 1000);
    expect(audit.filter((e) => e.action === 'notifications.update' && e.target === 'settings@acme.test').map((e) => e.after)).toEqual([
      { digest: 'weekly', time_zone: 'Europe/Berlin' },
      { scope: { type: 'segments', segments: [101], lists: ['hot'] } },
    ]);
    expect((await srv.inject({ method: 'GET', url: '/auth/me/notifications', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).statusCode).toBe(400);
  });
});

describe('a daily digest in America/Los_Angeles', () => {
  let unsubscribeUrl: string;

  it('arrives once at the configured local hour — not before, not twice — with two nodes looking', async () => {
    await subscribe('rep@acme.test');
    clock = AT_HOUR - 1_000;
    await tickBoth();
    expect(smtp.to('rep@acme.test')).toHaveLength(0);
    clock = AT_HOUR + 30_000;
    await tickBoth();
    await tickBoth();
    clock = AT_HOUR + 5 * 3_600_000;
    await tickBoth();
    const mails = smtp.to('rep@acme.test');
    expect(mails).toHaveLength(1);

    const mail = await parse(mails[0]!);
    expect(mail.subject).toBe('Daily digest for Acme Test (2026-12-03): 2 visiting accounts, 2 new, 1 hot');
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    unsubscribeUrl = /^<(https:\/\/[^>]+)>$/.exec(header(mail, 'list-unsubscribe') ?? '')?.[1] ?? '';
    expect(unsubscribeUrl).toMatch(/^https:\/\/svc\.example\/digest\/unsubscribe\?token=acme\.usr_[0-9a-f]{16}\.[A-Za-z0-9_-]+$/);
    expect(mail.messageId).toMatch(/^<digest\.usr_[0-9a-f]{16}\.day-2026-12-03@localhost>$/);
    const link = `${PUBLIC}/console/#customer=acme&amp;page=accounts&amp;account=900001`;
    expect(mail.html).toContain(`href="${link}"`);
    expect(mail.html).toContain('Northwind Analytics');
    expect(mail.html).toContain('Customer Data Platform: Awareness → Consideration');
    // A path is data: escaped, never markup.
    expect(mail.html).toContain('/blog/&lt;b&gt;bold&lt;/b&gt;');
    expect(mail.html).not.toContain('Northwind Analytics Europe');
    expect(mail.html).toContain(`href="${unsubscribeUrl.replace(/&/g, '&amp;')}"`);
    expect(mail.text).toContain('New accounts (2)');
    expect(mail.text).toContain(`${PUBLIC}/console/#customer=acme&page=accounts&account=900001`);
    expect(mail.text).toContain(`Unsubscribe: ${unsubscribeUrl}`);
    // The plain part is plain: the path as it is, no markup of ours.
    expect(mail.text).toContain('/blog/<b>bold</b>');
    expect(mail.text).not.toMatch(/<(a|div|li|p)\b/);
  });

  it('unsubscribes with one POST and no session (RFC 8058), audited; the GET only asks', async () => {
    const path = unsubscribeUrl.slice(PUBLIC.length);
    const page = await srv.request(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<form method="post"');
    const rep = await srv.users.findUserByEmail('rep@acme.test');
    expect((await srv.digests.settingsOf(rep!)).digest).toBe('daily');

    const res = await srv.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You are unsubscribed');
    expect((await srv.digests.settingsOf(rep!)).digest).toBe('off');
    const audit = await srv.users.listAudit('acme', '2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z', 1000);
    expect(audit.filter((e) => e.action === 'digest.unsubscribe')).toEqual([
      expect.objectContaining({ actor: `user:${rep!.id} rep@acme.test`, target: 'rep@acme.test', before: { digest: 'daily' }, after: { digest: 'off' } }),
    ]);
    // Again: nothing more to change, nothing more audited.
    expect(
      (await srv.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' }))
        .status,
    ).toBe(200);
    expect(
      (await srv.users.listAudit('acme', '2000-01-01T00:00:00Z', '2100-01-01T00:00:00Z', 1000)).filter((e) => e.action === 'digest.unsubscribe'),
    ).toHaveLength(1);
  });

  it('has a token that serves neither another user nor another purpose', async () => {
    const other = await subscribe('other@acme.test');
    const [customer, , mac] = new URL(unsubscribeUrl).searchParams.get('token')!.split('.');
    const post = (token: string) =>
      srv.request(`/digest/unsubscribe?token=${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
    expect((await post(`${customer}.${other.user.id}.${mac}`)).status).toBe(404);
    expect((await post(`globex.${other.user.id.replace(/.$/, '0')}.${mac}`)).status).toBe(404);
    // The same key over another purpose's text (what a token of any other use would be): refused.
    const key = Buffer.from((await srv.store.getSetting('digest_unsubscribe_key'))!, 'base64url');
    const foreign = createHmac('sha256', key).update(`svc something else v1\nacme\n${other.user.id}`).digest('base64url');
    expect((await post(`acme.${other.user.id}.${foreign}`)).status).toBe(404);
    expect((await srv.digests.settingsOf(other.user)).digest).toBe('daily');
  });

  it('is sent once by another node when the node that claimed it died (its lease ran out)', async () => {
    const { user } = await subscribe('taken-over@acme.test');
    clock = AT_HOUR + 6 * 3_600_000;
    // A node claimed it, then died before sending.
    await srv.digests.deps.store.claim({
      customer_id: 'acme',
      user_id: user.id,
      period: 'day:2026-12-03',
      owner: 'dead-node',
      nowMs: clock,
      leaseMs: DIGEST_LEASE_MS,
      keepUntilMs: clock + 86_400_000,
    });
    await tickBoth();
    expect(smtp.to('taken-over@acme.test')).toHaveLength(0);
    clock += DIGEST_LEASE_MS;
    await tickBoth();
    await tickBoth();
    expect(smtp.to('taken-over@acme.test')).toHaveLength(1);
    expect(await srv.digests.deps.store.getClaim('acme', user.id, 'day:2026-12-03')).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('is retried within the day while the mail server is down, and sent once when it is back', async () => {
    await subscribe('patient@acme.test');
    clock = AT_HOUR + 7 * 3_600_000;
    await smtp.down();
    await tickBoth();
    await smtp.up();
    // Before the backoff has passed: not tried again.
    await tickBoth();
    expect(smtp.to('patient@acme.test')).toHaveLength(0);
    clock += 61_000;
    await tickBoth();
    await tickBoth();
    expect(smtp.to('patient@acme.test')).toHaveLength(1);
    const user = await srv.users.findUserByEmail('patient@acme.test');
    expect(await srv.digests.deps.store.getClaim('acme', user!.id, 'day:2026-12-03')).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('about "my accounts" lists only the accounts the customer’s owners list gives the user', async () => {
    await subscribe('mine@acme.test', { ...DAILY_LA, scope: { type: 'my_accounts' } });
    const owners = srv.digests.deps.owners as AlertStateStore;
    const row = { slack_member_id: null, teams_mention: null };
    await owners.putOwners('acme', {
      owners: [
        { key: 'company:900001', owner_email: 'mine@acme.test', ...row },
        { key: 'domain:bluepeak.example', owner_email: 'someone-else@acme.test', ...row },
      ],
      territories: [],
      updated_at: new Date(clock).toISOString(),
    });
    clock = AT_HOUR + 7.5 * 3_600_000;
    await tickBoth();
    const mails = smtp.to('mine@acme.test');
    expect(mails).toHaveLength(1);
    const mail = await parse(mails[0]!);
    expect(mail.subject).toBe('Daily digest for Acme Test (2026-12-03): 1 visiting account, 1 new, 1 hot');
    expect(mail.html).toContain('Northwind Analytics');
    expect(mail.html).not.toContain('Bluepeak');
  });

  it('sends nothing when there is nothing to say (no account of its scope visited)', async () => {
    const { user } = await subscribe('owner-of-nothing@acme.test', { ...DAILY_LA, scope: { type: 'my_accounts' } });
    clock = AT_HOUR + 8 * 3_600_000;
    await tickBoth();
    expect(smtp.to('owner-of-nothing@acme.test')).toHaveLength(0);
    expect(await srv.digests.deps.store.getClaim('acme', user.id, 'day:2026-12-03')).toMatchObject({ status: 'empty' });
  });
});

describe('svc digest send and the preview', () => {
  it('sends a user’s digest now, once', async () => {
    await subscribe('cli@acme.test');
    const env = {
      SVC_STATE: join(srv.dir, 'svc.db'),
      SVC_DATA: join(srv.dir, 'data'),
      SVC_SMTP_URL: smtp.url(),
      SVC_PUBLIC_URL: PUBLIC,
    };
    const svc = (args: string[]) => runCliCollected(args, { env, cwd: srv.dir });
    const first = await svc(['digest', 'send', '--customer', 'acme', '--user', 'cli@acme.test', '--period', 'day', '--json']);
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out).toMatchObject({ customer: 'acme', sent: 1, results: [{ email: 'cli@acme.test', outcome: 'sent' }] });
    expect(out.results[0].period).toMatch(/^day:\d{4}-\d{2}-\d{2}$/);
    const mails = smtp.to('cli@acme.test');
    expect(mails).toHaveLength(1);
    expect((await parse(mails[0]!)).html).toContain('Northwind Analytics');
    const again = JSON.parse((await svc(['digest', 'send', '--customer', 'acme', '--user', 'cli@acme.test', '--period', 'day', '--json'])).stdout);
    expect(again.results[0].outcome).toBe('done');
    expect(smtp.to('cli@acme.test')).toHaveLength(1);
    expect((await svc(['digest', 'send', '--customer', 'nope', '--json'])).code).toBe(2);
  });

  it('previews the HTML a user would get', async () => {
    const { cookie } = await userOf('previewer@acme.test');
    clock = AT_HOUR;
    const res = await as(cookie, 'GET', '/auth/me/digest/preview');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain(`href="${PUBLIC}/console/#customer=acme&amp;page=accounts&amp;account=900001"`);
    expect((await as(cookie, 'GET', '/auth/me/digest/preview?period=year')).status).toBe(422);
  });
});
