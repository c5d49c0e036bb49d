/**
 * `npm run cluster -- --nodes 3`: a real local cluster in the foreground — redis-server (AOF, under
 * var/cluster/redis), N svc nodes and nginx on :8080 — until Ctrl-C, which stops nginx, then the nodes,
 * then Redis. See deploy/local-cluster.ts for the layout and docs/operations.md "Deployment" for real machines.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, type StateBackend, startLocalCluster } from './local-cluster.ts';

const USAGE = `usage: npm run cluster -- [--nodes N] [--redis-cluster S] [--port P] [--host H] [--dir DIR] [--data DIR] [--state redis|sqlite] [--no-demo]

Starts a local cluster in the foreground and stops it cleanly on Ctrl-C:
  redis-server   deploy/redis.conf (AOF, appendfsync always) on a free port, files in DIR/redis
  N svc nodes    \`svc serve\` on free ports, SVC_REDIS_URL to that Redis, SVC_TRUST_PROXY=loopback,
                 one folder each (DIR/node-1 …, with its log)
  nginx          load balancer on HOST:PORT (deploy/nginx-config.ts rendered to DIR/nginx/nginx.conf)

options:
  --nodes N          svc nodes behind nginx (default 3)
  --redis-cluster S  a Redis Cluster of S primaries + S replicas (cluster-enabled redis-servers on free
                     ports, created with redis-cli --cluster create, files in DIR/redis-cluster, made anew
                     each run) instead of one redis-server; the nodes get SVC_REDIS_CLUSTER=1
  --port P           nginx's port (default 8080)
  --host H           nginx's listen address (default 0.0.0.0)
  --dir DIR          where the cluster keeps its files (default var/cluster; kept between runs: the AOF
                     brings the state back)
  --data DIR         built data folder (default var/data, built from data/sample when stale)
  --state redis|sqlite  shared state: Redis (default) or one SQLite file shared by the nodes (same machine
                     only; no redis-server then)
  --no-demo          do not seed the demo customer (demo mode is on by default, as under npm start)
  --help             this text

The admin token is printed at start (kept in DIR/admin-token).`;

function fail(message: string): never {
  process.stderr.write(`cluster: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

let values: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    args: process.argv.slice(2),
    options: {
      nodes: { type: 'string' },
      'redis-cluster': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      dir: { type: 'string' },
      data: { type: 'string' },
      state: { type: 'string' },
      'no-demo': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  }).values;
}
try {
  values = parse();
} catch (e) {
  fail((e as Error).message);
}
if (values.help) {
  process.stdout.write(USAGE + '\n');
  process.exit(0);
}

const int = (name: string, raw: string | undefined, fallback: number, min: number, max: number): number => {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be an integer from ${min} to ${max}`);
  return n;
};
const nodes = int('nodes', values.nodes, 3, 1, 64);
const port = int('port', values.port, 8080, 1, 65535);
const state = (values.state ?? 'redis') as StateBackend;
if (state !== 'redis' && state !== 'sqlite') fail('--state must be redis or sqlite');
const redisCluster = int('redis-cluster', values['redis-cluster'], 0, 3, 16);
if (redisCluster > 0 && state !== 'redis') fail('--redis-cluster needs --state redis');
const dir = resolve(values.dir ?? 'var/cluster');
let data = values.data ? resolve(values.data) : undefined;

if (!data) {
  data = resolve(ROOT, 'var/data');
  // As `npm start` does: the sample dataset, rebuilt only when its sources changed.
  execFileSync(
    process.execPath,
    ['--import', 'tsx', resolve(ROOT, 'server/cli/main.ts'), 'data', 'build', '--in', resolve(ROOT, 'data/sample'), '--out', data, '--if-stale'],
    { stdio: 'inherit', cwd: ROOT },
  );
}

// Ctrl-C while starting: exit, and the children started so far are killed on the way out (processes.ts).
let cluster: Awaited<ReturnType<typeof startLocalCluster>> | null = null;
let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  if (!cluster) {
    process.stderr.write(`\ncluster: ${signal} while starting: killing what was started\n`);
    process.exit(130);
  }
  console.log(`\ncluster: ${signal}: stopping nginx, nodes, redis-server …`);
  await cluster.stop();
  console.log('cluster: stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

const echo = (line: string) => process.stderr.write(line + '\n');
const redisWhat = redisCluster > 0 ? `a Redis Cluster (${redisCluster} primaries + ${redisCluster} replicas), ` : state === 'redis' ? 'redis-server, ' : '';
console.log(`cluster: starting ${redisWhat}${nodes} node(s) (${state} state) and nginx in ${dir} …`);
cluster = await startLocalCluster({
  nodes,
  port,
  host: values.host ?? '0.0.0.0',
  dir,
  data,
  state,
  demo: !values['no-demo'],
  echo,
  ...(redisCluster > 0 ? { redisCluster } : {}),
}).catch((e: Error) => {
  process.stderr.write(`cluster: ${e.message}\n`);
  process.exit(1);
});

console.log(`
cluster ready: ${cluster.url}  (nginx → ${cluster.nodes.map((n) => n.url).join(', ')})
  state        ${cluster.redisCluster ? `Redis Cluster ${cluster.redisUrl} (in ${dir}/redis-cluster)` : state === 'redis' ? `${cluster.redisUrl} (AOF in ${dir}/redis)` : cluster.stateFile}
  admin token  ${cluster.adminToken}
  logs         ${dir}/node-N/node.log,${cluster.redisCluster ? ` ${dir}/redis-cluster/<port>/redis.log,` : state === 'redis' ? ` ${dir}/redis.log,` : ''} ${dir}/nginx/{access,error}.log
Ctrl-C stops nginx, the nodes${state === 'redis' ? ', then Redis' : ''}.`);

// A crashed child is reported (the others keep serving: that is what the cluster is for).
for (const p of [...(state === 'redis' && !cluster.redisCluster ? [cluster.redis] : []), cluster.nginx, ...cluster.nodes.map((n) => n.process)]) {
  void p.waitForExit().then((code) => {
    if (!stopping) process.stderr.write(`cluster: ${p.spec.name} exited (${code ?? 'signal'}); see its log\n`);
  });
}
