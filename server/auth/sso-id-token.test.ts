/**
 * The ID token's signature and times, against a hand-rolled provider whose token endpoint answers whatever
 * ID token the test mints (oidc-provider only ever signs honest ones): a token signed by a key the provider
 * does not publish, or issued in the future, signs nobody in.
 */
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SsoProvider } from '../../core/user-records.ts';
import { beginSsoLogin, clearSsoDiscoveryCache, finishSsoLogin, MAX_CLOCK_SKEW_S, SsoError } from './sso.ts';

const REDIRECT_URI = 'http://127.0.0.1:4599/auth/sso/callback';
const CLIENT_ID = 'svc-acme';

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const published = rsa();
const foreign = rsa();

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
function jwt(key: KeyObject, kid: string, claims: Record<string, unknown>): string {
  const input = `${b64url({ alg: 'RS256', typ: 'JWT', kid })}.${b64url(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

let server: Server;
let issuer: string;
/** The ID token the token endpoint answers next. */
let nextIdToken: () => string = () => '';
let jwksHits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    const send = (body: unknown) => res.end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') {
      return send({
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (req.url === '/jwks') {
      jwksHits++;
      return send({ keys: [{ ...published.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] });
    }
    if (req.url === '/token' && req.method === 'POST') {
      req.resume();
      return req.on('end', () => send({ access_token: 'at-1', token_type: 'Bearer', expires_in: 60, id_token: nextIdToken() }));
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => clearSsoDiscoveryCache());

const provider = (): SsoProvider => ({
  customer_id: 'cus_acme',
  issuer,
  client_id: CLIENT_ID,
  client_secret: 'acme-client-secret-9c1d',
  allowed_domains: ['acme.test'],
  default_role: 'viewer',
  display_name: 'Acme SSO',
});

/** A whole login at `now` whose token endpoint answers the ID token `mint(nonce, nowS)` makes. */
async function login(mint: (nonce: string, nowS: number) => string, now = new Date()) {
  const p = provider();
  const { pending } = await beginSsoLogin(p, REDIRECT_URI, now);
  nextIdToken = () => mint(pending.nonce, Math.floor(now.getTime() / 1000));
  const callback = new URL(`${REDIRECT_URI}?code=code-1&state=${pending.state}`);
  return finishSsoLogin(p, REDIRECT_URI, callback, pending, now);
}

const claims = (nonce: string, nowS: number, over: Record<string, unknown> = {}) => ({
  iss: issuer,
  aud: CLIENT_ID,
  sub: 'alice-1',
  nonce,
  iat: nowS,
  exp: nowS + 300,
  email: 'alice@acme.test',
  email_verified: true,
  ...over,
});

async function refusedReason(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => new Error('signed in'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SsoError);
  return (err as SsoError).reason;
}

describe('the ID token from the token endpoint', () => {
  it('signs in with a token signed by a key the provider publishes (jwks_uri)', async () => {
    await expect(login((nonce, now) => jwt(published.privateKey, 'k1', claims(nonce, now)))).resolves.toEqual({ email: 'alice@acme.test', subject: 'alice-1' });
    expect(jwksHits).toBeGreaterThan(0);
  });

  it('refuses a token signed by a foreign key, under the published kid or another', async () => {
    expect(await refusedReason(login((nonce, now) => jwt(foreign.privateKey, 'k1', claims(nonce, now))))).toBe('id_token');
    expect(await refusedReason(login((nonce, now) => jwt(foreign.privateKey, 'attacker', claims(nonce, now))))).toBe('id_token');
  });

  it('refuses a token with a tampered payload (the signature of another)', async () => {
    const reason = await refusedReason(
      login((nonce, now) => {
        const honest = jwt(published.privateKey, 'k1', claims(nonce, now)).split('.');
        return [honest[0], b64url(claims(nonce, now, { sub: 'mallory', email: 'owner@acme.test' })), honest[2]].join('.');
      }),
    );
    expect(reason).toBe('id_token');
  });

  it(`refuses a token issued more than ${MAX_CLOCK_SKEW_S} s in the future (an hour, or 61 s), and takes one ${MAX_CLOCK_SKEW_S} s ahead`, async () => {
    expect(MAX_CLOCK_SKEW_S).toBe(60);
    const now = new Date();
    const hourAhead = (nonce: string, s: number) => jwt(published.privateKey, 'k1', claims(nonce, s, { iat: s + 3600, exp: s + 3900 }));
    expect(await refusedReason(login(hourAhead, now))).toBe('id_token');
    const justPast = (nonce: string, s: number) => jwt(published.privateKey, 'k1', claims(nonce, s, { iat: s + 61 }));
    expect(await refusedReason(login(justPast, now))).toBe('id_token');
    const atBound = (nonce: string, s: number) => jwt(published.privateKey, 'k1', claims(nonce, s, { iat: s + 60 }));
    await expect(login(atBound, now)).resolves.toMatchObject({ subject: 'alice-1' });
  });

  it(`refuses a token expired more than ${MAX_CLOCK_SKEW_S} s ago`, async () => {
    const expired = (nonce: string, s: number) => jwt(published.privateKey, 'k1', claims(nonce, s, { iat: s - 600, exp: s - 61 }));
    expect(await refusedReason(login(expired))).toBe('id_token');
  });

  it('refuses a provider whose discovery document names no jwks_uri', async () => {
    const bare: Server = createServer((_req, res) => {
      const iss = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ issuer: iss, authorization_endpoint: `${iss}/auth`, token_endpoint: `${iss}/token` }));
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    try {
      const err = await beginSsoLogin({ ...provider(), issuer: `http://127.0.0.1:${(bare.address() as AddressInfo).port}` }, REDIRECT_URI).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SsoError);
      expect((err as SsoError).message).toMatch(/publishes no signing keys/);
    } finally {
      bare.closeAllConnections();
      await new Promise<void>((r) => bare.close(() => r()));
    }
  });
});
