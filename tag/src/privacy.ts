/**
 * Whether the visitor allows the tag to ask who they are and to count their page views: the same
 * rule for both. Pure.
 *
 * In this order: an opt-out (persisted by `optOut(true)`), Global Privacy Control (unless the tag is
 * told to ignore it), then the consent state (`granted` by default; `pending` waits for a decision).
 */
import type { ConsentState } from './types.ts';

/** Why nothing may be sent; also the `message` of the `svc:error` that reports it. */
export type Refusal = 'opted out' | 'gpc' | 'consent denied' | 'consent pending';

/** The options that decide: `gpc` false ignores Global Privacy Control; `consent` (default granted). */
export interface PrivacyOptions {
  gpc?: boolean;
  consent?: ConsentState;
}

/**
 * Null when allowed, else why not. `optedOut`: truthy when opted out (the stored flag as read, no
 * conversion); `globalPrivacyControl`: `navigator.globalPrivacyControl`.
 */
export function refusal(optedOut: unknown, globalPrivacyControl: boolean | undefined, options: PrivacyOptions): Refusal | null {
  if (optedOut) return 'opted out';
  if (globalPrivacyControl && options.gpc !== false) return 'gpc';
  if (options.consent == 'denied' || options.consent == 'pending') return ('consent ' + options.consent) as Refusal;
  return null;
}
