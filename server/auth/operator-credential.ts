/**
 * The admin credential that guards the admin API and the console. From SVC_ADMIN_TOKEN when set;
 * otherwise generated on the first start, stored only as a hash, and printed once.
 */
import { ApiError } from '../../core/error-codes.ts';
import type { AccessRecords } from '../state/access/service.ts';
import { type FailureThrottle, throttleAddress } from './throttle.ts';
import { generateSecret, hashesEqual, hashSecret } from './token-secret.ts';

const KEY = 'admin_token_hash';

export interface AdminAuth {
  verify(presented: string): boolean;
}

/** Returns the verifier and, when a credential was generated now, its secret to print once. */
export async function setupAdminAuth(store: AccessRecords, fromEnv: string | undefined): Promise<{ auth: AdminAuth; generated: string | null }> {
  if (fromEnv) {
    const hash = hashSecret(fromEnv);
    return { auth: { verify: (p) => hashesEqual(hashSecret(p), hash) }, generated: null };
  }
  let generated: string | null = generateSecret();
  if (!(await store.setSettingIfAbsent(KEY, hashSecret(generated)))) generated = null;
  const hash = (await store.getSetting(KEY))!;
  return { auth: { verify: (p) => hashesEqual(hashSecret(p), hash) }, generated };
}

/**
 * The admin credential check of every route that takes it (the admin API, /metrics): a blocked address
 * is refused (429) even with the right token; a wrong presented token counts as a failure (a request
 * without one, a first visit, does not). `what` names the route in messages; `hint` says how to send it.
 */
/** What the check reads of a request: the client address and the Authorization header. */
export interface CredentialRequest {
  readonly ip: string | undefined;
  get(name: string): string | undefined;
}

export function requireAdminCredential(req: CredentialRequest, auth: AdminAuth, throttle: FailureThrottle, what: string, hint: string): void {
  const address = throttleAddress(req.ip ?? '');
  const wait = throttle.blockedFor(address, Date.now());
  if (wait > 0) {
    throw new ApiError('rate_limited', `${what}: too many failed credentials from this address, try again later`, {
      'Retry-After': String(Math.ceil(wait / 1000)),
    });
  }
  const presented = req.get('authorization');
  const m = /^Bearer\s+(\S+)$/i.exec(presented ?? '');
  if (!m || !auth.verify(m[1])) {
    if (presented) throttle.recordFailure(address, Date.now());
    throw new ApiError('unauthenticated', `${what}: send "Authorization: Bearer <admin token>"${hint}`, { 'WWW-Authenticate': 'Bearer' });
  }
}
