/**
 * The metering turn batcher on Redis: operations reaching the store in one event-loop turn form one
 * batch; per customer, the batch is ONE call of the METER Lua script (scripts.ts), and all calls of a batch
 * are written together (node-redis pipelines commands issued in the same turn): one round trip per batch.
 */
import { createHash } from 'node:crypto';
import { retryTryAgain } from './connection.ts';
import type { RedisBackend } from './lifecycle.ts';
import { METER_SCRIPT } from './scripts.ts';
import type { ReplicaWait } from './wait.ts';

const METER_SHA = createHash('sha1').update(METER_SCRIPT).digest('hex');

export interface MeterOp {
  customer: string;
  /** The op as the script reads it, with key names in place of indexes (indexed per call). */
  keys: Record<string, string | string[]>;
  op: Record<string, unknown>;
  resolve: (reply: unknown) => void;
  reject: (e: unknown) => void;
}

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

  enqueue(m: Omit<MeterOp, 'resolve' | 'reject'>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.batch.push({ ...m, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => this.flush());
    });
  }

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
    const index = new Map<string, number>();
    const idx = (k: string) => {
      let i = index.get(k);
      if (i === undefined) {
        keyList.push(k);
        i = keyList.length;
        index.set(k, i);
      }
      return i;
    };
    const ops = group.map(({ keys: ks, op }) => {
      const out: Record<string, unknown> = { ...op };
      for (const [name, k] of Object.entries(ks)) out[name] = Array.isArray(k) ? k.map(idx) : idx(k);
      return out;
    });
    const args = [JSON.stringify(ops)];
    const client = this.b.client;
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
      if (this.wait.replicas > 0 && group.some((m) => m.op.t === 'ch')) {
        try {
          await this.wait.replicated(keyList[0]!);
        } catch {
          // The script ran: its outcomes stand (an error here would answer 503 for charges that were
          // made), each charge marked so its caller makes it durable some other way (metering/redis.ts).
          for (let i = 0; i < group.length; i++) {
            if (group[i].op.t === 'ch') group[i].reject(new UnconfirmedCharge(results[i]));
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
