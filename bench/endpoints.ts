/**
 * Endpoint benchmarks: autocannon (50 connections, 3 s warm-up, 10 s measured in 3 interleaved slices)
 * against the real server (`svc serve` from the production bundle, as `npm start` runs it, one process) and, in the same run and process setup, against a
 * bare Express 5 route and a raw `node:http` server answering the same bytes (bench/servers/). Data: generated sources built once
 * and cached (20,000 companies ≈ 100,000 networks by default); state: a fresh SQLite file per server.
 * The app runs in the default configuration, as `npm start > svc.log` would (SVC_LOG=info: a JSON line per
 * request on stdout, redirected to a file); identification and enrichment also load a second app process
 * with logs off (SVC_LOG=error) in the same run, so the server CPU per response shows what the line costs.
 *
 *   npm run bench -- identification [--companies N] [--duration S] [--workers N]
 *       GET /v3/company/details in token mode (?ip=, realistic IP mix) and in tag mode (allowed Origin,
 *       visitor address from X-Forwarded-For through a trusted loopback proxy)
 *   npm run bench -- enrichment [--companies N] [--duration S]
 *       POST /v1/enrichment/company (firmographics) and POST /v2/people/full (combined), lead email mix
 *   npm run bench -- workers [--duration S]
 *       identification in token mode, `serve --workers 1` against `serve --workers 2`
 */
import { copyFileSync, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildServer } from '../server/build.ts';
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
import { describeLoad, type LoadRequest, type LoadResult, loadInterleaved, type RunningProcess, startProcess } from './http-load.ts';
import { fmt, record } from './results.ts';

/**
 * What `npm start` runs: the production bundle (server/build.ts), built from the current sources once per
 * benchmark process. Not the sources through tsx: its loader and `keepNames` wrappers cost CPU on every
 * request (≈5 % of a tag-mode lookup, measured side by side) that no user pays.
 */
const CLI = 'dist/server/main.js';
let built: Promise<unknown> | undefined;

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { companies: { type: 'string' }, duration: { type: 'string' }, workers: { type: 'string' }, connections: { type: 'string' } },
  });
  return {
    companies: Number(values.companies ?? 20_000),
    duration: Number(values.duration ?? 10),
    workers: Number(values.workers ?? 0),
    connections: Number(values.connections ?? 50),
  };
}

type Options = ReturnType<typeof options>;

async function prepare(opts: Options, name: string): Promise<{ data: BenchData; state: BenchState; quietState: BenchState; work: string }> {
  const data = await ensureBenchData(opts.companies);
  const work = runFolder(name);
  const state = await seedBenchState(data, join(work, 'state.db'));
  // The logs-off server gets a state of its own (the same customer and tokens): two servers never share a file.
  const quietState = { ...state, file: join(work, 'state-logs-off.db') };
  copyFileSync(state.file, quietState.file);
  return { data, state, quietState, work };
}

export interface AppOptions {
  /** `serve --workers N` (0: one process). */
  workers?: number;
  /** SVC_LOG: `info` (the default configuration: a line per request) or `error` (the logs-off rows). */
  log?: 'info' | 'error';
}

export interface RunningApp extends RunningProcess {
  /** Bytes the server wrote to stdout (its log file), read when it stopped (so far, while it runs). */
  logBytes(): number;
}

let apps = 0;

/**
 * The real server as a user runs it: `node dist/server/main.js serve [--workers N]` in the default configuration (SVC_LOG=info,
 * a JSON line per request on stdout; not a terminal, so the logger's buffered JSON destination), stdout
 * redirected to a file beside the state file (`npm start > svc.log`), removed when the server stops.
 */
export async function startApp(data: BenchData, state: BenchState, opts: AppOptions = {}): Promise<RunningApp> {
  const workers = opts.workers ?? 0;
  await (built ??= buildServer());
  const logFile = join(dirname(state.file), `app-${process.pid}-${++apps}.log`);
  const p = await startProcess(
    CLI,
    workers > 0 ? ['serve', '--workers', String(workers)] : ['serve'],
    {
      SVC_DATA: data.data,
      SVC_STATE: state.file,
      SVC_JOBS_DIR: join(dirname(state.file), 'jobs'),
      SVC_LOG: opts.log ?? 'info',
      SVC_TRUST_PROXY: 'loopback',
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    },
    '/health-of-bench',
    [],
    logFile,
  );
  const size = () => (existsSync(logFile) ? statSync(logFile).size : 0);
  let bytes: number | undefined;
  return {
    ...p,
    logBytes: () => bytes ?? size(),
    async stop() {
      await p.stop();
      // Written at exit too: what was still buffered when the server stopped.
      bytes ??= size();
      rmSync(logFile, { force: true });
    },
  };
}

