/**
 * `npm run bench -- webhooks [--deliveries N] [--runs N] [--backends sqlite,redis] [--against DIR,…] [--cpu-prof]`:
 * webhook deliveries per second of one node (`node dist/server/main.js serve`, the production bundle built
 * at the start of the run, default configuration plus SVC_WEBHOOK_ALLOW_PRIVATE=1 for the loopback
 * receiver) to a fast receiver (bench/servers/webhook-receiver.ts: bare node:http in its own process,
 * answering 200 at once), on each state backend: a SQLite file, and a redis-server started here on a
 * random port with deploy/redis.conf (AOF, appendfsync always).
 *
 * 1. Drain: the outbox is filled before the node starts — 19 JSON endpoints of the bench customer (the
 *    hardening burst's shape, server/webhooks/burst.test.ts), `--deliveries` events (default 20,000)
 *    planned by the real planner from page views of made-up accounts (account.visited + account.hot × 2)
 *    — then the node starts and its own poll delivers. Deliveries/s and the node's CPU (/proc) per
 *    delivery are read between 10 % and 90 % of the backlog received (the node's start and the tail left
 *    out); redis-server's CPU per delivery beside it.
 * 2. Burst: 19 endpoints × 240 page views (80 companies × `/`, `/pricing`, `/pricing/b`, all at once
 *    through `POST /v1/events?tag=…`, visitors from company networks): the time from the first page view
 *    sent to the 4,560th delivery received (the node's poll interval, 1 s by default, included).
 *
 * Baseline in the same run: the floor, a bare loop in this process (MAX_IN_FLIGHT at once) of
 * `fetch` POSTs of the same bodies with the same headers (signature computed per POST) to the same
 * receiver; its rate and this process's CPU per POST. `--against DIR[,DIR…]`: also runs each DIR's
 * dist/server/main.js (a built checkout, e.g. a git worktree of HEAD) the same way, interleaved with this
 * tree's, for A/B rows.
 * `--cpu-prof`: this tree's node runs under the V8 profiler (profiles in a folder printed at the end).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readCustomersFile } from '../data/sources/read.ts';
import { buildServer } from '../server/build.ts';
import { RedisWebhookStore } from '../server/state/outbox/redis.ts';
import { SqliteWebhookStore } from '../server/state/outbox/sqlite.ts';
import { MAX_IN_FLIGHT, USER_AGENT } from '../server/webhooks/service.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from '../server/webhooks/signature.ts';
import { BENCH_ORIGIN, type BenchData, BROWSER_UA, ensureBenchData, runFolder, TAG_COUNT } from './bench-data.ts';
import { cpuSeconds, ROOT, type RunningProcess, startProcess } from './http-load.ts';
import { startRedis } from './redis-server.ts';
import { fmt, record } from './results.ts';
import { backlog, companyIps, ENDPOINTS, fillOutbox, PATHS } from './webhook-backlog.ts';

/**
 * This tree's production bundle, built by the run into a folder of its own (removed at exit): dist/server
 * is rebuilt by whoever runs `npm run build` meanwhile, and a node started later would run their bundle.
 * An `--against` tree runs its own dist/server/main.js.
 */
const OWN_BUNDLE = join('var', `bench-webhooks-${process.pid}`);
const ADMIN_TOKEN = 'bench-admin-token-0123456789';
const BURST_COMPANIES = 80;
/** The floor's concurrency: what one node has in flight at most (server/webhooks/service.ts MAX_IN_FLIGHT). */
const FLOOR_CONCURRENCY = MAX_IN_FLIGHT;
/** A drain or burst that receives nothing for this long has stalled: reported, not waited on forever. */
const STALL_MS = 30_000;

type Backend = 'sqlite' | 'redis';
interface Tree {
  name: string;
  cwd: string;
  /** Its bundle, relative to `cwd`. */
  cli: string;
}

interface Drain {
  rate: number;
  nodeUs: number;
  redisUs: number;
  /** First delivery to the last, ms. */
  totalMs: number;
  received: number;
  distinct: number;
  burstMs: number;
  burstReceived: number;
  load: [number, number];
}

