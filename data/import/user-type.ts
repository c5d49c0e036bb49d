/**
 * GeoIP2 `user_type` → our network kind. `company` networks are joined to a company (./resolve.ts); the
 * other kinds answer `Non-actionable Match`. A mapping file (./mapping.ts) overrides or extends this table;
 * mapping a type to null drops it (the network is then treated as if it had no user_type).
 */
export const USER_TYPE_KINDS: Readonly<Record<string, string>> = {
  business: 'company',
  government: 'company',
  military: 'company',
  college: 'company',
  school: 'company',
  library: 'company',
  residential: 'isp',
  cellular: 'isp',
  traveler: 'isp',
  cafe: 'isp',
  hosting: 'hosting',
  content_delivery_network: 'hosting',
  search_engine_spider: 'bot',
};

/** The kind for a user_type under the table with the mapping's overrides; null: no (usable) user_type. */
export function kindForUserType(userType: string, overrides: Readonly<Record<string, string | null>> = {}): string | null {
  if (!userType) return null;
  if (Object.hasOwn(overrides, userType)) return overrides[userType];
  return USER_TYPE_KINDS[userType] ?? null;
}
