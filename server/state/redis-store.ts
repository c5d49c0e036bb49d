/**
 * The shared state store for many nodes: Redis (or Valkey) through node-redis. Key layout (ARCHITECTURE.md
 * "State on Redis"): every key of one customer carries the hash tag `{cust:<id>}`, so each metering
 * script touches one slot; global indexes (token hash → owner, tag → customer, lists) are single keys.
 *
 * - Access records are cached per node (the same AuthCache as SQLite). Every change bumps
 *   `svc:auth:version` and publishes it on `svc:auth`; nodes drop their cache on the message (and poll
 *   the version every second, in case a message was missed), so a change reaches every node within 1 s.
 * - Metering: operations reaching the store in one event-loop turn form one batch; per customer, the
 *   batch is ONE call of the METER Lua script, and all calls of a batch are written together (node-redis
 *   pipelines commands issued in the same turn): one round trip per batch.
 * - Redis unreachable: identification keeps answering on a bounded local allowance, journaled and
 *   replayed exactly once when Redis is back (outage.ts); other metering fails closed (503); cached
 *   access records keep answering; writes fail with StoreUnavailableError (503).
 * - Redis stalled (stopped, partitioned without RST): the connection stays "ready" and node-redis waits
 *   for written commands forever, so every call has a deadline (`commandTimeoutMs`); the first miss
 *   puts the node on the outage paths until a PING answers again.
 * - Redis without this deployment's data (restarted empty, flushed, an empty replica promoted): the
 *   data epoch (`svc:epoch`) differs from the one the node remembers; the node answers 503 and keeps its
 *   journal rather than serve 401s from, or replay charges into, an empty store. On a Redis Cluster the
 *   epoch lives on one shard, so every hash slot also carries a copy (`svc:epoch:{<slot tag>}`, written
 *   once): a primary restarted empty with its slots (or an empty replica promoted) has lost its copies,
 *   and the node treats it as the single Redis above, naming the shard.
 */

import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisClientType } from '@redis/client';
import { CustomerPatch, CustomerSeed, type Segment } from '../../core/customer-records.ts';
import { displayPrefix, generateSecret, hashSecret } from '../auth/token-secret.ts';
import type { CreditPool } from '../credits/rules.ts';
import { TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../limits/policy.ts';
import type { ListState, SegmentState } from './access.ts';
import { checkTagGrant, checkTokenGrant, highWater, newTagId, newTokenId } from './access-rules.ts';
import { AuthCache, deepFreeze, LAST_USED_RESOLUTION_MS } from './auth-cache.ts';
import { StateError, type StateLog, StoreUnavailableError } from './errors.ts';
import type { ChargeOutcome, ChargeRequest, CreditBalance, RateLimitHit, RateLimitRequest, UsageRow } from './metering.ts';
import { type JournaledCharge, OutageMeter } from './outage.ts';
import {
  CLUSTER_SLOTS,
  describeShard,
  onConnection,
  openRedis,
  publish,
  retryTryAgain,
  type ShardView,
  scanKeys,
  shardsOf,
  shardUnreachable,
  slotOf,
  slotTag,
  subscribe,
  waitForReplicas,
} from './redis-connection.ts';
import { FIELDS_CAS_SCRIPT, METER_SCRIPT, SEGMENTS_CAS_SCRIPT } from './redis-scripts.ts';
import { CustomerRecord, NewTag, NewToken, type StateStore, TagPatch, TagRecord, TagSettings, TokenRecord } from './store.ts';
import { LedgerEntry, StateEntry } from './transfer.ts';

/** Key names; `{cust:<id>}` is the hash tag that keeps one customer's keys in one slot. */
export const keys = {
  customer: (c: string) => `svc:{cust:${c}}:customer`,
  token: (c: string, id: string) => `svc:{cust:${c}}:token:${id}`,
  tokens: (c: string) => `svc:{cust:${c}}:tokens`,
  tokenUsed: (c: string) => `svc:{cust:${c}}:token-used`,
  tag: (c: string, id: string) => `svc:{cust:${c}}:tag:${id}`,
  tags: (c: string) => `svc:{cust:${c}}:tags`,
  used: (c: string, pool: string, period: string) => `svc:{cust:${c}}:used:${pool}:${period}`,
  dedupe: (c: string, month: string) => `svc:{cust:${c}}:dedupe:${month}`,
  ledger: (c: string) => `svc:{cust:${c}}:ledger`,
  usage: (c: string) => `svc:{cust:${c}}:usage`,
  rate: (c: string, windowStart: number, key: string) => `svc:{cust:${c}}:rl:${windowStart}:${key}`,
  replayed: (c: string) => `svc:{cust:${c}}:replayed`,
  customers: 'svc:customers',
  tokenHash: (hash: string) => `svc:token-hash:${hash}`,
  tokenOwner: 'svc:token-owner',
  tagOwner: 'svc:tag-owner',
  settings: 'svc:settings',
  authVersion: 'svc:auth:version',
  authChannel: 'svc:auth',
  nodes: 'svc:nodes',
  epoch: 'svc:epoch',
  /** Cluster: the data epoch once more in `slot` (its hash tag hashes there), on whichever primary serves it. */
  slotEpoch: (slot: number) => `svc:epoch:{${slotTag(slot)}}`,
  /** Cluster: the epoch whose slot copies are all written. In `svc:epoch`'s slot: lost together with it. */
  slotEpochsWritten: 'svc:epoch:{svc:epoch}:slots',
} as const;

const METER_SHA = createHash('sha1').update(METER_SCRIPT).digest('hex');
/** A month's dedup hash outlives the month by a few days (clock skew), then expires. */
const DEDUPE_TTL_MS = 40 * 86_400_000;
const NODE_HEARTBEAT_MS = 5_000;
const AUTH_POLL_MS = 1_000;
const JOURNAL_RETRY_MS = 1_000;
/** How long WAIT (SVC_REDIS_WAIT) may hold a connection: at most this, and a quarter of the command deadline. */
const WAIT_TIMEOUT_MS = 100;
/** After a WAIT a replica did not acknowledge in time, charges go without WAIT this long. */
const WAIT_BACKOFF_MS = 1_000;
/** On a cluster, how soon a recovery check that failed (its shard failing over) is tried again. */
const RECOVER_RETRY_MS = 250;
/** Slot copies of the epoch written per round trip when a cluster is first marked. */
const MARK_CHUNK = 4_096;
/** Journal entries replayed per script call. */
const REPLAY_CHUNK = 500;
/** Default for how long a command may go unanswered before Redis counts as stalled (SVC_REDIS_TIMEOUT_MS). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1_500;

/** Why a connected Redis is not used right now (the outage paths answer meanwhile). */
type Hold = 'stalled' | 'verifying';

/** One primary's copy of the epoch: `found` undefined when the shard did not answer (failing over, unreachable). */
interface ShardProbe {
  shard: string;
  found: string | null | undefined;
}

/** A shard did not answer the data check: not known to be lost, but nothing is replayed until it answers. */
class ShardSilent extends Error {}

export interface RedisStoreOptions {
  /** One Redis, or with `cluster` the seed nodes of a Redis Cluster (`redis://h1:p1,h2:p2`). */
  url: string;
  /** A Redis Cluster (SVC_REDIS_CLUSTER=1): the cluster client, sharded pub/sub (redis-connection.ts). */
  cluster?: boolean;
  /**
   * SVC_REDIS_WAIT: after each batch of charges, `WAIT <n> <timeout>` before the answers go out, so a
   * charge a client saw is on n replicas and survives a failover. 0 (default): asynchronous replication.
   */
  waitReplicas?: number;
  /** Local journal folder for charges made while Redis is unreachable. */
  journalDir: string;
  /** Credits per customer and node while Redis is unreachable. */
  outageAllowance: number;
  /**
   * How long a command may go unanswered before Redis counts as stalled. A stopped or partitioned Redis
   * (no RST) keeps the connection "ready" and node-redis waits for written commands forever.
   */
  commandTimeoutMs?: number;
  log?: StateLog;
}

interface MeterOp {
  customer: string;
  /** The op as the script reads it, with key names in place of indexes (indexed per call). */
  keys: Record<string, string | string[]>;
  op: Record<string, unknown>;
  resolve: (reply: unknown) => void;
  reject: (e: unknown) => void;
}

type Hash = Record<string, string>;
const toHash = (record: Record<string, unknown>): Hash => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, JSON.stringify(v)]));
const fromHash = (h: Hash): Record<string, unknown> => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, JSON.parse(v)]));
const now = () => new Date().toISOString();
const definedOnly = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
/** What a tag written before per-tag limits and demo tags had (TagRecord keeps only the fields it knows). */
const TAG_DEFAULTS = { rate_limit: TAG_CEILING, visitor_rate_limit: TAG_PER_VISITOR_LIMIT, demo: false };

