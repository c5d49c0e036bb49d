/**
 * `npm run bench -- cluster [--customers N] [--duration S] [--saturate S] [--rate R] [--connections C] [--companies N]`:
 * scale-out on a Redis Cluster shown by work, not throughput (on 2 cores the load generator, the node and
 * Redis share the machine, so more shards cannot show as more req/s). bench/README.md "Scale model".
 *
 * 1. Two Redis Clusters, each primary with one replica and AOF (`appendfsync everysec`, as under
 *    `npm run cluster -- --redis-cluster N`): 1 primary (a real cluster: the same cluster client and code
 *    path as with 3) and 3 primaries. One `svc serve` node on each (default configuration: SVC_LOG=info,
 *    stdout to a file; SVC_REDIS_WAIT=0).
 * 2. N customers (default 1,000) through each node's admin API, each with an identification and a
 *    company-firmographics token. The load walks over every customer in turn (one counter shared by the
 *    connections): 4 in 5 requests `GET /v3/company/details?ip=` in token mode (the address mix of
 *    bench-data.ts; a Match charges an identification credit), 1 in 5 `POST /v1/enrichment/company`.
 * 3. The 1-node/1-shard saturation point (unpaced, `--saturate` s): req/s, p99, the cores the node and
 *    the primary used. It checks the model, and sets the paced rate: 70% of it (`--rate` overrides).
 * 4. Paced load (autocannon `overallRate`) in interleaved slices (`--duration` s per run in all): 1 shard
 *    and 3 shards at that rate, 1 shard at a third of it (each of the 3 primaries' own share). Per
 *    response: the node's CPU (/proc) and the primaries' CPU (`INFO cpu` used_cpu_user + used_cpu_sys,
 *    summed), both also net of their idle background; the replicas' beside it (not in the model). Per
 *    shard of the 3: keys (DBSIZE) and commands (INFO stats total_commands_processed), max/mean.
 * 5. The scale model recomputed from this run's figures, and its prediction for step 3.
 */
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient, type RedisClientType } from '@redis/client';
import autocannon from 'autocannon';
import { readCustomersFile } from '../data/sources/read.ts';
import { type RedisCluster, startRedisCluster } from '../server/testing/redis-cluster.ts';
import { type BenchData, BROWSER_UA, emailMix, ensureBenchData, ipMix, runFolder } from './bench-data.ts';
import { cpuSeconds, type RunningProcess, startProcess } from './http-load.ts';
import { fmt, median, record } from './results.ts';

const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const CLI = 'server/cli/main.ts';

/** The model's assumptions (bench/README.md "Scale model"). */
export const MODEL = { coresPerNode: 2, utilisation: 0.7, rates: [10_000, 100_000, 1_000_000] };

interface Customer {
  id: string;
  identification: string;
  firmographics: string;
}

/** One Redis Cluster with clients to each of its nodes (for INFO and DBSIZE), the primaries apart. */
interface Shards {
  cluster: RedisCluster;
  primaries: { port: number; client: RedisClientType }[];
  replicas: { port: number; client: RedisClientType }[];
}

async function openShards(cluster: RedisCluster): Promise<Shards> {
  const nodes = await cluster.nodes();
  const connect = async (port: number) => {
    const client = createClient({ socket: { host: '127.0.0.1', port } }) as RedisClientType;
    client.on('error', () => {});
    await client.connect();
    return { port, client };
  };
  return {
    cluster,
    primaries: await Promise.all(nodes.filter((n) => n.role === 'master' && n.slots.length > 0).map((n) => connect(n.port))),
    replicas: await Promise.all(nodes.filter((n) => n.role === 'slave').map((n) => connect(n.port))),
  };
}

function infoField(text: string, field: string): number {
  return Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
}

