/**
 * The targets of `npm run bench -- cluster` (bench/cluster.ts) and how a slice of load on one is measured:
 * one `svc serve` node with its customers and the Redis processes behind it (a Redis Cluster's primaries
 * and replicas, one redis-server, or none for SQLite state), the mixed request walk over the customers,
 * and per slice the node's CPU (/proc), the primaries' and replicas' (`INFO cpu`) and commands.
 */
import { join } from 'node:path';
import { createClient, type RedisClientType } from '@redis/client';
import autocannon from 'autocannon';
import { readCustomersFile } from '../data/sources/read.ts';
import type { RedisCluster } from '../server/testing/redis-cluster.ts';
import { adminPost } from './admin-api.ts';
import { type BenchData, BROWSER_UA } from './bench-data.ts';
import { cpuSeconds, type RunningProcess } from './http-load.ts';
import { median } from './results.ts';

export { ADMIN_TOKEN } from './admin-api.ts';

interface Customer {
  id: string;
  identification: string;
  firmographics: string;
}

type RedisNode = { port: number; client: RedisClientType };

/** The Redis processes a node's state lives on, with a client to each (for INFO and DBSIZE), the primaries apart. */
export interface RedisSet {
  primaries: RedisNode[];
  replicas: RedisNode[];
}

/** SQLite state: no Redis process to measure. */
export const NO_REDIS: RedisSet = { primaries: [], replicas: [] };

async function connect(port: number): Promise<RedisNode> {
  const client = createClient({ socket: { host: '127.0.0.1', port } }) as RedisClientType;
  client.on('error', () => {});
  await client.connect();
  return { port, client };
}

export async function openShards(cluster: RedisCluster): Promise<RedisSet> {
  const nodes = await cluster.nodes();
  return {
    primaries: await Promise.all(nodes.filter((n) => n.role === 'master' && n.slots.length > 0).map((n) => connect(n.port))),
    replicas: await Promise.all(nodes.filter((n) => n.role === 'slave').map((n) => connect(n.port))),
  };
}

/** One redis-server (no cluster, no replica), measured as a primary. */
export async function openSingle(url: string): Promise<RedisSet> {
  return { primaries: [await connect(Number(new URL(url).port))], replicas: [] };
}

export function closeRedisSet(s: RedisSet): void {
  for (const { client } of [...s.primaries, ...s.replicas]) client.destroy();
}

function infoField(text: string, field: string): number {
  return Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
}

/** CPU seconds (user + system, all threads) each Redis process has used so far. */
async function redisCpu(nodes: RedisNode[]): Promise<number[]> {
  return Promise.all(
    nodes.map(async ({ client }) => {
      const info = await client.info('cpu');
      return infoField(info, 'used_cpu_user') + infoField(info, 'used_cpu_sys');
    }),
  );
}

async function commandsProcessed(nodes: RedisNode[]): Promise<number[]> {
  return Promise.all(nodes.map(async ({ client }) => infoField(await client.info('stats'), 'total_commands_processed')));
}

export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The customers and their tokens, created through the node's admin API (a few calls at a time). */
export async function seedCustomers(url: string, data: BenchData, count: number): Promise<Customer[]> {
  const seed = readCustomersFile(join(data.sources, 'customers.json')).customers[0];
  const admin = (path: string, body: unknown) => adminPost<{ token: string }>(url, path, body);
  const token = async (customer_id: string, api_group: string) =>
    (await admin('/tokens', { customer_id, api_group, name: `bench ${api_group}`, rate_limit: 1_000_000 })).token;
  const out: Customer[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < count; i = next++) {
        const id = `bench-cust-${i}`;
        await admin('/customers', { ...seed, id, name: `Bench customer ${i}`, identification_credits: 1e12, enrichment_credits: 1e12, tags: [] });
        out[i] = { id, identification: await token(id, 'identification'), firmographics: await token(id, 'company-firmographics') };
      }
    }),
  );
  return out;
}

