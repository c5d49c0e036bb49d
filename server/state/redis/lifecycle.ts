/**
 * One node's connection to the shared state on Redis (or Valkey), for the state store's access and
 * metering adapters: the command client and the auth subscriber, opened and closed together; this node's
 * heartbeat; and the three states a connected Redis may still be unusable in (server/state/README.md):
 * - Redis unreachable: identification keeps answering on a bounded local allowance, journaled and
 *   replayed exactly once when Redis is back (journal.ts, metering/redis.ts); other metering fails closed
 *   (503); cached access records keep answering; writes fail with StoreUnavailableError (503).
 * - Redis stalled (stopped, partitioned without RST): the connection stays "ready" and node-redis waits
 *   for written commands forever, so every call has a deadline (`commandTimeoutMs`); the first miss
 *   puts the node on the outage paths until a PING answers again (`hold`).
 * - Redis without this deployment's data: the data epoch decides (epoch.ts, `lost`).
 */
import { hostname } from 'node:os';
import type { RedisClientType } from '@redis/client';
import { AuthCache } from '../access/auth-cache.ts';
import { StateError, type StateLog, StoreUnavailableError } from '../errors.ts';
import { AuthVersion } from './auth-poll.ts';
import { DEFAULT_COMMAND_TIMEOUT_MS, onConnection, openRedis, withoutCommandTimeout } from './connection.ts';
import { DataEpoch } from './epoch.ts';
import { OutageMeter } from './journal.ts';
import { keys } from './keys.ts';

const NODE_HEARTBEAT_MS = 5_000;
const AUTH_POLL_MS = 1_000;
const JOURNAL_RETRY_MS = 1_000;
/** On a cluster, how soon a recovery check that failed (its shard failing over) is tried again. */
const RECOVER_RETRY_MS = 250;

/** Why a connected Redis is not used right now (the outage paths answer meanwhile). */
type Hold = 'stalled' | 'verifying';

export interface RedisStoreOptions {
  /** One Redis, or with `cluster` the seed nodes of a Redis Cluster (`redis://h1:p1,h2:p2`). */
  url: string;
  /** A Redis Cluster (SVC_REDIS_CLUSTER=1): the cluster client, sharded pub/sub (connection.ts). */
  cluster?: boolean;
  /**
   * SVC_REDIS_WAIT: after each batch of charges, `WAIT <n> <timeout>` before the answers go out, so a
   * charge a client saw is on n replicas and survives a failover. 0 (default): asynchronous replication.
   */
  waitReplicas?: number;
  /**
   * Whether alike requests of a batch reach the METER script as one run (meter-ops.ts ChargeRun; the
   * default) or op by op (false: what the runs are tested against).
   */
  meterRuns?: boolean;
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

export class RedisBackend {
  readonly log: StateLog;
  /** The access records' per-node cache (access/auth-cache.ts): kept current from here (auth-poll.ts, epoch.ts). */
  readonly auth = new AuthCache();
  readonly outage: OutageMeter;
  readonly epoch: DataEpoch;
  readonly authVersion: AuthVersion;
  readonly commandTimeoutMs: number;
  readonly cluster: boolean;
  readonly nodeId = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
  private readonly timers: NodeJS.Timeout[] = [];
  closed = false;
  hold: Hold | null = null;
  private recovering = false;
  /** Replays the outage journal (metering/redis.ts), given at open. */
  drainJournal: () => Promise<void> = () => Promise.resolve();

  /**
   * The same connection without node-redis's own command timeout, for calls under `timed` only (the
   * metering batcher's scripts, WAIT): by default node-redis arms an AbortSignal.timeout (5 s) per command,
   * a timer that outlives the answer and, when it fires, builds a DOMException — a few µs per command on
   * the hot path for a deadline `timed` already keeps.
   */
  readonly untimed: RedisClientType;

  private constructor(
    readonly client: RedisClientType,
    readonly sub: RedisClientType,
    opts: RedisStoreOptions,
  ) {
    this.untimed = withoutCommandTimeout(client);
    this.log = opts.log ?? ((m) => process.stderr.write(`svc state: ${m}\n`));
    this.outage = new OutageMeter({ journalDir: opts.journalDir, allowance: opts.outageAllowance });
    this.commandTimeoutMs = opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.cluster = opts.cluster ?? false;
    this.epoch = new DataEpoch(this);
    this.authVersion = new AuthVersion(this);
  }

