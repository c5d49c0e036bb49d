/**
 * When a failed delivery is tried again: about 1 min, 5 min, 30 min, 2 h, 6 h after each failure, then it
 * is given up (6 attempts over ~8.6 h, long enough to ride out a receiver's deploy or a night's outage).
 */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** The time of the next attempt after `attempts` failed ones, or null when the delivery is given up. */
export function nextAttemptAt(attempts: number, failedAtMs: number): number | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  return failedAtMs + RETRY_DELAYS_MS[Math.max(0, attempts - 1)]!;
}

/** A 2xx answer is a delivery; anything else (or no answer) is retried. */
export function isDelivered(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}
