/**
 * Failed admin credentials, counted per client address: past MAX_FAILURES within a minute of its first
 * failure, every admin request from that address is refused (429 + Retry-After) until that minute ends — refused even with the
 * right credential, so a guesser learns nothing while blocked.
 *
 * Kept in process memory rather than in the state store: it needs a read without a write (is this address
 * blocked?), which the store's counters do not offer, and losing it on restart only restarts a minute.
 * With `serve --workers N` each process counts on its own, so an address gets at most N × MAX_FAILURES
 * guesses a minute against a credential of at least 20 characters.
 */
export const MAX_FAILURES = 10;
export const FAILURE_WINDOW_MS = 60_000;
/** Addresses tracked at most; past it the oldest windows are dropped (a flood of addresses cannot grow memory). */
const MAX_TRACKED = 10_000;

export class FailureThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly max = MAX_FAILURES,
    private readonly windowMs = FAILURE_WINDOW_MS,
  ) {}

  /** Milliseconds until `address` may try again, or 0 when it is not blocked. */
  blockedFor(address: string, nowMs: number): number {
    const w = this.current(address, nowMs);
    return w && w.failures >= this.max ? w.start + this.windowMs - nowMs : 0;
  }

  recordFailure(address: string, nowMs: number): void {
    const w = this.current(address, nowMs);
    if (w) {
      w.failures++;
      return;
    }
    if (this.windows.size >= MAX_TRACKED) this.windows.delete(this.windows.keys().next().value!);
    // The window opens at the first failure (not on a clock minute), so a burst is never split in two.
    this.windows.set(address, { start: nowMs, failures: 1 });
  }

  private current(address: string, nowMs: number) {
    const w = this.windows.get(address);
    if (!w) return undefined;
    if (nowMs >= w.start + this.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }
}

/**
 * The process's one throttle of failed admin credentials: the admin API and `/metrics` on the service port
 * both check the admin token, so a guesser gets MAX_FAILURES a minute across both, not per route.
 */
export const adminCredentialThrottle = new FailureThrottle();
