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
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessRecords } from '../state/access/service.ts';

const KEY_SETTING = 'digest_unsubscribe_key';
const PURPOSE = 'svc digest unsubscribe v1';
const ID = /^[A-Za-z0-9_-]{1,64}$/;

type Settings = Pick<AccessRecords, 'getSetting' | 'setSettingIfAbsent'>;

const keys = new WeakMap<Settings, Buffer>();

/** The deployment's digest key (made once, then read once per process and store). */
export async function digestKey(store: Settings): Promise<Buffer> {
  const known = keys.get(store);
  if (known) return known;
  await store.setSettingIfAbsent(KEY_SETTING, randomBytes(32).toString('base64url'));
  const key = Buffer.from((await store.getSetting(KEY_SETTING))!, 'base64url');
  keys.set(store, key);
  return key;
}

const mac = (key: Buffer, customerId: string, userId: string) => createHmac('sha256', key).update(`${PURPOSE}\n${customerId}\n${userId}`).digest('base64url');

export function unsubscribeToken(key: Buffer, customerId: string, userId: string): string {
  return `${customerId}.${userId}.${mac(key, customerId, userId)}`;
}

/** The user a token names, or null when it is not one of ours (forged, altered, or for another purpose). */
export function readUnsubscribeToken(key: Buffer, token: string): { customerId: string; userId: string } | null {
  const [customerId, userId, given, ...rest] = token.split('.');
  if (rest.length > 0 || !customerId || !userId || !given || !ID.test(customerId) || !ID.test(userId)) return null;
  const expected = Buffer.from(mac(key, customerId, userId));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? { customerId, userId } : null;
}
