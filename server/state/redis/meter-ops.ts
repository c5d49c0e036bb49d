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
    readonly keys: string[],
    readonly limits: number[],
    readonly ttlMs: number,
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
    readonly k: ChargeKeys,
    readonly dedupeKey: string | null,
    private readonly dedupeTtlMs: number,
    readonly quota: number,
    /** The ledger entry (JSON, carrying the id). */
    readonly entry: string,
    /** `pool|api|month`: the usage hash's field prefix. */
    readonly usageField: string,
    readonly partner: boolean,
    readonly id: string,
    readonly mode: ChargeMode,
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
    readonly hit: RateLimitOp,
    readonly charge: ChargeOp,
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

/** A script op's reply: [counts after the hit, [outcome, used after] or 'limited']. */
export type RateChargeReply = [number[], [string, number] | 'limited'];

/**
 * Consecutive RateChargeOps alike in all but their ledger entry and id — the same counters and limits,
 * the same charge keys, quota, usage field and partner flag, an ordinary charge without a dedup key:
 * one token's steady traffic — sent as ONE script op ('R', meter-script.ts), which answers for the run
 * as a whole; `replies` derives each request's reply from it, the reply the ops one by one would have got.
 */
export class ChargeRun {
  readonly ops: RateChargeOp[];

  constructor(first: RateChargeOp) {
    this.ops = [first];
  }

  /** Whether `op` can be in a run at all. */
  static fits(op: MeterOp): op is RateChargeOp {
    return op instanceof RateChargeOp && op.charge.mode === '' && op.charge.dedupeKey === null && op.hit.keys.length > 0;
  }

  /** Adds `op` when it is alike the run's first op; false otherwise. */
  add(op: RateChargeOp): boolean {
    const a = this.ops[0]!;
    if (!alike(a, op)) return false;
    this.ops.push(op);
    return true;
  }

  encode(args: string[], key: (name: string) => string): void {
    const { hit, charge } = this.ops[0]!;
    const k = charge.k;
    args.push('R', String(hit.ttlMs), String(hit.keys.length));
    for (let i = 0; i < hit.keys.length; i++) args.push(key(hit.keys[i]!), String(hit.limits[i]));
    args.push(
      key(k.used),
      key(k.ledger),
      key(k.usage),
      key(k.settled),
      String(charge.quota),
      charge.usageField,
      charge.partner ? '1' : '0',
      String(this.ops.length),
    );
    for (const op of this.ops) args.push(op.charge.entry, op.charge.id);
  }

  /** Each op's reply from the run's `[counts before, admitted, used before, settled places]`. */
  replies(reply: unknown): RateChargeReply[] {
    const [before, admitted, usedBefore, settledAt] = reply as [number[], number, number, number[] | Record<string, never>];
    // cjson writes an empty Lua table as an object.
    const settled = Array.isArray(settledAt) && settledAt.length > 0 ? new Set(settledAt) : null;
    const quota = this.ops[0]!.charge.quota;
    let used = usedBefore;
    return this.ops.map((_, i): RateChargeReply => {
      if (i >= admitted) return [before.map((c) => c + admitted + 1), 'limited'];
      const counts = before.map((c) => c + i + 1);
      if (settled?.has(i + 1)) return [counts, ['duplicate', used]];
      if (used + 1 > quota) return [counts, ['exhausted', used]];
      used++;
      return [counts, ['charged', used]];
    });
  }
}

function alike(a: RateChargeOp, b: RateChargeOp): boolean {
  const [h, g, c, d] = [a.hit, b.hit, a.charge, b.charge];
  if (h.ttlMs !== g.ttlMs || h.keys.length !== g.keys.length) return false;
  for (let i = 0; i < h.keys.length; i++) if (h.keys[i] !== g.keys[i] || h.limits[i] !== g.limits[i]) return false;
  return (
    c.k.used === d.k.used &&
    c.k.ledger === d.k.ledger &&
    c.k.usage === d.k.usage &&
    c.k.settled === d.k.settled &&
    c.quota === d.quota &&
    c.usageField === d.usageField &&
    c.partner === d.partner
  );
}