async function startBaselines(
  work: string,
  bodies: Record<string, unknown>,
): Promise<{ bare: () => Promise<RunningProcess>; raw: () => Promise<RunningProcess> }> {
  const file = join(work, 'bodies.json');
  writeFileSync(file, JSON.stringify(bodies));
  return {
    bare: () => startProcess('bench/servers/bare-express.ts', [], { BENCH_BODIES: file }, '/'),
    raw: () => startProcess('bench/servers/raw-http.ts', [], { BENCH_BODIES: file }, '/'),
  };
}

/** Starts the servers, loads them interleaved (bench/http-load.ts), stops them. */
async function measure(
  servers: Record<string, () => Promise<RunningProcess>>,
  runs: [name: string, server: string, requests: LoadRequest[]][],
  opts: Options,
): Promise<Map<string, LoadResult>> {
  const running = new Map<string, RunningProcess>();
  try {
    for (const [name, start] of Object.entries(servers)) running.set(name, await start());
    const results = await loadInterleaved(
      // CPU per response only for single-process servers (a cluster's work is in its workers).
      runs.map(([name, server, requests]) => ({
        name,
        url: running.get(server)!.url,
        requests,
        pid: opts.workers > 0 || server === 'one' || server === 'two' ? undefined : running.get(server)!.pid,
      })),
      { duration: opts.duration, connections: opts.connections },
    );
    for (const [name, r] of results) console.log(`   ${name.padEnd(34)} ${describeLoad(r)}`);
    return results;
  } finally {
    for (const [name, p] of running) {
      await p.stop();
      if ('logBytes' in p) console.log(`   ${name} wrote ${fmt.mib((p as RunningApp).logBytes())} to stdout (its log file)`);
    }
  }
}

/** One real answer and the mean body size over the first requests of a mix. */
async function sampleBodies(url: string, requests: LoadRequest[], n = 200): Promise<{ sample: unknown; meanBytes: number; statuses: Record<number, number> }> {
  let bytes = 0;
  let sample: unknown;
  let best = 0;
  const statuses: Record<number, number> = {};
  for (const r of requests.slice(0, n)) {
    const res = await fetch(url + r.path, { method: r.method ?? 'GET', headers: r.headers, body: r.body });
    const text = await res.text();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    bytes += Buffer.byteLength(text);
    // The baseline answers the largest 200 body of the mix (a Match, usually): never flatter ourselves.
    if (res.status === 200 && text.length > best) {
      best = text.length;
      sample = JSON.parse(text);
    }
  }
  return { sample, meanBytes: bytes / Math.min(n, requests.length), statuses };
}

const ratio = (a: LoadResult, b: LoadResult) => a.rps / b.rps;

export async function benchIdentification(args: string[]): Promise<void> {
  const opts = options(args);
  const { data, state, quietState, work } = await prepare(opts, 'identification');
  const ips = ipMix(data);
  const token = identificationRequests(state, ips, 'token');
  const tag = identificationRequests(state, ips, 'tag');

  const probe = await startApp(data, state);
  const tokenBodies = await sampleBodies(probe.url, token);
  const tagBodies = await sampleBodies(probe.url, tag);
  await probe.stop();
  const fixedBytes = Buffer.byteLength(JSON.stringify(tokenBodies.sample));
  console.log(
    `identification: ${ips.length} addresses; token-mode bodies ${tokenBodies.meanBytes.toFixed(0)} B mean (statuses ${JSON.stringify(tokenBodies.statuses)}), tag-mode ${tagBodies.meanBytes.toFixed(0)} B mean (statuses ${JSON.stringify(tagBodies.statuses)}); baselines answer ${fixedBytes} B`,
  );

  const baselines = await startBaselines(work, { 'GET /v3/company/details': tokenBodies.sample });
  const results = await measure(
    {
      app: () => startApp(data, state, { workers: opts.workers }),
      quiet: () => startApp(data, quietState, { workers: opts.workers, log: 'error' }),
      bare: baselines.bare,
      raw: baselines.raw,
    },
    // The baselines get the same requests as the app in each mode (tag requests carry more headers).
    (['token', 'tag'] as const).flatMap((mode) => {
      const requests = mode === 'token' ? token : tag;
      return [
        [`app, ${mode} mode`, 'app', requests],
        [`app logs off, ${mode} mode`, 'quiet', requests],
        [`bare Express, ${mode} requests`, 'bare', requests],
        [`raw node:http, ${mode} requests`, 'raw', requests],
      ] as [string, string, LoadRequest[]][];
    }),
    opts,
  );

  const workers = opts.workers > 0 ? `, serve --workers ${opts.workers}` : '';
  for (const mode of ['token', 'tag'] as const) {
    const r = results.get(`app, ${mode} mode`)!;
    const quiet = results.get(`app logs off, ${mode} mode`)!;
    const bare = results.get(`bare Express, ${mode} requests`)!;
    const raw = results.get(`raw node:http, ${mode} requests`)!;
    record({
      benchmark: `identification endpoint, ${mode} mode (GET /v3/company/details, ${opts.connections} connections, ${opts.duration} s, ${opts.companies.toLocaleString('en-US')} companies${workers}; app in the default configuration: SVC_LOG=info, stdout to a file)`,
      figures: `app ${describeLoad(r)}; app with logs off (SVC_LOG=error) ${describeLoad(quiet)}; bare Express ${describeLoad(bare)}; raw node:http ${describeLoad(raw)}; log line ${logLineCost(r, quiet)}; bodies ${(mode === 'token' ? tokenBodies : tagBodies).meanBytes.toFixed(0)} B mean, baselines ${fixedBytes} B`,
      ratio: `app/bare Express ${fmt.x(ratio(r, bare))}, app/raw node:http ${fmt.x(ratio(r, raw))}, bare/raw ${fmt.x(ratio(bare, raw))}; server CPU per response app/bare ${fmt.x(r.cpuUsPerResponse / bare.cpuUsPerResponse)}, logs on/off ${fmt.x(r.cpuUsPerResponse / quiet.cpuUsPerResponse)}`,
    });
  }
}

