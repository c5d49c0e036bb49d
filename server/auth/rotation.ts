/** Token hygiene advice (spec "Authentication" 10): rotate every 90 days; migrate default_existing_token. */
import type { TokenRecord } from '../../core/access-records.ts';

export const ROTATE_AFTER_DAYS = 90;
const DAY_MS = 86_400_000;

export interface RotationAdvice {
  needs_rotation: boolean;
  reasons: string[];
}

export function rotationAdvice(token: Pick<TokenRecord, 'name' | 'created_at' | 'rotated_at'>, now: Date): RotationAdvice {
  const reasons: string[] = [];
  const since = Date.parse(token.rotated_at ?? token.created_at);
  if (Number.isFinite(since) && now.getTime() - since > ROTATE_AFTER_DAYS * DAY_MS) {
    reasons.push(`secret older than ${ROTATE_AFTER_DAYS} days: rotate it`);
  }
  if (token.name === 'default_existing_token') reasons.push('legacy default_existing_token: create a token per integration and migrate to it');
  return { needs_rotation: reasons.length > 0, reasons };
}

/** A token as listed to people: the record plus its rotation advice. */
export function withAdvice(t: TokenRecord, now = new Date()): TokenRecord & RotationAdvice {
  return { ...t, ...rotationAdvice(t, now) };
}
