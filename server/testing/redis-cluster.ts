/**
 * A real Redis Cluster for tests and the local cluster: `primaries` primaries with one replica each
 * (`redis-server --cluster-enabled yes` on free ports, each in its own folder, then
 * `redis-cli --cluster create … --cluster-replicas 1`, or the same steps by hand for fewer than 3
 * primaries), a short node timeout so a failover takes about a second, torn down with its folder.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import { findRedisServer, freePort } from './redis-server.ts';

/** Redis Cluster's bus port is the node's port + 10000. */
const CLUSTER_BUS_OFFSET = 10_000;

export interface ClusterNodeInfo {
  port: number;
  id: string;
  role: 'master' | 'slave';
  /** The primary's id, for a replica. */
  primaryOf: string | null;
  /** Slot ranges a primary serves. */
  slots: string[];
}

export interface RedisCluster {
  /** `redis://127.0.0.1:p1,127.0.0.1:p2,…`: every node as a seed (what SVC_REDIS_URL takes with SVC_REDIS_CLUSTER=1). */
  url: string;
  ports: number[];
  dir: string;
  /** The nodes as the cluster sees them now (CLUSTER NODES, asked of a live node). */
  nodes(): Promise<ClusterNodeInfo[]>;
  /** SIGKILLs the node on `port` (a crash). */
  kill(port: number): Promise<void>;
  /** Starts the node on `port` again (it rejoins from its nodes.conf, as a replica if it was failed over). */
  start(port: number): Promise<void>;
  /** Resolves once every live node reports `cluster_state:ok` and agrees on one primary per slot range. */
  settled(timeoutMs?: number): Promise<void>;
  /** Empties every primary (between tests). */
  flush(): Promise<void>;
  /** A redis-cli call (e.g. `--cluster reshard`), its output. */
  cli(args: string[]): Promise<string>;
  close(): Promise<void>;
}

export interface RedisClusterOptions {
  primaries?: number;
  replicasPerPrimary?: number;
  /** `cluster-node-timeout`: how long a primary may be silent before its replica is promoted. */
  nodeTimeoutMs?: number;
  dir?: string;
  /** Extra redis-server arguments for every node (e.g. AOF settings). */
  extraArgs?: string[];
}

/** The redis-cli next to redis-server. */
export function findRedisCli(): string {
  const server = findRedisServer();
  const beside = join(dirname(server), 'redis-cli');
  if (existsSync(beside)) return beside;
  const which = spawnSync('sh', ['-c', 'command -v redis-cli || command -v valkey-cli'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return which.stdout.trim();
  throw new Error('redis-cli not found: install it with `apt-get install -y redis-tools` (or redis-server)');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every cluster node started by this process: killed if the process exits without closing its cluster. */
const started = new Set<ChildProcess>();
let exitHook = false;
function track(proc: ChildProcess): void {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const p of started) p.kill('SIGKILL');
    });
  }
  started.add(proc);
  proc.once('exit', () => started.delete(proc));
}

async function ask<T>(port: number, fn: (c: RedisClientType) => Promise<T>): Promise<T> {
  const c = createClient({ socket: { host: '127.0.0.1', port, connectTimeout: 1_000, reconnectStrategy: false } }) as RedisClientType;
  c.on('error', () => {});
  await c.connect();
  try {
    return await fn(c);
  } finally {
    c.destroy();
  }
}

export function parseClusterNodes(text: string): ClusterNodeInfo[] {
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .flatMap((line): ClusterNodeInfo[] => {
      const [id, addr, flags, primary, , , , , ...slots] = line.split(' ');
      const f = (flags ?? '').split(',');
      // A node the cluster holds failed serves nothing.
      if (f.includes('fail')) return [];
      return [
        {
          port: Number(/:(\d+)/.exec(addr ?? '')?.[1]),
          id: id!,
          role: f.includes('master') ? 'master' : 'slave',
          primaryOf: primary && primary !== '-' ? primary : null,
          slots: f.includes('fail?') ? [] : slots.filter((s) => !s.startsWith('[')),
        },
      ];
    });
}

/**
 * What `redis-cli --cluster create` does, for the 1- and 2-primary clusters it refuses to create (a
 * benchmark's 1-shard point runs the same cluster client as its 3-shard one): slots split evenly, an
 * epoch per primary, every node met, replicas attached to their primaries in turn.
 */
