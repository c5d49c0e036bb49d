/**
 * The metering turn batcher on Redis: operations reaching the store in one event-loop turn form one
 * batch; per customer, the batch is ONE call of the METER Lua script (meter-script.ts), and all calls of a batch
 * are written together (node-redis pipelines commands issued in the same turn): one round trip per batch.
 *
 * Group commit: while a customer's call is in flight, that customer's next ops wait for its answer and
 * then go as one call. Each call costs Redis a fixed price (the script's start, and with
 * `appendfsync always` an AOF write and fsync) that dwarfs its ops, so under load the calls grow with the
 * round trip instead of multiplying; an idle node's op still goes at once. A call that has not answered
 * within HOLD_MAX_MS (a stalled shard) holds nothing back any longer: the ops behind it go on their own.
 */
import { createHash } from 'node:crypto';
import { retryTryAgain } from './connection.ts';
import type { RedisBackend } from './lifecycle.ts';
import { ChargeRun, type MeterOp, packCall } from './meter-ops.ts';
import { METER_SCRIPT } from './meter-script.ts';
import type { ReplicaWait } from './wait.ts';

const METER_SHA = createHash('sha1').update(METER_SCRIPT).digest('hex');

export type { MeterOp } from './meter-ops.ts';

/**
 * A charge op's answer when its script ran but WAIT failed (replica not confirmed, the primary perhaps
 * going down): `reply` is the script's outcome, true on the primary, which a failover may still lose.
 */
export class UnconfirmedCharge extends Error {
  constructor(readonly reply: unknown) {
    super('charge made on the primary, not confirmed on a replica');
  }
}

/** How long a customer's ops wait for its call in flight at most (its answer takes well under 1 ms when Redis is well). */
export const HOLD_MAX_MS = 20;

export class MeterBatcher {
  private batch: MeterOp[] = [];
  /** Customers with a call in flight → their ops waiting for its answer (null: none yet). */
  private readonly held = new Map<string, MeterOp[] | null>();

  constructor(
    private readonly b: RedisBackend,
    private readonly wait: ReplicaWait,
    /** Whether alike requests go as runs (false: op by op, the oracle tests compare runs with). */
    private readonly runs = true,
  ) {}

  enqueue(op: MeterOp): Promise<unknown> {
    return new Promise((resolve, reject) => {
      op.resolve = resolve;
      op.reject = reject;
      this.batch.push(op);
      if (this.batch.length === 1) setImmediate(this.flushNow);
    });
  }

  private readonly flushNow = () => this.flush();

  /**
   * One METER call per customer in the batch, all sent in the same turn (one round trip); a customer's ops
   * wait while its previous call is in flight. `all` (closing): every op waiting goes now.
   */
  flush(all = false): void {
    const ops = this.batch;
    this.batch = [];
    const byCustomer = new Map<string, MeterOp[]>();
    for (const op of ops) {
      const list = byCustomer.get(op.customer);
      if (list) list.push(op);
      else byCustomer.set(op.customer, [op]);
    }
    for (const [customer, group] of byCustomer) {
      if (!this.held.has(customer)) this.send(customer, group);
      else {
        const waiting = this.held.get(customer);
        if (waiting) for (const op of group) waiting.push(op);
        else this.held.set(customer, group);
      }
    }
    if (!all) return;
    for (const [customer, waiting] of this.held) {
      if (waiting === null) continue;
      this.held.set(customer, null);
      void this.run(waiting);
    }
  }

  /** Runs a customer's call; what waited for it goes once it answers (or HOLD_MAX_MS passed). */
  private send(customer: string, group: MeterOp[]): void {
    this.held.set(customer, null);
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const waiting = this.held.get(customer);
      this.held.delete(customer);
      if (waiting) this.send(customer, waiting);
    };
    const timer = setTimeout(release, HOLD_MAX_MS);
    void this.run(group, release);
  }

  /**
   * One METER call for one customer's ops; each op's promise settles with its reply. `answered` runs when
   * the script's answer (or failure) is in, before the replica WAIT.
   */
  async run(group: MeterOp[], answered?: () => void): Promise<void> {
    const keyList: string[] = [];
    const index = new Map<string, string>();
    const key = (k: string) => {
      let i = index.get(k);
      if (i === undefined) {
        keyList.push(k);
        i = String(keyList.length);
        index.set(k, i);
      }
      return i;
    };
    // Alike requests in a row go as one run (meter-ops.ts ChargeRun); the rest op by op.
    const units: (MeterOp | ChargeRun)[] = [];
    for (const op of group) {
      if (this.runs && ChargeRun.fits(op)) {
        const last = units[units.length - 1];
        if (!(last instanceof ChargeRun && last.add(op))) units.push(new ChargeRun(op));
      } else units.push(op);
    }
    const args = packCall(units, key);
    const client = this.b.untimed;
    try {
      const reply = await this.b.timed(
        retryTryAgain(async () => {
          try {
            return (await client.evalSha(METER_SHA, { keys: keyList, arguments: args })) as string;
          } catch (e) {
            // A node that has not run the script yet (a new primary after a failover or resharding) too.
            if (!String((e as Error).message).startsWith('NOSCRIPT')) throw e;
            return (await client.eval(METER_SCRIPT, { keys: keyList, arguments: args })) as string;
          }
        }),
      );
      answered?.();
      const results = repliesOf(units, JSON.parse(reply) as unknown[]);
      if (this.wait.replicas > 0 && group.some((m) => m.charges)) {
        try {
          await this.wait.replicated(keyList[0]!);
        } catch {
          // The script ran: its outcomes stand (an error here would answer 503 for charges that were
          // made), each charge marked so its caller makes it durable some other way (metering/redis.ts).
          for (let i = 0; i < group.length; i++) {
            if (group[i].charges) group[i].reject(new UnconfirmedCharge(results[i]));
            else group[i].resolve(results[i]);
          }
          return;
        }
      }
      for (let i = 0; i < group.length; i++) group[i].resolve(results[i]);
    } catch (e) {
      answered?.();
      for (const op of group) op.reject(e);
    }
  }
}

/** The script's results, one per unit, as one reply per op (a run's expanded), in the ops' order. */
function repliesOf(units: (MeterOp | ChargeRun)[], results: unknown[]): unknown[] {
  if (!units.some((u) => u instanceof ChargeRun)) return results;
  const replies: unknown[] = [];
  for (let i = 0; i < units.length; i++) {
    const unit = units[i]!;
    if (unit instanceof ChargeRun) for (const r of unit.replies(results[i])) replies.push(r);
    else replies.push(results[i]);
  }
  return replies;
}