  /** Connects; `attach` wires the journal replay (it may not run before the epoch is known). */
  static async open(opts: RedisStoreOptions, attach: (backend: RedisBackend) => () => Promise<void>): Promise<RedisBackend> {
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
    const b = new RedisBackend(client, sub, opts);
    b.drainJournal = attach(b);
    let down = false;
    for (const c of [client, sub]) {
      onConnection(c, 'error', (e) => {
        if (c === client && !down) {
          down = true;
          b.log(`Redis unreachable (${e?.message}): identification continues on the local allowance, other metering answers 503`);
        }
      });
    }
    onConnection(client, 'ready', () => {
      // The first connection's epoch is read by open(); a reconnect is used only once its epoch is checked.
      if (b.epoch.value === null) return;
      if (down) {
        down = false;
        b.log('Redis is back', 'info');
      }
      // On a cluster this is one shard's connection (a promoted replica, a node back): the others kept
      // serving, so the node is not held back — the journal replay checks the epoch before it writes.
      if (b.cluster) {
        void b.drainJournal();
        return;
      }
      b.hold = 'verifying';
      void b.recover();
    });
    onConnection(sub, 'ready', () => {
      // On a cluster the channel's shard (re)connected, perhaps after a failover: messages missed meanwhile
      // show as a new version, read now rather than dropping every cached record — the records of a
      // customer whose shard is still failing over could not be read again.
      if (b.epoch.value === null) return;
      if (b.cluster) void b.authVersion.poll();
      else if (b.epoch.lost === null) b.auth.sync(-1);
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
    await b.epoch.start();
    b.outage.epoch = b.epoch.value;
    await b.authVersion.start();
    b.timers.push(
      setInterval(() => void b.authVersion.poll(), AUTH_POLL_MS),
      setInterval(() => void b.heartbeat(), NODE_HEARTBEAT_MS),
      setInterval(() => void b.drainJournal(), JOURNAL_RETRY_MS),
    );
    for (const t of b.timers) t.unref();
    await b.heartbeat();
    await b.drainJournal();
    return b;
  }

  /** Whether Redis is reachable right now and holds this deployment's data (otherwise the outage paths answer). */
  get connected(): boolean {
    return this.client.isReady && this.hold === null && this.epoch.lost === null;
  }

  unavailable(e: unknown): StoreUnavailableError {
    if (e instanceof StoreUnavailableError) return e;
    return new StoreUnavailableError(`Redis is unavailable: ${(e as Error)?.message ?? e}`, 1, { cause: e });
  }

  /** Refuses at once while Redis is known stalled, reconnecting, or without this deployment's data. */
  private usable(): void {
    if (this.epoch.lost !== null) throw new StoreUnavailableError(this.epoch.lost, 5);
    if (this.hold !== null)
      throw new StoreUnavailableError(
        `Redis is not answering (${this.hold === 'stalled' ? `no answer within ${this.commandTimeoutMs} ms` : 'reconnecting'}): retry shortly`,
      );
  }

  /**
   * A command's answer within the command timeout, or StoreUnavailableError — and Redis counts as stalled:
   * later calls go to the outage paths at once instead of each waiting out its own timeout.
   */
  timed<T>(p: Promise<T>): Promise<T> {
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

  /** A Redis call; failures that are not the caller's fault become StoreUnavailableError (503). */
  async io<T>(fn: () => Promise<T>, timed = true): Promise<T> {
    this.usable();
    try {
      return await (timed ? this.timed(fn()) : fn());
    } catch (e) {
      if (e instanceof StateError) throw e;
      throw this.unavailable(e);
    }
  }

  private stalled(): void {
    if (this.hold !== null || this.epoch.lost !== null || this.closed) return;
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
        if (!(await this.epoch.check(false))) return;
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

  /** Registers this node as live; the count splits rate limits while Redis is unreachable. */
  async heartbeat(): Promise<void> {
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

  /** Stops the timers, waits for a journal replay under way (`draining`), leaves the live nodes, closes both connections. */
  async close(draining: () => Promise<void> | null): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    await draining();
    // No longer a live node (a CLI call must not count as one for long).
    if (this.epoch.lost === null) await this.timed(this.client.zRem(keys.nodes, this.nodeId)).catch(() => {});
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
