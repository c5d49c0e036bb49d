/**
 * Links are never built on a Host header the deployment does not vouch for, over real HTTP (node:http: fetch
 * will not send a Host of our choosing): without SVC_PUBLIC_URL a spoofed Host ends neither in an invitation
 * link (its token would go to the spoofer's site) nor in the `/schemas` `$id`s and urls; loopback names and
 * SVC_ALLOWED_HOSTS entries are taken; SVC_PUBLIC_URL wins over any Host.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { acceptedHost } from './public-base.ts';

/** A request to `srv` with this Host header: status and body text. */
function send(srv: TestServer, host: string, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: srv.port,
        method,
        path,
        headers: {
          host,
          authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
          ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const invite = (srv: TestServer, host: string, email: string) => send(srv, host, 'POST', '/admin/api/customers/acme/invitations', { email, role: 'viewer' });

describe('without SVC_PUBLIC_URL', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { SVC_ALLOWED_HOSTS: 'svc.example.com, console.example.org:8443' } });
  });
  afterAll(() => srv?.close());

  it('builds no invitation link on a spoofed Host: the listening address instead', async () => {
    const res = await invite(srv, 'attacker.example', 'spoof1@acme.test');
    expect(res.status, res.text).toBe(201);
    const { url } = JSON.parse(res.text) as { url: string };
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${srv.port}/console/#accept=[\\w-]{43}$`));
    const spoofed = ['attacker.example:80', 'svc.example.com.attacker.example', 'console.example.org:9999', 'x@attacker.example'];
    for (const [i, host] of spoofed.entries()) {
      const r = await invite(srv, host, `spoof-${i}@acme.test`);
      expect(r.text).not.toContain('attacker');
      if (r.status === 201) expect((JSON.parse(r.text) as { url: string }).url.startsWith(`http://127.0.0.1:${srv.port}/`)).toBe(true);
    }
  });

  it('puts no spoofed Host in the /schemas ids', async () => {
    const res = await send(srv, 'attacker.example', 'GET', '/schemas');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('attacker.example');
    expect(res.text).toContain(`http://127.0.0.1:${srv.port}/schemas/`);
  });

  it('takes a loopback Host and the SVC_ALLOWED_HOSTS entries (any port for a name alone, that port for name:port)', async () => {
    const linkOn = async (host: string, email: string) => (JSON.parse((await invite(srv, host, email)).text) as { url: string }).url;
    expect(await linkOn(`localhost:${srv.port}`, 'l1@acme.test')).toMatch(new RegExp(`^http://localhost:${srv.port}/console/#accept=`));
    expect(await linkOn('svc.example.com:8080', 'l2@acme.test')).toMatch(/^http:\/\/svc\.example\.com:8080\/console\/#accept=/);
    expect(await linkOn('SVC.example.com', 'l3@acme.test')).toMatch(/^http:\/\/svc\.example\.com\/console\/#accept=/);
    expect(await linkOn('console.example.org:8443', 'l4@acme.test')).toMatch(/^http:\/\/console\.example\.org:8443\/console\/#accept=/);
    const schemas = await send(srv, 'svc.example.com', 'GET', '/schemas');
    expect(schemas.text).toContain('http://svc.example.com/schemas/');
  });
});

describe('with SVC_PUBLIC_URL', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ env: { SVC_PUBLIC_URL: 'https://svc.example.com' } });
  });
  afterAll(() => srv?.close());

  it('builds links and schema ids on it whatever the Host', async () => {
    const res = await invite(srv, 'attacker.example', 'p1@acme.test');
    expect((JSON.parse(res.text) as { url: string }).url).toMatch(/^https:\/\/svc\.example\.com\/console\/#accept=/);
    const schemas = await send(srv, 'attacker.example', 'GET', '/schemas');
    expect(schemas.text).not.toContain('attacker.example');
    expect(schemas.text).toContain('https://svc.example.com/schemas/');
  });
});

describe('acceptedHost', () => {
  const config = (env: Record<string, string> = {}) => loadConfig({}, { HOST: '10.0.0.5', ...env });
  it('takes loopback names, HOST:PORT, allowed hosts and, in demo mode, any Host', () => {
    expect(acceptedHost('127.0.0.1:3000', config(), 8080)).toBe(true);
    expect(acceptedHost('[::1]:3000', config(), 8080)).toBe(true);
    expect(acceptedHost('10.0.0.5:8080', config(), 8080)).toBe(true);
    expect(acceptedHost('10.0.0.5:8081', config(), 8080)).toBe(false);
    expect(acceptedHost('evil.example', config(), 8080)).toBe(false);
    expect(acceptedHost('evil.example', config({ SVC_DEMO: '1' }), 8080)).toBe(true);
    expect(acceptedHost('evil.example:1', config({ SVC_ALLOWED_HOSTS: 'evil.example' }), 8080)).toBe(true);
    expect(acceptedHost('', config({ SVC_DEMO: '1' }), 8080)).toBe(false);
  });
});
