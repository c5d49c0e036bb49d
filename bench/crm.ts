/**
 * `npm run bench -- crm [--accounts N] [--changed N] [--quick]`: the CRM sync (server/crm/sync.ts through
 * CrmSync, server/crm/service.ts) writing to the HubSpot stand-in (server/testing/hubspot-stand-in.ts, in a
 * process of its own: bench/servers/hubspot-stand-in.ts) through the real client (server/crm/hubspot.ts,
 * `@hubspot/api-client`) at HubSpot's private-app rate limit (100 requests per 10 s rolling, search 5 a
 * second: the stand-in's and the client's defaults). Real parts: a SQLite state file (openBackend), a catalog
 * built by `data build` from generated sources of N companies (default 100,000; `--quick` 5,000), one customer
 * (TEST_CUSTOMER's product and segments) whose N accounts each have a page view today. The CRM holds one
 * company record per domain, plus records no account has and a few domains held twice.
 *
 * Phases, each with its wall time, the requests made (the client's count and the stand-in's log), the floor
 * the rate limit sets, peak RSS / heap used (sampled every 250 ms) and heap used after a full GC at its end:
 * 1. the first (incremental) run: every account searched by domain, then written (its floor: the tighter of
 *    its requests at 10 a second and its searches at 5 a second);
 * 2. a full backfill right after: the matches of phase 1 are fresh, so it costs its writes — the issue's
 *    goal is within 10 % of N / 100 per call / 10 calls a second;
 * 3. `--changed` accounts (default 1,000) get a new page view, then an incremental run (goal ≤ 15 requests);
 * 4. a dry run of a full backfill (previewSync): the sync's own work, without writes or the limiter's waits.
 * Baseline in the same run: the floor itself, measured — as many batch updates as phase 2 sent (100 records
 * each, phase 2's bodies) by a bare loop through plain `fetch` with a minimal rolling-window limiter at the
 * same rate, to the same stand-in. Every phase starts with the stand-in's window empty (10.5 s of quiet).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import type { CrmRunRecord } from '../core/crm-records.ts';
import { CATALOG_FILE } from '../data/catalog/schema.ts';
import { normaliseDomain } from '../server/crm/domain.ts';
import { ConnectHubSpot } from '../server/crm/schema.ts';
import { CrmSync } from '../server/crm/service.ts';
import { CHUNK, previewSync, startSync } from '../server/crm/sync.ts';
import { openCatalog } from '../server/data/catalog.ts';
import { openBackend } from '../server/state/backend.ts';
import { TEST_CUSTOMER } from '../server/testing/fixtures.ts';
import { ensureBenchData, runFolder } from './bench-data.ts';
import { ROOT } from './http-load.ts';
import { fmt, record } from './results.ts';
import type { RequestSummary } from './servers/hubspot-stand-in.ts';

/** HubSpot's private-app limit, as the stand-in and the client default to it. */
const RATE = { requests: 100, perMs: 10_000 };
const SEARCH_RATE = { requests: 5, perMs: 1_000 };
const BATCH = 100;
const CUSTOMER = 'crm-bench';
/** CRM records of domains no account has; accounts whose domain the CRM holds twice (every DUPLICATE_EVERY-th). */
const UNMATCHED_RECORDS = 300;
const DUPLICATES = 20;
const PAGES = ['/', '/pricing', '/product', '/docs/getting-started', '/customers', '/blog/crm-sync'];
const OWNERS = Array.from({ length: 5 }, (_, i) => ({ id: String(200 + i), email: `rep${i}@bench-sales.test`, firstName: `Rep${i}`, lastName: 'Bench' }));

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const n = (x: number) => x.toLocaleString('en-US');

function option(args: string[], name: string): number | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} takes a positive whole number`);
  return v;
}

/** The stand-in's process, driven over IPC (bench/servers/hubspot-stand-in.ts). */
class StandInProcess {
  private next = 0;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private constructor(readonly child: ChildProcess) {
    child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(`stand-in: ${m.error}`));
      else w?.resolve(m.result);
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`the stand-in's process exited (${code})`));
      this.waiting.clear();
    });
  }
  static start(): StandInProcess {
    const child = fork(join(ROOT, 'bench/servers/hubspot-stand-in.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new StandInProcess(child);
  }
  call<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ id, op, ...args });
    });
  }
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 8000);
    await exited;
    clearTimeout(timer);
  }
}

// A full collection at the end of each phase, to tell what a phase keeps from what it left for the collector.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/**
 * Peak RSS and heap used while a phase runs (process.memoryUsage() every 250 ms, and at both ends), and the
 * heap used after a full collection at its end (`kept`: caches and state it leaves behind).
 */