/** CPU seconds (user + system, all threads) each Redis process has used so far. */
async function redisCpu(nodes: { client: RedisClientType }[]): Promise<number[]> {
  return Promise.all(
    nodes.map(async ({ client }) => {
      const info = await client.info('cpu');
      return infoField(info, 'used_cpu_user') + infoField(info, 'used_cpu_sys');
    }),
  );
}

async function commandsProcessed(nodes: { client: RedisClientType }[]): Promise<number[]> {
  return Promise.all(nodes.map(async ({ client }) => infoField(await client.info('stats'), 'total_commands_processed')));
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const maxOverMean = (xs: number[]) => Math.max(...xs) / (sum(xs) / xs.length);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The customers and their tokens, created through the node's admin API (a few calls at a time). */
async function seedCustomers(url: string, data: BenchData, count: number): Promise<Customer[]> {
  const seed = readCustomersFile(join(data.sources, 'customers.json')).customers[0];
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(url + '/admin/api' + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`seeding ${url}${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { token: string };
  };
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
function customerRequests(customers: Customer[], ips: string[], emails: string[]): autocannon.Request[] {
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

function cannon(url: string, requests: autocannon.Request[], connections: number, duration: number, overallRate?: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests, pipelining: 1, ...(overallRate ? { overallRate } : {}) }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

interface Target {
  name: string;
  node: RunningProcess;
  shards: Shards;
  requests: autocannon.Request[];
}

interface Measured {
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
async function measure(t: Target, seconds: number, connections: number, rate?: number): Promise<Measured> {
  const node0 = cpuSeconds(t.node.pid);
  const [p0, r0, c0] = await Promise.all([redisCpu(t.shards.primaries), redisCpu(t.shards.replicas), commandsProcessed(t.shards.primaries)]);
  const r = await cannon(t.node.url, t.requests, connections, seconds, rate);
  const node1 = cpuSeconds(t.node.pid);
  const [p1, r1, c1] = await Promise.all([redisCpu(t.shards.primaries), redisCpu(t.shards.replicas), commandsProcessed(t.shards.primaries)]);
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

function combine(slices: Measured[]): Measured {
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
async function idleRates(t: Target, seconds: number): Promise<{ node: number; primaries: number }> {
  const n0 = cpuSeconds(t.node.pid);
  const p0 = sum(await redisCpu(t.shards.primaries));
  await sleep(seconds * 1000);
  return { node: (cpuSeconds(t.node.pid) - n0) / seconds, primaries: (sum(await redisCpu(t.shards.primaries)) - p0) / seconds };
}

export interface ScaleRow {
  rate: number;
  nodes: number;
  shards: number;
}

/**
 * nodes = rate × node CPU per response / (cores per node × utilisation);
 * shards = rate × Redis CPU per response × (max/mean of the shards' commands) / (1 core × utilisation).
 */
export function scaleModel(nodeUs: number, redisUs: number, imbalance: number, rates = MODEL.rates): ScaleRow[] {
  return rates.map((rate) => ({
    rate,
    nodes: Math.max(1, Math.ceil((rate * nodeUs) / (1e6 * MODEL.coresPerNode * MODEL.utilisation))),
    shards: Math.max(1, Math.ceil((rate * redisUs * imbalance) / (1e6 * MODEL.utilisation))),
  }));
}

/** Answers per route and status in a node's request lines (the seeding's admin calls left out). */
function statuses(logFile: string): string {
  const counts = new Map<string, number>();
  for (const m of readFileSync(logFile, 'utf8').matchAll(/"route":"([^"]*)".*?"status":(\d+)/g)) {
    if (m[1]!.startsWith('/admin')) continue;
    const key = `${m[1]} ${m[2]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort()
    .map(([k, n]) => `${k} ×${n.toLocaleString('en-US')}`)
    .join(', ');
}

export async function benchCluster(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      customers: { type: 'string' },
      rate: { type: 'string' },
      duration: { type: 'string' },
      saturate: { type: 'string' },
      connections: { type: 'string' },
      companies: { type: 'string' },
    },
  });
  const customerCount = Number(values.customers ?? 1_000);
  const duration = Number(values.duration ?? 12);
  const saturate = Number(values.saturate ?? 10);
  const connections = Number(values.connections ?? 50);
  const companies = Number(values.companies ?? 20_000);
  const data = await ensureBenchData(companies);
  const work = runFolder('cluster');
  const ips = ipMix(data);
  const emails = emailMix(data);
  const load0 = loadavg()[0]!;

  const clusters: RedisCluster[] = [];
  const nodes: RunningProcess[] = [];
  const shardSets: Shards[] = [];
  try {
    const t0 = performance.now();
    const targets: Target[] = [];
    for (const primaries of [1, 3]) {
      const cluster = await startRedisCluster({
        primaries,
        dir: join(work, `redis-${primaries}`),
        extraArgs: ['--appendonly', 'yes', '--appendfsync', 'everysec'],
      });
      clusters.push(cluster);
      const shards = await openShards(cluster);
      shardSets.push(shards);
      const node = await startProcess(
        CLI,
        ['serve'],
        {
          SVC_DATA: data.data,
          SVC_LOG: 'info',
          SVC_TRUST_PROXY: 'loopback',
          SVC_ADMIN_TOKEN: ADMIN_TOKEN,
          SVC_STATE: join(work, `unused-${primaries}.db`),
          SVC_REDIS_URL: cluster.url,
          SVC_REDIS_CLUSTER: '1',
          SVC_JOURNAL_DIR: join(work, `journal-${primaries}`),
        },
        '/readyz',
        [],
        join(work, `node-${primaries}.log`),
      );
      nodes.push(node);
      const customers = await seedCustomers(node.url, data, customerCount);
      targets.push({ name: `${primaries}`, node, shards, requests: customerRequests(customers, ips, emails) });
    }
    const [one, three] = targets as [Target, Target];
    console.log(
      `cluster bench: 1- and 3-primary clusters, ${customerCount.toLocaleString('en-US')} customers each, ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const idle = new Map<Target, { node: number; primaries: number }>();
    for (const t of targets) idle.set(t, await idleRates(t, 3));
    for (const t of targets) await cannon(t.node.url, t.requests, connections, 3);

    // 1. The 1-node/1-shard saturation point: the check of the model, and what sets the paced rate.
    const sat = await measure(one, saturate, connections);
    const rate = Number(values.rate ?? Math.round((sat.rps * MODEL.utilisation) / 10) * 10);

    // 2. Paced, interleaved: 1 and 3 shards at the same offered load (the model's target utilisation of
    //    the node), and 1 shard at a third of it — each of the 3 primaries' own load — so what sharding
    //    costs shows apart from what a less busy Redis costs per command (fewer commands per event loop turn).
    const runs = [
      { label: '1 shard', t: one, rate },
      { label: '3 shards', t: three, rate },
      { label: '1 shard at a third', t: one, rate: Math.max(1, Math.round(rate / 3)) },
    ];
    const slices = runs.map(() => [] as Measured[]);
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      for (const [i, r] of runs.entries()) slices[i]!.push(await measure(r.t, duration / rounds, connections, r.rate));
    }
    const paced = slices.map(combine);
    const keys = await Promise.all(shardSets.map((s) => Promise.all(s.primaries.map(({ client }) => client.dbSize()))));

    const perResponse = (m: Measured, t: Target) => {
      const node = (m.nodeCpu * 1e6) / m.responses;
      const redis = (sum(m.primaryCpu) * 1e6) / m.responses;
      return {
        node,
        redis,
        nodeNet: node - (idle.get(t)!.node * m.seconds * 1e6) / m.responses,
        redisNet: redis - (idle.get(t)!.primaries * m.seconds * 1e6) / m.responses,
        replicas: (m.replicaCpu * 1e6) / m.responses,
        busiestShare: Math.max(...m.primaryCpu) / sum(m.primaryCpu),
        commandsPerResponse: sum(m.commands) / m.responses,
        /** Redis CPU per command, net of idle, ns. */
        perCommand: ((sum(m.primaryCpu) - idle.get(t)!.primaries * m.seconds) * 1e9) / sum(m.commands),
      };
    };
    const w = paced.map((m, i) => perResponse(m, runs[i]!.t));
    const keySpread = maxOverMean(keys[1]!);
    const opsSpread = maxOverMean(paced[1]!.commands);
    const cpuSpread = maxOverMean(paced[1]!.primaryCpu);

    const describe = (i: number) => {
      const m = paced[i]!;
      const x = w[i]!;
      return (
        `${fmt.rate(m.rps)} req/s (paced at ${fmt.rate(runs[i]!.rate)}), p99 ${m.p99} ms, node CPU ${x.node.toFixed(0)} µs/response (net of idle ${x.nodeNet.toFixed(0)}), ` +
        `Redis primaries ${x.redis.toFixed(1)} µs/response (net ${x.redisNet.toFixed(1)}; ${x.perCommand.toFixed(0)} ns/command), replicas ${x.replicas.toFixed(1)} µs/response, ` +
        `${x.commandsPerResponse.toFixed(2)} commands/response, ${m.non2xx} non-2xx, ${m.errors} errors`
      );
    };
    const shardText =
      `3 shards, ${customerCount.toLocaleString('en-US')} customers: keys ${keys[1]!.map((k) => k.toLocaleString('en-US')).join(' / ')} (max/mean ${fmt.x(keySpread)}; 1 shard ${keys[0]![0]!.toLocaleString('en-US')} = ${(keys[0]![0]! / customerCount).toFixed(1)} per customer), ` +
      `commands ${paced[1]!.commands.map((c) => c.toLocaleString('en-US')).join(' / ')} (max/mean ${fmt.x(opsSpread)}), CPU max/mean ${fmt.x(cpuSpread)}`;
    const size = `${customerCount.toLocaleString('en-US')} customers, ${connections} connections, ${duration} s each in ${rounds} interleaved slices, ${companies.toLocaleString('en-US')} companies`;
    console.log(runs.map((r, i) => `   ${r.label.padEnd(19)} ${describe(i)}`).join('\n'));
    console.log(`   ${shardText}\n   answers (1-shard node): ${statuses(join(work, 'node-1.log'))}`);
    record({
      benchmark: `cluster: identification token mode (4/5) + enrichment (1/5) over ${size}; one node on a 1-primary vs a 3-primary Redis Cluster (1 replica each, AOF everysec), paced at ${MODEL.utilisation * 100}% of the 1-shard saturation`,
      figures: `${runs.map((r, i) => `${r.label} ${describe(i)}`).join('; ')}; busiest of 3 primaries ${(w[1]!.busiestShare * 100).toFixed(0)}% of their CPU; ${shardText}`,
      ratio:
        `Redis CPU per response 3 shards/1 shard ${fmt.x(w[1]!.redisNet / w[0]!.redisNet)}, busiest shard/1 shard ${fmt.x((w[1]!.redisNet * w[1]!.busiestShare) / w[0]!.redisNet)}; ` +
        `per command 3 shards/1 shard at a third of the load ${fmt.x(w[1]!.perCommand / w[2]!.perCommand)}; node CPU per response 3/1 ${fmt.x(w[1]!.nodeNet / w[0]!.nodeNet)}; ` +
        `keys max/mean ${fmt.x(keySpread)}, commands max/mean ${fmt.x(opsSpread)} (goal ≤ 1.20×)`,
    });

    // 3. The model from this run, on the 3-shard figures: a node talking to several shards writes to
    //    several sockets per turn of its event loop, and each primary gets a part of its commands, as in a
    //    cluster of many shards. The 1-shard figures (lower) beside them.
    const nodeUs = w[1]!.nodeNet;
    const redisUs = w[1]!.redisNet;
    const model = scaleModel(nodeUs, redisUs, opsSpread);
    const unsharded = scaleModel(w[0]!.nodeNet, w[0]!.redisNet, opsSpread);
    console.log(
      `\n   scale model (${MODEL.coresPerNode} cores per node, one core per primary, ${MODEL.utilisation * 100}% target utilisation, shard imbalance ${fmt.x(opsSpread)}; ` +
        `3-shard figures node ${nodeUs.toFixed(0)} µs, Redis ${redisUs.toFixed(1)} µs per response; 1-shard figures ${w[0]!.nodeNet.toFixed(0)} µs, ${w[0]!.redisNet.toFixed(1)} µs):`,
    );
    console.log('   req/s          nodes   shards   (1-shard figures: nodes, shards)   shards are primaries, each + 1 replica');
    for (const [i, r] of model.entries())
      console.log(
        `   ${fmt.rate(r.rate).padEnd(12)} ${String(r.nodes).padStart(7)} ${String(r.shards).padStart(8)}   (${unsharded[i]!.nodes}, ${unsharded[i]!.shards})`,
      );

    // The check: what the paced figures predict for one node process and one primary at saturation.
    const nodeCores = sat.nodeCpu / sat.seconds;
    const redisCores = sum(sat.primaryCpu) / sat.seconds;
    const nodeCapacity = 1e6 / w[0]!.nodeNet;
    const shardCapacity = 1e6 / w[0]!.redisNet;
    const predictedRps = nodeCores * nodeCapacity;
    const predictedRedis = (sat.rps * w[0]!.redisNet) / 1e6;
    const checkText =
      `predicted from the paced 1-shard figures: one node process ${fmt.rate(nodeCapacity)} req/s per core (${fmt.rate(predictedRps)} for the ${nodeCores.toFixed(2)} cores it got), ` +
      `one primary ${fmt.rate(shardCapacity)} req/s per core, so ${(predictedRedis * 100).toFixed(0)}% of its core at the measured rate; ` +
      `measured ${fmt.rate(sat.rps)} req/s, p99 ${sat.p99} ms, ${sat.non2xx} non-2xx, ${sat.errors} errors, the node using ${nodeCores.toFixed(2)} cores and the primary ${(redisCores * 100).toFixed(0)}% of one ` +
      `(node ${((sat.nodeCpu * 1e6) / sat.responses).toFixed(0)} µs, Redis ${((sum(sat.primaryCpu) * 1e6) / sat.responses).toFixed(1)} µs per response at saturation)`;
    const modelText = model
      .map((r, i) => `${fmt.rate(r.rate)} req/s: ${r.nodes} nodes, ${r.shards} primaries (1-shard figures ${unsharded[i]!.nodes}, ${unsharded[i]!.shards})`)
      .join('; ');
    console.log(`   ${checkText}`);
    record({
      benchmark: `cluster: 1-node/1-shard saturation (unpaced, ${connections} connections, ${saturate} s) against the scale model (${MODEL.coresPerNode} cores/node, one core per primary, ${MODEL.utilisation * 100}% target; load average ${load0.toFixed(1)} on ${cpus().length} cores before the run)`,
      figures: `${checkText}; model from this run's 3-shard figures (node ${nodeUs.toFixed(0)} µs, Redis ${redisUs.toFixed(1)} µs per response, imbalance ${fmt.x(opsSpread)}): ${modelText}`,
      ratio: `req/s measured/predicted ${fmt.x(sat.rps / predictedRps)}; primary's CPU measured/predicted ${fmt.x(redisCores / predictedRedis)}`,
    });
  } finally {
    for (const s of shardSets) for (const { client } of [...s.primaries, ...s.replicas]) client.destroy();
    for (const n of nodes) await n.stop();
    for (const c of clusters) await c.close();
    rmSync(work, { recursive: true, force: true });
  }
}