export class RedisStateStore implements StateStore {
  private readonly auth = new AuthCache();
  private readonly outage: OutageMeter;
  private readonly log: StateLog;
  private readonly nodeId = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private readonly timers: NodeJS.Timeout[] = [];
  private batch: MeterOp[] = [];
  private closed = false;
  private draining: Promise<void> | null = null;
  private readonly commandTimeoutMs: number;
  private readonly waitReplicas: number;
  private readonly cluster: boolean;
  private waitShortLogged = false;
  /** Until when charges are answered without WAIT (a replica did not acknowledge in time). */
  private waitSkipUntil = 0;
  /**
   * The data epoch: a random id written once into an empty Redis (`svc:epoch`) and remembered by every
   * node. A Redis restarted without persistence, flushed, or a failover to an empty replica has another
   * (or none): the node then refuses to serve from it or replay its journal into it (`lost`).
   */
  private epoch: string | null = null;
  /** Set while Redis holds no data of this deployment: every call answers 503, readiness fails. */
  private lost: string | null = null;
  /** Cluster: every slot carries the epoch (`keys.slotEpoch`), so each primary's data can be checked. */
  private slotsMarked = false;
  private hold: Hold | null = null;
  private recovering = false;

  private constructor(
    private readonly client: RedisClientType,
    private readonly sub: RedisClientType,
    opts: RedisStoreOptions,
  ) {
    this.log = opts.log ?? ((m) => process.stderr.write(`svc state: ${m}\n`));
    this.outage = new OutageMeter({ journalDir: opts.journalDir, allowance: opts.outageAllowance });
    this.commandTimeoutMs = opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.waitReplicas = opts.waitReplicas ?? 0;
    this.cluster = opts.cluster ?? false;
  }

  static async open(opts: RedisStoreOptions): Promise<RedisStateStore> {
    // At start an unreachable Redis is an error (the operator sees it at once); once running, the node
    // keeps reconnecting (at most a second apart) and serves on the outage paths meanwhile.
    let starting = true;
    const make = (pubSubOnly = false) =>
      openRedis({
        pubSubOnly,
        url: opts.url,
        cluster: opts.cluster,
        // While Redis is down commands fail at once (the outage paths answer) instead of queueing.
        disableOfflineQueue: true,
        connectTimeout: 2_000,
        reconnectStrategy: (retries, cause) =>
          starting ? new Error(`cannot reach Redis at ${redactUrl(opts.url)}: ${cause.message}`) : Math.min(50 * 2 ** retries, 1_000),
        pingInterval: 5_000,
      });
    const client = make();
    const sub = make(true);
    const store = new RedisStateStore(client, sub, opts);
    let down = false;
    for (const c of [client, sub]) {
      onConnection(c, 'error', (e) => {
        if (c === client && !down) {
          down = true;
          store.log(`Redis unreachable (${e?.message}): identification continues on the local allowance, other metering answers 503`);
        }
      });
    }
    onConnection(client, 'ready', () => {
      // The first connection's epoch is read by open(); a reconnect is used only once its epoch is checked.
      if (store.epoch === null) return;
      if (down) {
        down = false;
        store.log('Redis is back', 'info');
      }
      // On a cluster this is one shard's connection (a promoted replica, a node back): the others kept
      // serving, so the node is not held back — the journal replay checks the epoch before it writes.
      if (store.cluster) {
        void store.drainJournal();
        return;
      }
      store.hold = 'verifying';
      void store.recover();
    });
    onConnection(sub, 'ready', () => {
      // On a cluster the channel's shard (re)connected, perhaps after a failover: messages missed meanwhile
      // show as a new version, read now rather than dropping every cached record — the records of a
      // customer whose shard is still failing over could not be read again.
      if (store.epoch === null) return;
      if (store.cluster) void store.pollAuth();
      else if (store.lost === null) store.auth.sync(-1);
    });
    try {
      await client.connect();
      await sub.connect();
    } catch (e) {
      client.destroy();
      sub.destroy();
      throw e;
    }
    starting = false;
    // First writer wins: an empty Redis gets the epoch of the first node (or CLI call) that opens it.
    await client.set(keys.epoch, randomUUID(), { condition: 'NX' });
    store.epoch = await client.get(keys.epoch);
    store.outage.epoch = store.epoch;
    if (store.cluster) await store.markSlots();
    await subscribe(sub, keys.authChannel, (message) => {
      if (store.lost === null) store.auth.sync(Number(message));
    });
    store.auth.sync(Number((await client.get(keys.authVersion)) ?? 0));
    store.timers.push(
      setInterval(() => void store.pollAuth(), AUTH_POLL_MS),
      setInterval(() => void store.heartbeat(), NODE_HEARTBEAT_MS),
      setInterval(() => void store.drainJournal(), JOURNAL_RETRY_MS),
    );
    for (const t of store.timers) t.unref();
    await store.heartbeat();
    await store.drainJournal();
    return store;
  }

  /**
   * The process's one command connection to Redis (the other is the auth subscriber): the visit store and
   * the webhook outbox run on it (open-store.ts `sharedRedis`), each with its own deadlines, and leave it
   * open when they close: this store owns it and closes it last.
   */
  get redis(): RedisClientType {
    return this.client;
  }

  /** Live nodes last seen in Redis (how rate limits are split while it is unreachable). */
  get liveNodes(): number {
    return this.outage.nodes;
  }

