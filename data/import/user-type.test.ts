import { describe, expect, it } from 'vitest';
import { kindForUserType, USER_TYPE_KINDS } from './user-type.ts';

describe('user_type → kind', () => {
  it('follows the documented table', () => {
    for (const t of ['business', 'government', 'military', 'college', 'school', 'library']) expect(kindForUserType(t)).toBe('company');
    for (const t of ['residential', 'cellular', 'traveler', 'cafe']) expect(kindForUserType(t)).toBe('isp');
    for (const t of ['hosting', 'content_delivery_network']) expect(kindForUserType(t)).toBe('hosting');
    expect(kindForUserType('search_engine_spider')).toBe('bot');
    expect(Object.keys(USER_TYPE_KINDS)).toHaveLength(13);
  });

  it('no or an unknown user_type has no kind; the mapping overrides, extends and drops', () => {
    expect(kindForUserType('')).toBeNull();
    expect(kindForUserType('consumer_privacy_network')).toBeNull();
    const overrides = { consumer_privacy_network: 'hosting', cafe: 'company', traveler: null };
    expect(kindForUserType('consumer_privacy_network', overrides)).toBe('hosting');
    expect(kindForUserType('cafe', overrides)).toBe('company');
    expect(kindForUserType('traveler', overrides)).toBeNull();
    expect(kindForUserType('hosting', overrides)).toBe('hosting');
  });
});
