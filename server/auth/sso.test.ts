/** Single sign-on against a real OpenID Connect provider (oidc-provider on 127.0.0.1), driven like a browser. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SsoProvider } from '../../core/user-records.ts';
import { type OidcTestProvider, startOidcProvider } from '../testing/oidc-provider.ts';
import { beginSsoLogin, clearSsoDiscoveryCache, finishSsoLogin, PENDING_LOGIN_TTL_MS, type PendingLogin, SsoError, type SsoFailure } from './sso.ts';

const REDIRECT_URI = 'http://127.0.0.1:4599/auth/sso/callback';
const CLIENT = { client_id: 'svc-acme', client_secret: 'acme-client-secret-3f9a7c1e', redirect_uris: [REDIRECT_URI] };
const ACCOUNTS = [
  { sub: 'alice', email: 'Alice@Acme.test', email_verified: true },
  { sub: 'bob', email: 'bob@other.test', email_verified: true },
  { sub: 'carol', email: 'carol@acme.test', email_verified: false },
  // No email_verified claim at all (Entra ID does not send one): refused unless the provider opts in.
  { sub: 'dave', email: 'dave@acme.test' },
];

function ssoProvider(issuer: string, over: Partial<SsoProvider> = {}): SsoProvider {
  return {
    customer_id: 'cus_acme',
    issuer,
    client_id: CLIENT.client_id,
    client_secret: CLIENT.client_secret,
    allowed_domains: ['acme.test'],
    default_role: 'viewer',
    display_name: 'Acme SSO',
    ...over,
  };
}

async function refusal(p: Promise<unknown>): Promise<SsoError> {
  const err = await p.then(
    () => {
      throw new Error('expected an SsoError, the login succeeded');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SsoError);
  return err as SsoError;
}

async function expectRefused(p: Promise<unknown>, reason: SsoFailure): Promise<SsoError> {
  const err = await refusal(p);
  expect({ reason: err.reason, message: err.message }).toMatchObject({ reason });
  // Safe to show: no secret, no code, no token.
  expect(err.message).not.toContain(CLIENT.client_secret);
  return err;
}

/** begin → browser at the provider → the callback URL, with what the server kept (through JSON, as a cookie would). */
async function signIn(op: OidcTestProvider, sub: string, provider = ssoProvider(op.issuer), opts?: { deny?: boolean }) {
  const { url, pending } = await beginSsoLogin(provider, REDIRECT_URI);
  const callback = new URL(await op.login(url, sub, opts));
  return { provider, pending: JSON.parse(JSON.stringify(pending)) as PendingLogin, callback, url: new URL(url) };
}