  /** Registers this node now (it does every 5 s on its own). */
  heartbeatNow(): Promise<void> {
    return this.heartbeat();
  }

  /** Whether Redis is reachable right now and holds this deployment's data (otherwise the outage paths answer). */
  get connected(): boolean {
    return this.client.isReady && this.hold === null && this.lost === null;
  }

  /** Why Redis is not usable, when it holds no data of this deployment (restarted empty, flushed): else null. */
  get dataLost(): string | null {
    return this.lost;
  }

  private unavailable(e: unknown): StoreUnavailableError {
    if (e instanceof StoreUnavailableError) return e;
    return new StoreUnavailableError(`Redis is unavailable: ${(e as Error)?.message ?? e}`, 1, { cause: e });
  }

  /** Refuses at once while Redis is known stalled, reconnecting, or without this deployment's data. */
  private usable(): void {
    if (this.lost !== null) throw new StoreUnavailableError(this.lost, 5);
    if (this.hold !== null)
      throw new StoreUnavailableError(
        `Redis is not answering (${this.hold === 'stalled' ? `no answer within ${this.commandTimeoutMs} ms` : 'reconnecting'}): retry shortly`,
      );
  }

  /**
   * A command's answer within the command timeout, or StoreUnavailableError — and Redis counts as stalled:
   * later calls go to the outage paths at once instead of each waiting out its own timeout.
   */
  private timed<T>(p: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stalled();
        reject(new StoreUnavailableError(`Redis did not answer within ${this.commandTimeoutMs} ms`));
      }, this.commandTimeoutMs);
      p.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  private stalled(): void {
    if (this.hold !== null || this.lost !== null || this.closed) return;
    this.hold = 'stalled';
    this.log(`Redis did not answer within ${this.commandTimeoutMs} ms: identification continues on the local allowance, other metering answers 503`);
    void this.recover();
  }

  /**
   * Back to Redis after a stall or a reconnect: one PING waits for Redis to answer again (on the same
   * connection, so every command written before it has run by then — a timed-out charge is in the
   * ledger before its journaled copy is replayed), then the epoch decides whether this is still the data
   * this node knew. Only then are the cache dropped (changes may have been missed) and the journal replayed.
   */
  private async recover(): Promise<void> {
    if (this.recovering) return;
    this.recovering = true;
    try {
      for (;;) {
        if (this.closed) return;
        const hold = this.hold;
        if (hold === null) return;
        if (!this.client.isReady) return; // the 'ready' event starts over
        if (hold === 'stalled') await this.client.ping();
        // Not strict: one shard still failing over must not hold back the others (the periodic check goes on).
        if (!(await this.checkEpoch(false))) return;
        if (this.hold !== hold) continue;
        this.hold = null;
        if (hold === 'stalled') this.log('Redis answers again', 'info');
        this.auth.sync(-1);
        void this.drainJournal();
        return;
      }
    } catch {
      // The connection dropped meanwhile: its 'ready' event starts recovery again. On a cluster the
      // shard answering the check may be the one failing over (no further 'ready' may come): try again.
      if (this.cluster) setTimeout(() => void this.recover(), RECOVER_RETRY_MS).unref();
    } finally {
      this.recovering = false;
    }
  }

  /**
   * Whether Redis still holds this deployment's data (on a cluster: every primary); if not, the node stops
   * using it (and says so once). `strict` (before a journal replay): throws ShardSilent when a shard did not
   * answer, as it may be the one that came back empty.
   */
  private async checkEpoch(strict = true): Promise<boolean> {
    const [current, shards] = await this.timed(Promise.all([this.client.get(keys.epoch), this.probeShards()]));
    if (!this.judgeEpoch(current, shards) || !strict) return this.lost === null;
    const silent = shards.find((s) => s.found === undefined);
    if (silent) throw new ShardSilent(`Redis Cluster shard ${silent.shard} did not answer the data check`);
    return true;
  }

  /**
   * Cluster: writes the epoch into every slot, once per epoch (a node finding `slotEpochsWritten` set skips
   * it). Overwrites: after an operator starts over (a new epoch) the copies follow it.
   */
  private async markSlots(): Promise<void> {
    const epoch = this.epoch!;
    if ((await this.client.get(keys.slotEpochsWritten)) !== epoch) {
      for (let from = 0; from < CLUSTER_SLOTS; from += MARK_CHUNK) {
        const writes: Promise<unknown>[] = [];
        for (let slot = from; slot < Math.min(from + MARK_CHUNK, CLUSTER_SLOTS); slot++) writes.push(this.client.set(keys.slotEpoch(slot), epoch));
        await Promise.all(writes);
      }
      await this.client.set(keys.slotEpochsWritten, epoch);
    }
    this.slotsMarked = true;
  }

  /**
   * Cluster: each primary's copy of the epoch, read in the first slot it serves in the client's slot map
   * (so a resharding or failover is followed). A shard that does not answer within half the command
   * deadline is reported silent, not lost — and is no stall of the whole node (the other shards serve).
   */
  private probeShards(): Promise<ShardProbe[]> {
    if (!this.slotsMarked) return Promise.resolve([]);
    const probeMs = Math.max(50, Math.floor(this.commandTimeoutMs / 2));
    return Promise.all(
      shardsOf(this.client).map(async (view) => {
        let timer: NodeJS.Timeout | undefined;
        const found = await Promise.race([
          this.client.get(keys.slotEpoch(view.ranges[0]![0])).catch(() => undefined),
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
    const view = shardsOf(this.client).find((v: ShardView) => v.ranges.some(([a, b]) => a <= slot && slot <= b));
    return view ? describeShard(view) : `slot ${slot} (no primary)`;
  }

  private judgeEpoch(current: string | null, shards: ShardProbe[] = []): boolean {
    const emptied = current === this.epoch ? shards.find((s) => s.found !== undefined && s.found !== this.epoch) : undefined;
    if (current === this.epoch && !emptied) {
      // Back only once every shard has answered: one still failing over may be the one that was empty.
      if (this.lost !== null && shards.every((s) => s.found !== undefined)) {
        this.lost = null;
        this.log("Redis holds this deployment's data again: serving from it", 'info');
        this.auth.sync(-1);
        void this.drainJournal();
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
      const where = !emptied && this.cluster ? `, svc:epoch on shard ${this.shardServing(slotOf(keys.epoch))}` : '';
      this.log(`${reason} (data epoch ${this.epoch}, found ${(emptied ? emptied.found : current) ?? 'none'}${where})`);
    }
    return false;
  }

  /** A Redis call; failures that are not the caller's fault become StoreUnavailableError (503). */
  private async io<T>(fn: () => Promise<T>, timed = true): Promise<T> {
    this.usable();
    try {
      return await (timed ? this.timed(fn()) : fn());
    } catch (e) {
      if (e instanceof StateError) throw e;
      throw this.unavailable(e);
    }
  }

  private async pollAuth(): Promise<void> {
    if (!this.client.isReady || this.hold !== null) return;
    try {
      // The epoch first, in the same round trip: a flushed Redis must not empty the cache before it is noticed.
      // On a cluster every primary's copy of the epoch too: a shard restarted empty is noticed within a second.
      const [epoch, version, shards] = await this.timed(Promise.all([this.client.get(keys.epoch), this.client.get(keys.authVersion), this.probeShards()]));
      if (this.judgeEpoch(epoch, shards)) this.auth.sync(Number(version ?? 0));
    } catch {
      // Unreachable: cached records keep answering until Redis is back.
    }
  }

  /** Registers this node as live; the count splits rate limits while Redis is unreachable. */
  private async heartbeat(): Promise<void> {
    if (!this.connected) return;
    try {
      const t = Date.now();
      await this.client.zAdd(keys.nodes, { score: t, value: this.nodeId });
      await this.client.zRemRangeByScore(keys.nodes, 0, t - 3 * NODE_HEARTBEAT_MS);
      this.outage.nodes = Math.max(1, await this.client.zCard(keys.nodes));
    } catch {
      // Keeps the last count.
    }
  }

  /** Marks a change to access records: every node drops its cache (this one at once). */
  private async bumpAuth(): Promise<void> {
    const version = await this.client.incr(keys.authVersion);
    this.auth.sync(version);
    await publish(this.client, keys.authChannel, String(version));
  }

  // ---------------------------------------------------------------------------------------------
  // Metering

  private enqueue(m: Omit<MeterOp, 'resolve' | 'reject'>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.batch.push({ ...m, resolve, reject });
      if (this.batch.length === 1) setImmediate(() => this.flush());
    });
  }

  /** One METER call per customer in the batch, all sent in the same turn (one round trip). */
  private flush(): void {
    const ops = this.batch;
    this.batch = [];
    if (ops.length === 0) return;
    const byCustomer = new Map<string, MeterOp[]>();
    for (const op of ops) {
      const list = byCustomer.get(op.customer);
      if (list) list.push(op);
      else byCustomer.set(op.customer, [op]);
    }
    for (const group of byCustomer.values()) void this.runScript(group);
  }

  private async runScript(group: MeterOp[]): Promise<void> {
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
    try {
      const reply = await this.timed(
        retryTryAgain(async () => {
          try {
            return (await this.client.evalSha(METER_SHA, { keys: keyList, arguments: args })) as string;
          } catch (e) {
            // A node that has not run the script yet (a new primary after a failover or resharding) too.
            if (!String((e as Error).message).startsWith('NOSCRIPT')) throw e;
            return (await this.client.eval(METER_SCRIPT, { keys: keyList, arguments: args })) as string;
          }
        }),
      );
      if (this.waitReplicas > 0 && group.some((m) => m.op.t === 'ch')) await this.replicated(keyList[0]!);
      const results = JSON.parse(reply) as unknown[];
      for (let i = 0; i < group.length; i++) group[i].resolve(results[i]);
    } catch (e) {
      for (const op of group) op.reject(e);
    }
  }

  /**
   * SVC_REDIS_WAIT: the charges just written are on `waitReplicas` replicas before their answers go out,
   * so a failover (the replica promoted) keeps them. WAIT holds the connection (every command behind it
   * waits too), so it is short (WAIT_TIMEOUT_MS), and once a replica failed to acknowledge in time — none
   * left after a failover, a replica resyncing — charges are answered without WAIT for WAIT_BACKOFF_MS
   * (logged): the charge is on the primary; only a second failure in that window could lose it.
   */
  private async replicated(key: string): Promise<void> {
    if (Date.now() < this.waitSkipUntil) return;
    const timeout = Math.min(WAIT_TIMEOUT_MS, Math.floor(this.commandTimeoutMs / 4));
    const acked = await this.timed(waitForReplicas(this.client, key, this.waitReplicas, timeout));
    if (acked < this.waitReplicas) {
      this.waitSkipUntil = Date.now() + WAIT_BACKOFF_MS;
      if (!this.waitShortLogged) {
        this.waitShortLogged = true;
        this.log(
          `WAIT ${this.waitReplicas}: only ${acked} replica(s) acknowledged within ${timeout} ms; charges are answered without WAIT for ${WAIT_BACKOFF_MS} ms at a time until replicas keep up (they may be lost in a failover meanwhile)`,
        );
      }
    } else if (this.waitShortLogged) {
      this.waitShortLogged = false;
      this.log(`WAIT ${this.waitReplicas}: replicas acknowledge again`, 'info');
    }
  }

  async hitRateLimits(req: RateLimitRequest): Promise<RateLimitHit[]> {
    if (!this.connected) return this.offlineRate(req);
    const windowStart = req.nowMs - (req.nowMs % req.windowMs);
    let counts: number[];
    try {
      counts = (await this.enqueue({
        customer: req.customer_id,
        keys: { k: req.counters.map((c) => keys.rate(req.customer_id, windowStart, c.key)) },
        op: { t: 'rl', ttl: 2 * req.windowMs, lim: req.counters.map((c) => c.limit) },
      })) as number[];
    } catch (e) {
      // Sent and lost (connection dropped mid-flight, or no answer in time): whether it counted is
      // unknown; count locally. On a cluster, also when only this customer's shard is out of reach (a
      // primary failing over): the other shards keep the node "connected".
      if (!this.connected || (this.cluster && shardUnreachable(e))) return this.offlineRate(req);
      throw this.unavailable(e);
    }
    return req.counters.map(({ limit }, i) => ({
      allowed: counts[i] <= limit,
      limit,
      remaining: Math.max(0, limit - counts[i]),
      resetMs: windowStart + req.windowMs - req.nowMs,
    }));
  }

  private offlineRate(req: RateLimitRequest): RateLimitHit[] {
    if (this.lost !== null) throw new StoreUnavailableError(this.lost, 5);
    if (!req.degradable) throw new StoreUnavailableError('Redis is unreachable: this API fails closed until it is back');
    return this.outage.hitRateLimits(req);
  }

  /**
   * `id`: identification charges carry one in their ledger entry, so that a charge whose answer was lost
   * with the connection can be journaled under it and replayed only if Redis had not counted it.
   */
  private chargeOp(r: ChargeRequest, replay?: JournaledCharge, id?: string) {
    const chargeId = replay?.id ?? id;
    const entry = JSON.stringify(chargeId ? { ...ledgerOf(r), id: chargeId } : ledgerOf(r));
    const ks: Record<string, string> = { u: keys.used(r.customer_id, r.pool, r.period), l: keys.ledger(r.customer_id), s: keys.usage(r.customer_id) };
    const op: Record<string, unknown> = { t: 'ch', q: r.quota, e: entry, f: `${r.pool}|${r.api}|${r.month}`, p: r.partner !== null };
    if (replay) {
      ks.r = keys.replayed(r.customer_id);
      op.id = replay.id;
      if (replay.uncertain) op.x = true;
    } else if (r.dedupe_key !== null) {
      ks.d = keys.dedupe(r.customer_id, r.month);
      op.dk = r.dedupe_key;
      op.dttl = DEDUPE_TTL_MS;
    }
    return { customer: r.customer_id, keys: ks, op };
  }

  async charge(r: ChargeRequest): Promise<ChargeOutcome> {
    if (!this.connected) {
      const outcome = this.offlineCharge(r);
      // A journaled charge is answered only once it is on disk (an outcome of 'exhausted' journals nothing).
      if (outcome.outcome === 'charged') await this.outage.synced();
      return outcome;
    }
    const id = r.pool === 'identification' ? randomUUID() : undefined;
    let reply: [string, number];
    try {
      reply = (await this.enqueue(this.chargeOp(r, undefined, id))) as [string, number];
    } catch (e) {
      // The connection dropped (or Redis stalled) with the charge in flight: Redis may or may not count
      // it. An identification answer goes out on the outage allowance, journaled under the same id, and
      // the replay (after Redis has answered a PING sent behind the charge) counts it only if its ledger
      // entry is not there already — so credits equal the answers clients got. Other pools fail closed
      // (their callers retry).
      if (id && this.lost === null) {
        const outcome = this.outage.charge(r, { id, uncertain: true });
        if (outcome) {
          await this.outage.synced();
          return outcome;
        }
      }
      throw this.unavailable(e);
    }
    const [outcome, used] = reply;
    const result: ChargeOutcome =
      outcome === 'exhausted' ? { outcome: 'exhausted', remaining: 0 } : { outcome: outcome as 'charged' | 'free', remaining: Math.max(0, r.quota - used) };
    this.outage.observe(r, result);
    return result;
  }

  private offlineCharge(r: ChargeRequest): ChargeOutcome {
    // No journal against a Redis that lost the data: it could never be replayed into it.
    if (this.lost !== null) throw new StoreUnavailableError(this.lost, 5);
    // Enrichment and people exports are server-to-server and retryable: fail closed, nothing charged.
    if (r.pool !== 'identification') throw new StoreUnavailableError('Redis is unreachable: credit accounting for this API fails closed until it is back');
    const outcome = this.outage.charge(r);
    if (outcome === null) throw new StoreUnavailableError('Redis is unreachable and the local allowance for this customer is spent', 5);
    return outcome;
  }

  /**
   * Replays the journal of charges made while Redis was unreachable: each exactly once (the script
   * skips ids it has seen), then removes the file. Runs when Redis is (back) ready; until it finished,
   * identification charges keep using the allowance, so the replayed charges are counted first.
   */
  drainJournal(): Promise<void> {
    if (this.draining || this.closed || !this.connected) return this.draining ?? Promise.resolve();
    const run = async () => {
      try {
        // Never into a Redis that is not the one the charges were made against (checked just before).
        if (!(await this.checkEpoch())) return;
        const journals = this.outage.takeJournal(this.epoch);
        let total = 0;
        for (const { file, charges } of journals) {
          for (let i = 0; i < charges.length; i += REPLAY_CHUNK) {
            const chunk = charges.slice(i, i + REPLAY_CHUNK);
            const byCustomer = new Map<string, MeterOp[]>();
            const done: Promise<unknown>[] = [];
            for (const j of chunk) {
              done.push(
                new Promise((resolve, reject) => {
                  const op = { ...this.chargeOp(j.charge, j), resolve, reject };
                  const list = byCustomer.get(j.charge.customer_id);
                  if (list) list.push(op);
                  else byCustomer.set(j.charge.customer_id, [op]);
                }),
              );
            }
            for (const group of byCustomer.values()) void this.runScript(group);
            await Promise.all(done);
          }
          this.outage.drained(file);
          total += charges.length;
        }
        if (!this.outage.hasJournal) this.outage.resetAllowance();
        if (total > 0) this.log(`journal drained: ${total} charges made while Redis was unreachable replayed`, 'info');
      } catch (e) {
        // A shard failing over: tried again in a second, once every shard shows its data is there.
        if (e instanceof ShardSilent) return;
        this.log(`journal replay interrupted (${(e as Error).message}); retrying when Redis is reachable`);
      }
    };
    // Cleared after the assignment (a run with nothing to do finishes synchronously).
    this.draining = run().finally(() => {
      this.draining = null;
    });
    return this.draining;
  }

  // ---------------------------------------------------------------------------------------------
  // Usage reports

  async usage(customerId: string): Promise<UsageRow[]> {
    const h = await this.io(() => this.client.hGetAll(keys.usage(customerId)));
    const rows = new Map<string, UsageRow>();
    for (const [field, n] of Object.entries(h)) {
      const [pool, api, month, kind] = field.split('|');
      const id = `${month}|${pool}|${api}`;
      const row = rows.get(id) ?? { pool: pool as CreditPool, api, month, charges: 0, partner_charges: 0 };
      if (kind === 'c') row.charges = Number(n);
      else row.partner_charges = Number(n);
      rows.set(id, row);
    }
    return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  }

  async balance(customerId: string, pool: CreditPool, period: string, quota: number): Promise<CreditBalance> {
    const used = Number((await this.io(() => this.client.get(keys.used(customerId, pool, period)))) ?? 0);
    return { pool, period, quota, used, remaining: Math.max(0, quota - used) };
  }

  // ---------------------------------------------------------------------------------------------
  // Access records

  async importCustomer(input: CustomerSeed): Promise<CustomerRecord> {
    return this.writeCustomer(CustomerSeed.parse(input), 'upsert');
  }

  async createCustomer(input: CustomerSeed): Promise<CustomerRecord> {
    return this.writeCustomer(CustomerSeed.parse(input), 'insert');
  }

  async updateCustomer(id: string, input: CustomerPatch): Promise<CustomerRecord> {
    const fields: Record<string, unknown> = definedOnly(CustomerPatch.parse(input));
    return this.io(async () => {
      if (!(await this.client.exists(keys.customer(id)))) throw new StateError(`unknown customer ${id}`, 'not_found');
      if (fields.segments) {
        const seq = await this.client.hGet(keys.customer(id), 'segment_seq');
        fields.segment_seq = highWater(seq ? JSON.parse(seq) : 0, fields.segments as Segment[]);
      }
      // Only the given fields are written (one HSET): a concurrent change to other fields is kept.
      if (Object.keys(fields).length > 0) {
        await this.client.hSet(keys.customer(id), toHash(fields));
        await this.bumpAuth();
      }
      return (await this.readCustomer(id))!;
    });
  }

  async changeSegments(id: string, change: (current: SegmentState) => SegmentState): Promise<CustomerRecord> {
    const key = keys.customer(id);
    // Optimistic: read, decide, then write only if neither field changed meanwhile (CAS script); else again.
    // `change` runs outside `io`: what it throws (a refusal) is the caller's answer, not a store outage.
    for (let attempt = 0; attempt < 20; attempt++) {
      const [exists, segments, seq] = await this.io(() => this.client.hmGet(key, ['id', 'segments', 'segment_seq']));
      if (!exists) throw new StateError(`unknown customer ${id}`, 'not_found');
      const next = change({ segments: segments ? JSON.parse(segments) : [], segment_seq: seq ? JSON.parse(seq) : 0 });
      const args = [segments ?? '', seq ?? '', JSON.stringify(next.segments), JSON.stringify(highWater(next.segment_seq, next.segments))];
      const written = await this.io(() => this.client.eval(SEGMENTS_CAS_SCRIPT, { keys: [key], arguments: args }));
      if (written === 1) {
        await this.io(() => this.bumpAuth());
        return (await this.readCustomer(id))!;
      }
    }
    throw new StateError(`the segments of customer ${id} are being changed by others: try again`, 'conflict');
  }

  async changeAccountLists(
    id: string,
    change: (current: Readonly<ListState> & { readonly segments: readonly Segment[] }) => ListState,
  ): Promise<CustomerRecord> {
    const key = keys.customer(id);
    const read = ['hot_accounts', 'excluded_accounts', 'account_lists', 'segments'] as const;
    // Optimistic as changeSegments: write only if none of the fields read changed meanwhile (CAS script); else again.
    for (let attempt = 0; attempt < 20; attempt++) {
      const [exists, ...values] = await this.io(() => this.client.hmGet(key, ['id', ...read]));
      if (!exists) throw new StateError(`unknown customer ${id}`, 'not_found');
      const field = (i: number) => (values[i] ? JSON.parse(values[i]!) : []);
      const next = change({ hot_accounts: field(0), excluded_accounts: field(1), account_lists: field(2), segments: field(3) });
      const args = [
        String(read.length),
        ...read.flatMap((f, i) => [f, values[i] ?? '']),
        ...(['hot_accounts', 'excluded_accounts', 'account_lists'] as const).flatMap((f) => [f, JSON.stringify(next[f])]),
      ];
      const written = await this.io(() => this.client.eval(FIELDS_CAS_SCRIPT, { keys: [key], arguments: args }));
      if (written === 1) {
        await this.io(() => this.bumpAuth());
        return (await this.readCustomer(id))!;
      }
    }
    throw new StateError(`the account lists of customer ${id} are being changed by others: try again`, 'conflict');
  }

  /** `insert`: HSETNX of the customer's id is the existence check (first writer wins across nodes). */
  private async writeCustomer(seed: CustomerSeed, mode: 'insert' | 'upsert'): Promise<CustomerRecord> {
    return this.io(async () => {
      for (const tag of seed.tags) {
        const owner = await this.client.hGet(keys.tagOwner, tag.tag_id);
        if (owner && owner !== seed.id) throw new StateError(`tag ${tag.tag_id} belongs to another customer`, 'conflict');
      }
      const [existing, priorSeq] = await this.client.hmGet(keys.customer(seed.id), ['created_at', 'segment_seq']);
      if (mode === 'insert' && (existing || !(await this.client.hSetNX(keys.customer(seed.id), 'id', JSON.stringify(seed.id))))) {
        throw new StateError(`customer ${seed.id} already exists: change it with customer update (PATCH /admin/api/customers/${seed.id})`, 'conflict');
      }
      // A replaced customer keeps its segment high-water mark: ids of segments deleted before stay unused.
      const segment_seq = highWater(priorSeq ? JSON.parse(priorSeq) : 0, seed.segments);
      const record = CustomerRecord.parse({ ...seed, segment_seq, created_at: existing ? JSON.parse(existing) : now() });
      // A hash of JSON fields: a later change to some fields is one HSET, never read-modify-write.
      const m = this.client.multi().del(keys.customer(seed.id)).hSet(keys.customer(seed.id), toHash(record));
      for (const tag of seed.tags) {
        const prior = await this.client.hGetAll(keys.tag(seed.id, tag.tag_id));
        const t = TagRecord.parse({
          ...TAG_DEFAULTS,
          ...definedOnly(tag),
          customer_id: seed.id,
          settings: TagSettings.parse(tag.settings ?? {}),
          created_at: prior.created_at ? JSON.parse(prior.created_at) : now(),
          // Not a field of the seed: an import keeps a disabled tag disabled (as SQLite's upsert does).
          disabled: prior.disabled ? JSON.parse(prior.disabled) : false,
        });
        m.hSet(keys.tag(seed.id, tag.tag_id), toHash(t)).sAdd(keys.tags(seed.id), tag.tag_id);
      }
      await m.exec();
      if (seed.tags.length > 0) await this.client.hSet(keys.tagOwner, Object.fromEntries(seed.tags.map((t) => [t.tag_id, seed.id])));
      await this.client.sAdd(keys.customers, seed.id);
      await this.bumpAuth();
      return deepFreeze(record);
    });
  }

  private async readCustomer(id: string): Promise<CustomerRecord | null> {
    const h = await this.io(() => this.client.hGetAll(keys.customer(id)));
    return h.id ? deepFreeze(CustomerRecord.parse(fromHash(h))) : null;
  }

  async getCustomer(id: string): Promise<CustomerRecord | null> {
    const cached = this.auth.customers.get(id);
    if (cached !== undefined) return cached;
    const version = this.auth.version;
    const record = await this.readCustomer(id);
    // A change that landed while this read was in flight must not be cached over.
    if (this.auth.version === version) AuthCache.put(this.auth.customers, id, record);
    return record;
  }

  async listCustomers(): Promise<CustomerRecord[]> {
    const ids = (await this.io(() => this.client.sMembers(keys.customers))).sort();
    const out: CustomerRecord[] = [];
    for (const id of ids) {
      const record = await this.readCustomer(id);
      if (record) out.push(record);
    }
    return out;
  }

  private async readToken(customerId: string, id: string): Promise<{ record: TokenRecord; secret_hash: string } | null> {
    const [h, used] = await this.io(() => Promise.all([this.client.hGetAll(keys.token(customerId, id)), this.client.hGet(keys.tokenUsed(customerId), id)]));
    if (!h.id) return null;
    const { secret_hash, ...rest } = fromHash(h);
    const record = TokenRecord.parse({ ...rest, last_used_at: used ?? rest.last_used_at ?? null });
    return { record, secret_hash: secret_hash as string };
  }

  private async ownerOfToken(id: string): Promise<string | null> {
    return (await this.io(() => this.client.hGet(keys.tokenOwner, id))) ?? null;
  }

  async createToken(input: NewToken): Promise<{ record: TokenRecord; secret: string }> {
    const t = NewToken.parse(input);
    const customer = await this.requireCustomer(t.customer_id);
    checkTokenGrant(customer, t);
    const secret = generateSecret();
    const record = TokenRecord.parse({
      ...t,
      id: newTokenId(),
      prefix: displayPrefix(secret),
      status: 'active',
      created_at: now(),
      last_used_at: null,
      rotated_at: null,
    });
    await this.writeToken(record, hashSecret(secret));
    return { record, secret };
  }

  private async writeToken(record: TokenRecord, secretHash: string): Promise<void> {
    await this.io(async () => {
      await this.client
        .multi()
        .hSet(keys.token(record.customer_id, record.id), toHash({ ...record, secret_hash: secretHash }))
        .sAdd(keys.tokens(record.customer_id), record.id)
        .exec();
      await this.client.hSet(keys.tokenOwner, record.id, record.customer_id);
      await this.client.set(keys.tokenHash(secretHash), `${record.customer_id}/${record.id}`);
      await this.bumpAuth();
    });
  }

  async authenticateToken(secret: string): Promise<TokenRecord | null> {
    const hash = hashSecret(secret);
    let token = this.auth.tokens.get(hash);
    if (token === undefined) {
      const version = this.auth.version;
      const owner = await this.io(() => this.client.get(keys.tokenHash(hash)));
      let found: TokenRecord | null = null;
      if (owner) {
        const [customerId, id] = owner.split('/');
        const t = await this.readToken(customerId, id);
        // The index may briefly outlive a rotation: the record's own hash decides.
        if (t && t.secret_hash === hash && t.record.status === 'active') found = deepFreeze(t.record);
      }
      token = found;
      if (this.auth.version === version) AuthCache.put(this.auth.tokens, hash, token);
    }
    if (token === null) return null;
    const at = new Date();
    if (token.last_used_at === null || at.getTime() - Date.parse(token.last_used_at) >= LAST_USED_RESOLUTION_MS) {
      // An indicator, not an auth change: written in the background; an outage must not refuse the caller.
      this.client.hSet(keys.tokenUsed(token.customer_id), token.id, at.toISOString()).catch(() => {});
      token = AuthCache.put(this.auth.tokens, hash, Object.freeze({ ...token, last_used_at: at.toISOString() }));
    }
    return token;
  }

  async getToken(id: string): Promise<TokenRecord | null> {
    const owner = await this.ownerOfToken(id);
    return owner ? ((await this.readToken(owner, id))?.record ?? null) : null;
  }

  async listTokens(customerId?: string): Promise<TokenRecord[]> {
    const customers = customerId ? [customerId] : (await this.io(() => this.client.sMembers(keys.customers))).sort();
    const out: TokenRecord[] = [];
    for (const c of customers) {
      const ids = await this.io(() => this.client.sMembers(keys.tokens(c)));
      const records = (await Promise.all(ids.map((id) => this.readToken(c, id)))).flatMap((t) => (t ? [t.record] : []));
      records.sort(byCreation);
      out.push(...records);
    }
    return out;
  }

  private async requireToken(id: string): Promise<{ record: TokenRecord; secret_hash: string }> {
    const owner = await this.ownerOfToken(id);
    const t = owner ? await this.readToken(owner, id) : null;
    if (!t) throw new StateError(`unknown token ${id}`, 'not_found');
    return t;
  }

  async setTokenStatus(id: string, status: TokenRecord['status']): Promise<TokenRecord> {
    const { record } = await this.requireToken(id);
    await this.io(async () => {
      await this.client.hSet(keys.token(record.customer_id, id), 'status', JSON.stringify(status));
      await this.bumpAuth();
    });
    return (await this.getToken(id))!;
  }

  async rotateToken(id: string): Promise<{ record: TokenRecord; secret: string }> {
    const { record, secret_hash: old } = await this.requireToken(id);
    const secret = generateSecret();
    const hash = hashSecret(secret);
    await this.io(async () => {
      await this.client.hSet(keys.token(record.customer_id, id), toHash({ secret_hash: hash, prefix: displayPrefix(secret), rotated_at: now() }));
      await this.client.set(keys.tokenHash(hash), `${record.customer_id}/${id}`);
      await this.client.del(keys.tokenHash(old));
      await this.bumpAuth();
    });
    return { record: (await this.getToken(id))!, secret };
  }

  async deleteToken(id: string): Promise<void> {
    const { record, secret_hash } = await this.requireToken(id);
    await this.io(async () => {
      await this.client.del(keys.tokenHash(secret_hash));
      await this.client
        .multi()
        .del(keys.token(record.customer_id, id))
        .sRem(keys.tokens(record.customer_id), id)
        .hDel(keys.tokenUsed(record.customer_id), id)
        .exec();
      await this.client.hDel(keys.tokenOwner, id);
      await this.bumpAuth();
    });
  }

  async createTag(input: NewTag): Promise<TagRecord> {
    const t = NewTag.parse(input);
    const customer = await this.requireCustomer(t.customer_id);
    checkTagGrant(customer);
    const tagId = t.tag_id ?? newTagId();
    const record = TagRecord.parse({ ...t, tag_id: tagId, created_at: now() });
    await this.io(async () => {
      // HSETNX on the owner index is the uniqueness check (first writer wins across nodes).
      if (!(await this.client.hSetNX(keys.tagOwner, tagId, t.customer_id))) throw new StateError(`tag ${tagId} already exists`, 'conflict');
      await this.client.multi().hSet(keys.tag(t.customer_id, tagId), toHash(record)).sAdd(keys.tags(t.customer_id), tagId).exec();
      await this.bumpAuth();
    });
    return record;
  }

  private async readTag(customerId: string, tagId: string): Promise<TagRecord | null> {
    const h = await this.io(() => this.client.hGetAll(keys.tag(customerId, tagId)));
    // Fields added to tags later read as their defaults on tags written before them.
    return h.tag_id ? TagRecord.parse({ ...TAG_DEFAULTS, ...fromHash(h) }) : null;
  }

  async getTag(tagId: string): Promise<TagRecord | null> {
    const cached = this.auth.tags.get(tagId);
    if (cached !== undefined) return cached;
    const version = this.auth.version;
    const owner = await this.io(() => this.client.hGet(keys.tagOwner, tagId));
    const tag = owner ? await this.readTag(owner, tagId) : null;
    const frozen = tag ? deepFreeze(tag) : null;
    if (this.auth.version === version) AuthCache.put(this.auth.tags, tagId, frozen);
    return frozen;
  }

  async updateTagSettings(tagId: string, settings: TagSettings): Promise<TagRecord> {
    const valid = TagSettings.parse(settings);
    const owner = await this.io(() => this.client.hGet(keys.tagOwner, tagId));
    if (!owner) throw new StateError(`unknown tag ${tagId}`, 'not_found');
    await this.io(async () => {
      await this.client.hSet(keys.tag(owner, tagId), 'settings', JSON.stringify(valid));
      await this.bumpAuth();
    });
    return (await this.readTag(owner, tagId))!;
  }

  async updateTag(tagId: string, input: TagPatch): Promise<TagRecord> {
    const patch = TagPatch.parse(input);
    const owner = await this.io(() => this.client.hGet(keys.tagOwner, tagId));
    if (!owner) throw new StateError(`unknown tag ${tagId}`, 'not_found');
    const fields = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    if (Object.keys(fields).length > 0) {
      await this.io(async () => {
        // The hash stores each field as JSON (toHash): only the given fields are written.
        await this.client.hSet(keys.tag(owner, tagId), toHash(fields));
        await this.bumpAuth();
      });
    }
    return (await this.readTag(owner, tagId))!;
  }

  async deleteTag(tagId: string): Promise<void> {
    const owner = await this.io(() => this.client.hGet(keys.tagOwner, tagId));
    if (!owner) throw new StateError(`unknown tag ${tagId}`, 'not_found');
    await this.io(async () => {
      await this.client.multi().del(keys.tag(owner, tagId)).sRem(keys.tags(owner), tagId).exec();
      // The owner index last: until then the id stays taken (a create of the same id meanwhile is a 409).
      await this.client.hDel(keys.tagOwner, tagId);
      await this.bumpAuth();
    });
  }

  async listTags(customerId?: string): Promise<TagRecord[]> {
    const customers = customerId ? [customerId] : (await this.io(() => this.client.sMembers(keys.customers))).sort();
    const out: TagRecord[] = [];
    for (const c of customers) {
      const ids = await this.io(() => this.client.sMembers(keys.tags(c)));
      out.push(...(await Promise.all(ids.map((id) => this.readTag(c, id)))).flatMap((t) => (t ? [t] : [])));
    }
    return out.sort((a, b) => (a.tag_id < b.tag_id ? -1 : a.tag_id > b.tag_id ? 1 : 0));
  }

  async getSetting(key: string): Promise<string | null> {
    return (await this.io(() => this.client.hGet(keys.settings, key))) ?? null;
  }

  async setSettingIfAbsent(key: string, value: string): Promise<boolean> {
    return (await this.io(() => this.client.hSetNX(keys.settings, key, value))) === 1;
  }

  // ---------------------------------------------------------------------------------------------
  // Export / import

  async *exportState(): AsyncIterable<StateEntry> {
    const customers = await this.listCustomers();
    for (const record of customers) yield { type: 'customer', record };
    for (const c of customers) {
      const ids = await this.io(() => this.client.sMembers(keys.tokens(c.id)));
      const tokens = (await Promise.all(ids.map((id) => this.readToken(c.id, id)))).flatMap((t) => (t ? [t] : []));
      tokens.sort((a, b) => byCreation(a.record, b.record));
      for (const t of tokens) yield { type: 'token', record: t.record, secret_hash: t.secret_hash };
    }
    for (const record of await this.listTags()) yield { type: 'tag', record };
    const settings = await this.io(() => this.client.hGetAll(keys.settings));
    for (const key of Object.keys(settings).sort()) yield { type: 'setting', key, value: settings[key] };
    for (const c of customers) {
      const usedKeys: string[] = [];
      // SCAN, not KEYS: an export must not block a live server.
      for await (const batch of scanKeys(this.client, `svc:{cust:${c.id}}:used:*`)) usedKeys.push(...batch);
      for (const key of usedKeys.sort()) {
        const [pool, period] = key.slice(keys.used(c.id, '', '').length - 1).split(':');
        yield StateEntry.parse({ type: 'credit_usage', customer_id: c.id, pool, period, used: Number(await this.client.get(key)) });
      }
    }
    for (const c of customers) {
      const n = await this.io(() => this.client.lLen(keys.ledger(c.id)));
      for (let i = 0; i < n; i += 1000) {
        for (const raw of await this.io(() => this.client.lRange(keys.ledger(c.id), i, i + 999))) {
          yield { type: 'charge', charge: LedgerEntry.parse(JSON.parse(raw)) };
        }
      }
    }
  }

  async isEmpty(): Promise<boolean> {
    return (await this.io(() => this.client.sCard(keys.customers))) === 0;
  }

  async importState(entries: AsyncIterable<StateEntry> | Iterable<StateEntry>): Promise<number> {
    if (!(await this.isEmpty())) throw new StateError('the target state already holds customers: import into an empty state', 'conflict');
    let n = 0;
    await this.io(async () => {
      for await (const raw of entries) {
        const e = StateEntry.parse(raw);
        n++;
        switch (e.type) {
          case 'customer':
            await this.client.hSet(keys.customer(e.record.id), toHash(e.record));
            await this.client.sAdd(keys.customers, e.record.id);
            break;
          case 'token': {
            const r = e.record;
            await this.client
              .multi()
              .hSet(keys.token(r.customer_id, r.id), toHash({ ...r, last_used_at: null, secret_hash: e.secret_hash }))
              .sAdd(keys.tokens(r.customer_id), r.id)
              .exec();
            if (r.last_used_at) await this.client.hSet(keys.tokenUsed(r.customer_id), r.id, r.last_used_at);
            await this.client.hSet(keys.tokenOwner, r.id, r.customer_id);
            await this.client.set(keys.tokenHash(e.secret_hash), `${r.customer_id}/${r.id}`);
            break;
          }
          case 'tag':
            await this.client
              .multi()
              .hSet(keys.tag(e.record.customer_id, e.record.tag_id), toHash(e.record))
              .sAdd(keys.tags(e.record.customer_id), e.record.tag_id)
              .exec();
            await this.client.hSet(keys.tagOwner, e.record.tag_id, e.record.customer_id);
            break;
          case 'setting':
            await this.client.hSet(keys.settings, e.key, e.value);
            break;
          case 'credit_usage':
            await this.client.set(keys.used(e.customer_id, e.pool, e.period), String(e.used));
            break;
          case 'charge': {
            const c = e.charge;
            const m = this.client
              .multi()
              .rPush(keys.ledger(c.customer_id), JSON.stringify(ledgerOf(c)))
              .hIncrBy(keys.usage(c.customer_id), `${c.pool}|${c.api}|${c.month}|c`, 1);
            if (c.partner !== null) m.hIncrBy(keys.usage(c.customer_id), `${c.pool}|${c.api}|${c.month}|p`, 1);
            if (c.dedupe_key !== null)
              m.hSet(keys.dedupe(c.customer_id, c.month), c.dedupe_key, '1').pExpire(keys.dedupe(c.customer_id, c.month), DEDUPE_TTL_MS);
            await m.exec();
            break;
          }
        }
      }
      await this.bumpAuth();
      // A whole import is many commands: no single deadline (each step would time out on its own).
    }, false);
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await this.draining;
    // No longer a live node (a CLI call must not count as one for long).
    if (this.lost === null) await this.timed(this.client.zRem(keys.nodes, this.nodeId)).catch(() => {});
    // Let the last batch's replies arrive before the connection goes.
    await new Promise((r) => setImmediate(r));
    for (const c of [this.sub, this.client]) {
      try {
        // A stalled Redis never answers what close() waits for.
        if (c.isOpen) await this.timed(c.close());
      } catch {
        c.destroy();
      }
    }
  }

  private async requireCustomer(id: string): Promise<CustomerRecord> {
    const customer = await this.getCustomer(id);
    if (!customer) throw new StateError(`unknown customer ${id}`, 'not_found');
    return customer;
  }
}

/** The URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'SVC_REDIS_URL';
  }
}

/** Tokens in creation order (then id), as SQLite lists them. */
function byCreation(a: TokenRecord, b: TokenRecord): number {
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The ledger entry of a charge: the fields export and usage reports need, in a fixed order. */
function ledgerOf(r: LedgerEntry): LedgerEntry {
  return {
    customer_id: r.customer_id,
    api: r.api,
    pool: r.pool,
    record: r.record,
    month: r.month,
    period: r.period,
    dedupe_key: r.dedupe_key,
    token_id: r.token_id,
    partner: r.partner,
    at: r.at,
  };
}
