/**
 * Routing benchmark: the HTTP layer of the working tree (one route table on find-my-way, server/http/router.ts
 * and server/http/run-route.ts, since commit 5653d3f) against the code before it, measured in the same run.
 * REF defaults to `daf43d7`, the commit before the route table (Express router + the hand-written fast lane).
 *
 * The REF tree is materialised in a temp folder (`git archive REF | tar -x`) with this repository's
 * node_modules symlinked into it (the working tree's dependencies are a superset), and dist/ when built (the
 * tag and console assets, SVC_DIST: both servers see the same files); it is removed at the end. Both servers
 * get the same generated bench data and a copy of one seeded state file (same customer, tokens and tags; the
 * SQLite schema did not change), run at once as `svc serve` in the default configuration (SVC_LOG=info, stdout to a file,
 * SVC_TRUST_PROXY=loopback, SVC_ADMIN_TOKEN), as bench/endpoints.ts starts the app, the REF one from its tree.
 * The same requests go to both, set by set, interleaved (loadInterleaved: both servers per set, so load from
 * elsewhere weighs on both alike):
 *   page views      POST /v1/events?tag=… (as bench/events.ts builds them)                       204
 *   admin reads     GET /admin/api/customers/<c>, /admin/api/tokens?customer=<c>, /admin/api/tags/<tag>,
 *                   in turn, with `Authorization: Bearer <admin token>`                            200
 *   identification  GET /v3/company/details, token mode and tag mode                              200
 *   enrichment      POST /v1/enrichment/company (firmographics), lead email mix                    200 or 404
 * Each set is checked on both servers for its status before it is loaded. The figure to read is the server
 * CPU per response (µs, user + system from /proc), before and after, its difference and ratio.
 *
 *   npm run bench -- routing [--against REF] [--duration S] [--companies N] [--connections N]
 *       REF: a commit (default daf43d7); --duration: seconds measured per set and server (default 6,
 *       after a 3 s warm-up each)
 */
import { execFileSync, execSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN } from './admin-api.ts';
import {
  type BenchData,
  type BenchState,
  emailMix,
  enrichmentRequests,
  ensureBenchData,
  identificationRequests,
  ipMix,
  runFolder,
  seedBenchState,
} from './bench-data.ts';
import { describeLoad, type LoadRequest, type LoadResult, loadInterleaved, ROOT, type RunningProcess, startProcess } from './http-load.ts';
import { fmt, record, revision } from './results.ts';

/** The commit before the route table (5653d3f): Express router and the fast lane. */
export const DEFAULT_REF = 'daf43d7';
const CLI = 'server/cli/main.ts';
/** As bench/events.ts: the pages of the beacons. */
const PATHS = ['/', '/pricing', '/product', '/blog/first-party-data?utm_source=news', '/contact'];

interface RequestSet {
  name: string;
  /** What the requests are, for the printed figures and the RESULTS.md row. */
  what: string;
  requests: LoadRequest[];
  /** Statuses every request of the set may answer (checked on both servers before loading). */
  expect: number[];
}

interface RunningServer extends RunningProcess {
  logFile: string;
}

/**
 * `svc serve` from the tree `cwd`, configured as startApp (bench/endpoints.ts) configures it, but through tsx:
 * both trees alike, since the REF tree has no production bundle of its own (its dist/ is this repository's).
 * Its log file beside the state.
 */
async function startServer(cwd: string, data: BenchData, state: BenchState, label: string): Promise<RunningServer> {
  const logFile = join(dirname(state.file), `app-${label}.log`);
  const p = await startProcess(
    CLI,
    ['serve'],
    { SVC_DATA: data.data, SVC_STATE: state.file, SVC_LOG: 'info', SVC_TRUST_PROXY: 'loopback', SVC_ADMIN_TOKEN: ADMIN_TOKEN },
    '/health-of-bench',
    [],
    logFile,
    cwd,
  );
  return { ...p, logFile };
}