interface Floor {
  rate: number;
  cpuUs: number;
}

const load1 = () => loadavg()[0];

export async function benchWebhooks(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      deliveries: { type: 'string' },
      runs: { type: 'string' },
      backends: { type: 'string' },
      against: { type: 'string' },
      companies: { type: 'string' },
      'cpu-prof': { type: 'boolean' },
    },
  });
  const deliveries = Number(values.deliveries ?? 20_000);
  const runs = Number(values.runs ?? 1);
  const backends = (values.backends ?? 'sqlite,redis').split(',') as Backend[];
  const data = await ensureBenchData(Number(values.companies ?? 20_000));
  await buildServer(join(ROOT, OWN_BUNDLE));
  process.once('exit', () => rmSync(join(ROOT, OWN_BUNDLE), { recursive: true, force: true }));
  const work = runFolder('webhooks');
  const profDir = values['cpu-prof'] ? join(tmpdir(), 'svc-bench', `profiles-webhooks-${Date.now()}`) : null;
  if (profDir) mkdirSync(profDir, { recursive: true });
  const trees: Tree[] = [
    ...(values.against ?? '')
      .split(',')
      .filter(Boolean)
      .map((dir) => ({ name: `against ${dir}`, cwd: resolve(dir), cli: 'dist/server/main.js' })),
    { name: 'this tree', cwd: ROOT, cli: join(OWN_BUNDLE, 'main.js') },
  ];
  const customer = readCustomersFile(join(data.sources, 'customers.json')).customers[0].id;
  const burstIps = companyIps(data, BURST_COMPANIES);
  const receiver = await startProcess('bench/servers/webhook-receiver.ts', [], {}, '/count');
  let n = 0;
  try {
    for (let run = 0; run < runs; run++) {
      for (const backend of backends) {
        // Alternate which tree goes first, so a drift in the machine's load weighs on both alike.
        const order = run % 2 === 0 ? trees : [...trees].reverse();
        const floor = await measureFloor(receiver, work, deliveries);
        for (const tree of order) {
          const dir = join(work, `${++n}-${backend}`);
          mkdirSync(dir, { recursive: true });
          const d = await measureDrain({ tree, backend, dir, data, receiver, deliveries, customer, burstIps, profDir: tree.cwd === ROOT ? profDir : null });
          const label = `${backend === 'sqlite' ? 'SQLite' : 'Redis'}${trees.length > 1 ? `, ${tree.name}` : ''}`;
          const redisText = backend === 'redis' ? `, redis-server ${d.redisUs.toFixed(0)} µs/delivery` : '';
          const dupes = d.received - d.distinct;
          record({
            benchmark: `webhooks: one node delivering to a fast local receiver, ${label} (${deliveries.toLocaleString('en-US')} queued, ${ENDPOINTS} endpoints; burst ${ENDPOINTS} × ${BURST_COMPANIES * PATHS.length} page views)`,
            figures: `${fmt.rate(d.rate)} deliveries/s (10–90 % of the backlog), node CPU ${d.nodeUs.toFixed(0)} µs/delivery${redisText}; all ${d.received.toLocaleString('en-US')} in ${fmt.s(d.totalMs)}${dupes > 0 ? ` (${dupes} redelivered)` : ''}; burst of ${(ENDPOINTS * BURST_COMPANIES * PATHS.length).toLocaleString('en-US')} drained in ${fmt.s(d.burstMs)}${d.burstReceived < ENDPOINTS * BURST_COMPANIES * PATHS.length ? ` (only ${d.burstReceived} received)` : ''}; floor (bare fetch loop, ${FLOOR_CONCURRENCY} at once) ${fmt.rate(floor.rate)}/s at ${floor.cpuUs.toFixed(0)} µs/POST; load ${d.load[0].toFixed(2)} → ${d.load[1].toFixed(2)}`,
            ratio: `deliveries/s node/floor ${fmt.x(d.rate / floor.rate)}; CPU per delivery node/floor ${fmt.x(d.nodeUs / floor.cpuUs)}; goal ≥ 2,000/s ${d.rate >= 2000 ? 'met' : 'not met'}`,
          });
        }
      }
    }
    if (profDir) console.log(`CPU profiles of this tree's nodes: ${profDir}`);
  } finally {
    await receiver.stop();
  }
}

