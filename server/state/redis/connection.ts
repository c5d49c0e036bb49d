/**
 * One Redis or a Redis Cluster behind the same command surface. `SVC_REDIS_CLUSTER=1` with
 * `SVC_REDIS_URL=redis://host:port[,host:port…]` (seed nodes) opens node-redis's cluster client: it routes
 * each command, script and MULTI by its first key's slot and follows MOVED/ASK. The stores hold it as a
 * `RedisClientType` (the commands they call are the same); what differs is here: SCAN (per primary),
 * pub/sub (sharded: SPUBLISH/SSUBSCRIBE, Redis 7), and the connection events.
 *
 * What the cluster asks of the callers (tested by redis-slots.test.ts): every script and MULTI touches
 * the keys of one slot (one `{cust:<id>}`, `{wh}` or `{users}` hash tag); global keys (tag sightings,
 * token and tag indexes) are read one command each, never together in one step.
 */
import {
  AbortError,
  ClientClosedError,
  ClientOfflineError,
  createClient,
  createCluster,
  ErrorReply,
  MaxCommandRedirectionsError,
  type RedisClientType,
  type RedisClusterType,
} from '@redis/client';

/** Default for how long a command may go unanswered before Redis counts as stalled (SVC_REDIS_TIMEOUT_MS). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 1_500;

export interface RedisConnectionOptions {
  /** `redis://host:port` (one Redis) or, with `cluster`, `redis://[user:pass@]host:port[,host:port…]` (seed nodes). */
  url: string;
  cluster?: boolean;
  /** While Redis is down commands fail at once instead of queueing. */
  disableOfflineQueue?: boolean;
  connectTimeout?: number;
  reconnectStrategy?: (retries: number, cause: Error) => number | Error;
  pingInterval?: number;
  /** Only for (sharded) pub/sub: a cluster client that does not connect to every primary up front. */
  pubSubOnly?: boolean;
}

const clusters = new WeakSet<object>();

/** Whether the client is a cluster client opened by `openRedis`. */
export function isCluster(client: RedisClientType): boolean {
  return clusters.has(client);
}

/**
 * The same connection(s) without node-redis's own per-command timeout (`timeout: 0`), for callers that keep
 * their own deadline; still a cluster client for `isCluster` when `client` is one. What
 * `withCommandOptions` does, except that on one Redis the proxy derives from `client` itself (node-redis
 * derives it from the object behind it), so what is set on `client` — tests wrap its methods — holds for
 * the proxy too.
 */
export function withoutCommandTimeout(client: RedisClientType): RedisClientType {
  if (isCluster(client)) {
    const proxy = client.withCommandOptions({ timeout: 0 }) as unknown as RedisClientType;
    clusters.add(proxy);
    return proxy;
  }
  const options = (client as unknown as { _commandOptions?: object })._commandOptions;
  return Object.assign(Object.create(client), { _commandOptions: { ...options, timeout: 0 } }) as RedisClientType;
}

