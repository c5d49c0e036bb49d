/**
 * For a state concern's contract test (alerts, crm, digests, engagement…): a redis-server and a Redis
 * Cluster started once for the test file, and nodes — a state store plus the concern's store on its
 * connection — on one fresh state of a backend. One harness instead of a copy per concern; the whole-store
 * suite keeps its own fixtures (state-backends.ts), which give one backend per `describe`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll } from 'vitest';
import { RedisStateStore } from '../state/redis/store.ts';
import { SqliteStateStore } from '../state/sqlite/store.ts';
import { type RedisCluster, startRedisCluster } from './redis-cluster.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';

export type BackendName = 'sqlite' | 'redis' | 'redis-cluster';
export const BACKEND_NAMES: BackendName[] = ['sqlite', 'redis', 'redis-cluster'];

/** A concern's store: what the harness closes before the state store under it. */
export interface Closable {
  close(): Promise<void>;
}

export interface ConcernNodes<S extends Closable> {
  /** The redis-server of the file (a test may restart it). */
  redis(): RedisServer;
  /** Empties the backend's shared state; SQLite gets a new file (nodes already open stay on theirs). */
  fresh(name: BackendName): Promise<void>;
  /** One more node on the backend's current state. */
  node(name: BackendName): Promise<S>;
  /** Closes every node opened so far (each concern store, then its state store). */
  closeAll(): Promise<void>;
  /** `count` nodes on a fresh state, and how to close them. */
  nodes(name: BackendName, count: number): Promise<{ stores: S[]; close(): Promise<void> }>;
}

/**
 * Registers the file's beforeAll/afterAll (servers up, then down and temp folders removed). `wrap` puts the
 * concern's store on a state store's connection: `state.sqlite` for SQLite, `state.redis` for Redis.
 */
export function concernNodes<S extends Closable>(prefix: string, wrap: (state: SqliteStateStore | RedisStateStore) => S): ConcernNodes<S> {
  let redis: RedisServer;
  let cluster: RedisCluster;
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), `svc-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
  beforeAll(async () => {
    [redis, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([redis?.close(), cluster?.close()]);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  let file = '';
  const open: { state: SqliteStateStore | RedisStateStore; store: S }[] = [];
  const harness: ConcernNodes<S> = {
    redis: () => redis,
    async fresh(name) {
      if (name === 'sqlite') file = join(tempDir(), 'svc.db');
      else if (name === 'redis') {
        const admin = createClient({ url: redis.url });
        await admin.connect();
        await admin.flushAll();
        await admin.close();
      } else if (name === 'redis-cluster') await cluster.flush();
    },
    async node(name) {
      const state =
        name === 'sqlite'
          ? new SqliteStateStore(file, { log: () => {} })
          : await RedisStateStore.open({
              url: name === 'redis' ? redis.url : cluster.url,
              cluster: name === 'redis-cluster',
              journalDir: tempDir(),
              outageAllowance: 10,
              log: () => {},
            });
      const store = wrap(state);
      open.push({ state, store });
      return store;
    },
    async closeAll() {
      for (const n of open.splice(0)) {
        await n.store.close();
        await n.state.close();
      }
    },
    async nodes(name, count) {
      await harness.fresh(name);
      const mine: { state: SqliteStateStore | RedisStateStore; store: S }[] = [];
      for (let i = 0; i < count; i++) {
        await harness.node(name);
        mine.push(open.pop()!);
      }
      return {
        stores: mine.map((n) => n.store),
        async close() {
          for (const n of mine) {
            await n.store.close();
            await n.state.close();
          }
        },
      };
    },
  };
  return harness;
}
