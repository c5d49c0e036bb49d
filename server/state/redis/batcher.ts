/**
 * The metering turn batcher on Redis: operations reaching the store in one event-loop turn form one
 * batch; per customer, the batch is ONE call of the METER Lua script (meter-script.ts), and all calls of a batch
 * are written together (node-redis pipelines commands issued in the same turn): one round trip per batch.
 */
import { createHash } from 'node:crypto';
import { retryTryAgain } from './connection.ts';
import type { RedisBackend } from './lifecycle.ts';
import type { MeterOp } from './meter-ops.ts';
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

export class MeterBatcher {
  private batch: MeterOp[] = [];

  constructor(
    private readonly b: RedisBackend,
    private readonly wait: ReplicaWait,
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

  /** One METER call per customer in the batch, all sent in the same turn (one round trip). */
  flush(): void {
    const ops = this.batch;
    this.batch = [];
    if (ops.length === 0) return;
    const byCustomer = new Map<string, MeterOp[]>();
    for (const op of ops) {
      const list = byCustomer.get(op.customer);
      if (list) list.push(op);
      else byCustomer.set(op.customer, [op]);
    }
    for (const group of byCustomer.values()) void this.run(group);
  }

  /** One METER call for one customer's ops; each op's promise settles with its reply. */
  async run(group: MeterOp[]): Promise<void> {
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
    const args: string[] = [];
    for (const op of group) op.encode(args, key);
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
      const results = JSON.parse(reply) as unknown[];
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
      for (const op of group) op.reject(e);
    }
  }
}
