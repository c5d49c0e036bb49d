/**
 * The metering operations the batcher sends to the METER script (meter-script.ts), each writing its own
 * flat arguments. Fixed-shape objects with the arguments as ready strings: the
 * hot path builds no intermediate records (spreading and re-keying per-op records, then JSON for the
 * script to decode, cost more than the rest of a Redis request's metering).
 */
import { ARGS_SEPARATOR } from './meter-script.ts';

/** What the batcher needs of an op. */
export abstract class MeterOp {
  resolve: (reply: unknown) => void = noop;
  reject: (e: unknown) => void = noop;

  constructor(readonly customer: string) {}

  /** Whether the op charges (WAIT applies to batches with a charge). */
  abstract readonly charges: boolean;
  /** Whether none of its arguments holds ARGS_SEPARATOR, so the batcher may pack them into one. */
  get packable(): boolean {
    return true;
  }
  /** Appends the op's arguments; `key` gives a key's argument (its index in KEYS, as a string). */
  abstract encode(args: string[], key: (name: string) => string): void;
}

const noop = () => {};

/** One request's rate-limit counters → the counts after the hit (`number[]`). */
export class RateLimitOp extends MeterOp {
  readonly charges = false;

  constructor(
    customer: string,
    private readonly keys: string[],
    private readonly limits: number[],
    private readonly ttlMs: number,
  ) {
    super(customer);
  }

  encode(args: string[], key: (name: string) => string): void {
    args.push('r', String(this.ttlMs), String(this.keys.length));
    for (let i = 0; i < this.keys.length; i++) args.push(key(this.keys[i]!), String(this.limits[i]));
  }
}

/** How a charge runs: '' ordinary; after an outage 'j' journaled, 'x' journaled while in flight, 'v' void. */
export type ChargeMode = '' | 'j' | 'x' | 'v';

/** The keys of a charge (one customer's). */
export interface ChargeKeys {
  used: string;
  ledger: string;
  usage: string;
  settled: string;
  /** The month's dedup hash, when the charge has a dedup key. */
  dedupe: string | null;
}

/** One charge → `[outcome, used after]`. */
export class ChargeOp extends MeterOp {
  readonly charges = true;

  constructor(
    customer: string,
    private readonly k: ChargeKeys,
    private readonly dedupeKey: string | null,
    private readonly dedupeTtlMs: number,
    private readonly quota: number,
    /** The ledger entry (JSON, carrying the id). */
    private readonly entry: string,
    /** `pool|api|month`: the usage hash's field prefix. */
    private readonly usageField: string,
    private readonly partner: boolean,
    private readonly id: string,
    private readonly mode: ChargeMode,
  ) {
    super(customer);
  }

  /** The dedup key holds a client's record; every other argument is ours (meter-script.ts ARGS_SEPARATOR). */
  override get packable(): boolean {
    return this.dedupeKey === null || !this.dedupeKey.includes(ARGS_SEPARATOR);
  }

  encode(args: string[], key: (name: string) => string, code: 'c' | 'q' = 'c'): void {
    const { k } = this;
    args.push(
      code,
      key(k.used),
      key(k.ledger),
      key(k.usage),
      key(k.settled),
      k.dedupe === null ? '0' : key(k.dedupe),
      this.dedupeKey ?? '',
      String(this.dedupeTtlMs),
      String(this.quota),
      this.entry,
      this.usageField,
      this.partner ? '1' : '0',
      this.id,
      this.mode,
    );
  }
}

/**
 * One request's rate-limit hit and its charge as ONE op (one script op pair, one promise, one round trip
 * for the request's metering): the charge is made only if the hit is admitted → `[counts, [outcome, used
 * after]]` or `[counts, 'limited']`.
 */
export class RateChargeOp extends MeterOp {
  readonly charges = true;

  constructor(
    private readonly hit: RateLimitOp,
    private readonly charge: ChargeOp,
  ) {
    super(hit.customer);
  }

  override get packable(): boolean {
    return this.charge.packable;
  }

  encode(args: string[], key: (name: string) => string): void {
    this.hit.encode(args, key);
    this.charge.encode(args, key, 'q');
  }
}