/**
 * One autocannon request whose setupRequest picks the next request from a counter shared by every
 * connection: each customer gets its turn whatever the connection count and duration (a fixed list is
 * walked from its start by each connection, which at a low rate would reach only the first customers).
 * Customer i % N; round ⌊i / N⌋ % 5 = 4 is enrichment, so each customer sees both kinds alike.
 */
export function customerRequests(customers: Customer[], ips: string[], emails: string[]): autocannon.Request[] {
  let i = 0;
  return [
    {
      setupRequest: (req) => {
        const n = i++;
        const c = customers[n % customers.length]!;
        const round = Math.floor(n / customers.length);
        if (round % 5 === 4) {
          return {
            ...req,
            method: 'POST',
            path: '/v1/enrichment/company',
            headers: { authorization: `Token ${c.firmographics}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ email: emails[n % emails.length]!, country: 'United States' }).toString(),
          };
        }
        return {
          ...req,
          method: 'GET',
          path: `/v3/company/details?ip=${ips[n % ips.length]}`,
          headers: { authorization: `Token ${c.identification}`, 'user-agent': BROWSER_UA },
          body: undefined,
        };
      },
    },
  ];
}

export function cannon(url: string, requests: autocannon.Request[], connections: number, duration: number, overallRate?: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests, pipelining: 1, ...(overallRate ? { overallRate } : {}) }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

export interface Target {
  name: string;
  node: RunningProcess;
  redis: RedisSet;
  requests: autocannon.Request[];
}

export interface Measured {
  responses: number;
  seconds: number;
  rps: number;
  p99: number;
  /** Non-2xx answers: enrichment's 404 (no company for the email) is the spec's answer, not a failure. */
  non2xx: number;
  errors: number;
  /** CPU seconds over the measured slices. */
  nodeCpu: number;
  primaryCpu: number[];
  replicaCpu: number;
  commands: number[];
}

/** Loads the target for `seconds` and what its node and Redis processes did meanwhile. */
export async function measure(t: Target, seconds: number, connections: number, rate?: number): Promise<Measured> {
  const { primaries, replicas } = t.redis;
  const node0 = cpuSeconds(t.node.pid);
  const [p0, r0, c0] = await Promise.all([redisCpu(primaries), redisCpu(replicas), commandsProcessed(primaries)]);
  const r = await cannon(t.node.url, t.requests, connections, seconds, rate);
  const node1 = cpuSeconds(t.node.pid);
  const [p1, r1, c1] = await Promise.all([redisCpu(primaries), redisCpu(replicas), commandsProcessed(primaries)]);
  return {
    responses: r.requests.total,
    seconds: r.duration,
    rps: r.requests.total / r.duration,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    nodeCpu: node1 - node0,
    primaryCpu: p1.map((x, i) => x - p0[i]!),
    replicaCpu: sum(r1) - sum(r0),
    commands: c1.map((x, i) => x - c0[i]!),
  };
}

export function combine(slices: Measured[]): Measured {
  const responses = sum(slices.map((s) => s.responses));
  const seconds = sum(slices.map((s) => s.seconds));
  return {
    responses,
    seconds,
    rps: responses / seconds,
    p99: median(slices.map((s) => s.p99)),
    non2xx: sum(slices.map((s) => s.non2xx)),
    errors: sum(slices.map((s) => s.errors)),
    nodeCpu: sum(slices.map((s) => s.nodeCpu)),
    primaryCpu: slices[0]!.primaryCpu.map((_, i) => sum(slices.map((s) => s.primaryCpu[i]!))),
    replicaCpu: sum(slices.map((s) => s.replicaCpu)),
    commands: slices[0]!.commands.map((_, i) => sum(slices.map((s) => s.commands[i]!))),
  };
}

/** Idle background per second of the node and of the primaries (heartbeat, auth version poll, cluster bus, serverCron). */
export async function idleRates(t: Target, seconds: number): Promise<{ node: number; primaries: number }> {
  const n0 = cpuSeconds(t.node.pid);
  const p0 = sum(await redisCpu(t.redis.primaries));
  await sleep(seconds * 1000);
  return { node: (cpuSeconds(t.node.pid) - n0) / seconds, primaries: (sum(await redisCpu(t.redis.primaries)) - p0) / seconds };
}