async function createByHand(ports: number[], primaries: number, replicas: number): Promise<void> {
  const ids = await Promise.all(ports.map((port) => ask(port, async (c) => String(await c.sendCommand(['CLUSTER', 'MYID'])))));
  for (let i = 0; i < primaries; i++) {
    const from = Math.floor((i * 16_384) / primaries);
    const to = Math.floor(((i + 1) * 16_384) / primaries) - 1;
    await ask(ports[i]!, async (c) => {
      await c.sendCommand(['CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1)]);
      await c.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', String(from), String(to)]);
    });
  }
  for (const port of ports.slice(1)) await ask(ports[0]!, (c) => c.sendCommand(['CLUSTER', 'MEET', '127.0.0.1', String(port)]));
  const deadline = Date.now() + 20_000;
  // A replica can only follow a primary it already knows.
  for (;;) {
    // By id: a node still in handshake is listed under a temporary one.
    const views = await Promise.all(ports.map((port) => ask(port, async (c) => String(await c.sendCommand(['CLUSTER', 'NODES'])))));
    if (views.every((v) => ids.every((id) => parseClusterNodes(v).some((n) => n.id === id)))) break;
    if (Date.now() > deadline) throw new Error('the Redis Cluster nodes did not meet');
    await sleep(100);
  }
  for (let r = 0; r < primaries * replicas; r++) {
    await ask(ports[primaries + r]!, (c) => c.sendCommand(['CLUSTER', 'REPLICATE', ids[r % primaries]!]));
  }
}

export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<RedisCluster> {
  const bin = findRedisServer();
  const cliBin = findRedisCli();
  const primaries = opts.primaries ?? 3;
  const replicas = opts.replicasPerPrimary ?? 1;
  const total = primaries * (1 + replicas);
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'svc-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < total; i++) {
    // The cluster bus listens on port + 10000: both free, both below the ephemeral range (an outgoing
    // connection took a bus port in the ephemeral range once: the node exited on EADDRINUSE).
    let p = await freePort([CLUSTER_BUS_OFFSET]);
    while (ports.some((q) => q === p || Math.abs(q - p) === CLUSTER_BUS_OFFSET)) p = await freePort([CLUSTER_BUS_OFFSET]);
    ports.push(p);
  }
  const children = new Map<number, ChildProcess>();

  const start = async (port: number) => {
    const d = join(dir, String(port));
    mkdirSync(d, { recursive: true });
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      d,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(opts.nodeTimeoutMs ?? 1_000),
      // A replica with any data may be promoted (its primary died moments after the last write).
      '--cluster-replica-validity-factor',
      '0',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--logfile',
      join(d, 'redis.log'),
      ...(opts.extraArgs ?? []),
    ];
    const proc = spawn(bin, args, { stdio: 'ignore' });
    track(proc);
    children.set(port, proc);
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`redis-server (cluster node ${port}) exited (${proc.exitCode}); see ${join(d, 'redis.log')}`);
      try {
        if ((await ask(port, (c) => c.ping())) === 'PONG') return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`cluster node ${port} did not start`);
      await sleep(25);
    }
  };

  const kill = async (port: number) => {
    const proc = children.get(port);
    children.delete(port);
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };

  const cli = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      const p = spawn(cliBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (out += d));
      p.on('error', reject);
      p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`redis-cli ${args.join(' ')} exited ${code}: ${out.slice(-2000)}`))));
    });

  const live = () => [...children.keys()];
  const nodes = async () => {
    for (const port of live()) {
      try {
        return parseClusterNodes(String(await ask(port, (c) => c.sendCommand(['CLUSTER', 'NODES']))));
      } catch {
        // ask the next one
      }
    }
    throw new Error('no cluster node answers');
  };

  const settled = async (timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let ok = true;
      try {
        const views = await Promise.all(
          live().map(async (port) => {
            const info = String(await ask(port, (c) => c.sendCommand(['CLUSTER', 'INFO'])));
            const n = parseClusterNodes(String(await ask(port, (c) => c.sendCommand(['CLUSTER', 'NODES']))));
            const serving = n
              .filter((x) => x.role === 'master' && x.slots.length > 0 && children.has(x.port))
              .map((x) => `${x.port}:${x.slots.join(',')}`)
              .sort()
              .join(' ');
            // Every slot served by a primary not suspected of failing (a `fail?` primary's slots are left out).
            // A primary this fixture killed serves nothing, whatever the others still believe.
            const covered = n
              .filter((x) => x.role === 'master' && children.has(x.port))
              .flatMap((x) => x.slots)
              .reduce((sum, r) => {
                const [from, to] = r.split('-').map(Number);
                return sum + (to ?? from!) - from! + 1;
              }, 0);
            return { ok: info.includes('cluster_state:ok') && covered === 16_384, serving };
          }),
        );
        ok = views.every((v) => v.ok) && new Set(views.map((v) => v.serving)).size === 1;
      } catch {
        ok = false;
      }
      if (ok) return;
      if (Date.now() > deadline) throw new Error('the Redis Cluster did not settle');
      await sleep(100);
    }
  };

  const close = async () => {
    await Promise.all(live().map(kill));
    if (!opts.dir) rmSync(dir, { recursive: true, force: true });
  };

  try {
    await Promise.all(ports.map(start));
    if (primaries >= 3) {
      await cli(['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes']);
    } else {
      await createByHand(ports, primaries, replicas);
    }
    await settled();
    // Replicas attach a moment after the slots are served: wait until each primary has its replicas.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const n = await nodes();
      const masters = n.filter((x) => x.role === 'master');
      if (masters.every((m) => n.filter((x) => x.primaryOf === m.id).length >= replicas)) {
        const linked = await Promise.all(
          n.filter((x) => x.role === 'slave').map(async (x) => String(await ask(x.port, (c) => c.info('replication'))).includes('master_link_status:up')),
        );
        if (linked.every(Boolean)) break;
      }
      if (Date.now() > deadline) throw new Error('the Redis Cluster replicas did not attach');
      await sleep(100);
    }
  } catch (e) {
    await close();
    throw e;
  }

  return {
    url: `redis://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    dir,
    nodes,
    kill,
    start,
    settled,
    async flush() {
      const n = await nodes();
      await Promise.all(n.filter((x) => x.role === 'master').map((x) => ask(x.port, (c) => c.flushAll())));
    },
    cli,
    close,
  };
}
