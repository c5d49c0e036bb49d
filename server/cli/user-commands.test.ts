/**
 * `svc user invite` / `user reset-password` links without SVC_PUBLIC_URL: built on the address a server
 * with the shell's PORT and HOST listens on (as the API's link, which takes the request's origin), with a
 * warning naming SVC_PUBLIC_URL (a `warning` field with --json, a stderr line otherwise); with
 * SVC_PUBLIC_URL, on it and without a warning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { runCliCollected } from './run.ts';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
}, 60_000);
afterAll(() => srv?.close());

let n = 0;
/** `svc user invite` on the test server's state, with these settings in the shell's environment. */
async function invite(env: Record<string, string>) {
  // Only what is given: the test process's own PORT/HOST/SVC_PUBLIC_URL must not leak into the CLI's shell.
  const base: Record<string, string> = { SVC_STATE: `${srv.dir}/svc.db`, SVC_DATA: `${srv.dir}/data`, SVC_LOG: 'error' };
  const run = await runCliCollected(['user', 'invite', '--customer', 'acme', '--email', `cli-${++n}@acme.test`, '--role', 'viewer', '--json'], {
    env: { ...base, ...env },
  });
  expect(run.code, run.stderr).toBe(0);
  const answer = JSON.parse(run.stdout) as { url: string; warning?: string };
  return { url: answer.url, warning: answer.warning, stderr: run.stderr };
}

describe('svc user invite: the link', () => {
  it("has the port and host the server listens on, as the API's invitation has", async () => {
    const api = await fetch(`${srv.url}/admin/api/customers/acme/invitations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'api@acme.test', role: 'viewer' }),
    });
    expect(api.status).toBe(201);
    const apiOrigin = new URL(((await api.json()) as { url: string }).url).origin;
    const cli = await invite({ PORT: String(srv.port), HOST: '127.0.0.1' });
    expect(new URL(cli.url).origin).toBe(apiOrigin);
    expect(cli.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${srv.port}/console/#accept=[A-Za-z0-9_-]{43}$`));
  });

  it('reads every address (0.0.0.0, ::) as localhost, brackets an IPv6 literal, and defaults to 8080 as the server does', async () => {
    expect((await invite({ PORT: '3456' })).url).toMatch(/^http:\/\/localhost:3456\/console\/#accept=/);
    expect((await invite({ PORT: '3457', HOST: '0.0.0.0' })).url).toMatch(/^http:\/\/localhost:3457\/console\/#accept=/);
    expect((await invite({ PORT: '3458', HOST: '::' })).url).toMatch(/^http:\/\/localhost:3458\/console\/#accept=/);
    expect((await invite({ PORT: '3459', HOST: '::1' })).url).toMatch(/^http:\/\/\[::1\]:3459\/console\/#accept=/);
    expect((await invite({})).url).toMatch(/^http:\/\/localhost:8080\/console\/#accept=/);
  });

  it('without SVC_PUBLIC_URL says which address it assumed and that SVC_PUBLIC_URL sets the right one', async () => {
    // --json: a field of the one JSON value on stdout.
    const { warning, stderr } = await invite({ PORT: '3456' });
    expect(warning).toContain('SVC_PUBLIC_URL is not set, so the link is built on http://localhost:3456 (PORT=3456, HOST=0.0.0.0 of this shell)');
    expect(warning).toContain('set SVC_PUBLIC_URL to that address');
    expect(stderr).toBe('');
    // Text: a line on stderr, the link on stdout.
    const text = await runCliCollected(['user', 'invite', '--customer', 'acme', '--email', `cli-${++n}@acme.test`, '--role', 'viewer'], {
      env: { SVC_STATE: `${srv.dir}/svc.db`, SVC_DATA: `${srv.dir}/data`, SVC_LOG: 'error', PORT: '3456' },
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/^svc user invite: SVC_PUBLIC_URL is not set, so the link is built on http:\/\/localhost:3456 /);
    expect(text.stdout).toMatch(/\nhttp:\/\/localhost:3456\/console\/#accept=[A-Za-z0-9_-]{43}\n$/);
  });

  it('with SVC_PUBLIC_URL is built on it, without a note', async () => {
    const { url, warning, stderr } = await invite({ PORT: '3456', SVC_PUBLIC_URL: 'https://svc.example.com/' });
    expect(url).toMatch(/^https:\/\/svc\.example\.com\/console\/#accept=[A-Za-z0-9_-]{43}$/);
    expect(warning).toBeUndefined();
    expect(stderr).toBe('');
  });

  it('user reset-password builds its link the same way', async () => {
    const { url } = await invite({ PORT: String(srv.port), HOST: '127.0.0.1' });
    const email = `cli-${n}@acme.test`;
    const accepted = await fetch(`${srv.url}/auth/accept`, {
      method: 'POST',
      headers: { 'user-agent': BROWSER_UA, origin: srv.url, 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(url).hash.slice('#accept='.length), password: 'a long enough passphrase' }),
    });
    expect(accepted.status).toBe(204);
    const run = await runCliCollected(['user', 'reset-password', '--customer', 'acme', email, '--json'], {
      env: { SVC_STATE: `${srv.dir}/svc.db`, SVC_DATA: `${srv.dir}/data`, SVC_LOG: 'error', PORT: '3460', HOST: '::' },
    });
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { url: string }).url).toMatch(/^http:\/\/localhost:3460\/console\/#accept=[A-Za-z0-9_-]{43}$/);
    expect((JSON.parse(run.stdout) as { warning: string }).warning).toContain('link is built on http://localhost:3460');
  });
});
