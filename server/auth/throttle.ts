/**
 * Throttles of failed credentials, keyed by client address as throttleAddress gives it (an IPv6 /64, an
 * IPv4 address).
 *
 * FailureThrottle, the admin token's: past MAX_FAILURES within a minute of its first failure, every admin
 * request from that address is refused (429 + Retry-After) until that minute ends — refused even with the
 * right credential, so a guesser learns nothing while blocked. Kept in process memory rather than in the
 * state store: it is read on every admin request, the operator's too, which keeps working from the node's
 * cache while Redis is down; losing it on restart only restarts a minute. With `serve --workers N` each
 * process counts on its own, so an address gets at most N × MAX_FAILURES guesses a minute against a
 * credential of at least 20 characters.
 *
 * SharedFailureThrottle, the sign-in's (server/auth/routes.ts): a person's password is far weaker than
 * the admin token, so its failures are counted in the state store, one count for every node and worker.
 */
import { isIPv4, isIPv6 } from 'node:net';

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
 * What a throttle counts an address under. One IPv6 client usually holds a whole /64 (SLAAC, privacy
 * addresses, a /64 routed to one host), so counting full IPv6 addresses gives a guesser 2^64 fresh
 * counters: an IPv6 address counts under its /64 (`2001:db8:1:2::/64`), an IPv4 address as itself, an
 * IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, what a dual-stack socket reports) as its IPv4 address.
 * Anything else (no address known) is kept as it is.
 */
export function throttleAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (the URL parser's compressed form, embedded IPv4 in hex). */
function ipv6Groups(ip: string): number[] {
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  if (tail === undefined) return parse(head);
  const [h, t] = [parse(head), parse(tail)];
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/**
 * Failures counted in the state store (UserStore.countFailure / failuresOf), so every node and every
 * `--workers` process on one state adds to one count. Same window as FailureThrottle: it opens at the
 * first failure of a key and lasts `windowMs`; past `max` failures in it, the key is blocked until it ends.
 */
export interface FailureCounter {
  failuresOf(key: string, nowMs: number): Promise<{ failures: number; endsMs: number } | null>;
  countFailure(key: string, nowMs: number, windowMs: number): Promise<void>;
}

export class SharedFailureThrottle {
  /** `scope` keeps two throttles' counters apart in the one store (`login-account`, `login-address`). */
  constructor(
    readonly scope: string,
    readonly max: number,
    readonly windowMs: number,
  ) {}

  private key(what: string): string {
    return `${this.scope}:${what}`;
  }

  /** Milliseconds until `what` may try again, or 0 when it is not blocked. */
  async blockedFor(counter: FailureCounter, what: string, nowMs: number): Promise<number> {
    const w = await counter.failuresOf(this.key(what), nowMs);
    return w && w.failures >= this.max && w.endsMs > nowMs ? w.endsMs - nowMs : 0;
  }

  recordFailure(counter: FailureCounter, what: string, nowMs: number): Promise<void> {
    return counter.countFailure(this.key(what), nowMs, this.windowMs);
  }
}

/**
 * The process's one throttle of failed admin credentials: the admin API and `/metrics` on the service port
 * both check the admin token, so a guesser gets MAX_FAILURES a minute across both, not per route.
 */
export const adminCredentialThrottle = new FailureThrottle();