interface Receiver {
  count(): Promise<{ received: number; distinct: number }>;
  reset(): Promise<void>;
}

function receiverOf(p: RunningProcess): Receiver {
  return {
    count: async () => (await (await fetch(`${p.url}/count`)).json()) as { received: number; distinct: number },
    reset: async () => {
      await fetch(`${p.url}/reset`, { method: 'POST' });
    },
  };
}

async function measureFloor(p: RunningProcess, work: string, deliveries: number): Promise<Floor> {
  if (backlog().length === 0) {
    // No backlog yet: plan one on a scratch SQLite outbox for its bodies.
    const store = new SqliteWebhookStore(join(work, 'floor-bodies.db'));
    await fillOutbox(store, p.url, 'floor', deliveries);
    await store.close();
  }
  const receiver = receiverOf(p);
  await receiver.reset();
  const items = backlog();
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: FLOOR_CONCURRENCY }, async () => {
      while (next < items.length) {
        const item = items[next++];
        const res = await fetch(item.url, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/json',
            'user-agent': USER_AGENT,
            [SIGNATURE_HEADER]: signatureHeader(item.secret, item.body, Math.floor(Date.now() / 1000)),
            [EVENT_ID_HEADER]: item.eventId,
            'Svc-Delivery-Attempt': '1',
          },
          body: item.body,
        });
        await res.arrayBuffer();
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const floor = { rate: items.length / seconds, cpuUs: (cpu.user + cpu.system) / items.length };
  console.log(`   floor: ${fmt.rate(floor.rate)} POSTs/s, ${floor.cpuUs.toFixed(0)} µs CPU/POST (load ${load1().toFixed(2)})`);
  return floor;
}

