/**
 * Invitation and reset mail (SVC_SMTP_URL) through a real SMTP exchange with an in-process server
 * (smtp-server, plaintext on 127.0.0.1): the invitee gets one mail holding the very link the API answered;
 * a server that refuses, or none at all, costs the mail only — the link is answered, `mailed: false`.
 */
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../observability/logger.ts';
import { freePort } from '../testing/redis-server.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';

interface Mail {
  from: string;
  to: string[];
  raw: string;
}

/** How the SMTP server treats the next mails. */
type Mode = 'accept' | 'refuse-sender' | 'refuse-recipient' | 'refuse-data';

const refusal = (message: string) => Object.assign(new Error(message), { responseCode: 550 });

async function startSmtp(): Promise<{ url: string; mails: Mail[]; setMode(m: Mode): void; close(): Promise<void> }> {
  const mails: Mail[] = [];
  let mode: Mode = 'accept';
  const server = new SMTPServer({
    authOptional: true,
    // Plaintext: no STARTTLS offered (nodemailer would upgrade opportunistically), no AUTH.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onMailFrom(_address, _session, callback) {
      callback(mode === 'refuse-sender' ? refusal('5.7.1 sender refused') : undefined);
    },
    onRcptTo(_address, _session, callback) {
      callback(mode === 'refuse-recipient' ? refusal('5.1.1 no such mailbox') : undefined);
    },
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (mode === 'refuse-data') return callback(refusal('5.7.1 message refused'));
        const from = session.envelope.mailFrom;
        mails.push({ from: from ? from.address : '', to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    setMode: (m) => {
      mode = m;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text of a single-part message, its transfer encoding undone. */
function bodyText(raw: string): { headers: string; text: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headers = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase() ?? '7bit';
  if (encoding === 'base64') return { headers, text: Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') };
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    return { headers, text: Buffer.from(bytes, 'latin1').toString('utf8') };
  }
  return { headers, text: body };
}

/** The log's lines, to see what a failed mail leaves there. */
function capturedLog() {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (c: Buffer) => lines.push(...c.toString('utf8').split('\n').filter(Boolean)));
  return { log: createLogger('error', { destination: stream, pretty: false }), lines };
}

const operator = (srv: TestServer, path: string, body: unknown) =>
  srv.request(path, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

interface Link {
  url: string;
  token: string;
  expires_at: string;
  mailed: boolean;
}

describe('invitation mail over SMTP', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let srv: TestServer;
  const logged = capturedLog();

  beforeAll(async () => {
    smtp = await startSmtp();
    srv = await startTestServer({ env: { SVC_SMTP_URL: smtp.url, SVC_SMTP_FROM: 'Acme Console <console@svc.test>' }, log: logged.log });
  });
  afterAll(async () => {
    await srv?.close();
    await smtp?.close();
  });
  beforeEach(() => {
    smtp.setMode('accept');
    smtp.mails.length = 0;
  });

  it('mails the invitee one mail whose text holds the link the API answered', async () => {
    const res = await operator(srv, '/admin/api/customers/acme/invitations', { email: 'Nina.New@Acme.test', role: 'marketer' });
    expect(res.status, await res.clone().text()).toBe(201);
    const link = (await res.json()) as Link;
    expect(link.mailed).toBe(true);
    expect(link.url).toBe(`${srv.url}/console/#accept=${link.token}`);

    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0]!;
    expect(mail.to).toEqual(['nina.new@acme.test']);
    expect(mail.from).toBe('console@svc.test');
    const { headers, text } = bodyText(mail.raw);
    expect(headers).toMatch(/^Subject: You are invited to Acme Test's workspace$/m);
    expect(headers).toMatch(/^To: nina\.new@acme\.test$/m);
    expect(headers).toMatch(/^From: Acme Console <console@svc\.test>$/m);
    expect(text).toContain('accept the invitation and choose a password');
    // The link, whole, on a line of its own: the one the answer holds.
    expect(text.split(/\r?\n/)).toContain(link.url);
    expect(text).toContain(link.expires_at);

    // The mailed link works.
    const accepted = await srv.request(`/auth/accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link.url).hash.replace(/^#accept=/, ''), password: 'a long enough passphrase' }),
    });
    expect(accepted.status).toBe(204);
  });

  it('mails a password reset link too', async () => {
    const user = await srv.users.createUser({ customer_id: 'acme', email: 'rita@acme.test', role: 'viewer', password_hash: null, sso: false });
    const res = await operator(srv, `/admin/api/customers/acme/users/${user.id}/reset-password`, {});
    expect(res.status).toBe(201);
    const link = (await res.json()) as Link;
    expect(link.mailed).toBe(true);
    expect(smtp.mails.map((m) => m.to)).toEqual([['rita@acme.test']]);
    const { headers, text } = bodyText(smtp.mails[0]!.raw);
    expect(headers).toMatch(/^Subject: Set a new password for Acme Test's workspace$/m);
    expect(text.split(/\r?\n/)).toContain(link.url);
  });

  for (const mode of ['refuse-sender', 'refuse-recipient', 'refuse-data'] as const) {
    it(`answers the link with mailed: false when the SMTP server refuses (${mode})`, async () => {
      smtp.setMode(mode);
      const before = logged.lines.length;
      const email = `${mode}@acme.test`;
      const res = await operator(srv, '/admin/api/customers/acme/invitations', { email, role: 'viewer' });
      expect(res.status, await res.clone().text()).toBe(201);
      const link = (await res.json()) as Link;
      expect(link).toMatchObject({ mailed: false, url: `${srv.url}/console/#accept=${link.token}` });
      expect(smtp.mails).toEqual([]);
      // The failure is logged, without the address or the link.
      const lines = logged.lines.slice(before).join('\n');
      expect(lines).toMatch(/mail to .* not sent/);
      expect(lines).not.toContain(email);
      expect(lines).not.toContain(link.token);
      // The link was issued all the same, and is good once.
      const accepted = await srv.request(`/auth/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token: link.token, password: 'a long enough passphrase' }),
      });
      expect(accepted.status).toBe(204);
    });
  }
});

describe('invitation mail with no SMTP server listening', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { SVC_SMTP_URL: `smtp://127.0.0.1:${await freePort()}` } });
  });
  afterAll(() => srv?.close());

  it('answers the link with mailed: false', async () => {
    const res = await operator(srv, '/admin/api/customers/acme/invitations', { email: 'otto@acme.test', role: 'admin' });
    expect(res.status, await res.clone().text()).toBe(201);
    const link = (await res.json()) as Link;
    expect(link.mailed).toBe(false);
    expect(link.url).toBe(`${srv.url}/console/#accept=${link.token}`);
  });
});
