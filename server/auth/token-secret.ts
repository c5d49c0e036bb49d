/** API token secrets: 40 alphanumerics from a CSPRNG, stored only as a SHA-256 hash plus a display prefix. */
import { hash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const TOKEN_LENGTH = 40;
export const TOKEN_PATTERN = /^[A-Za-z0-9]{40}$/;
const PREFIX_LENGTH = 4;

export function generateSecret(): string {
  // randomInt draws without modulo bias, so every character is uniform over the 62 symbols.
  let s = '';
  for (let i = 0; i < TOKEN_LENGTH; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/**
 * A fast hash is right here: the secret has ~238 bits of entropy, so there is nothing to brute-force.
 * Node's one-shot `hash` (no Hash object per call): every token-mode request hashes the presented secret.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, PREFIX_LENGTH);
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
