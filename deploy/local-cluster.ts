/**
 * A real cluster on one machine, laid out as on real ones: `redis-server` with deploy/redis.conf (AOF)
 * holding the shared state, N svc nodes (`svc serve`, one process each, each with its own folder for
 * its local files), and nginx in front (deploy/nginx-config.ts) with its own prefix. Used by
 * `npm run cluster` (deploy/cluster.ts), the cluster, durability and outage tests, and `npm run bench --
 * nodes`. Everything lives under one folder; ports are free ports unless given.
 *
 * `state: 'sqlite'` runs the same layout on one shared SQLite file instead of Redis (what several
 * processes on one machine can share; the baseline the Redis mode is measured against).
 * `redisCluster: N` runs a Redis Cluster of N primaries + N replicas instead of one redis-server.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RedisCluster, startRedisCluster } from '../server/testing/redis-cluster.ts';
import { renderNginxConfig } from './nginx-config.ts';
import { accepts, freePort, ManagedProcess, redisPing } from './processes.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const REDIS_CONF = join(ROOT, 'deploy', 'redis.conf');
const CLI = join(ROOT, 'server', 'cli', 'main.ts');

export type StateBackend = 'redis' | 'sqlite';

export interface ClusterOptions {
  /** Number of svc nodes (≥ 1). */
  nodes: number;
  /** Folder for everything the cluster writes (Redis AOF, node folders, nginx prefix, logs). */
  dir: string;
  /** Built data folder (networks.mmdb, catalog.db) every node serves. */
  data: string;
  /** nginx's port; 0 = a free port. */
  port?: number;
  /** nginx's listen address (default 127.0.0.1; `0.0.0.0` for every interface). */
  host?: string;
  state?: StateBackend;
  /** Admin token for every node; generated (and kept in DIR/admin-token) when absent. */
  adminToken?: string;
  demo?: boolean;
  /** Extra environment for every node (e.g. SVC_LOG). */
  nodeEnv?: Record<string, string>;
  /** Copy process output here, line by line (the CLI prints it). */
  echo?: (line: string) => void;
  /** Redis `appendfsync` override (the recommended file says `always`). */
  appendfsync?: 'always' | 'everysec' | 'no';
  nginxWorkers?: number | 'auto';
  /**
   * Redis Cluster instead of one redis-server: this many primaries, each with one replica
   * (server/testing/redis-cluster.ts); the nodes run with SVC_REDIS_CLUSTER=1 and every cluster node as a seed.
   */
  redisCluster?: number;
}

export interface ClusterNode {
  index: number;
  port: number;
  url: string;
  dir: string;
  process: ManagedProcess;
}

export interface LocalCluster {
  /** nginx's URL: what clients use. */
  url: string;
  port: number;
  state: StateBackend;
  /** `redis://127.0.0.1:<port>` (SQLite mode: redis-server is not started). */
  redisUrl: string;
  redisPort: number;
  /** SQLite mode: the shared state file. */
  stateFile: string;
  adminToken: string;
  nodes: ClusterNode[];
  redis: ManagedProcess;
  /** The Redis Cluster, when started with `redisCluster` (then `redis` is never started). */
  redisCluster: RedisCluster | null;
  nginx: ManagedProcess;
  /** Starts (again) node i and waits until it answers. */
  startNode(i: number): Promise<void>;
  /** Starts redis-server again (from its AOF) and waits until it answers PING. */
  startRedis(): Promise<void>;
  /** Stops nginx, then the nodes, then Redis (which writes its last AOF fsync on SIGTERM). */
  stop(): Promise<void>;
}

/** The environment a node runs with: everything it needs to find the shared state and trust nginx. */
export function nodeEnvironment(
  c: { state: StateBackend; redisUrl: string; stateFile: string; data: string; adminToken: string; demo: boolean; redisCluster?: boolean },
  node: { port: number; dir: string },
  extra: Record<string, string> = {},
): Record<string, string | undefined> {
  return {
    NODE_ENV: 'production',
    PORT: String(node.port),
    HOST: '127.0.0.1',
    SVC_DATA: c.data,
    // SQLite mode: one shared file. Redis mode: the node's own folder (nothing shared lives there).
    SVC_STATE: c.state === 'sqlite' ? c.stateFile : join(node.dir, 'svc.db'),
    SVC_JOBS_DIR: join(node.dir, 'jobs'),
    SVC_REDIS_URL: c.state === 'redis' ? c.redisUrl : undefined,
    SVC_REDIS_CLUSTER: c.state === 'redis' && c.redisCluster ? '1' : undefined,
    // Charges made while Redis is unreachable are journaled on the node's own disk, one journal per node.
    SVC_JOURNAL_DIR: join(node.dir, 'journal'),
    // nginx runs on this machine and sets X-Forwarded-For to the visitor's address.
    SVC_TRUST_PROXY: 'loopback',
    SVC_ADMIN_TOKEN: c.adminToken,
    SVC_DEMO: c.demo ? '1' : undefined,
    SVC_LOG: 'error',
    ...extra,
  };
}