/** The seed node URLs of `redis://[auth@]h1:p1,h2:p2/…`: each as its own URL, the credentials and path on every one. */
export function seedUrls(url: string): string[] {
  const m = /^(rediss?:\/\/)(?:([^@/]*)@)?([^/?#]+)(.*)$/.exec(url);
  if (!m) return [url];
  const [, scheme, auth, hosts, rest] = m as unknown as [string, string, string | undefined, string, string];
  return hosts
    .split(',')
    .filter(Boolean)
    .map((h) => `${scheme}${auth !== undefined ? `${auth}@` : ''}${h}${rest}`);
}

/**
 * A client (not connected yet). In cluster mode the cluster client, typed as the single client: the
 * commands the stores send are the same; SCAN and pub/sub go through `scanKeys`, `publish`, `subscribe`.
 */
export function openRedis(o: RedisConnectionOptions): RedisClientType {
  const socket = {
    ...(o.connectTimeout !== undefined ? { connectTimeout: o.connectTimeout } : {}),
    ...(o.reconnectStrategy ? { reconnectStrategy: o.reconnectStrategy } : {}),
  };
  const common = {
    ...(o.disableOfflineQueue ? { disableOfflineQueue: true } : {}),
    ...(o.pingInterval ? { pingInterval: o.pingInterval } : {}),
  };
  if (!o.cluster) return createClient({ url: o.url, ...common, socket }) as RedisClientType;
  const seeds = seedUrls(o.url);
  const first = new URL(seeds[0]!);
  const cluster = createCluster({
    rootNodes: seeds.map((url) => ({ url, socket })),
    // Every discovered node's connection: the same credentials, deadlines and offline behaviour.
    defaults: {
      ...common,
      ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
      ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
      socket,
    },
    ...(o.pubSubOnly ? { minimizeConnections: true } : {}),
    // A primary gone (failover): ask the others for the new topology soon, not after the default 5 s.
    topologyRefreshOnReconnectionAttemptStrategy: 200,
    // Resharding moves slots a few at a time: a command may be redirected more than once.
    maxCommandRedirections: 32,
  }) as unknown as RedisClusterType;
  clusters.add(cluster);
  return cluster as unknown as RedisClientType;
}

/** Keys matching `pattern`, a SCAN page at a time: over every primary of a cluster (a key may come twice while slots move). */
export async function* scanKeys(client: RedisClientType, pattern: string, count = 1000): AsyncIterable<string[]> {
  if (!isCluster(client)) {
    for await (const batch of client.scanIterator({ MATCH: pattern, COUNT: count })) yield batch;
    return;
  }
  const cluster = client as unknown as RedisClusterType;
  for (const master of cluster.masters) {
    const node = (await cluster.nodeClient(master)) as unknown as RedisClientType;
    for await (const batch of node.scanIterator({ MATCH: pattern, COUNT: count })) yield batch;
  }
}

/** Publishes on `channel`: sharded (SPUBLISH, to the channel's shard) on a cluster, plain PUBLISH on one Redis. */
export function publish(client: RedisClientType, channel: string, message: string): Promise<number> {
  if (isCluster(client)) return (client as unknown as RedisClusterType).sPublish(channel, message) as Promise<number>;
  return client.publish(channel, message);
}

/** Listens on `channel` (the counterpart of `publish`): SSUBSCRIBE on a cluster, SUBSCRIBE on one Redis. */
export function subscribe(client: RedisClientType, channel: string, listener: (message: string) => void): Promise<void> {
  if (isCluster(client)) return (client as unknown as RedisClusterType).sSubscribe(channel, (m) => listener(String(m)));
  return client.subscribe(channel, (m) => listener(String(m)));
}

/**
 * Connection events under one name: `ready` (a connection is (again) usable: on a cluster, any node's)
 * and `error` (on a cluster, any node's).
 */
export function onConnection(client: RedisClientType, event: 'ready' | 'error', listener: (e?: Error) => void): void {
  const emitter = client as unknown as NodeJS.EventEmitter;
  if (!isCluster(client)) {
    emitter.on(event, listener);
    return;
  }
  if (event === 'ready') emitter.on('node-ready', () => listener());
  else {
    emitter.on('error', listener);
    emitter.on('node-error', listener);
  }
}

/**
 * `WAIT replicas timeoutMs` on the connection that wrote `key` (the slot's primary on a cluster): resolves
 * to how many replicas acknowledged every write sent on it so far.
 */
export async function waitForReplicas(client: RedisClientType, key: string, replicas: number, timeoutMs: number): Promise<number> {
  const args = ['WAIT', String(replicas), String(timeoutMs)];
  if (isCluster(client)) return Number(await (client as unknown as RedisClusterType).sendCommand(key, false, args));
  return Number(await client.sendCommand(args));
}

/**
 * The connection that holds `key`, for the commands the cluster client does not route (HSCAN, ZSCAN,
 * SSCAN iterators): the slot's primary on a cluster, the client itself on one Redis.
 */
export async function clientForKey(client: RedisClientType, key: string): Promise<RedisClientType> {
  if (!isCluster(client)) return client;
  return (await (client as unknown as RedisClusterType).getNodeClientForKey(key)) as unknown as RedisClientType;
}

/** Redis Cluster's hash slots. */
export const CLUSTER_SLOTS = 16_384;

const CRC16_TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let b = 0; b < 8; b++) c = c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1;
    t[i] = c & 0xffff;
  }
  return t;
})();

