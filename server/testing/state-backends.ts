/**
 * The state backends the contract suite runs against: SQLite (a temp file) and Redis (a real
 * redis-server on a free port). `open()` gives another store on the same state: a second process
 * (SQLite) or node (Redis).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { RedisStateStore } from '../state/redis/store.ts';
import { SqliteStateStore } from '../state/sqlite/store.ts';
import type { StateStore } from '../state/store.ts';
import { startRedisCluster } from './redis-cluster.ts';
import { type RedisServer, startRedisServer } from './redis-server.ts';

export interface BackendFixture {
  /** Another store on the same shared state (a second process or node). */
  open(): Promise<StateStore>;
  /** Empties the state between tests. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export interface Backend {
  name: 'sqlite' | 'redis' | 'redis-cluster';
  start(): Promise<BackendFixture>;
}

const quiet = () => {};

export const sqliteBackend: Backend = {
  name: 'sqlite',
  async start() {
    let dir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
    const opened: StateStore[] = [];
    return {
      async open() {
        const s = new SqliteStateStore(join(dir, 'svc.db'), { log: quiet });
        opened.push(s);
        return s;
      },
      async reset() {
        for (const s of opened.splice(0)) await s.close();
        rmSync(dir, { recursive: true, force: true });
        dir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
      },
      async close() {
        for (const s of opened.splice(0)) await s.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export async function openRedisStore(
  url: string,
  journalDir: string,
  outageAllowance = 100,
  log: (m: string) => void = quiet,
  commandTimeoutMs?: number,
): Promise<RedisStateStore> {
  return RedisStateStore.open({ url, journalDir, outageAllowance, log, commandTimeoutMs });
}

export const redisBackend: Backend = {
  name: 'redis',
  async start() {
    const redis: RedisServer = await startRedisServer();
    const dir = mkdtempSync(join(tmpdir(), 'svc-contract-journal-'));
    const opened: StateStore[] = [];
    let n = 0;
    return {
      async open() {
        const s = await openRedisStore(redis.url, join(dir, `node-${n++}`));
        opened.push(s);
        return s;
      },
      async reset() {
        for (const s of opened.splice(0)) await s.close();
        const c = createClient({ url: redis.url });
        await c.connect();
        await c.flushAll();
        await c.close();
      },
      async close() {
        for (const s of opened.splice(0)) await s.close();
        await redis.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** A real Redis Cluster (3 primaries, 3 replicas): the stores on the cluster client (SVC_REDIS_CLUSTER=1). */
export const redisClusterBackend: Backend = {
  name: 'redis-cluster',
  async start() {
    const cluster = await startRedisCluster();
    const dir = mkdtempSync(join(tmpdir(), 'svc-contract-journal-'));
    const opened: StateStore[] = [];
    let n = 0;
    return {
      async open() {
        const s = await RedisStateStore.open({ url: cluster.url, cluster: true, journalDir: join(dir, `node-${n++}`), outageAllowance: 100, log: quiet });
        opened.push(s);
        return s;
      },
      async reset() {
        for (const s of opened.splice(0)) await s.close();
        await cluster.flush();
      },
      async close() {
        for (const s of opened.splice(0)) await s.close();
        await cluster.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const BACKENDS: Backend[] = [sqliteBackend, redisBackend, redisClusterBackend];
