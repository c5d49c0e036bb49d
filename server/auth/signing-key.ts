/**
 * The deployment's keys for links that work without signing in — a digest's unsubscribe link
 * (server/digests/unsubscribe.ts), a segment's audience download link (server/segments/audience.ts): one
 * random 32-byte key per purpose, made once in the state store's settings (shared by every node, moved by
 * `svc state export`, as the single sign-on cookie key is), read once per process and store. A key per
 * purpose, and the purpose inside what each MAC covers, so a MAC made for one kind of link never verifies
 * as another.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessRecords } from '../state/access/service.ts';

type Settings = Pick<AccessRecords, 'getSetting' | 'setSettingIfAbsent'>;

const keys = new WeakMap<Settings, Map<string, Buffer>>();

/** The key kept under `setting` (made on first use: the first node to ask makes it, every other reads that one). */
export async function settingKey(store: Settings, setting: string): Promise<Buffer> {
  let known = keys.get(store);
  const key = known?.get(setting);
  if (key) return key;
  await store.setSettingIfAbsent(setting, randomBytes(32).toString('base64url'));
  const made = Buffer.from((await store.getSetting(setting))!, 'base64url');
  if (!known) keys.set(store, (known = new Map()));
  known.set(setting, made);
  return made;
}

/** HMAC-SHA256 of the lines of `parts` (the purpose first), base64url. */
export const linkMac = (key: Buffer, parts: readonly string[]): string => createHmac('sha256', key).update(parts.join('\n')).digest('base64url');

/** Whether `given` is the MAC of `parts` (compared in constant time). */
export function linkMacMatches(key: Buffer, parts: readonly string[], given: string): boolean {
  const expected = Buffer.from(linkMac(key, parts));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
