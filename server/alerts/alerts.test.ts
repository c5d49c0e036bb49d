/**
 * Alerts end to end, on two server nodes sharing one real redis-server: a marketer (not an admin) uploads an
 * owners list and creates a Teams alert "entered Enterprise Software → owner" through the API; real page
 * views (POST /v1/events as the tag sends them) move Northwind into the segment on both nodes; the owner
 * from the list gets one mail (a real SMTP server in process, parsed with mailparser) and the Teams
 * stand-in (a loopback receiver) one Adaptive Card, valid against the `adaptivecards` object model. Also:
 * a labelled test alert (Teams, email, delivery log), refused URLs (422 naming the hosts), a webhook
 * destination refused to a marketer (403), pause.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../auth/password.ts';
import { adaptiveCardProblems } from '../testing/adaptive-card.ts';
import { sendPageView } from '../testing/page-view.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { TEAMS_RETIRED } from './hosts.ts';

const PASSWORD = 'a long enough passphrase';

async function startSmtp(): Promise<{ url: string; mails: ParsedMail[]; raw: string[]; close(): Promise<void> }> {
  const mails: ParsedMail[] = [];
  const raw: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        raw.push(text);
        void simpleParser(text).then((m) => mails.push(m));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    mails,
    raw,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let redis: RedisServer;
let journal: string;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let teams: WebhookReceiver;
const nodes: TestServer[] = [];
/** The marketer's and the viewer's signed-in console cookies. */
const cookies: Record<string, string> = {};

async function signIn(srv: TestServer, email: string): Promise<string> {
  const res = await srv.inject({ method: 'POST', url: '/auth/login', headers: { 'content-type': 'application/json' }, payload: { email, password: PASSWORD } });
  expect(res.statusCode, res.body).toBe(204);
  const setCookie = res.headers['set-cookie'];
  return String(Array.isArray(setCookie) ? setCookie[0] : setCookie).split(';')[0]!;
}

