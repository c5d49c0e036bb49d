/**
 * Single sign-on with a customer's OpenID Connect provider: the protocol half (the routes live elsewhere).
 *
 *   beginSsoLogin(provider, redirectUri)      → the provider's authorization URL, and the PendingLogin the
 *                                               server keeps until the callback (server-side, or in a short-lived
 *                                               signed cookie: it holds the PKCE verifier, so never unsigned).
 *   finishSsoLogin(provider, redirectUri, callbackUrl, pending)
 *                                             → { email, subject } of a person the provider vouches for.
 *
 * Authorization code flow with PKCE (S256), `state` and `nonce`, scope `openid email profile`, through
 * openid-client v6, which validates the authorization response (state, RFC 9207 `iss`) and the ID token (issuer,
 * audience, nonce, expiry). The ID token's signature is checked too, against the provider's published keys
 * (its `jwks_uri`, cached with the discovery document), although OIDC Core 3.1.3.7 lets a client skip it for
 * a token from the token endpoint: the token binds the person's `sub` to their account here, so a token
 * the provider did not sign (a compromised or misrouted token endpoint, a plain-http test issuer) must not
 * sign anybody in. Its times are checked with MAX_CLOCK_SKEW_S of tolerance either way (`exp`, `nbf`, and an
 * `iat` in the future). The email comes from the ID token, or from userinfo when the ID token carries none
 * (a provider may serve scope claims there only); the provider must say it is verified
 * (`email_verified: true`; a provider that never sends the claim needs `email_verified_optional`, and an
 * explicit `false` is refused even then), and its domain must be one of the provider's allowed_domains
 * (exact match: a subdomain has to be listed on its own).
 *
 * Every failure is an SsoError: `reason` for the caller's branching and audit log, `message` safe to show to
 * the person signing in (no secret, no token, no provider response body); `cause` is for server logs.
 *
 * Discovery documents are cached per issuer for 5 minutes (at most 200 issuers; a failed discovery is not).
 * Every request to a provider times out after 5 s. Issuers must be https, except on localhost / 127.0.0.1 /
 * [::1] (tests), where http is allowed.
 */
import * as oidc from 'openid-client';
import { Email, type SsoProvider } from '../../core/user-records.ts';

export const SSO_SCOPE = 'openid email profile';
/** How long a login may take between the redirect to the provider and the callback. */
export const PENDING_LOGIN_TTL_MS = 10 * 60_000;
export const DISCOVERY_TTL_MS = 5 * 60_000;
export const DISCOVERY_CACHE_MAX = 200;
/** Seconds, per request to the provider (discovery, token, userinfo). */
export const PROVIDER_TIMEOUT_S = 5;
/** Seconds an ID token's times may be off our clock (its `iat` ahead of it, its `exp` behind it). */
export const MAX_CLOCK_SKEW_S = 60;

export type SsoFailure = 'state' | 'code' | 'id_token' | 'email_domain' | 'no_email' | 'provider';

export class SsoError extends Error {
  readonly reason: SsoFailure;
  constructor(reason: SsoFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SsoError';
    this.reason = reason;
  }
}

/** What the server keeps between beginSsoLogin and finishSsoLogin: plain JSON. */
export interface PendingLogin {
  customer_id: string;
  state: string;
  nonce: string;
  code_verifier: string;
  /** ISO 8601; the login is refused PENDING_LOGIN_TTL_MS after it. */
  created_at: string;
  /** Set by the server when a signed-in user links single sign-on to their account: that user's id. */
  link_user?: string;
}

