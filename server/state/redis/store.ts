/**
 * The shared state store for many nodes: Redis (or Valkey) through node-redis, composed of the access and
 * metering services over their Redis adapters (access/redis.ts, metering/redis.ts) on one node's
 * connection (lifecycle.ts: deadlines, the data epoch, the auth version, the outage journal).
 */
import type { RedisClientType } from '@redis/client';
import { RedisAccess } from '../access/redis.ts';
import { AccessService } from '../access/service.ts';
import { ComposedStateStore } from '../compose.ts';
import { RedisMetering } from '../metering/redis.ts';
import { MeteringService } from '../metering/service.ts';
import { stateTransfer } from '../transfer/state.ts';
import { MeterBatcher } from './batcher.ts';
import { RedisBackend, type RedisStoreOptions } from './lifecycle.ts';
import { ReplicaWait } from './wait.ts';

export type { RedisStoreOptions } from './lifecycle.ts';

export class RedisStateStore extends ComposedStateStore {
  private constructor(
    private readonly backend: RedisBackend,
    private readonly batcher: MeterBatcher,
    private readonly meter: RedisMetering,
    access: RedisAccess,
  ) {
    const transfer = stateTransfer({
      access,
      metering: meter,
      // A whole import is many commands: no single deadline (each step would time out on its own).
      writePage: (page) =>
        backend.io(async () => {
          for (const e of page) if (!(await access.importEntry(e))) await meter.importEntry(e);
          await access.imported();
        }, false),
    });
    super(new AccessService(access, backend.auth), new MeteringService(meter), transfer);
  }

  static async open(opts: RedisStoreOptions): Promise<RedisStateStore> {
    let batcher!: MeterBatcher;
    let meter!: RedisMetering;
    let access!: RedisAccess;
    const backend = await RedisBackend.open(opts, (b) => {
      batcher = new MeterBatcher(b, new ReplicaWait(b, opts.waitReplicas ?? 0), opts.meterRuns ?? true);
      access = new RedisAccess(b);
      meter = new RedisMetering(b, batcher, () => access.customerIds());
      return () => meter.drainJournal();
    });
    return new RedisStateStore(backend, batcher, meter, access);
  }

  /**
   * The process's one command connection to Redis (the other is the auth subscriber): the visit store and
   * the webhook outbox run on it (backend.ts), each with its own deadlines, and leave it
   * open when they close: this store owns it and closes it last.
   */
  get redis(): RedisClientType {
    return this.backend.client;
  }

  /** The same connection (the metering scripts run on it). */
  protected get client(): RedisClientType {
    return this.backend.client;
  }

  /** Live nodes last seen in Redis (how rate limits are split while it is unreachable). */
  get liveNodes(): number {
    return this.backend.outage.nodes;
  }

  /** Registers this node now (it does every 5 s on its own). */
  heartbeatNow(): Promise<void> {
    return this.backend.heartbeat();
  }

  /** Whether Redis is reachable right now and holds this deployment's data (otherwise the outage paths answer). */
  get connected(): boolean {
    return this.backend.connected;
  }

  /** Why Redis is not usable, when it holds no data of this deployment (restarted empty, flushed): else null. */
  get dataLost(): string | null {
    return this.backend.epoch.lost;
  }

  /** Replays the journal of charges made while Redis was unreachable (metering/redis.ts). */
  drainJournal(): Promise<void> {
    return this.meter.drainJournal();
  }

  async close(): Promise<void> {
    if (this.backend.closed) return;
    this.batcher.flush(true);
    await this.backend.close(() => this.meter.draining);
  }
}
