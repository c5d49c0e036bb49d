/**
 * Console sessions: one cookie holding a random secret (256 bits); the server keeps the session under the
 * secret's SHA-256 (server/state/users/), so a leaked state file holds no usable session. Idle timeout
 * 12 h, absolute 7 days. The cookie is `HttpOnly`, `SameSite=Lax`, `Path=/`; `Secure` with the `__Host-`
 * prefix whenever the request came over HTTPS (directly, or per a trusted proxy's X-Forwarded-Proto) or
 * SVC_PUBLIC_URL is https. A request is read under the one name its cookie would be set under: over HTTPS
 * only `__Host-svc_session`, which a sibling subdomain or a plain-http answer cannot plant (an unprefixed
 * cookie can be, fixing a victim's browser on the attacker's session).
 */
import { hash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { TLSSocket } from 'node:tls';
import { parse as parseCookies, serialize } from 'cookie';
import type { SessionRecord, UserRecord } from '../../core/user-records.ts';
import type { Config } from '../config.ts';
import type { TrustProxy } from '../http/request-id.ts';
import { SESSION_IDLE_MS, type UserStore } from '../state/users/store.ts';

export { SESSION_IDLE_MS };

export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
const COOKIE = 'svc_session';
const SECURE_COOKIE = '__Host-svc_session';

/** Whether the request reached us over HTTPS (or the deployment's public URL is https). */
export function isSecureRequest(req: IncomingMessage, config: Pick<Config, 'SVC_PUBLIC_URL'>, trust: TrustProxy): boolean {
  if (config.SVC_PUBLIC_URL?.startsWith('https:')) return true;
  if (req.socket instanceof TLSSocket) return true;
  const proto = req.headers['x-forwarded-proto'];
  const peer = req.socket.remoteAddress;
  return typeof proto === 'string' && proto.split(',')[0]!.trim() === 'https' && peer !== undefined && trust(peer, 0);
}

export const sessionSecretHash = (secret: string): string => hash('sha256', secret, 'hex');

/**
 * The session secret the request's cookie carries, under the name `secure` (isSecureRequest) gives it:
 * a deployment that moved to HTTPS asks its users to sign in again rather than honour a plantable cookie.
 */
export function sessionSecretOf(req: IncomingMessage, secure: boolean): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  const value = parseCookies(header)[secure ? SECURE_COOKIE : COOKIE];
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}

export function sessionCookie(secret: string, secure: boolean): string {
  return serialize(secure ? SECURE_COOKIE : COOKIE, secret, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    maxAge: SESSION_MAX_MS / 1000,
  });
}

export function clearedSessionCookie(secure: boolean): string {
  return serialize(secure ? SECURE_COOKIE : COOKIE, '', { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: 0 });
}

/** Starts a session for `user` and returns the Set-Cookie value and the session. */
export async function startSession(
  users: UserStore,
  user: UserRecord,
  req: { ip: string | undefined; get(name: string): string | undefined },
  method: 'password' | 'sso' | 'invitation',
  secure: boolean,
  now = new Date(),
): Promise<{ cookie: string; session: SessionRecord }> {
  const secret = randomBytes(32).toString('base64url');
  const session: SessionRecord = {
    id: `ses_${randomBytes(8).toString('hex')}`,
    user_id: user.id,
    customer_id: user.customer_id,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_MAX_MS).toISOString(),
    ip: req.ip ?? null,
    user_agent: req.get('user-agent')?.slice(0, 300) ?? null,
    method,
  };
  await users.createSession(sessionSecretHash(secret), session);
  await users.noteLogin(user.id, now.toISOString());
  return { cookie: sessionCookie(secret, secure), session };
}

/** The live session and its user, or null (no cookie, unknown, idle or expired session, removed user). */
export async function readSession(
  users: UserStore,
  req: IncomingMessage,
  secure: boolean,
  now = new Date(),
): Promise<{ user: UserRecord; session: SessionRecord } | null> {
  const secret = sessionSecretOf(req, secure);
  if (!secret) return null;
  const session = await users.touchSession(sessionSecretHash(secret), now.toISOString(), SESSION_IDLE_MS);
  if (!session) return null;
  const user = await users.getUser(session.user_id);
  return user ? { user, session } : null;
}