describe('single sign-on (OpenID Connect, authorization code + PKCE)', () => {
  let op: OidcTestProvider;
  beforeAll(async () => {
    op = await startOidcProvider({ clients: [CLIENT], accounts: ACCOUNTS });
  });
  afterAll(async () => {
    // Every token request the provider refused was one a test meant it to refuse.
    expect(op.tokenErrors.filter((e) => e.startsWith('server_error'))).toEqual([]);
    await op?.close();
  });

  it('signs in: the authorization request carries PKCE S256, state, nonce and the scopes; the email comes back', async () => {
    const { provider, pending, callback, url } = await signIn(op, 'alice');
    expect(url.origin).toBe(op.issuer);
    const q = url.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(CLIENT.client_id);
    expect(q.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(q.get('scope')).toBe('openid email profile');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(q.get('state')).toBe(pending.state);
    expect(q.get('nonce')).toBe(pending.nonce);
    expect(q.has('client_secret')).toBe(false);
    expect(pending).toEqual({
      customer_id: 'cus_acme',
      state: expect.any(String),
      nonce: expect.any(String),
      code_verifier: expect.stringMatching(/^[\w-]{43,128}$/),
      created_at: expect.any(String),
    });

    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('state')).toBe(pending.state);
    expect(callback.searchParams.get('code')).toBeTruthy();
    await expect(finishSsoLogin(provider, REDIRECT_URI, callback, pending)).resolves.toEqual({ email: 'alice@acme.test', subject: 'alice' });
  });

  it('refuses an email the provider says nothing about (no email_verified claim)', async () => {
    const { provider, pending, callback } = await signIn(op, 'dave');
    const err = await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, pending), 'no_email');
    expect(err.message).toBe('The identity provider has not verified your email address.');
  });

  it('accepts an email without email_verified when the provider opts in (email_verified_optional), never one it says is not verified', async () => {
    const optIn = ssoProvider(op.issuer, { email_verified_optional: true });
    const d = await signIn(op, 'dave', optIn);
    await expect(finishSsoLogin(d.provider, REDIRECT_URI, d.callback, d.pending)).resolves.toEqual({ email: 'dave@acme.test', subject: 'dave' });
    const c = await signIn(op, 'carol', optIn);
    await expectRefused(finishSsoLogin(c.provider, REDIRECT_URI, c.callback, c.pending), 'no_email');
  });

  it('refuses a wrong state, a login of another customer and a login started too long ago', async () => {
    const { provider, pending, callback } = await signIn(op, 'alice');
    const forged = new URL(callback);
    forged.searchParams.set('state', 'attacker-state');
    await expectRefused(finishSsoLogin(provider, REDIRECT_URI, forged, pending), 'state');
    const stateless = new URL(callback);
    stateless.searchParams.delete('state');
    await expectRefused(finishSsoLogin(provider, REDIRECT_URI, stateless, pending), 'state');
    await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, { ...pending, state: 'another-login' }), 'state');
    await expectRefused(finishSsoLogin(ssoProvider(op.issuer, { customer_id: 'cus_other' }), REDIRECT_URI, callback, pending), 'state');
    const late = new Date(Date.parse(pending.created_at) + PENDING_LOGIN_TTL_MS + 1000);
    await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, pending, late), 'state');
    const mixedUp = new URL(callback);
    mixedUp.searchParams.set('iss', 'https://idp.attacker.example');
    await expectRefused(finishSsoLogin(provider, REDIRECT_URI, mixedUp, pending), 'state');
    // None of these reached the provider: the code is still good.
    await expect(finishSsoLogin(provider, REDIRECT_URI, callback, pending)).resolves.toMatchObject({ email: 'alice@acme.test' });
  });

  it('refuses a code used twice', async () => {
    const { provider, pending, callback } = await signIn(op, 'alice');
    await expect(finishSsoLogin(provider, REDIRECT_URI, callback, pending)).resolves.toMatchObject({ email: 'alice@acme.test' });
    await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, pending), 'code');
    expect(op.tokenErrors.at(-1)).toBe('authorization code already consumed');
  });

  it('refuses a code exchanged without its PKCE verifier', async () => {
    const { provider, pending, callback } = await signIn(op, 'alice');
    const other = await beginSsoLogin(provider, REDIRECT_URI);
    await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, { ...pending, code_verifier: other.pending.code_verifier }), 'code');
    expect(op.tokenErrors.at(-1)).toBe('PKCE verification failed');
  });

  it('refuses an ID token with another nonce, and an expired ID token', async () => {
    const a = await signIn(op, 'alice');
    await expectRefused(finishSsoLogin(a.provider, REDIRECT_URI, a.callback, { ...a.pending, nonce: 'replayed-nonce' }), 'id_token');

    // Two hours on (the provider's ID tokens live 10 minutes), with a login started a minute before that.
    const b = await signIn(op, 'alice');
    const later = new Date(Date.now() + 2 * 3600_000);
    const pending = { ...b.pending, created_at: new Date(later.getTime() - 60_000).toISOString() };
    await expectRefused(finishSsoLogin(b.provider, REDIRECT_URI, b.callback, pending, later), 'id_token');
  });

  it('refuses an email of a domain that is not allowed', async () => {
    const { provider, pending, callback } = await signIn(op, 'bob');
    const err = await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, pending), 'email_domain');
    expect(err.message).toContain('other.test');
  });

  it('refuses an email the provider says is not verified', async () => {
    const { provider, pending, callback } = await signIn(op, 'carol');
    await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, pending), 'no_email');
  });

  it('reports a sign-in declined at the provider', async () => {
    const { provider, pending, callback } = await signIn(op, 'alice', undefined, { deny: true });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const err = await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, pending), 'provider');
    expect(err.message).toContain('access_denied');
  });

  it('reports wrong client credentials without showing them', async () => {
    const provider = ssoProvider(op.issuer);
    const { pending, callback } = await signIn(op, 'alice', provider);
    const wrong = { ...provider, client_secret: 'a-wrong-secret-7d2e' };
    const err = await expectRefused(finishSsoLogin(wrong, REDIRECT_URI, callback, pending), 'provider');
    expect(err.message).toMatch(/client credentials/);
    expect(err.message).not.toContain('a-wrong-secret-7d2e');
  });
});

