/**
 * Single sign-on with the customer's OpenID Connect provider (./sso.ts does the protocol):
 *   GET /auth/sso/:customerId/start → 302 to the provider (authorization code + PKCE, state, nonce); the
 *       pending login rides in a short-lived HttpOnly cookie, HMAC-signed with a key kept in the state
 *       store (every node checks it), so no node has to remember it;
 *   GET /auth/sso/:customerId/start?link=1 → the same, for a user signed in with their password who links
 *       single sign-on to their account (the pending login names them; the callback needs their session);
 *   GET /auth/sso/callback → the user (created on first login with the provider's default role when the
 *       email's domain is allowed), a session cookie, 302 to the console. A refused login is a 302 to the
 *       console's sign-in page with the reason in the fragment, and an audit record.
 *
 * Who the provider vouches for is its (issuer, sub), not an email: the first SSO sign-in binds the user to
 * it and every later one must carry the same `sub` (another identity at the provider that asserts the same
 * address is refused). A password account is never taken over by an SSO sign-in of its address: it is
 * refused until its user links it, signed in (`?link=1`), so only somebody who holds the password and the
 * provider identity joins the two.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies, serialize } from 'cookie';
import { ApiError } from '../../core/error-codes.ts';
import { publicBase } from '../http/public-base.ts';
import { apiRoute, type RouteContext, type RouteDef } from '../http/route-def.ts';
import type { StateStore } from '../state/store.ts';
import { ssoDocs } from './docs.ts';
import { isSecureRequest, readSession, startSession } from './session.ts';
import { beginSsoLogin, finishSsoLogin, PENDING_LOGIN_TTL_MS, type PendingLogin, SsoError } from './sso.ts';

const PENDING_COOKIE = 'svc_sso';
const KEY_SETTING = 'sso_cookie_key';
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

let cachedKey: { store: StateStore; key: Buffer } | null = null;

/** The deployment's signing key for pending logins (made once, in the state store, shared by every node). */
async function signingKey(store: StateStore): Promise<Buffer> {
  if (cachedKey?.store === store) return cachedKey.key;
  await store.setSettingIfAbsent(KEY_SETTING, randomBytes(32).toString('base64url'));
  const key = Buffer.from((await store.getSetting(KEY_SETTING))!, 'base64url');
  cachedKey = { store, key };
  return key;
}

const mac = (key: Buffer, data: string) => createHmac('sha256', key).update(data).digest('base64url');

async function sealPending(store: StateStore, pending: PendingLogin): Promise<string> {
  const data = Buffer.from(JSON.stringify(pending)).toString('base64url');
  return `${data}.${mac(await signingKey(store), data)}`;
}

async function openPending(store: StateStore, sealed: string | undefined): Promise<PendingLogin | null> {
  if (!sealed) return null;
  const [data, sig] = sealed.split('.');
  if (!data || !sig) return null;
  const expected = Buffer.from(mac(await signingKey(store), data));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    return JSON.parse(Buffer.from(data, 'base64url').toString()) as PendingLogin;
  } catch {
    return null;
  }
}

const pendingCookie = (value: string, secure: boolean, maxAgeS: number) =>
  // Lax: sent on the provider's top-level redirect back to us, never on a cross-site subrequest.
  serialize(PENDING_COOKIE, value, { httpOnly: true, sameSite: 'lax', secure, path: '/auth/sso', maxAge: maxAgeS });

const redirectUri = (ctx: RouteContext) => `${publicBase(ctx)}/auth/sso/callback`;

function refused(ctx: RouteContext, reason: string, message: string) {
  const secure = isSecureRequest(ctx.req.raw, ctx.services.config, ctx.services.trustProxy);
  return {
    status: 302,
    headers: {
      Location: `/console/#signin-error=${encodeURIComponent(`${reason}: ${message}`)}`,
      'Set-Cookie': pendingCookie('', secure, 0),
      ...NO_STORE,
    },
  };
}