export interface SsoIdentity {
  /** Lower-cased. */
  email: string;
  /** The provider's `sub` for the person (stable per provider). */
  subject: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

interface DiscoveryEntry {
  expires: number;
  metadata: Promise<oidc.ServerMetadata>;
  /** The provider's signing keys as last fetched (openid-client refetches them after 5 minutes, or for an unknown kid). */
  jwks?: oidc.ExportedJWKSCache;
}
const discoveryCache = new Map<string, DiscoveryEntry>();

/** Forgets every cached discovery document (tests, or after a customer changes their provider). */
export function clearSsoDiscoveryCache(): void {
  discoveryCache.clear();
}

function issuerUrl(issuer: string): { url: URL; insecure: boolean } {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch (cause) {
    throw new SsoError('provider', 'The single sign-on provider is misconfigured (its issuer is not a URL).', { cause });
  }
  if (url.protocol === 'https:') return { url, insecure: false };
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return { url, insecure: true };
  throw new SsoError('provider', 'The single sign-on provider is misconfigured (its issuer must be an https:// URL).');
}

function discover(provider: SsoProvider, now: number): { entry: DiscoveryEntry; insecure: boolean } {
  const { url, insecure } = issuerUrl(provider.issuer);
  const key = url.href;
  const cached = discoveryCache.get(key);
  if (cached && cached.expires > now) return { entry: cached, insecure };
  if (cached) discoveryCache.delete(key);

  const entry: DiscoveryEntry = {
    expires: now + DISCOVERY_TTL_MS,
    metadata: oidc
      .discovery(url, provider.client_id, undefined, undefined, {
        timeout: PROVIDER_TIMEOUT_S,
        execute: insecure ? [oidc.allowInsecureRequests] : [],
      })
      .then((config) => {
        const metadata = config.serverMetadata();
        // openid-client lets Entra ID's multi-tenant documents through with a templated issuer that a cached copy
        // cannot carry; a customer's provider is one tenant, so its own issuer is required.
        if (new URL(metadata.issuer).href !== key) {
          throw new SsoError('provider', 'The single sign-on provider is misconfigured (use the tenant-specific issuer URL).');
        }
        if (typeof metadata.authorization_endpoint !== 'string' || typeof metadata.token_endpoint !== 'string') {
          throw new SsoError('provider', 'The single sign-on provider does not support the authorization code flow.');
        }
        if (typeof metadata.jwks_uri !== 'string') {
          throw new SsoError('provider', 'The single sign-on provider publishes no signing keys (jwks_uri): its ID tokens cannot be verified.');
        }
        // https everywhere, or loopback http (which allowInsecureRequests would otherwise allow to any host).
        for (const endpoint of [metadata.authorization_endpoint, metadata.token_endpoint, metadata.userinfo_endpoint, metadata.jwks_uri]) {
          if (endpoint === undefined) continue;
          const u = URL.canParse(endpoint) ? new URL(endpoint) : null;
          if (!u || !(u.protocol === 'https:' || (insecure && u.protocol === 'http:' && LOOPBACK.has(u.hostname)))) {
            throw new SsoError('provider', 'The single sign-on provider is misconfigured (its endpoints must be https:// URLs).');
          }
        }
        return metadata;
      }),
  };
  // A failed discovery is not cached: the next login tries again.
  entry.metadata.catch(() => {
    if (discoveryCache.get(key) === entry) discoveryCache.delete(key);
  });
  while (discoveryCache.size >= DISCOVERY_CACHE_MAX) discoveryCache.delete(discoveryCache.keys().next().value!);
  discoveryCache.set(key, entry);
  return { entry, insecure };
}

/** The openid-client Configuration for this customer's client at its (cached) provider, and the cache entry. */
async function configure(provider: SsoProvider, now: Date): Promise<{ config: oidc.Configuration; entry: DiscoveryEntry }> {
  const { entry, insecure } = discover(provider, Date.now());
  let metadata: oidc.ServerMetadata;
  try {
    metadata = await entry.metadata;
  } catch (err) {
    if (err instanceof SsoError) throw err;
    throw new SsoError('provider', 'The single sign-on provider could not be reached or sent an invalid discovery document.', { cause: err });
  }
  // RFC 8414 default when the provider does not say: client_secret_basic.
  const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const auth =
    methods.includes('client_secret_basic') || !methods.includes('client_secret_post')
      ? oidc.ClientSecretBasic(provider.client_secret)
      : oidc.ClientSecretPost(provider.client_secret);
  const config = new oidc.Configuration(
    metadata,
    provider.client_id,
    // Every time check (ID token iat/exp) runs at `now`, with MAX_CLOCK_SKEW_S of tolerance.
    {
      client_secret: provider.client_secret,
      [oidc.clockSkew]: Math.trunc((now.getTime() - Date.now()) / 1000),
      [oidc.clockTolerance]: MAX_CLOCK_SKEW_S,
    },
    auth,
  );
  config.timeout = PROVIDER_TIMEOUT_S;
  if (insecure) oidc.allowInsecureRequests(config);
  // The ID token's signature against the provider's jwks_uri (openid-client skips it by default).
  oidc.enableNonRepudiationChecks(config);
  if (entry.jwks) oidc.setJwksCache(config, entry.jwks);
  return { config, entry };
}

/** Starts a login: the URL to send the browser to, and what to keep until the callback. */
export async function beginSsoLogin(provider: SsoProvider, redirectUri: string, now = new Date()): Promise<{ url: string; pending: PendingLogin }> {
  const { config } = await configure(provider, now);
  const code_verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: SSO_SCOPE,
    code_challenge: await oidc.calculatePKCECodeChallenge(code_verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url: url.href, pending: { customer_id: provider.customer_id, state, nonce, code_verifier, created_at: now.toISOString() } };
}

const STATE_MESSAGE = 'This sign-in attempt has expired or does not belong to this browser. Please start again.';
const CODE_MESSAGE = 'The identity provider did not accept the sign-in code (it may have expired or been used already). Please start again.';
const ID_TOKEN_MESSAGE = "The identity provider's answer could not be validated. Please start again.";

function validPending(pending: PendingLogin, provider: SsoProvider, now: Date): boolean {
  if (!pending || typeof pending !== 'object') return false;
  const { customer_id, state, nonce, code_verifier, created_at } = pending;
  if (![customer_id, state, nonce, code_verifier, created_at].every((v) => typeof v === 'string' && v.length > 0)) return false;
  if (customer_id !== provider.customer_id) return false;
  const started = Date.parse(created_at);
  // A minute of slack for clocks of different servers.
  return Number.isFinite(started) && started <= now.getTime() + 60_000 && now.getTime() - started <= PENDING_LOGIN_TTL_MS;
}

const badClient = (cause: unknown) =>
  new SsoError('provider', 'The identity provider refused our client credentials: the single sign-on set-up needs attention.', { cause });

/** Turns openid-client's errors into SsoErrors; `tokenRequested` tells callback problems from later ones. */
function classify(err: unknown, tokenRequested: boolean): SsoError {
  if (err instanceof SsoError) return err;
  if (err instanceof oidc.AuthorizationResponseError) {
    const code = /^[\w.-]{1,64}$/.test(err.error) ? ` (${err.error})` : '';
    return new SsoError('provider', `The identity provider refused the sign-in${code}.`, { cause: err });
  }
  if (err instanceof oidc.ResponseBodyError) {
    if (err.error === 'invalid_grant') return new SsoError('code', CODE_MESSAGE, { cause: err });
    if (err.error === 'invalid_client' || err.error === 'unauthorized_client') return badClient(err);
    return new SsoError('provider', 'The identity provider refused the sign-in.', { cause: err });
  }
  if (err instanceof oidc.WWWAuthenticateChallengeError && err.status === 401) return badClient(err);
  // Before the token request: a callback openid-client finds invalid (no code, a missing `iss`).
  if (!tokenRequested) return new SsoError('code', 'The sign-in response from the identity provider is incomplete. Please start again.', { cause: err });
  const code = err instanceof oidc.ClientError ? err.code : undefined;
  switch (code) {
    case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED':
    case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
    case 'OAUTH_INVALID_RESPONSE':
    case 'OAUTH_PARSE_ERROR':
    case 'OAUTH_KEY_SELECTION_FAILED':
    case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED':
      return new SsoError('id_token', ID_TOKEN_MESSAGE, { cause: err });
    default:
      // Timeouts, refused connections, non-JSON or unexpected statuses.
      return new SsoError('provider', 'The identity provider could not be reached or answered unexpectedly. Please try again.', { cause: err });
  }
}

/**
 * Completes a login at the callback: `callbackUrl` is the URL the browser came back to (only its query is used;
 * the token request is made for `redirectUri`, which must be the one given to beginSsoLogin). The server must
 * drop `pending` whatever the outcome (a code is good once).
 */
export async function finishSsoLogin(
  provider: SsoProvider,
  redirectUri: string,
  callbackUrl: URL,
  pending: PendingLogin,
  now = new Date(),
): Promise<SsoIdentity> {
  if (!validPending(pending, provider, now)) throw new SsoError('state', STATE_MESSAGE);
  // Checked here as well as by openid-client, before anything goes to the provider.
  if (callbackUrl.searchParams.get('state') !== pending.state) throw new SsoError('state', STATE_MESSAGE);

  const { config, entry } = await configure(provider, now);
  // RFC 9207: a response naming another issuer is one meant for another login (a mix-up attack).
  const iss = callbackUrl.searchParams.get('iss');
  if (iss !== null && iss !== config.serverMetadata().issuer) throw new SsoError('state', STATE_MESSAGE);
  let tokenRequested = false;
  config[oidc.customFetch] = (url, options) => {
    tokenRequested = true;
    return fetch(url, options as RequestInit);
  };
  const current = new URL(redirectUri);
  current.search = callbackUrl.search;
  current.hash = '';

  let claims: oidc.IDToken | undefined;
  let accessToken: string;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: pending.code_verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
    accessToken = tokens.access_token;
  } catch (err) {
    throw classify(err, tokenRequested);
  }
  const keys = oidc.getJwksCache(config);
  if (keys) entry.jwks = keys;
  if (!claims) throw new SsoError('id_token', ID_TOKEN_MESSAGE);
  // openid-client checks that `iat` is there, not when it is: a token issued in the future is not a real one.
  if (typeof claims.iat !== 'number' || claims.iat > now.getTime() / 1000 + MAX_CLOCK_SKEW_S) throw new SsoError('id_token', ID_TOKEN_MESSAGE);
  const subject = claims.sub;