describe('single sign-on: provider variants', () => {
  it('refuses an expired authorization code (1 s code lifetime)', async () => {
    const op = await startOidcProvider({ clients: [CLIENT], accounts: ACCOUNTS, codeTtlSeconds: 1 });
    try {
      const { provider, pending, callback } = await signIn(op, 'alice');
      await new Promise((r) => setTimeout(r, 2100));
      await expectRefused(finishSsoLogin(provider, REDIRECT_URI, callback, pending), 'code');
      // Storage drops an artifact when it expires (as Redis would), so the provider reports it gone.
      expect(op.tokenErrors).toEqual([expect.stringMatching(/^authorization code (is expired|not found)$/)]);
    } finally {
      await op.close();
    }
  });

  it('reads the email from userinfo when the ID token carries none', async () => {
    const op = await startOidcProvider({ clients: [CLIENT], accounts: ACCOUNTS, claimsInIdToken: false });
    try {
      const a = await signIn(op, 'alice');
      await expect(finishSsoLogin(a.provider, REDIRECT_URI, a.callback, a.pending)).resolves.toEqual({ email: 'alice@acme.test', subject: 'alice' });
      const c = await signIn(op, 'carol');
      await expectRefused(finishSsoLogin(c.provider, REDIRECT_URI, c.callback, c.pending), 'no_email');
      const b = await signIn(op, 'bob');
      await expectRefused(finishSsoLogin(b.provider, REDIRECT_URI, b.callback, b.pending), 'email_domain');
    } finally {
      await op.close();
    }
  });

  it('allows http only for a loopback issuer', async () => {
    for (const issuer of ['http://idp.example.com', 'http://10.0.0.5:8080', 'ftp://localhost/']) {
      await expectRefused(beginSsoLogin(ssoProvider(issuer), REDIRECT_URI), 'provider');
    }
  });

  it('caches discovery per issuer, and refuses a discovery document naming another issuer or plain-http endpoints elsewhere', async () => {
    let hits = 0;
    let doc: (issuer: string) => Record<string, unknown> = () => ({});
    const server: Server = createServer((req, res) => {
      if (req.url !== '/.well-known/openid-configuration') {
        res.statusCode = 404;
        return res.end();
      }
      hits++;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(doc(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const valid = (iss: string) => ({ issuer: iss, authorization_endpoint: `${iss}/auth`, token_endpoint: `${iss}/token`, jwks_uri: `${iss}/jwks` });
      doc = valid;
      clearSsoDiscoveryCache();
      const first = await beginSsoLogin(ssoProvider(issuer), REDIRECT_URI);
      const second = await beginSsoLogin(ssoProvider(issuer, { customer_id: 'cus_b', client_id: 'other-client' }), REDIRECT_URI);
      expect(new URL(second.url).searchParams.get('client_id')).toBe('other-client');
      expect(first.pending.state).not.toBe(second.pending.state);
      expect(hits).toBe(1);

      const bad: Array<[(iss: string) => Record<string, unknown>, RegExp]> = [
        [(iss) => ({ ...valid(iss), issuer: 'https://idp.example.com' }), /could not be reached or sent an invalid discovery document/],
        [(iss) => ({ ...valid(iss), token_endpoint: 'http://idp.example.com/token' }), /endpoints must be https/],
        [(iss) => ({ ...valid(iss), token_endpoint: undefined }), /does not support the authorization code flow/],
      ];
      for (const [document, message] of bad) {
        doc = document;
        clearSsoDiscoveryCache();
        expect((await expectRefused(beginSsoLogin(ssoProvider(issuer), REDIRECT_URI), 'provider')).message).toMatch(message);
      }
      // A failed discovery is not cached.
      doc = valid;
      await expect(beginSsoLogin(ssoProvider(issuer), REDIRECT_URI)).resolves.toBeTruthy();
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('reports a provider that cannot be reached, and one that does not answer within 5 s', async () => {
    const closed: Server = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expectRefused(beginSsoLogin(ssoProvider(`http://127.0.0.1:${port}`), REDIRECT_URI), 'provider');

    const silent: Server = createServer(() => {}); // never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const started = Date.now();
      await expectRefused(beginSsoLogin(ssoProvider(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`), REDIRECT_URI), 'provider');
      expect(Date.now() - started).toBeGreaterThanOrEqual(4500);
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  }, 15_000);
});