export const ssoRoutes: RouteDef[] = [
  apiRoute({
    method: 'GET',
    path: '/auth/sso/:customerId/start',
    auth: { kind: 'public' },
    headers: NO_STORE,
    doc: ssoDocs.start,
    async handler(ctx) {
      const provider = await ctx.services.users.getSsoProvider(ctx.req.params.customerId!);
      if (!provider) throw new ApiError('not_found', `customer ${ctx.req.params.customerId} has no single sign-on`);
      const secure = isSecureRequest(ctx.req.raw, ctx.services.config, ctx.services.trustProxy);
      let linkUser: string | undefined;
      if (ctx.req.query.link !== undefined) {
        const signedIn = await readSession(ctx.services.users, ctx.req.raw, secure);
        if (!signedIn || signedIn.user.customer_id !== provider.customer_id) {
          throw new ApiError('unauthenticated', 'sign in with your password first to link single sign-on to your account');
        }
        linkUser = signedIn.user.id;
      }
      let begun: Awaited<ReturnType<typeof beginSsoLogin>>;
      try {
        begun = await beginSsoLogin(provider, redirectUri(ctx));
      } catch (e) {
        if (e instanceof SsoError) throw new ApiError('unavailable', `the sign-on provider cannot be reached: ${e.message}`, { 'Retry-After': '5' });
        throw e;
      }
      const sealed = await sealPending(ctx.services.store, linkUser ? { ...begun.pending, link_user: linkUser } : begun.pending);
      return { status: 302, headers: { Location: begun.url, 'Set-Cookie': pendingCookie(sealed, secure, PENDING_LOGIN_TTL_MS / 1000) } };
    },
  }),
  apiRoute({
    method: 'GET',
    path: '/auth/sso/callback',
    auth: { kind: 'public' },
    headers: NO_STORE,
    doc: ssoDocs.callback,
    async handler(ctx) {
      const { users, store } = ctx.services;
      const cookies = parseCookies(ctx.req.get('cookie') ?? '');
      const pending = await openPending(store, cookies[PENDING_COOKIE]);
      if (!pending) return refused(ctx, 'state', 'this sign-in was not started here, or took longer than 10 minutes: start again');
      const provider = await users.getSsoProvider(pending.customer_id);
      if (!provider) return refused(ctx, 'provider', 'single sign-on is no longer set up for this customer');
      const url = new URL(ctx.req.raw.url ?? '/', 'http://callback.invalid');
      let identity: Awaited<ReturnType<typeof finishSsoLogin>>;
      try {
        identity = await finishSsoLogin(provider, redirectUri(ctx), url, pending);
      } catch (e) {
        if (!(e instanceof SsoError)) throw e;
        await ctx.audit({ customer: provider.customer_id, action: 'login.failed', target: `sso (${e.reason})` });
        return refused(ctx, e.reason, e.message);
      }
      const secure = isSecureRequest(ctx.req.raw, ctx.services.config, ctx.services.trustProxy);
      const failed = (reason: string, target: string, message: string) =>
        ctx.audit({ customer: provider.customer_id, action: 'login.failed', target: `sso: ${target}` }).then(() => refused(ctx, reason, message));
      let user = await users.findUserByEmail(identity.email);
      if (user !== null && user.customer_id !== provider.customer_id) {
        return failed('email_domain', `${identity.email} belongs to another customer`, 'this email belongs to another workspace');
      }
      let linked = false;
      if (pending.link_user !== undefined) {
        // Linking: the browser must still be signed in as the user who started it, and the provider must vouch for that user's email.
        const signedIn = await readSession(users, ctx.req.raw, secure);
        if (!signedIn || signedIn.user.id !== pending.link_user) {
          return failed('link', `link of ${identity.email} without the session that started it`, 'sign in with your password again, then link single sign-on');
        }
        if (user === null || user.id !== pending.link_user) {
          return failed(
            'link',
            `${signedIn.user.email} tried to link ${identity.email}`,
            `the identity provider signed you in as ${identity.email}, not as ${signedIn.user.email}`,
          );
        }
        linked = true;
      }
      let created = false;
      if (user === null) {
        const record = await users.createUser({
          customer_id: provider.customer_id,
          email: identity.email,
          role: provider.default_role,
          password_hash: null,
          sso: true,
        });
        user = { ...record, password_hash: null };
        created = true;
      } else if (!user.sso && user.password_hash !== null && !linked) {
        return failed(
          'password_account',
          `${identity.email} has a password and has not linked single sign-on`,
          `this account signs in with a password: sign in with it, then link single sign-on at /auth/sso/${provider.customer_id}/start?link=1`,
        );
      }
      const bound = await users.bindSsoSubject(user.id, provider.issuer, identity.subject);
      if (bound === null) return failed('state', `${identity.email} was removed meanwhile`, 'this account was removed meanwhile');
      if (bound !== identity.subject) {
        return failed(
          'identity',
          `${identity.email} is bound to another identity at ${provider.issuer}`,
          'this account is linked to another identity at your identity provider: ask an owner of your workspace',
        );
      }
      if (linked) await ctx.audit({ customer: user.customer_id, action: 'user.sso_link', target: `${user.email} (sso)`, as: user });
      const { password_hash: _, ...record } = { ...user, sso: true };
      const { cookie } = await startSession(users, record, ctx.req, 'sso', secure);
      await ctx.audit({
        customer: user.customer_id,
        action: created ? 'user.joined' : 'login',
        target: `${user.email} (sso)`,
        after: created ? { email: user.email, role: user.role } : null,
        as: user,
      });
      return { status: 302, headers: { Location: '/console/', 'Set-Cookie': [cookie, pendingCookie('', secure, 0)] } };
    },
  }),
];