function memorySampler() {
  const start = process.memoryUsage();
  let rss = start.rss;
  let heap = start.heapUsed;
  const sample = () => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  };
  const timer = setInterval(sample, 250);
  return {
    stop() {
      sample();
      clearInterval(timer);
      collect();
      return { startRss: start.rss, startHeap: start.heapUsed, rss, heap, kept: process.memoryUsage().heapUsed };
    },
  };
}

interface Phase {
  name: string;
  ms: number;
  /** The client's requests() (the run record's count). */
  client: number;
  log: RequestSummary;
  mem: ReturnType<ReturnType<typeof memorySampler>['stop']>;
  run: CrmRunRecord;
}

/** What the rate limit alone allows `requests` to take: requests / (100 per 10 s). */
const floorMs = (requests: number) => (requests * RATE.perMs) / RATE.requests;
/** What the search limit alone allows `searches` to take: searches / (5 a second). */
const searchFloorMs = (searches: number) => (searches * SEARCH_RATE.perMs) / SEARCH_RATE.requests;
/** A phase's floor: the tighter of the two limits. */
const phaseFloorMs = (l: RequestSummary) => Math.max(floorMs(l.requests), searchFloorMs(l.searches));

function describePhase(p: Phase): string {
  const c = p.run.counts;
  const l = p.log;
  return (
    `${fmt.s(p.ms)}; requests: client ${n(p.client)}, stand-in ${n(l.requests)} (${n(l.searches)} searches, ${n(l.updates)} batch updates of ${n(l.updateRecords)} records` +
    `${l.partialUpdates > 0 ? `, ${n(l.partialUpdates)} of them under 100` : ''}, ${n(l.reads)} batch reads, ${n(l.other)} other; ${n(l.rateLimited)} answered 429, ${n(l.failed)} failed); ` +
    `floor at 10 requests/s ${fmt.s(floorMs(l.requests))} (${fmt.x(p.ms / floorMs(l.requests))})` +
    `${l.searches > 0 ? `, searches at 5/s ${fmt.s(searchFloorMs(l.searches))} (${fmt.x(p.ms / searchFloorMs(l.searches))})` : ''}; ` +
    `run ${p.run.status}: ${n(c.accounts)} accounts, ${n(c.matched)} matched, ${n(c.written)} written, ${n(c.unchanged)} unchanged, ${n(c.not_found)} not found, ${n(c.multiple_matches)} multiple; ` +
    `peak RSS ${fmt.mib(p.mem.rss)} (at start ${fmt.mib(p.mem.startRss)}), heap used ${fmt.mib(p.mem.heap)} (at start ${fmt.mib(p.mem.startHeap)}, after a full GC at the end ${fmt.mib(p.mem.kept)})`
  );
}

/**
 * The floor measured: `count` batch updates of phase 2's bodies' shape (100 inputs, its properties), one
 * after another through plain fetch, each waiting for a slot of a minimal rolling window (100 answered in
 * the last 10 s), to the same stand-in.
 */
