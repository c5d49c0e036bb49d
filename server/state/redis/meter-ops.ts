/**
 * The metering operations the batcher sends to the METER script (meter-script.ts), each writing its own
 * flat arguments. Fixed-shape objects with the arguments as ready strings: the
 * hot path builds no intermediate records (spreading and re-keying per-op records, then JSON for the
 * script to decode, cost more than the rest of a Redis request's metering).
 */
import { ARGS_SEPARATOR } from './meter-script.ts';

/**
 * Where an op writes its arguments: `args` the op stream (packed into one script argument, so only our
 * own short values: numbers, op codes, ids); `key(name)` a key's argument (its index in KEYS) and
 * `loose(value)` a ledger entry's or dedup key's (an ARGV element of its own: its index in ARGV), both as
 * strings.
 */
export interface ArgsWriter {
  args: string[];
  key(name: string): string;
  loose(value: string): string;
}

/** What the batcher needs of an op. */
export abstract class MeterOp {
  resolve: (reply: unknown) => void = noop;
  reject: (e: unknown) => void = noop;

  constructor(readonly customer: string) {}

  /** Whether the op charges (WAIT applies to batches with a charge). */
  abstract readonly charges: boolean;
  /** Writes the op's arguments. */
  abstract encode(w: ArgsWriter): void;
}

const noop = () => {};

/**
 * A METER call's ARGV: ARGV[1] the units' op stream, packed; then the loose arguments (ledger entries,
 * dedup keys), which the stream names by index.
 */
export function packCall(units: readonly { encode(w: ArgsWriter): void }[], key: (name: string) => string): string[] {
  const args = [''];
  const stream: string[] = [];
  const loose = (value: string) => String(args.push(value));
  for (const unit of units) unit.encode({ args: stream, key, loose });
  args[0] = stream.join(ARGS_SEPARATOR);
  return args;
}

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

  encode({ args, key }: ArgsWriter): void {
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

  encode({ args, key, loose }: ArgsWriter, code: 'c' | 'q' = 'c'): void {
    const { k } = this;
    args.push(
      code,
      key(k.used),
      key(k.ledger),
      key(k.usage),
      key(k.settled),
      k.dedupe === null ? '0' : key(k.dedupe),
      // The dedup key holds a client's record: never in the stream.
      this.dedupeKey === null ? '0' : loose(this.dedupeKey),
      String(this.dedupeTtlMs),
      String(this.quota),
      loose(this.entry),
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

  encode(w: ArgsWriter): void {
    this.hit.encode(w);
    this.charge.encode(w, 'q');
  }
}

/** A script op's reply: [counts after the hit, [outcome, used after] or 'limited'] (a hit alone: the counts). */
export type RateChargeReply = [number[], [string, number] | 'limited'] | number[];

/**
 * Consecutive requests hitting the same counters (same keys, limits and window), each with an ordinary
 * charge without a dedup key or with none (a hit whose request exported nothing: an address not
 * identified), the charges alike in all but their ledger entry and id (same keys, quota, usage field,
 * partner flag) — one token's steady traffic — sent as ONE script op ('R', meter-script.ts), which
 * answers for the run as a whole; `replies` derives each request's reply from it, the reply the ops one
 * by one would have got.
 */
export class ChargeRun {
  readonly ops: (RateChargeOp | RateLimitOp)[];
  private readonly hit: RateLimitOp;
  /** The first charge of the run (the others are alike); null while none. */
  private charge: ChargeOp | null;

  constructor(first: RateChargeOp | RateLimitOp) {
    this.ops = [first];
    this.hit = first instanceof RateChargeOp ? first.hit : first;
    this.charge = first instanceof RateChargeOp ? first.charge : null;
  }

  /** Whether `op` can be in a run at all. */
  static fits(op: MeterOp): op is RateChargeOp | RateLimitOp {
    if (op instanceof RateLimitOp) return op.keys.length > 0;
    return op instanceof RateChargeOp && op.charge.mode === '' && op.charge.dedupeKey === null && op.hit.keys.length > 0;
  }

  /** Adds `op` when it is alike the run's requests; false otherwise. */
  add(op: RateChargeOp | RateLimitOp): boolean {
    const hit = op instanceof RateChargeOp ? op.hit : op;
    if (!sameCounters(this.hit, hit)) return false;
    if (op instanceof RateChargeOp) {
      if (this.charge === null) this.charge = op.charge;
      else if (!sameCharge(this.charge, op.charge)) return false;
    }
    this.ops.push(op);
    return true;
  }

  encode({ args, key, loose }: ArgsWriter): void {
    const { hit, charge } = this;
    args.push('R', String(hit.ttlMs), String(hit.keys.length));
    for (let i = 0; i < hit.keys.length; i++) args.push(key(hit.keys[i]!), String(hit.limits[i]));
    if (charge === null) args.push('0', '0', '0', '0', '0', '', '0');
    else {
      const k = charge.k;
      args.push(key(k.used), key(k.ledger), key(k.usage), key(k.settled), String(charge.quota), charge.usageField, charge.partner ? '1' : '0');
    }
    // The entries, then the ids, each an ARGV element of its own, consecutive ('' for a hit alone).
    const { ops } = this;
    let first = '';
    for (const op of ops) {
      const at = loose(op instanceof RateChargeOp ? op.charge.entry : '');
      first ||= at;
    }
    for (const op of ops) loose(op instanceof RateChargeOp ? op.charge.id : '');
    args.push(String(ops.length), first);
  }

  /** Each op's reply from the run's `[counts before, admitted, used before, settled places]`. */
  replies(reply: unknown): RateChargeReply[] {
    const [before, admitted, usedBefore, settledAt] = reply as [number[], number, number, number[] | Record<string, never>];
    // cjson writes an empty Lua table as an object.
    const settled = Array.isArray(settledAt) && settledAt.length > 0 ? new Set(settledAt) : null;
    const quota = this.charge?.quota ?? 0;
    let used = usedBefore;
    return this.ops.map((op, i): RateChargeReply => {
      const charges = op instanceof RateChargeOp;
      if (i >= admitted) {
        const counts = before.map((c) => c + admitted + 1);
        return charges ? [counts, 'limited'] : counts;
      }
      const counts = before.map((c) => c + i + 1);
      if (!charges) return counts;
      if (settled?.has(i + 1)) return [counts, ['duplicate', used]];
      if (used + 1 > quota) return [counts, ['exhausted', used]];
      used++;
      return [counts, ['charged', used]];
    });
  }
}

function sameCounters(h: RateLimitOp, g: RateLimitOp): boolean {
  if (h.ttlMs !== g.ttlMs || h.keys.length !== g.keys.length) return false;
  for (let i = 0; i < h.keys.length; i++) if (h.keys[i] !== g.keys[i] || h.limits[i] !== g.limits[i]) return false;
  return true;
}

function sameCharge(c: ChargeOp, d: ChargeOp): boolean {
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