async function measureDrain(o: {
  tree: Tree;
  backend: Backend;
  dir: string;
  data: BenchData;
  receiver: RunningProcess;
  deliveries: number;
  customer: string;
  burstIps: string[];
  profDir: string | null;
}): Promise<Drain> {
  const loadBefore = load1();
  const receiver = receiverOf(o.receiver);
  const redis = o.backend === 'redis' ? await startRedis(join(o.dir, 'redis')) : null;
  const stateFile = join(o.dir, 'state.db');
  const store = redis ? await RedisWebhookStore.open(redis.url) : new SqliteWebhookStore(stateFile);
  let node: RunningProcess | null = null;
  try {
    await fillOutbox(store, o.receiver.url, o.customer, o.deliveries);
    await store.close();
    const queued = backlog().length;
    await receiver.reset();
    node = await startProcess(
      o.tree.cli,
      ['serve'],
      {
        SVC_DATA: o.data.data,
        SVC_STATE: stateFile,
        SVC_LOG: 'info',
        SVC_TRUST_PROXY: 'loopback',
        SVC_ADMIN_TOKEN: ADMIN_TOKEN,
        SVC_WEBHOOK_ALLOW_PRIVATE: '1',
        SVC_JOBS_DIR: join(o.dir, 'jobs'),
        ...(redis ? { SVC_REDIS_URL: redis.url, SVC_JOURNAL_DIR: join(o.dir, 'journal') } : {}),
      },
      '/readyz',
      o.profDir ? ['--cpu-prof', `--cpu-prof-dir=${o.profDir}`] : [],
      join(o.dir, 'node.log'),
      o.tree.cwd,
    );
    const pid = node.pid;
    const redisPid = redis?.process.pid ?? 0;
    const samples = await follow(receiver, queued, () => [cpuSeconds(pid), redisPid ? cpuSeconds(redisPid) : 0]);
    const at = (share: number) => samples.find((s) => s.count >= share * queued) ?? samples[samples.length - 1];
    const a = at(0.1);
    const b = at(0.9);
    const counted = b.count - a.count;
    const first = samples.find((s) => s.count > 0) ?? a;
    const last = samples[samples.length - 1];
    const { received, distinct } = await receiver.count();

    // The burst, through the node's page-view path: the customer and its tags first.
    await seedCustomer(node.url, o.data);
    await receiver.reset();
    const expected = ENDPOINTS * o.burstIps.length * PATHS.length;
    const t0 = performance.now();
    const views = o.burstIps.flatMap((ip, c) => PATHS.map((path) => ({ ip, c, path })));
    await Promise.all(
      views.map(async ({ ip, c, path }) => {
        const res = await fetch(`${node!.url}/v1/events?tag=bench-tag-${c % TAG_COUNT}`, {
          method: 'POST',
          headers: {
            origin: BENCH_ORIGIN,
            referer: `${BENCH_ORIGIN}${path}`,
            'x-forwarded-for': ip,
            'user-agent': BROWSER_UA,
            'content-type': 'text/plain;charset=UTF-8',
          },
          body: JSON.stringify({ type: 'pageview', path, referrer: 'news.example', session: `burst-session-${c}` }),
        });
        if (res.status !== 204) throw new Error(`POST /v1/events answered ${res.status}: ${await res.text()}`);
      }),
    );
    const burst = await follow(receiver, expected, () => [0, 0]);
    const burstEnd = burst[burst.length - 1];
    const d: Drain = {
      rate: (counted * 1000) / (b.t - a.t),
      nodeUs: ((b.cpu[0] - a.cpu[0]) * 1e6) / counted,
      redisUs: ((b.cpu[1] - a.cpu[1]) * 1e6) / counted,
      totalMs: last.t - first.t,
      received,
      distinct,
      burstMs: burstEnd.t - t0,
      burstReceived: burstEnd.count,
      load: [loadBefore, load1()],
    };
    console.log(
      `   ${o.backend}, ${o.tree.name}: ${fmt.rate(d.rate)} deliveries/s, node ${d.nodeUs.toFixed(0)} µs/delivery${redis ? `, redis-server ${d.redisUs.toFixed(0)} µs` : ''}; burst ${fmt.s(d.burstMs)} (load ${d.load[0].toFixed(2)} → ${d.load[1].toFixed(2)})`,
    );
    return d;
  } finally {
    await node?.stop();
    if (redis) {
      await redis.process.stop();
      await redis.process.closeLog();
    }
  }
}

interface Sample {
  t: number;
  count: number;
  cpu: number[];
}

/** Reads the receiver's count every 20 ms until `expected` arrived or nothing did for STALL_MS. */
async function follow(receiver: Receiver, expected: number, cpu: () => number[]): Promise<Sample[]> {
  const samples: Sample[] = [];
  let lastChange = performance.now();
  for (;;) {
    const { received } = await receiver.count();
    const t = performance.now();
    if (samples.length === 0 || received !== samples[samples.length - 1].count) lastChange = t;
    samples.push({ t, count: received, cpu: cpu() });
    if (received >= expected) return samples;
    if (t - lastChange > STALL_MS) {
      console.log(`   stalled: ${received} of ${expected} received, nothing for ${STALL_MS / 1000} s`);
      return samples;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The bench customer with its tags (allowed on the bench origin), through the node's admin API. */
async function seedCustomer(url: string, data: BenchData): Promise<void> {
  const seed = readCustomersFile(join(data.sources, 'customers.json')).customers[0];
  // A busy machine may see a 503 (a state store deadline missed): tried again, as a client would.
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${url}/admin/api/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        ...seed,
        identification_credits: 1e12,
        enrichment_credits: 1e12,
        tags: Array.from({ length: TAG_COUNT }, (_, i) => ({ tag_id: `bench-tag-${i}`, allowed_domains: ['*.bench.example'] })),
      }),
    });
    if (res.ok) return;
    if (res.status !== 503 || attempt >= 5) throw new Error(`seeding the customer: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
