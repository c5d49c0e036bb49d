/**
 * The admin credential that guards the admin API and the console. From SVC_ADMIN_TOKEN when set;
 * otherwise generated on the first start, stored only as a hash, and printed once.
 */
import { generateSecret, hashesEqual, hashSecret } from '../auth/token-secret.ts';
import type { AccessRecords } from '../state/store.ts';

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