/** Server CPU per response with request lines on minus off (same run): what a request's log line costs. */
function logLineCost(on: LoadResult, off: LoadResult): string {
  const d = on.cpuUsPerResponse - off.cpuUsPerResponse;
  return Number.isFinite(d) ? `${d.toFixed(1)} µs/response (server CPU logs on − off)` : 'n/a (no per-process CPU)';
}

export async function benchEnrichment(args: string[]): Promise<void> {
  const opts = options(args);
  const { data, state, quietState, work } = await prepare(opts, 'enrichment');
  const emails = emailMix(data);
  const routes = [
    ['firmographics', '/v1/enrichment/company', state.tokens.firmographics],
    ['combined', '/v2/people/full', state.tokens.combined],
  ] as const;
  const requests = new Map(routes.map(([name, path, token]) => [name, enrichmentRequests(token, path, emails)]));

  const probe = await startApp(data, state);
  const bodies: Record<string, unknown> = {};
  const sizes = new Map<string, number>();
  for (const [name, path] of routes) {
    const s = await sampleBodies(probe.url, requests.get(name)!);
    bodies[`POST ${path}`] = s.sample;
    sizes.set(name, s.meanBytes);
    console.log(
      `${name}: bodies ${s.meanBytes.toFixed(0)} B mean (statuses ${JSON.stringify(s.statuses)}); baseline answers ${Buffer.byteLength(JSON.stringify(s.sample))} B`,
    );
  }
  await probe.stop();

  const baselines = await startBaselines(work, bodies);
  const results = await measure(
    { app: () => startApp(data, state), quiet: () => startApp(data, quietState, { log: 'error' }), bare: baselines.bare, raw: baselines.raw },
    (['app', 'quiet', 'bare', 'raw'] as const).flatMap((server) =>
      routes.map(([name]) => [`${server}, ${name}`, server, requests.get(name)!] as [string, string, LoadRequest[]]),
    ),
    opts,
  );
  for (const [name, path] of routes) {
    const a = results.get(`app, ${name}`)!;
    const q = results.get(`quiet, ${name}`)!;
    const b = results.get(`bare, ${name}`)!;
    const r = results.get(`raw, ${name}`)!;
    record({
      benchmark: `enrichment endpoint, ${name} (POST ${path}, ${opts.connections} connections, ${opts.duration} s, ${opts.companies.toLocaleString('en-US')} companies; app in the default configuration: SVC_LOG=info, stdout to a file)`,
      figures: `app ${describeLoad(a)}; app with logs off (SVC_LOG=error) ${describeLoad(q)}; bare Express ${describeLoad(b)}; raw node:http ${describeLoad(r)}; log line ${logLineCost(a, q)}; bodies ${sizes.get(name)!.toFixed(0)} B mean`,
      ratio: `app/bare Express ${fmt.x(ratio(a, b))}, app/raw node:http ${fmt.x(ratio(a, r))}; server CPU per response app/bare ${fmt.x(a.cpuUsPerResponse / b.cpuUsPerResponse)}, logs on/off ${fmt.x(a.cpuUsPerResponse / q.cpuUsPerResponse)}`,
    });
  }
}

export async function benchWorkers(args: string[]): Promise<void> {
  const opts = options(args);
  const { data, state } = await prepare(opts, 'workers');
  const token = identificationRequests(state, ipMix(data), 'token');
  const results = await measure(
    { one: () => startApp(data, state, { workers: 1 }), two: () => startApp(data, state, { workers: 2 }) },
    [
      ['serve --workers 1', 'one', token],
      ['serve --workers 2', 'two', token],
    ],
    opts,
  );
  const one = results.get('serve --workers 1')!;
  const two = results.get('serve --workers 2')!;
  record({
    benchmark: `workers: identification token mode, serve --workers 2 vs 1 (${opts.connections} connections, ${opts.duration} s; load generator on the same machine)`,
    figures: `1 worker ${describeLoad(one)}; 2 workers ${describeLoad(two)}`,
    ratio: `2 workers/1 worker ${fmt.x(ratio(two, one))}`,
  });
}
