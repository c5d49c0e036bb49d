/**
 * Signing in to the workspace (the console and the admin API):
 *   POST /auth/login   {email, password}   → 204 + session cookie; 401 for any wrong pair (an unknown email
 *                                            answers exactly as a wrong password, after the same work); 429
 *                                            after too many failures for the account or from the address
 *   POST /auth/accept  {token, password}   → 204 + session cookie: an invitation or reset link taken once
 *   GET  /auth/me                          → {email, role, customer_id} (the operator's token: role operator)
 *   POST /auth/logout                      → 204, the session ended and its cookie cleared
 *   GET  /auth/sessions, DELETE /auth/sessions/:id — the signed-in user's own sessions
 * Single sign-on (OpenID Connect) is ./sso-routes.ts.
 */
import { z } from 'zod';
import { ApiError } from '../../core/error-codes.ts';
import { Email, type UserRecord } from '../../core/user-records.ts';
import { sameOrigin } from '../http/api-request.ts';
import { type AuditEntry, apiRoute, type RouteContext, type RouteDef, type RouteResult } from '../http/route-def.ts';
import { invitationHash } from '../users/invitations.ts';
import { authDocs } from './docs.ts';
import { checkPassword, hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from './password.ts';
import type { Principal } from './principal.ts';
import { clearedSessionCookie, isSecureRequest, sessionSecretHash, sessionSecretOf, startSession } from './session.ts';
import { SharedFailureThrottle, throttleAddress } from './throttle.ts';

/**
 * Failed logins per account: 10 in 15 minutes, then that account answers 429 until the window ends.
 * Counted in the state store (users.countFailure): every node and worker adds to one count.
 */
export const loginAccountThrottle = new SharedFailureThrottle('login-account', 10, 15 * 60_000);
/** Failed logins per address (an IPv6 /64: throttleAddress): 30 in 15 minutes (one network guessing across many accounts). */
export const loginAddressThrottle = new SharedFailureThrottle('login-address', 30, 15 * 60_000);

const AUTH_BODY = { types: 'json', limit: 8 * 1024, validation: 'record' } as const;
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

export const LoginBody = z.object({
  email: z.string().max(254),
  password: z.string().max(MAX_PASSWORD_LENGTH),
});
export const AcceptBody = z.object({
  token: z.string().min(1).max(200),
  password: z.string().max(MAX_PASSWORD_LENGTH),
});

const WRONG_PAIR = 'wrong email or password';
const UNUSABLE_LINK = 'this link is unknown, already used or expired: ask for a new one';

function secure(ctx: RouteContext): boolean {
  return isSecureRequest(ctx.req.raw, ctx.services.config, ctx.services.trustProxy);
}

/** Sign-in, accept and sign-out are not cross-site actions: a foreign page's request is refused. */
function sameOriginOnly(ctx: RouteContext): void {
  if (!sameOrigin(ctx.req)) throw new ApiError('forbidden', 'cross-origin requests are refused');
}

/** Starts the user's session and records the sign-in: the 204 that sets the session cookie. */
async function signIn(
  ctx: RouteContext,
  user: UserRecord & { password_hash: string | null },
  method: 'password' | 'invitation',
  audited: Pick<AuditEntry, 'action' | 'after'>,
): Promise<RouteResult> {
  const { password_hash: _, ...record } = user;
  const { cookie } = await startSession(ctx.services.users, record, ctx.req, method, secure(ctx));
  await ctx.audit({ customer: user.customer_id, action: audited.action, target: user.email, after: audited.after, as: user });
  return { status: 204, headers: { 'Set-Cookie': cookie } };
}

/** The signed-in user whose sessions a route lists or ends. */
function sessionsOwner(ctx: RouteContext): Extract<Principal, { kind: 'user' }> {
  const p = ctx.principal!;
  if (p.kind !== 'user') throw new ApiError('invalid', 'the operator token has no sessions: sign in as a user', {}, 400);
  return p;
}

export const authRoutes: RouteDef[] = [
  apiRoute<z.infer<typeof LoginBody>>({
    method: 'POST',
    path: '/auth/login',
    auth: { kind: 'public' },
    headers: NO_STORE,
    body: { ...AUTH_BODY, schema: LoginBody },
    doc: authDocs.login,
    async handler(ctx) {
      sameOriginOnly(ctx);
      const { users } = ctx.services;
      const parsed = Email.safeParse(ctx.body.email);
      const email = parsed.success ? parsed.data : ctx.body.email.trim().toLowerCase();
      const address = throttleAddress(ctx.req.ip ?? '');
      const now = Date.now();
      const [forAccount, forAddress] = await Promise.all([
        loginAccountThrottle.blockedFor(users, email, now),
        loginAddressThrottle.blockedFor(users, address, now),
      ]);
      const wait = Math.max(forAccount, forAddress);
      if (wait > 0) {
        throw new ApiError('rate_limited', 'too many failed sign-ins: try again later', { 'Retry-After': String(Math.ceil(wait / 1000)) });
      }
      const user = parsed.success ? await users.findUserByEmail(email) : null;
      // Always one password hash, known email or not: the answer and its time say nothing about the account.
      const ok = await verifyPassword(ctx.body.password, user?.password_hash ?? null);
      if (!ok || user === null) {
        await Promise.all([loginAccountThrottle.recordFailure(users, email, now), loginAddressThrottle.recordFailure(users, address, now)]);
        if (user !== null) await ctx.audit({ customer: user.customer_id, action: 'login.failed', target: user.email });
        throw new ApiError('unauthenticated', WRONG_PAIR);
      }
      return signIn(ctx, user, 'password', { action: 'login', after: null });
    },
  }),
  apiRoute<z.infer<typeof AcceptBody>>({
    method: 'POST',
    path: '/auth/accept',
    auth: { kind: 'public' },
    headers: NO_STORE,
    body: { ...AUTH_BODY, schema: AcceptBody },
    doc: authDocs.accept,
    async handler(ctx) {
      sameOriginOnly(ctx);
      const { users } = ctx.services;
      // The password is checked before the link is taken: a refused password does not use it up.
      checkPassword(ctx.body.password);
      const invitation = await users.consumeInvitation(invitationHash(ctx.body.token), new Date().toISOString());
      if (invitation === null) throw new ApiError('unauthenticated', UNUSABLE_LINK);
      checkPassword(ctx.body.password, { email: invitation.email });
      const passwordHash = await hashPassword(ctx.body.password);
      let user = await users.findUserByEmail(invitation.email);
      if (invitation.purpose === 'invite') {
        if (user !== null) throw new ApiError('conflict', `${invitation.email} already has an account: sign in, or ask for a password reset`);
        const created = await users.createUser({
          customer_id: invitation.customer_id,
          email: invitation.email,
          role: invitation.role,
          password_hash: passwordHash,
          sso: false,
        });
        user = { ...created, password_hash: passwordHash };
      } else {
        if (user === null || user.customer_id !== invitation.customer_id) throw new ApiError('unauthenticated', UNUSABLE_LINK);
        await users.setPassword(user.id, passwordHash);
        // A new password ends every other session of the account.
        await users.endSessions(user.id);
      }
      return signIn(
        ctx,
        user,
        'invitation',
        invitation.purpose === 'invite'
          ? { action: 'user.joined', after: { email: user.email, role: user.role } }
          : { action: 'user.password_reset', after: null },
      );
    },
  }),
  apiRoute({
    method: 'GET',
    path: '/auth/me',
    auth: { kind: 'admin' },
    headers: NO_STORE,
    access: { permission: 'reports:read', customer: { from: 'none' } },
    doc: authDocs.me,
    handler(ctx) {
      const p = ctx.principal!;
      if (p.kind === 'operator') return { status: 200, body: { email: null, role: 'operator', customer_id: null } };
      return { status: 200, body: { email: p.user.email, role: p.user.role, customer_id: p.user.customer_id, session_id: p.session.id } };
    },
  }),
  apiRoute({
    method: 'POST',
    path: '/auth/logout',
    auth: { kind: 'public' },
    headers: NO_STORE,
    doc: authDocs.logout,
    async handler(ctx) {
      sameOriginOnly(ctx);
      const secret = sessionSecretOf(ctx.req.raw, secure(ctx));
      if (secret !== null) await ctx.services.users.endSessionByHash(sessionSecretHash(secret));
      return { status: 204, headers: { 'Set-Cookie': clearedSessionCookie(secure(ctx)) } };
    },
  }),
  apiRoute({
    method: 'GET',
    path: '/auth/sessions',
    auth: { kind: 'admin' },
    headers: NO_STORE,
    access: { permission: 'reports:read', customer: { from: 'none' } },
    doc: authDocs.sessions,
    async handler(ctx) {
      const p = sessionsOwner(ctx);
      const sessions = await ctx.services.users.listSessions(p.user.id);
      return { status: 200, body: sessions.map((s) => ({ ...s, current: s.id === p.session.id })) };
    },
  }),
  apiRoute({
    method: 'DELETE',
    path: '/auth/sessions/:id',
    auth: { kind: 'admin' },
    headers: NO_STORE,
    access: { permission: 'reports:read', customer: { from: 'none' } },
    doc: authDocs.endSession,
    async handler(ctx) {
      const p = sessionsOwner(ctx);
      if (!(await ctx.services.users.endSession(p.user.id, ctx.req.params.id!))) throw new ApiError('not_found', `unknown session ${ctx.req.params.id}`);
      await ctx.audit({ customer: p.user.customer_id, action: 'session.end', target: ctx.req.params.id! });
      return { status: 204 };
    },
  }),
];