  let email: unknown = claims.email;
  let verified: unknown = claims.email_verified;
  if (email === undefined || email === null || email === '') {
    if (!config.serverMetadata().userinfo_endpoint) throw new SsoError('no_email', 'The identity provider did not share your email address.');
    try {
      const info = await oidc.fetchUserInfo(config, accessToken, subject);
      email = info.email;
      verified = info.email_verified;
    } catch (err) {
      const e = classify(err, true);
      // A userinfo `sub` that is not the ID token's.
      throw e.reason === 'id_token' ? new SsoError('provider', 'The identity provider answered inconsistently. Please try again.', { cause: err }) : e;
    }
  }
  if (typeof email !== 'string' || email === '') throw new SsoError('no_email', 'The identity provider did not share your email address.');
  // Only a verified address may name an account here; `email_verified_optional` lets a provider that never
  // says (the claim absent) through, never one that says no.
  if (verified !== true && !(verified === undefined && provider.email_verified_optional === true)) {
    throw new SsoError('no_email', 'The identity provider has not verified your email address.');
  }
  const parsed = Email.safeParse(email);
  if (!parsed.success) throw new SsoError('no_email', 'The identity provider sent an email address that is not valid.');
  const address = parsed.data;
  const domain = address.slice(address.lastIndexOf('@') + 1);
  if (!provider.allowed_domains.some((d) => d.trim().toLowerCase() === domain)) {
    throw new SsoError('email_domain', `Email addresses at ${domain} cannot sign in with ${provider.display_name}.`);
  }
  return { email: address, subject };
}
