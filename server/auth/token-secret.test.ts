import { describe, expect, it } from 'vitest';
import { displayPrefix, generateSecret, hashesEqual, hashSecret, TOKEN_PATTERN } from './token-secret.ts';

describe('token secrets', () => {
  it('are 40 alphanumerics and unique', () => {
    const secrets = new Set(Array.from({ length: 1000 }, generateSecret));
    expect(secrets.size).toBe(1000);
    for (const s of secrets) expect(s).toMatch(TOKEN_PATTERN);
  });
  it('use the whole alphabet (no bias toward a subset)', () => {
    const chars = new Set(Array.from({ length: 200 }, generateSecret).join(''));
    expect(chars.size).toBe(62);
  });
  it('hash deterministically and compare in constant time', () => {
    const s = generateSecret();
    expect(hashesEqual(hashSecret(s), hashSecret(s))).toBe(true);
    expect(hashesEqual(hashSecret(s), hashSecret(s + 'x'))).toBe(false);
    expect(hashSecret(s)).not.toContain(s);
    expect(displayPrefix(s)).toHaveLength(4);
  });
});
