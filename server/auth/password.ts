/**
 * Passwords (NIST SP 800-63B): at least 12 characters, no composition rules, the most common passwords
 * refused; stored as scrypt hashes from `node:crypto` (memory-hard; a salt per password), compared in
 * constant time. A hash records its parameters, so they can be raised later without breaking old ones.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../core/error-codes.ts';

export const MIN_PASSWORD_LENGTH = 12;
/** Longer inputs cost hashing time for nothing (and a megabyte "password" is an attack). */
export const MAX_PASSWORD_LENGTH = 256;

/** N = 2^15, r = 8, p = 1: ~32 MiB and ~50 ms per hash on this machine — fine for a login, costly for a guesser. */
const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const MAXMEM = 64 * 1024 * 1024;

/**
 * The most common passwords of at least 12 characters in public breach corpora (and the obvious
 * patterns of this product), compared case-insensitively. Short ones are refused by length already.
 */
const COMMON = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789123',
  '123123123123',
  '111111111111',
  '000000000000',
  '987654321987',
  'qwertyuiopas',
  'qwertyuiop123',
  'qwerty123456',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  'zaq12wsxcde3',
  'passwordpassword',
  'password1234',
  'password12345',
  'password123456',
  'password123!',
  'passw0rd1234',
  'iloveyou1234',
  'welcome12345',
  'welcome123456',
  'letmein12345',
  'administrator',
  'administrator1',
  'changeme1234',
  'changemenow!',
  'abcdefghijkl',
  'abc123abc123',
  'aaaaaaaaaaaa',
  'asdfghjkl123',
  'asdfasdfasdf',
  'football1234',
  'baseball1234',
  'superman1234',
  'sunshine1234',
  'princess1234',
  'trustno11234',
  'monkey123456',
  'dragon123456',
  'starwars1234',
  'whatever1234',
  'qwertyqwerty',
  'computer1234',
  'internet1234',
  'mustang12345',
  'michael12345',
  'jordan232323',
  'correcthorsebatterystaple',
]);

export function passwordProblem(password: string, context: { email?: string } = {}): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `a password needs at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `a password has at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  if (COMMON.has(lower) || /^(.)\1+$/.test(password)) return 'this password is one of the most common ones: choose another';
  if (context.email && lower === context.email.toLowerCase()) return 'a password must not be the email address';
  return null;
}

/** Throws ApiError('invalid') with the problem (422). */
export function checkPassword(password: string, context: { email?: string } = {}): void {
  const problem = passwordProblem(password, context);
  if (problem) throw new ApiError('invalid', `validation error: password: ${problem}`);
}

function derive(password: string, salt: Buffer, params: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { ...params, maxmem: MAXMEM }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  // An account without a password (SSO only, or unknown) still costs one hash: the answer time does not tell.
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    await derive(password, Buffer.alloc(16), PARAMS);
    return false;
  }
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash!, 'base64url');
  const key = await derive(password, Buffer.from(salt!, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