function adminTokenFor(dir: string, given: string | undefined): string {
  if (given) return given;
  const file = join(dir, 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return token;
}

/** A node is ready when /readyz says so; a build without /readyz answers 404, which means it is up. */
async function nodeReady(url: string): Promise<boolean> {
  const res = await fetch(url + '/readyz', { signal: AbortSignal.timeout(2000) });
  await res.body?.cancel();
  return res.status === 200 || res.status === 404;
}

export async function startLocalCluster(o: ClusterOptions): Promise<LocalCluster> {
  if (!Number.isInteger(o.nodes) || o.nodes < 1) throw new Error('a cluster needs at least one node');
  const dir = resolve(o.dir);
  const state = o.state ?? 'redis';
  for (const sub of ['redis', 'nginx', 'nginx/temp']) mkdirSync(join(dir, sub), { recursive: true });
  // nginx's workers drop root privileges (to nobody): they must be able to reach their temp folders.
  for (const d of [dir, join(dir, 'nginx'), join(dir, 'nginx/temp')]) chmodSync(d, 0o755);

  const clustered = state === 'redis' && (o.redisCluster ?? 0) > 0;
  let redisCluster: RedisCluster | null = null;
  if (clustered) {
    // A Redis Cluster is created anew on free ports each run (its nodes.conf names the old ones): its
    // state is not kept between runs, unlike one redis-server's AOF.
    rmSync(join(dir, 'redis-cluster'), { recursive: true, force: true });
    // AOF on every cluster node, as deploy/redis.conf asks of one Redis.
    redisCluster = await startRedisCluster({
      primaries: o.redisCluster,
      dir: join(dir, 'redis-cluster'),
      extraArgs: ['--appendonly', 'yes', '--appendfsync', o.appendfsync ?? 'everysec'],
    });
  }
  const redisPort = clustered ? 0 : await freePort();
  const redisUrl = redisCluster ? redisCluster.url : `redis://127.0.0.1:${redisPort}`;
  const adminToken = adminTokenFor(dir, o.adminToken);
  const stateFile = join(dir, 'svc.db');
  const redisArgs = [REDIS_CONF, '--port', String(redisPort), '--bind', '127.0.0.1', '--dir', join(dir, 'redis')];
  if (o.appendfsync) redisArgs.push('--appendfsync', o.appendfsync);
  // Redis's own chatter stays in its log file.
  const redis = new ManagedProcess({ name: 'redis', command: 'redis-server', args: redisArgs, logFile: join(dir, 'redis.log') });

  const nodes: ClusterNode[] = [];
  for (let i = 0; i < o.nodes; i++) {
    const port = await freePort();
    const nodeDir = join(dir, `node-${i + 1}`);
    mkdirSync(nodeDir, { recursive: true });
    const env = nodeEnvironment(
      { state, redisUrl, stateFile, data: resolve(o.data), adminToken, demo: o.demo ?? false, redisCluster: clustered },
      { port, dir: nodeDir },
      o.nodeEnv,
    );
    const proc = new ManagedProcess({
      name: `node-${i + 1}`,
      command: process.execPath,
      args: ['--import', 'tsx', CLI, 'serve'],
      // The repository: relative defaults (dist/, data/sample/customers.json) resolve as under npm start.
      cwd: ROOT,
      env,
      logFile: join(nodeDir, 'node.log'),
      echo: o.echo,
    });
    nodes.push({ index: i, port, url: `http://127.0.0.1:${port}`, dir: nodeDir, process: proc });
  }

  const port = o.port && o.port > 0 ? o.port : await freePort();
  const host = o.host ?? '127.0.0.1';
  const nginxPrefix = join(dir, 'nginx');
  const nginxConf = join(nginxPrefix, 'nginx.conf');
  writeFileSync(
    nginxConf,
    renderNginxConfig({
      listen: host === '0.0.0.0' ? port : `${host}:${port}`,
      nodes: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
      prefix: nginxPrefix,
      workerProcesses: o.nginxWorkers ?? 1,
      accessLog: join(nginxPrefix, 'access.log'),
    }),
  );
  const nginx = new ManagedProcess({
    name: 'nginx',
    command: 'nginx',
    // -e: the error log before the config is read (the compiled-in default is under /var/log).
    args: ['-p', nginxPrefix, '-e', join(nginxPrefix, 'error.log'), '-c', nginxConf],
    logFile: join(dir, 'nginx.log'),
    echo: o.echo,
  });

  const startRedis = async () => {
    redis.start();
    await redis.waitUntil('PONG', () => redisPing(redisPort));
  };
  const startNode = async (i: number) => {
    const n = nodes[i];
    n.process.start();
    // Generous: on a busy machine a node's start (TypeScript loader, data open) can take a while.
    await n.process.waitUntil(`an answer on ${n.url}`, () => nodeReady(n.url), 120_000);
  };
  const stop = async () => {
    await nginx.stop('SIGQUIT');
    await Promise.all(nodes.map((n) => n.process.stop('SIGTERM')));
    await redis.stop('SIGTERM');
    await redisCluster?.close();
    await Promise.all([redis, nginx, ...nodes.map((n) => n.process)].map((p) => p.closeLog()));
  };

  try {
    if (state === 'redis' && !clustered) await startRedis();
    // The first node creates the schema and seeds; then the others start together.
    await startNode(0);
    await Promise.all(nodes.slice(1).map((n) => startNode(n.index)));
    nginx.start();
    await nginx.waitUntil(`nginx listening on ${port}`, () => accepts(port, host === '0.0.0.0' ? '127.0.0.1' : host));
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${port}`,
    port,
    state,
    redisUrl,
    redisPort,
    stateFile,
    adminToken,
    nodes,
    redis,
    redisCluster,
    nginx,
    startNode,
    startRedis,
    stop,
  };
}