/** Linked from this repository into the REF tree: the dependencies, and the built assets (SVC_DIST) when built. */
const LINKED = ['node_modules', 'dist'];

/** The REF tree in a temp folder, with this repository's node_modules (and dist/, when built) linked in. */
function materialise(ref: string, parent: string): string {
  const tree = mkdtempSync(join(parent, 'tree-'));
  execSync(`git -C ${JSON.stringify(ROOT)} archive ${ref} | tar -x -C ${JSON.stringify(tree)}`, { stdio: ['ignore', 'ignore', 'inherit'] });
  for (const name of LINKED) if (existsSync(join(ROOT, name)) && !existsSync(join(tree, name))) symlinkSync(join(ROOT, name), join(tree, name), 'dir');
  return tree;
}

/** The links first, so removing the tree never reaches into this repository's folders. */
function removeTree(tree: string): void {
  for (const name of LINKED) if (lstatSync(join(tree, name), { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(join(tree, name));
  rmSync(tree, { recursive: true, force: true });
}

function requestSets(data: BenchData, state: BenchState): RequestSet[] {
  const ips = ipMix(data);
  const tagLookups = identificationRequests(state, ips, 'tag');
  const pageViews: LoadRequest[] = tagLookups.map((r, i) => ({
    method: 'POST',
    path: r.path.replace('/v3/company/details', '/v1/events'),
    headers: { ...r.headers, 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({ type: 'pageview', path: PATHS[i % PATHS.length], referrer: 'news.example', session: `bench-session-${i % 5000}` }),
  }));
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const customer = encodeURIComponent(state.customer);
  const adminReads: LoadRequest[] = Array.from({ length: 600 }, (_, i) => ({
    path: [
      `/admin/api/customers/${customer}`,
      `/admin/api/tokens?customer=${customer}`,
      `/admin/api/tags/${encodeURIComponent(state.tags[Math.floor(i / 3) % state.tags.length])}`,
    ][i % 3],
    headers: admin,
  }));
  return [
    { name: 'page views', what: 'POST /v1/events?tag=…', requests: pageViews, expect: [204] },
    {
      name: 'admin reads',
      what: 'GET /admin/api/customers/<customer>, /admin/api/tokens?customer=<customer>, /admin/api/tags/<tag> in turn',
      requests: adminReads,
      expect: [200],
    },
    {
      name: 'identification, token mode',
      what: 'GET /v3/company/details?ip=…',
      requests: identificationRequests(state, ips, 'token'),
      expect: [200],
    },
    { name: 'identification, tag mode', what: 'GET /v3/company/details?tag=…', requests: tagLookups, expect: [200] },
    {
      name: 'enrichment, firmographics',
      what: 'POST /v1/enrichment/company',
      requests: enrichmentRequests(state.tokens.firmographics, '/v1/enrichment/company', emailMix(data)),
      expect: [200, 404],
    },
  ];
}

/** Sends the first `n` requests of a set; throws on a status the set should not answer. */
async function check(server: string, url: string, set: RequestSet, n = 30): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  for (const r of set.requests.slice(0, n)) {
    const res = await fetch(url + r.path, { method: r.method ?? 'GET', headers: r.headers, body: r.body });
    const text = await res.text();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (!set.expect.includes(res.status)) {
      throw new Error(`${server}: ${r.method ?? 'GET'} ${r.path} answered ${res.status} (expected ${set.expect.join(' or ')}): ${text.slice(0, 300)}`);
    }
  }
  return statuses;
}

const us = (n: number) => (Number.isFinite(n) ? `${n.toFixed(0)} µs` : 'n/a');
const signed = (n: number) => (Number.isFinite(n) ? `${n > 0 ? '+' : n < 0 ? '−' : '±'}${Math.abs(n).toFixed(0)} µs` : 'n/a');

export async function benchRouting(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { against: { type: 'string' }, duration: { type: 'string' }, companies: { type: 'string' }, connections: { type: 'string' } },
  });
  const against = values.against ?? DEFAULT_REF;
  const duration = Number(values.duration ?? 6);
  const companies = Number(values.companies ?? 20_000);
  const connections = Number(values.connections ?? 50);
  const ref = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', `${against}^{commit}`], { encoding: 'utf8' }).trim();
  const now = revision();

  const data = await ensureBenchData(companies);
  const work = runFolder('routing');
  const tree = materialise(ref, work);
  const state = await seedBenchState(data, join(work, 'state-after.db'));
  // Two servers never share a file: the REF one gets a copy (the same customer, tokens and tags).
  const refState = { ...state, file: join(work, 'state-before.db') };
  copyFileSync(state.file, refState.file);
  const sets = requestSets(data, state);

  const servers: RunningServer[] = [];
  try {
    const before = await startServer(tree, data, refState, 'before');
    servers.push(before);
    const after = await startServer(ROOT, data, state, 'after');
    servers.push(after);
    console.log(`routing: before = ${ref} (${against}, tree ${tree}), after = working tree (${now}); ${companies.toLocaleString('en-US')} companies`);
    for (const set of sets) {
      const b = await check(`before (${ref})`, before.url, set);
      const a = await check(`after (${now})`, after.url, set);
      console.log(`   ${set.name.padEnd(28)} statuses before ${JSON.stringify(b)}, after ${JSON.stringify(a)}`);
    }

    const results: [RequestSet, LoadResult, LoadResult][] = [];
    for (const set of sets) {
      const r = await loadInterleaved(
        [
          { name: 'before', url: before.url, requests: set.requests, pid: before.pid },
          { name: 'after', url: after.url, requests: set.requests, pid: after.pid },
        ],
        { duration, connections },
      );
      const b = r.get('before')!;
      const a = r.get('after')!;
      results.push([set, b, a]);
      console.log(`   ${set.name}: before ${describeLoad(b)}`);
      console.log(`   ${' '.repeat(set.name.length)}  after  ${describeLoad(a)}`);
    }

    console.log(`\nrouting, before ${ref} → after ${now} (${connections} connections, ${duration} s per set and server):`);
    console.log(
      `   ${'set'.padEnd(28)} ${'req/s before'.padStart(12)} ${'after'.padStart(8)}   ${'p99 before'.padStart(10)} ${'after'.padStart(6)}   ${'CPU/resp before'.padStart(15)} ${'after'.padStart(7)} ${'after−before'.padStart(12)} ${'after/before'.padStart(12)}`,
    );
    for (const [set, b, a] of results) {
      console.log(
        `   ${set.name.padEnd(28)} ${fmt.rate(b.rps).padStart(12)} ${fmt.rate(a.rps).padStart(8)}   ${`${b.p99} ms`.padStart(10)} ${`${a.p99} ms`.padStart(6)}   ${us(b.cpuUsPerResponse).padStart(15)} ${us(a.cpuUsPerResponse).padStart(7)} ${signed(a.cpuUsPerResponse - b.cpuUsPerResponse).padStart(12)} ${fmt.x(a.cpuUsPerResponse / b.cpuUsPerResponse).padStart(12)}`,
      );
    }

    for (const [set, b, a] of results) {
      record({
        benchmark: `routing: ${set.name} (${set.what}), before = ${ref} (${against}, before the route table) vs after = the working tree, servers interleaved (${connections} connections, ${duration} s each, ${companies.toLocaleString('en-US')} companies; both in the default configuration: SVC_LOG=info, stdout to a file)`,
        figures: `before (${ref}) ${describeLoad(b)}; after ${describeLoad(a)}`,
        ratio: `server CPU per response after − before ${signed(a.cpuUsPerResponse - b.cpuUsPerResponse)}, after/before ${fmt.x(a.cpuUsPerResponse / b.cpuUsPerResponse)}; req/s after/before ${fmt.x(a.rps / b.rps)}`,
      });
    }
  } finally {
    for (const s of servers) {
      await s.stop();
      rmSync(s.logFile, { force: true });
    }
    removeTree(tree);
  }
}