/** A console call of a signed-in user (same origin, as the console sends it). */
function asUser(srv: TestServer, who: string, method: string, path: string, body?: unknown, contentType = 'application/json') {
  return srv.inject({
    method: method as 'GET',
    url: path,
    headers: { cookie: cookies[who]!, host: new URL(srv.url).host, origin: srv.url, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

/** Every node delivers what is due now (the servers' own polls do too; this waits for them to be done). */
const drain = () => Promise.all(nodes.map((n) => n.webhooks.runDue()));

beforeAll(async () => {
  redis = await startRedisServer();
  journal = mkdtempSync(join(tmpdir(), 'svc-alerts-journal-'));
  smtp = await startSmtp();
  teams = await startWebhookReceiver();
  for (let n = 0; n < 2; n++) {
    nodes.push(
      await startTestServer({
        env: {
          SVC_TRUST_PROXY: 'loopback',
          SVC_REDIS_URL: redis.url,
          SVC_JOURNAL_DIR: join(journal, `node-${n}`),
          SVC_SMTP_URL: smtp.url,
          SVC_WEBHOOK_POLL_MS: '100',
        },
      }),
    );
  }
  const hash = await hashPassword(PASSWORD);
  const [a] = nodes;
  for (const [email, role] of [
    ['marketer@acme.test', 'marketer'],
    ['viewer@acme.test', 'viewer'],
    ['owner.of.northwind@acme.test', 'viewer'],
  ] as const) {
    await a!.users.createUser({ customer_id: 'acme', email, role, password_hash: hash, sso: false });
  }
  cookies.marketer = await signIn(a!, 'marketer@acme.test');
  cookies.viewer = await signIn(a!, 'viewer@acme.test');
}, 60_000);

afterAll(async () => {
  for (const n of nodes.splice(0)) await n.close();
  await teams?.close();
  await smtp?.close();
  await redis?.close();
  if (journal) rmSync(journal, { recursive: true, force: true });
});

describe('alerts (two nodes, one Redis)', () => {
  let alertId: string;

  it('a marketer uploads the owners list and creates a Teams alert routed to the owner', async () => {
    const [a] = nodes;
    const csv =
      'domain,owner_email,teams_mention,slack_member_id\nnorthwind.example,Owner.Of.Northwind@acme.test,owner.of.northwind@acme.test,U0NORTHWIND\ncountry,owner_email\n';
    const put = await asUser(
      a!,
      'marketer',
      'PUT',
      '/admin/api/customers/acme/owners',
      'domain,owner_email,teams_mention\nnorthwind.example,Owner.Of.Northwind@acme.test,owner.of.northwind@acme.test\n',
      'text/csv',
    );
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ owners: 1, territories: 0 });
    // A bad row refuses the file, naming the row.
    const bad = await asUser(a!, 'marketer', 'PUT', '/admin/api/customers/acme/owners', csv.replace('country,owner_email\n', 'x,not-an-email\n'), 'text/csv');
    expect(bad.statusCode).toBe(422);
    const owners = await asUser(a!, 'viewer', 'GET', '/admin/api/customers/acme/owners');
    expect(owners.json().owners).toEqual([
      { key: 'domain:northwind.example', owner_email: 'owner.of.northwind@acme.test', slack_member_id: null, teams_mention: 'owner.of.northwind@acme.test' },
    ]);

    const res = await asUser(a!, 'marketer', 'POST', '/admin/api/customers/acme/alerts', {
      name: 'Enterprise accounts → owner',
      trigger: { type: 'segment_entered', segment: 101 },
      destination: { type: 'teams', url: teams.url },
      route_to_owner: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    alertId = res.json().id;
    expect(res.json()).toMatchObject({
      name: 'Enterprise accounts → owner',
      paused: false,
      created_by: 'marketer@acme.test',
      route_to_owner: { instead_of_channel: false },
    });
    // The Teams URL is the channel's credential: shown masked.
    expect(res.json().destination.url).not.toBe(teams.url);
    // A viewer reads alerts, and may not make one.
    expect((await asUser(a!, 'viewer', 'GET', '/admin/api/customers/acme/alerts')).json().map((x: { id: string }) => x.id)).toEqual([alertId]);
    const viewer = await asUser(a!, 'viewer', 'POST', '/admin/api/customers/acme/alerts', {
      name: 'x',
      trigger: { type: 'hot' },
      destination: { type: 'email', to: ['a@acme.test'] },
    });
    expect(viewer.statusCode).toBe(403);
    // Alerts are not webhooks: the webhook API does not list them.
    const hooks = await a!.inject({ method: 'GET', url: '/admin/api/customers/acme/webhooks', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(hooks.json()).toEqual([]);
  });

  it('real page views on both nodes move Northwind into the segment: the owner gets one mail, the channel one valid Adaptive Card', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await sendPageView(nodes[i % 2]!.url, { path: i === 0 ? '/' : '/pricing', ip: IPS.northwind, session: `session-node-${i % 2}` });
      expect(res.status).toBe(204);
    }
    await teams.waitFor(1);
    await expect.poll(() => smtp.mails.length, { timeout: 10_000 }).toBe(1);
    // More views and every node's dispatcher drained: still one of each.
    await sendPageView(nodes[1]!.url, { path: '/pricing', ip: IPS.northwind, session: 'session-node-1' });
    await new Promise((r) => setTimeout(r, 300));
    await drain();
    expect(teams.received).toHaveLength(1);
    expect(smtp.mails).toHaveLength(1);

    const message = JSON.parse(teams.received[0]!.body);
    expect(message.type).toBe('message');
    const card = message.attachments[0].content;
    expect(message.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(adaptiveCardProblems(card)).toEqual([]);
    const text = JSON.stringify(card.body);
    expect(text).toContain('Northwind');
    expect(text).toContain('entered Enterprise Software');
    expect(text).toContain('Enterprise Software');
    expect(card.actions[0]).toMatchObject({ type: 'Action.OpenUrl', url: expect.stringContaining('#customer=acme&page=accounts&account=900001') });
    // The owner is mentioned (the owners list's Teams mention), as Teams reads mentions.
    expect(card.msteams.entities).toEqual([
      {
        type: 'mention',
        text: '<at>owner.of.northwind@acme.test</at>',
        mentioned: { id: 'owner.of.northwind@acme.test', name: 'owner.of.northwind@acme.test' },
      },
    ]);

    const mail = smtp.mails[0]!;
    expect((mail.to as { value: { address: string }[] }).value.map((v) => v.address)).toEqual(['owner.of.northwind@acme.test']);
    expect(mail.subject).toMatch(/Northwind.*entered Enterprise Software/);
    expect(mail.subject).not.toContain('[TEST]');
    expect(mail.text).toContain('Pages this visit');
    expect(mail.text).toContain('You get this as the owner of the account.');
    expect(mail.html).toContain('Open the account');

    const log = await asUser(nodes[0]!, 'viewer', 'GET', `/admin/api/customers/acme/alerts/${alertId}/deliveries`);
    expect(
      log
        .json()
        .map((d: { status: string }) => d.status)
        .sort(),
    ).toEqual(['delivered', 'delivered']);
  });

  it('a test alert is labelled as a test in Teams, in email and in the delivery log', async () => {
    const res = await asUser(nodes[0]!, 'marketer', 'POST', `/admin/api/customers/acme/alerts/${alertId}/test`, {});
    expect(res.statusCode, res.body).toBe(202);
    await teams.waitFor(2);
    const card = JSON.parse(teams.received[1]!.body).attachments[0].content;
    expect(adaptiveCardProblems(card)).toEqual([]);
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', text: expect.stringContaining('TEST ALERT') });

    const email = await asUser(nodes[0]!, 'marketer', 'POST', '/admin/api/customers/acme/alerts', {
      name: 'Pricing visits by mail',
      trigger: { type: 'visited', path: '/pricing*' },
      destination: { type: 'email', to: ['sales@acme.test'] },
    });
    expect(email.statusCode, email.body).toBe(201);
    expect((await asUser(nodes[1]!, 'marketer', 'POST', `/admin/api/customers/acme/alerts/${email.json().id}/test`)).statusCode).toBe(202);
    await expect.poll(() => smtp.mails.find((m) => m.subject?.startsWith('[TEST]')), { timeout: 10_000 }).toBeDefined();
    const test = smtp.mails.find((m) => m.subject?.startsWith('[TEST]'))!;
    expect(test.text).toContain('TEST ALERT');
    expect(test.headers.get('x-svc-test-alert')).toBe('true');
    await drain();
    const log = await asUser(nodes[0]!, 'viewer', 'GET', `/admin/api/customers/acme/alerts/${alertId}/deliveries`);
    expect(log.json().filter((d: { test?: boolean }) => d.test === true)).toHaveLength(1);
    await asUser(nodes[0]!, 'marketer', 'DELETE', `/admin/api/customers/acme/alerts/${email.json().id}`);
  });

  it('a URL that is not Slack’s or Teams’ is 422 naming the hosts; retired Office 365 connectors say so', async () => {
    const post = (destination: unknown) =>
      asUser(nodes[0]!, 'marketer', 'POST', '/admin/api/customers/acme/alerts', { name: 'x', trigger: { type: 'hot' }, destination });
    const retired = await post({ type: 'teams', url: 'https://acme.webhook.office.com/webhookb2/abc@def/IncomingWebhook/123/456' });
    expect(retired.statusCode).toBe(422);
    expect(retired.json().message).toContain(TEAMS_RETIRED);
    expect(retired.json().message).toContain('logic.azure.com');
    const ftp = await post({ type: 'slack', url: 'ftp://hooks.slack.com/services/T/B/X' });
    expect(ftp.statusCode).toBe(422);
  });

  it('a webhook (signed JSON) destination is an admin’s: 403 to a marketer', async () => {
    const res = await asUser(nodes[0]!, 'marketer', 'POST', '/admin/api/customers/acme/alerts', {
      name: 'raw',
      trigger: { type: 'hot' },
      destination: { type: 'webhook', url: teams.url },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toContain('webhooks:write');
    const admin = await nodes[0]!.inject({
      method: 'POST',
      url: '/admin/api/customers/acme/alerts',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: { name: 'raw', trigger: { type: 'hot' }, destination: { type: 'webhook', url: teams.url }, paused: true },
    });
    expect(admin.statusCode, admin.body).toBe(201);
    expect(admin.json().secret).toMatch(/^whsec_/);
    // A marketer may not change or remove it either.
    expect((await asUser(nodes[0]!, 'marketer', 'PATCH', `/admin/api/customers/acme/alerts/${admin.json().id}`, { paused: false })).statusCode).toBe(403);
  });

  it('pauses through PATCH', async () => {
    const res = await asUser(nodes[0]!, 'marketer', 'PATCH', `/admin/api/customers/acme/alerts/${alertId}`, { paused: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().paused).toBe(true);
    expect((await asUser(nodes[1]!, 'viewer', 'GET', `/admin/api/customers/acme/alerts/${alertId}`)).json().paused).toBe(true);
  });
});
