/**
 * The one-click unsubscribe token of a digest (RFC 8058; the link in the mail works without signing in):
 * `<customer id>.<user id>.<MAC>`, the MAC an HMAC-SHA256 under the deployment's digest key over the
 * purpose and both ids. Single purpose: the purpose is part of what is signed (a MAC made for anything
 * else never verifies here, and this key signs nothing else), and a token names one user of one customer
 * (changing either id breaks it). It does not expire: a mail's link keeps working, and all it can do is
 * turn that user's digest off.
 *
 * The key is made once, in the state store's settings (shared by every node, moved by `svc state
 * export`), as the single sign-on cookie key is (server/auth/sso-routes.ts).
 */
import { linkMac, linkMacMatches, settingKey } from '../auth/signing-key.ts';
import type { AccessRecords } from '../state/access/service.ts';

const KEY_SETTING = 'digest_unsubscribe_key';
const PURPOSE = 'svc digest unsubscribe v1';
const ID = /^[A-Za-z0-9_-]{1,64}$/;

type Settings = Pick<AccessRecords, 'getSetting' | 'setSettingIfAbsent'>;

/** The deployment's digest key (made once, then read once per process and store: ../auth/signing-key.ts). */
export const digestKey = (store: Settings): Promise<Buffer> => settingKey(store, KEY_SETTING);

const mac = (key: Buffer, customerId: string, userId: string) => linkMac(key, [PURPOSE, customerId, userId]);

export function unsubscribeToken(key: Buffer, customerId: string, userId: string): string {
  return `${customerId}.${userId}.${mac(key, customerId, userId)}`;
}

/** The user a token names, or null when it is not one of ours (forged, altered, or for another purpose). */
export function readUnsubscribeToken(key: Buffer, token: string): { customerId: string; userId: string } | null {
  const [customerId, userId, given, ...rest] = token.split('.');
  if (rest.length > 0 || !customerId || !userId || !given || !ID.test(customerId) || !ID.test(userId)) return null;
  return linkMacMatches(key, [PURPOSE, customerId, userId], given) ? { customerId, userId } : null;
}