/** The hash slot of `key`, as Redis Cluster computes it (CRC16/XMODEM of the key or its non-empty `{…}` tag). */
export function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key)) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc % CLUSTER_SLOTS;
}

let slotTags: string[] | null = null;

/**
 * A short hash tag per slot (`slotTag(s)` hashes to slot `s`): the first base-36 number that does, so every
 * node derives the same table. Keys carrying it live in that slot on whichever primary serves it, and move
 * with it when it is resharded.
 */
export function slotTag(slot: number): string {
  if (!slotTags) {
    const table: string[] = new Array(CLUSTER_SLOTS);
    let left = CLUSTER_SLOTS;
    for (let n = 0; left > 0; n++) {
      const tag = n.toString(36);
      const s = slotOf(tag);
      if (table[s] === undefined) {
        table[s] = tag;
        left--;
      }
    }
    slotTags = table;
  }
  return slotTags[slot]!;
}

export interface ShardView {
  /** The primary's address (`host:port`) as the cluster announces it. */
  address: string;
  /** The slot ranges it serves (inclusive). */
  ranges: [number, number][];
}

/** The primaries of a cluster client's current slot map, each with the slot ranges it serves ([] on one Redis). */
export function shardsOf(client: RedisClientType): ShardView[] {
  if (!isCluster(client)) return [];
  const slots = (client as unknown as RedisClusterType).slots as ({ master: { address: string } } | undefined)[];
  const byAddress = new Map<string, ShardView>();
  for (let slot = 0; slot < slots.length; slot++) {
    const address = slots[slot]?.master.address;
    if (address === undefined) continue;
    let view = byAddress.get(address);
    if (!view) byAddress.set(address, (view = { address, ranges: [] }));
    const last = view.ranges[view.ranges.length - 1];
    if (last && last[1] === slot - 1) last[1] = slot;
    else view.ranges.push([slot, slot]);
  }
  return [...byAddress.values()];
}

/** `127.0.0.1:7001 (slots 0-5460)`: a shard as operators read it in CLUSTER SHARDS. */
export function describeShard(view: ShardView): string {
  return `${view.address} (slots ${view.ranges.map(([a, b]) => (a === b ? String(a) : `${a}-${b}`)).join(',')})`;
}

/** How often, and how far apart, a command refused with TRYAGAIN is sent again. */
const TRYAGAIN_ATTEMPTS = 20;
const TRYAGAIN_PAUSE_MS = 25;

/**
 * Runs `fn` again while Redis Cluster answers TRYAGAIN: a multi-key command or script whose slot is
 * being moved (resharding) while some of its keys are already on the target. The move of one slot's
 * keys takes milliseconds; after it MOVED/ASK route the command (node-redis follows those itself).
 */
export async function retryTryAgain<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= TRYAGAIN_ATTEMPTS || !String((e as Error)?.message).startsWith('TRYAGAIN')) throw e;
      await new Promise((r) => setTimeout(r, TRYAGAIN_PAUSE_MS));
    }
  }
}

/**
 * Whether a command failed because its shard could not be reached (connection lost or refused, the
 * cluster without a primary for the slot) rather than because Redis answered it with an error. On a
 * cluster the other shards still answer, so the client as a whole stays "ready".
 */
export function shardUnreachable(e: unknown): boolean {
  if (e instanceof ErrorReply) return /^(CLUSTERDOWN|MASTERDOWN|LOADING)/.test(e.message);
  return e instanceof Error;
}

/** Error replies Redis gives instead of running a command (routing, a slot moving, no primary, loading). */
const NOT_RUN = /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN|MASTERDOWN|LOADING|NOSCRIPT|READONLY)\b/;

/**
 * Whether a command that failed with `e` is known never to have run: refused before it was written (the
 * connection offline or closed, aborted), or answered with an error Redis gives instead of running it.
 * Anything else — the connection lost after the write, no answer by the deadline — leaves it unknown.
 */
export function neverSent(e: unknown): boolean {
  if (e instanceof ClientOfflineError || e instanceof ClientClosedError || e instanceof AbortError || e instanceof MaxCommandRedirectionsError) return true;
  return e instanceof ErrorReply && NOT_RUN.test(e.message);
}
