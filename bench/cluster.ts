/**
 * `npm run bench -- cluster [--customers N] [--duration S] [--saturate S] [--rate R] [--connections C] [--companies N]`:
 * scale-out on a Redis Cluster shown by work, not throughput (on 2 cores the load generator, the node and
 * Redis share the machine, so more shards cannot show as more req/s). bench/README.md "Scale model".
 *
 * 1. Two Redis Clusters, each primary with one replica and AOF (`appendfsync everysec`, as under
 *    `npm run cluster -- --redis-cluster N`): 1 primary (a real cluster: the same cluster client and code
 *    path as with 3) and 3 primaries; and the baselines of issue 38: one redis-server as deploy/redis.conf
 *    configures it (AOF, `appendfsync always`; bench/redis-server.ts, as `nodes` and `webhooks` run it) and
 *    a SQLite state file. One `svc serve` node on each: the production bundle, built by the run into a
 *    folder of its own, in the default configuration (SVC_LOG=info, stdout to a file; SVC_REDIS_WAIT=0).
 * 2. N customers (default 1,000) through each node's admin API, each with an identification and a
 *    company-firmographics token. The load walks over every customer in turn (one counter shared by the
 *    connections): 4 in 5 requests `GET /v3/company/details?ip=` in token mode (the address mix of
 *    bench-data.ts; a Match charges an identification credit), 1 in 5 `POST /v1/enrichment/company`.
 * 3. The 1-node/1-shard saturation point (unpaced, `--saturate` s): req/s, p99, the cores the node and
 *    the primary used. It checks the model, and sets the paced rate: 70% of it (`--rate` overrides).
 * 4. Paced load (autocannon `overallRate`) in interleaved slices (`--duration` s per run in all): 1 shard
 *    and 3 shards at that rate, 1 shard at a third of it (each of the 3 primaries' own share), the single
 *    Redis and SQLite at that rate. Per response: the node's CPU (/proc) and the primaries' CPU (`INFO cpu`
 *    used_cpu_user + used_cpu_sys, summed), both also net of their idle background; the replicas' beside
 *    it (not in the model). Per shard of the 3: keys (DBSIZE) and commands (INFO stats
 *    total_commands_processed), max/mean. The node on the cluster against the single Redis (goal ≤ 1.1×)
 *    and against SQLite (goal ≤ 2×).
 * 5. The scale model recomputed from this run's figures, and its prediction for step 3.
 */
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildServer } from '../server/build.ts';
import { type RedisCluster, startRedisCluster } from '../server/testing/redis-cluster.ts';
import { emailMix, ensureBenchData, ipMix, runFolder } from './bench-data.ts';
import {
  ADMIN_TOKEN,
  cannon,
  closeRedisSet,
  combine,
  customerRequests,
  idleRates,
  type Measured,
  measure,
  NO_REDIS,
  openShards,
  openSingle,
  type RedisSet,
  seedCustomers,
  sum,
  type Target,
} from './cluster-targets.ts';
import { ROOT, type RunningProcess, startProcess } from './http-load.ts';
import { startRedis } from './redis-server.ts';
import { fmt, record } from './results.ts';

/**
 * This tree's production bundle, built by the run into a folder of its own (removed at exit): dist/server
 * is rebuilt by whoever runs `npm run build` meanwhile. Rows before 2026-12-07T11:45Z ran tsx.
 */
const OWN_BUNDLE = join('var', `bench-cluster-${process.pid}`);
const CLI = join(OWN_BUNDLE, 'main.js');

/** The model's assumptions (bench/README.md "Scale model"). */
export const MODEL = { coresPerNode: 2, utilisation: 0.7, rates: [10_000, 100_000, 1_000_000] };

const maxOverMean = (xs: number[]) => Math.max(...xs) / (sum(xs) / xs.length);

