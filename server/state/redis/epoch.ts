/**
 * Whether Redis still holds this deployment's data. The data epoch is a random id written once into an
 * empty Redis (`svc:epoch`) and remembered by every node: a Redis restarted without persistence, flushed,
 * or failed over to an empty replica has another (or none), and the node then refuses to serve from it or
 * replay its journal into it (`lost`: every call answers 503, readiness fails). On a Redis Cluster the
 * epoch lives on one shard, so every hash slot also carries a copy (`svc:epoch:{<slot tag>}`, written
 * once): a primary restarted empty with its slots has lost its copies, and the node treats it as the
 * single Redis above, naming the shard.
 */
import { randomUUID } from 'node:crypto';
import { CLUSTER_SLOTS, describeShard, type ShardView, shardsOf, slotOf } from './connection.ts';
import { keys } from './keys.ts';
import type { RedisBackend } from './lifecycle.ts';

/** Slot copies of the epoch written per round trip when a cluster is first marked. */
const MARK_CHUNK = 4_096;

/** One primary's copy of the epoch: `found` undefined when the shard did not answer (failing over, unreachable). */
export interface ShardProbe {
  shard: string;
  found: string | null | undefined;
}

/** A shard did not answer the data check: not known to be lost, but nothing is replayed until it answers. */
export class ShardSilent extends Error {}

export class DataEpoch {
  /** The epoch this node serves (null until open has read it). */
  value: string | null = null;
  /** Set while Redis holds no data of this deployment: why (every call answers 503). */
  lost: string | null = null;
  /** Cluster: every slot carries the epoch (`keys.slotEpoch`), so each primary's data can be checked. */
  private slotsMarked = false;

  constructor(private readonly b: RedisBackend) {}

  /** At open. First writer wins: an empty Redis gets the epoch of the first node (or CLI call) that opens it. */
  async start(): Promise<void> {
    const { client } = this.b;
    await client.set(keys.epoch, randomUUID(), { condition: 'NX' });
    this.value = await client.get(keys.epoch);
    if (this.b.cluster) await this.markSlots();
  }

  /**
   * Whether Redis still holds this deployment's data (on a cluster: every primary); if not, the node stops
   * using it (and says so once). `strict` (before a journal replay): throws ShardSilent when a shard did not
   * answer, as it may be the one that came back empty.
   */
  async check(strict = true): Promise<boolean> {
    const [current, shards] = await this.b.timed(Promise.all([this.b.client.get(keys.epoch), this.probeShards()]));
    if (!this.judge(current, shards) || !strict) return this.lost === null;
    const silent = shards.find((s) => s.found === undefined);
    if (silent) throw new ShardSilent(`Redis Cluster shard ${silent.shard} did not answer the data check`);
    return true;
  }

  /**
   * Cluster: writes the epoch into every slot, once per epoch (a node finding `slotEpochsWritten` set skips
   * it). Overwrites: after an operator starts over (a new epoch) the copies follow it.
   */
  private async markSlots(): Promise<void> {
    const { client } = this.b;
    const epoch = this.value!;
    if ((await client.get(keys.slotEpochsWritten)) !== epoch) {
      for (let from = 0; from < CLUSTER_SLOTS; from += MARK_CHUNK) {
        const writes: Promise<unknown>[] = [];
        for (let slot = from; slot < Math.min(from + MARK_CHUNK, CLUSTER_SLOTS); slot++) writes.push(client.set(keys.slotEpoch(slot), epoch));
        await Promise.all(writes);
      }
      await client.set(keys.slotEpochsWritten, epoch);
    }
    this.slotsMarked = true;
  }

  /**
   * Cluster: each primary's copy of the epoch, read in the first slot it serves in the client's slot map
   * (so a resharding or failover is followed). A shard that does not answer within half the command
   * deadline is reported silent, not lost — and is no stall of the whole node (the other shards serve).
   */
  probeShards(): Promise<ShardProbe[]> {
    if (!this.slotsMarked) return Promise.resolve([]);
    const { client } = this.b;
    const probeMs = Math.max(50, Math.floor(this.b.commandTimeoutMs / 2));
    return Promise.all(
      shardsOf(client).map(async (view) => {
        let timer: NodeJS.Timeout | undefined;
        const found = await Promise.race([
          client.get(keys.slotEpoch(view.ranges[0]![0])).catch(() => undefined),
          new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), probeMs);
          }),
        ]);
        clearTimeout(timer);
        return { shard: describeShard(view), found };
      }),
    );
  }

  /** Cluster: the shard serving `slot` in the client's slot map, for messages. */
  private shardServing(slot: number): string {
    const view = shardsOf(this.b.client).find((v: ShardView) => v.ranges.some(([a, b]) => a <= slot && slot <= b));
    return view ? describeShard(view) : `slot ${slot} (no primary)`;
  }

  /** Whether `current` (and every shard's copy) is this node's epoch; decides `lost`, and serving again once it is back. */
  judge(current: string | null, shards: ShardProbe[] = []): boolean {
    const emptied = current === this.value ? shards.find((s) => s.found !== undefined && s.found !== this.value) : undefined;
    if (current === this.value && !emptied) {
      // Back only once every shard has answered: one still failing over may be the one that was empty.
      if (this.lost !== null && shards.every((s) => s.found !== undefined)) {
        this.lost = null;
        this.b.log("Redis holds this deployment's data again: serving from it", 'info');
        this.b.auth.sync(-1);
        void this.b.drainJournal();
      }
      return this.lost === null;
    }
    // Every customer is refused, not only that shard's: the global indexes (token hash, tag owner, the
    // customer list) are spread over the shards, so any answer could come from the empty one.
    const reason = emptied
      ? `Redis Cluster shard ${emptied.shard} holds none of this deployment's data (restarted empty, flushed, or failed over to an empty replica): ` +
        "this node answers 503 and keeps its journal until the shard's data is restored (its AOF or RDB); to go on without it, delete svc:epoch and restart every node"
      : "Redis holds none of this deployment's data (restarted without persistence, flushed, or failed over to an empty replica): " +
        'this node answers 503 and keeps its journal until the data is restored (svc state import) and the node restarted';
    if (this.lost !== reason) {
      this.lost = reason;
      const where = !emptied && this.b.cluster ? `, svc:epoch on shard ${this.shardServing(slotOf(keys.epoch))}` : '';
      this.b.log(`${reason} (data epoch ${this.value}, found ${(emptied ? emptied.found : current) ?? 'none'}${where})`);
    }
    return false;
  }
}
