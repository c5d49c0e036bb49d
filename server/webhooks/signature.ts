/**
 * The `Svc-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the scheme Stripe
 * made familiar — the timestamp inside the MAC lets receivers refuse replays of old deliveries.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Svc-Signature';
export const EVENT_ID_HEADER = 'Svc-Event-Id';
/** How old a signature a receiver should accept by default (seconds). */
export const DEFAULT_TOLERANCE_S = 300;

export function generateSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('hex')}`;
}

export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmac(secret, `${unixSeconds}.${body}`)}`;
}

/**
 * What a receiver does (docs/webhooks.md shows the same steps): parse the header, recompute the MAC over the
 * raw body, compare in constant time, and refuse timestamps outside the tolerance.
 */
export function verifySignature(
  header: string | null | undefined,
  body: string,
  secret: string,
  nowSeconds: number,
  toleranceS = DEFAULT_TOLERANCE_S,
): boolean {
  if (!header) return false;
  const parts = new Map<string, string[]>();
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    parts.set(key, [...(parts.get(key) ?? []), item.slice(at + 1).trim()]);
  }
  const t = Number(parts.get('t')?.[0]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceS) return false;
  const expected = Buffer.from(hmac(secret, `${t}.${body}`), 'hex');
  return (parts.get('v1') ?? []).some((candidate) => {
    const given = Buffer.from(candidate, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function hmac(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}