/** What the single redis-server and the clusters' primaries write to disk: it weighs on Redis's CPU, not the node's. */
const FSYNC_NOTE =
  "single Redis: deploy/redis.conf, AOF appendfsync always; the clusters' primaries: AOF appendfsync everysec (it changes redis-server's cost per response, not the node's)";

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

  await buildServer(join(ROOT, OWN_BUNDLE));
  process.once('exit', () => rmSync(join(ROOT, OWN_BUNDLE), { recursive: true, force: true }));

  const clusters: RedisCluster[] = [];
  const singles: Awaited<ReturnType<typeof startRedis>>[] = [];
  const nodes: RunningProcess[] = [];
  const redisSets: RedisSet[] = [];
  try {
    const t0 = performance.now();
    const targets: Target[] = [];
    // The same node on each state: a 1- and a 3-primary Redis Cluster, one redis-server, a SQLite file.
    for (const name of ['1', '3', 'single', 'sqlite'] as const) {
      let state: Record<string, string>;
      let redis = NO_REDIS;
      if (name === 'sqlite') state = { SVC_STATE: join(work, 'state.db') };
      else if (name === 'single') {
        const single = await startRedis(join(work, 'redis-single'));
        singles.push(single);
        redis = await openSingle(single.url);
        state = { SVC_STATE: join(work, 'unused-single.db'), SVC_REDIS_URL: single.url, SVC_JOURNAL_DIR: join(work, 'journal-single') };
      } else {
        const cluster = await startRedisCluster({
          primaries: Number(name),
          dir: join(work, `redis-${name}`),
          extraArgs: ['--appendonly', 'yes', '--appendfsync', 'everysec'],
        });
        clusters.push(cluster);
        redis = await openShards(cluster);
        state = {
          SVC_STATE: join(work, `unused-${name}.db`),
          SVC_REDIS_URL: cluster.url,
          SVC_REDIS_CLUSTER: '1',
          SVC_JOURNAL_DIR: join(work, `journal-${name}`),
        };
      }
      redisSets.push(redis);
      const env = { SVC_DATA: data.data, SVC_LOG: 'info', SVC_TRUST_PROXY: 'loopback', SVC_ADMIN_TOKEN: ADMIN_TOKEN, ...state };
      const node = await startProcess(CLI, ['serve'], env, '/readyz', [], join(work, `node-${name}.log`));
      nodes.push(node);
      const customers = await seedCustomers(node.url, data, customerCount);
      targets.push({ name, node, redis, requests: customerRequests(customers, ips, emails) });
    }
    const [one, three, single, sqlite] = targets as [Target, Target, Target, Target];
    console.log(
      `cluster bench: 1- and 3-primary clusters, a single Redis, SQLite, ${customerCount.toLocaleString('en-US')} customers each, ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const idle = new Map<Target, { node: number; primaries: number }>();
    for (const t of targets) idle.set(t, await idleRates(t, 3));
    for (const t of targets) await cannon(t.node.url, t.requests, connections, 3);

    // 1. The 1-node/1-shard saturation point: the check of the model, and what sets the paced rate.
    const sat = await measure(one, saturate, connections);
    const rate = Number(values.rate ?? Math.round((sat.rps * MODEL.utilisation) / 10) * 10);

    // 2. Paced, interleaved: 1 and 3 shards at the same offered load (the model's target utilisation of
    //    the node), and 1 shard at a third of it — each of the 3 primaries' own load — so what sharding
    //    costs shows apart from what a less busy Redis costs per command (fewer commands per event loop
    //    turn); the single Redis and SQLite at the same load, the baselines of issue 38's goal 2.
    const runs = [
      { label: '1 shard', t: one, rate },
      { label: '3 shards', t: three, rate },
      { label: '1 shard at a third', t: one, rate: Math.max(1, Math.round(rate / 3)) },
      { label: 'single Redis', t: single, rate },
      { label: 'SQLite', t: sqlite, rate },
    ];
    const slices = runs.map(() => [] as Measured[]);
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      for (const [i, r] of runs.entries()) slices[i]!.push(await measure(r.t, duration / rounds, connections, r.rate));
    }
    const paced = slices.map(combine);
    const keys = await Promise.all(redisSets.slice(0, 2).map((s) => Promise.all(s.primaries.map(({ client }) => client.dbSize()))));

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

    // Each slice's gross node CPU per response: on a shared machine their spread shows how far to trust a ratio.
    const sliceText = (i: number) => slices[i]!.map((m) => ((m.nodeCpu * 1e6) / m.responses).toFixed(0)).join('/');
    const describe = (i: number) => {
      const m = paced[i]!;
      const x = w[i]!;
      const { primaries, replicas } = runs[i]!.t.redis;
      const redisText =
        primaries.length === 0
          ? ''
          : `${primaries.length > 1 || replicas.length > 0 ? 'Redis primaries' : 'redis-server'} ${x.redis.toFixed(1)} µs/response (net ${x.redisNet.toFixed(1)}; ${x.perCommand.toFixed(0)} ns/command), ` +
            `${replicas.length > 0 ? `replicas ${x.replicas.toFixed(1)} µs/response, ` : ''}${x.commandsPerResponse.toFixed(2)} commands/response, `;
      return (
        `${fmt.rate(m.rps)} req/s (paced at ${fmt.rate(runs[i]!.rate)}), p99 ${m.p99} ms, node CPU ${x.node.toFixed(0)} µs/response (net of idle ${x.nodeNet.toFixed(0)}; slices ${sliceText(i)}), ` +
        `${redisText}${m.non2xx} non-2xx, ${m.errors} errors`
      );
    };
    const shardText =
      `3 shards, ${customerCount.toLocaleString('en-US')} customers: keys ${keys[1]!.map((k) => k.toLocaleString('en-US')).join(' / ')} (max/mean ${fmt.x(keySpread)}; 1 shard ${keys[0]![0]!.toLocaleString('en-US')} = ${(keys[0]![0]! / customerCount).toFixed(1)} per customer), ` +
      `commands ${paced[1]!.commands.map((c) => c.toLocaleString('en-US')).join(' / ')} (max/mean ${fmt.x(opsSpread)}), CPU max/mean ${fmt.x(cpuSpread)}`;
    // Issue 38, goal 2: the node on the cluster against the same node on one Redis and on SQLite, net of idle.
    const vs = (base: number) => `1 shard ${fmt.x(w[0]!.nodeNet / w[base]!.nodeNet)}, 3 shards ${fmt.x(w[1]!.nodeNet / w[base]!.nodeNet)}`;
    const goalText =
      `node CPU per response on the cluster / single Redis: ${vs(3)} (goal ≤ 1.10×, issue 38); cluster / SQLite: ${vs(4)} (goal ≤ 2.00×, issue 38); ` +
      `single Redis / SQLite ${fmt.x(w[3]!.nodeNet / w[4]!.nodeNet)}`;
    const size = `${customerCount.toLocaleString('en-US')} customers, ${connections} connections, ${duration} s each in ${rounds} interleaved slices, ${companies.toLocaleString('en-US')} companies`;
    console.log(runs.map((r, i) => `   ${r.label.padEnd(19)} ${describe(i)}`).join('\n'));
    console.log(`   ${FSYNC_NOTE}\n   ${goalText}\n   ${shardText}`);
    for (const t of targets)
      console.log(
        `   answers (${t.name === 'sqlite' || t.name === 'single' ? t.name : `${t.name}-shard`} node): ${statuses(join(work, `node-${t.name}.log`))}`,
      );
    record({
      benchmark: `cluster: identification token mode (4/5) + enrichment (1/5) over ${size}; one node (production bundle) on a 1-primary vs a 3-primary Redis Cluster (1 replica each, AOF everysec), paced at ${MODEL.utilisation * 100}% of the 1-shard saturation; the same node on a single Redis (deploy/redis.conf, AOF always) and on SQLite at that rate`,
      figures: `${runs.map((r, i) => `${r.label} ${describe(i)}`).join('; ')}; ${FSYNC_NOTE}; busiest of 3 primaries ${(w[1]!.busiestShare * 100).toFixed(0)}% of their CPU; ${shardText}; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
      ratio:
        `${goalText}; ` +
        `Redis CPU per response 3 shards/1 shard ${fmt.x(w[1]!.redisNet / w[0]!.redisNet)}, busiest shard/1 shard ${fmt.x((w[1]!.redisNet * w[1]!.busiestShare) / w[0]!.redisNet)}, 1 shard/single Redis ${fmt.x(w[0]!.redisNet / w[3]!.redisNet)}; ` +
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
    for (const s of redisSets) closeRedisSet(s);
    for (const n of nodes) await n.stop();
    for (const c of clusters) await c.close();
    for (const r of singles) {
      await r.process.stop();
      await r.process.closeLog();
    }
    rmSync(work, { recursive: true, force: true });
  }
}