async function bareFloor(url: string, token: string, count: number, sample: NonNullable<RequestSummary['sample']>, ids: string[]) {
  const answered: number[] = [];
  let rateLimited = 0;
  const t0 = performance.now();
  for (let k = 0; k < count; k++) {
    for (;;) {
      const now = performance.now();
      while (answered.length > 0 && answered[0]! <= now - RATE.perMs) answered.shift();
      if (answered.length < RATE.requests) break;
      await sleep(answered[0]! + RATE.perMs - now + 1);
    }
    const body = {
      inputs: Array.from({ length: BATCH }, (_, j) => ({
        id: ids[(k * BATCH + j) % ids.length]!,
        properties: sample.inputs[j % sample.inputs.length]!.properties,
      })),
    };
    const res = await fetch(`${url}/crm/v3/objects/companies/batch/update`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    answered.push(performance.now());
    if (res.status === 429) {
      rateLimited++;
      k--;
      await sleep(1000);
    } else if (res.status >= 300) throw new Error(`baseline batch update answered ${res.status}`);
  }
  return { ms: performance.now() - t0, rateLimited };
}

/** A deterministic pick of `k` distinct indices below `size`. */
function pick(k: number, size: number): number[] {
  let s = 12345;
  const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const chosen = new Set<number>();
  while (chosen.size < Math.min(k, size)) chosen.add(Math.floor(rnd() * size));
  return [...chosen];
}

export async function benchCrm(args: string[]): Promise<void> {
  const quick = args.includes('--quick');
  const accounts = option(args, '--accounts') ?? (quick ? 5_000 : 100_000);
  const changedWanted = option(args, '--changed') ?? 1_000;

  const data = await ensureBenchData(accounts, '1');
  const work = runFolder('crm');
  const companies = (() => {
    const db = new Database(join(data.data, CATALOG_FILE), { readonly: true });
    try {
      return db.prepare('SELECT company_id, domain FROM companies ORDER BY company_id').all() as { company_id: string; domain: string | null }[];
    } finally {
      db.close();
    }
  })();
  const invalid = companies.filter((c) => normaliseDomain(c.domain) === null).length;

  const backend = await openBackend({
    SVC_STATE: join(work, 'svc.db'),
    SVC_REDIS_URL: undefined,
    SVC_JOURNAL_DIR: join(work, 'journal'),
    SVC_OUTAGE_ALLOWANCE: 100,
  });
  const catalog = openCatalog(join(data.data, CATALOG_FILE));
  const standIn = StandInProcess.start();
  try {
    await backend.state.importCustomer({ ...TEST_CUSTOMER, id: CUSTOMER, name: 'CRM bench', tags: [], excluded_accounts: [], hot_accounts: [] });

    // Every account visits today: one page view each, 1,000 at a time (each is one SQLite transaction).
    const day = new Date().toISOString().slice(0, 10);
    const view = (company_id: string, i: number, path: string) => ({
      customer_id: CUSTOMER,
      day,
      company_id,
      path,
      session_id: `bench-${i}`,
      at: new Date().toISOString(),
    });
    let t0 = performance.now();
    for (let i = 0; i < companies.length; i += 1000)
      await Promise.all(companies.slice(i, i + 1000).map((c, j) => backend.visits.recordPageView(view(c.company_id, i + j, PAGES[(i + j) % PAGES.length]!))));
    console.log(`page views: ${n(companies.length)} accounts recorded in ${fmt.s(performance.now() - t0)}`);

    // The CRM: one record per domain (a third saved as a URL, as people type websites), owners and stages,
    // a few domains held twice, and records of domains no account has.
    const { url, token } = await standIn.call<{ url: string; token: string }>('start', { owners: OWNERS });
    const records: Record<string, string | null>[] = [];
    const duplicateEvery = Math.max(1, Math.floor(companies.length / DUPLICATES));
    companies.forEach((c, i) => {
      if (!c.domain) return;
      const props = {
        name: `Company ${c.company_id}`,
        domain: i % 3 === 1 ? `https://www.${c.domain}/` : c.domain,
        hubspot_owner_id: OWNERS[i % OWNERS.length]!.id,
        lifecyclestage: i % 4 === 0 ? 'customer' : 'lead',
      };
      records.push(props);
      if (i % duplicateEvery === duplicateEvery - 1) records.push({ ...props, name: `${props.name} (duplicate)` });
    });
    for (let i = 0; i < UNMATCHED_RECORDS; i++)
      records.push({ name: `Elsewhere ${i}`, domain: `elsewhere-${i}.example`, hubspot_owner_id: OWNERS[0]!.id, lifecyclestage: 'lead' });
    let crmRecords = 0;
    for (let i = 0; i < records.length; i += 10_000)
      crmRecords = (await standIn.call<{ companies: number }>('seed', { records: records.slice(i, i + 10_000) })).companies;
    records.length = 0;
    console.log(`stand-in: ${url} (own process), ${n(crmRecords)} company records`);

    const sync = new CrmSync({
      crm: backend.crm,
      customers: backend.state,
      dataset: { current: { catalog } },
      recorder: { visits: backend.visits, reportError: (e) => console.error(`page views not read: ${(e as Error).message}`) },
      now: Date.now,
      leaseMs: 120_000,
      log: { info: () => {}, warn: (o, m) => console.error(`crm: ${m} ${JSON.stringify(o)}`) },
    });
    const customer = (await backend.state.getCustomer(CUSTOMER))!;
    let mark = await standIn.call<number>('mark');
    t0 = performance.now();
    const connected = await sync.connect(customer, 'hubspot', ConnectHubSpot.parse({ access_token: token, base_url: url }));
    const connectMs = performance.now() - t0;
    const connectLog = await standIn.call<RequestSummary>('summary', { from: mark });
    console.log(`connect: ${fmt.ms(connectMs)}, ${connectLog.requests} requests, ${connected.check.created_fields.length} properties and group created`);

    const phase = async (name: string, go: () => Promise<CrmRunRecord>): Promise<Phase> => {
      // The stand-in's rolling window empty: each phase gets the whole limit, as a run long after the last would.
      await sleep(RATE.perMs + 500);
      mark = await standIn.call<number>('mark');
      const mem = memorySampler();
      const started = performance.now();
      const run = await go();
      const ms = performance.now() - started;
      const p: Phase = { name, ms, client: run.counts.requests, log: await standIn.call<RequestSummary>('summary', { from: mark }), mem: mem.stop(), run };
      console.log(`${name}: ${describePhase(p)}`);
      return p;
    };
    const runOf = async (kind: 'incremental' | 'full') => (await startSync(sync.deps, CUSTOMER, 'hubspot', kind)).done;

    const first = await phase('1. first sync (incremental, never matched)', () => runOf('incremental'));
    const full = await phase('2. full backfill', () => runOf('full'));

    // The floor, measured: phase 2's batch updates again, by a bare loop.
    await sleep(RATE.perMs + 500);
    const ids = await standIn.call<string[]>('ids', { limit: accounts });
    mark = await standIn.call<number>('mark');
    const floor = await bareFloor(url, token, full.log.updates, full.log.sample!, ids);
    const floorLog = await standIn.call<RequestSummary>('summary', { from: mark });
    console.log(
      `baseline: ${n(floorLog.updates)} batch updates by plain fetch in ${fmt.s(floor.ms)} (${fmt.x(floor.ms / floorMs(floorLog.updates))} of ${fmt.s(floorMs(floorLog.updates))}), ${floor.rateLimited} answered 429`,
    );

    // Changed accounts: a new page view each, then an incremental run.
    const chosen = pick(changedWanted, companies.length);
    const changed = chosen.length;
    for (let i = 0; i < chosen.length; i += 1000)
      await Promise.all(chosen.slice(i, i + 1000).map((k) => backend.visits.recordPageView(view(companies[k]!.company_id, k, '/pricing/changed'))));
    // The run drains pending accounts in company id order, CHUNK at a time: the chunks the changed ones fall in.
    const order = companies.map((c) => c.company_id).sort();
    const position = new Map(order.map((id, i) => [id, i]));
    const chunksHit = new Set(chosen.map((k) => Math.floor(position.get(companies[k]!.company_id)! / CHUNK.hubspot))).size;
    const incremental = await phase(`3. ${n(changed)} changed accounts, incremental`, () => runOf('incremental'));
    const dry = await phase('4. dry run of a full backfill (previewSync)', async () => (await previewSync(sync.deps, CUSTOMER, 'hubspot', 'full')).run);
    const standInRss = await standIn.call<number>('memory');

    const goalMs = (accounts / BATCH) * (RATE.perMs / RATE.requests);
    console.log(
      `\nchanged accounts fall in ${n(chunksHit)} of ${n(Math.ceil(accounts / CHUNK.hubspot))} chunks of ${CHUNK.hubspot}; stand-in RSS at the end ${fmt.mib(standInRss)}; ` +
        `${n(invalid)} accounts with an invalid domain`,
    );
    const short = (p: Phase) =>
      `${fmt.s(p.ms)}, ${n(p.log.requests)} requests (client ${n(p.client)}: ${n(p.log.searches)} searches, ${n(p.log.updates)} updates, ${n(p.log.reads)} reads, ${n(p.log.other)} other; ${n(p.log.rateLimited)} × 429), ` +
      `${n(p.run.counts.written)} written, peak RSS ${fmt.mib(p.mem.rss)}, heap ${fmt.mib(p.mem.heap)} (${fmt.mib(p.mem.kept)} after GC)`;
    record({
      benchmark: `CRM sync to the HubSpot stand-in (own process, 100 req/10 s, search 5/s), ${n(accounts)} accounts with a page view today, ${n(crmRecords)} CRM records (${DUPLICATES} domains twice, ${UNMATCHED_RECORDS} unmatched); SQLite state; sync through tsx`,
      figures:
        `1. first incremental: ${short(first)}; 2. full: ${short(full)}; 3. ${n(changed)} changed (in ${n(chunksHit)} chunks), incremental: ${short(incremental)}; ` +
        `4. full dry run: ${short(dry)}; baseline: ${n(floorLog.updates)} bare batch updates ${fmt.s(floor.ms)}; connect ${connectLog.requests} requests`,
      ratio:
        `full/floor of ${fmt.s(goalMs)} (goal ≤ 1.10) ${fmt.x(full.ms / goalMs)}, full/bare loop ${fmt.x(full.ms / floor.ms)}, bare loop/its ${fmt.s(floorMs(floorLog.updates))} ${fmt.x(floor.ms / floorMs(floorLog.updates))}; ` +
        `first/its floor (${n(first.log.requests)} requests at 10/s: ${fmt.s(floorMs(first.log.requests))}) ${fmt.x(first.ms / floorMs(first.log.requests))}, ` +
        `/its search floor (${n(first.log.searches)} at 5/s: ${fmt.s(searchFloorMs(first.log.searches))}) ${fmt.x(first.ms / searchFloorMs(first.log.searches))}; ` +
        `changed run ${n(incremental.log.requests)} requests (goal ≤ 15), ${fmt.x(incremental.ms / phaseFloorMs(incremental.log))} of its floor`,
    });
  } finally {
    await standIn.stop();
    catalog.close();
    await backend.close();
  }
}
