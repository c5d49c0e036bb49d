/**
 * HTTP load for the endpoint benchmarks: servers run as child processes started the same way
 * (`node --import tsx <script>`, one process each, same env), autocannon runs in this process.
 * On a 2-core machine that is one core for the server and one for the load generator.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort } from '../deploy/processes.ts';
import { fmt } from './results.ts';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  /** Mean response body bytes (from bytes read / responses, headers included). */
  bytesPerResponse: number;
  /**
   * CPU time the server process spent per response, µs (user + system, from /proc; NaN when unknown).
   * Unlike req/s it does not depend on whether the load generator kept the server busy.
   */
  cpuUsPerResponse: number;
  /** What LoadTarget `counters` grew by over the measured slices (loadInterleaved). */
  counted?: Record<string, number>;
}

export interface RunningProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx <script> ...args` (a `.js` script, e.g. the production bundle: plain `node`) with PORT set and waits until `readyPath` answers.
 * `nodeArgs` go before the script (e.g. --cpu-prof). Its stderr is kept for errors; stdout is appended to
 * `stdoutFile` when given (as `npm start >> FILE`), else dropped (/dev/null). `cwd` is the folder it runs in
 * (`script` is relative to it): this repository unless given (bench/routing.ts runs an older commit's tree).
 */
export async function startProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
  readyPath = '/',
  nodeArgs: string[] = [],
  stdoutFile?: string,
  cwd = ROOT,
): Promise<RunningProcess> {
  const port = await freePort();
  const out = stdoutFile === undefined ? 'ignore' : openSync(stdoutFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [...nodeArgs, ...(script.endsWith('.js') ? [] : ['--import', 'tsx']), script, ...args], {
      cwd,
      env: { ...process.env, NODE_ENV: 'production', ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', out, 'pipe'],
    });
  } finally {
    // The child has its own copy of the descriptor.
    if (typeof out === 'number') closeSync(out);
  }
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}:\n${stderr}`);
    try {
      await fetch(url + readyPath);
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${script} did not answer on ${url} within 60 s:\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface LoadOptions {
  connections?: number;
  /** Seconds measured. */
  duration?: number;
  /** Seconds of unmeasured load first (JIT, caches). */
  warmup?: number;
}

export const LOAD_DEFAULTS = { connections: 50, duration: 10, warmup: 3 };

export async function load(url: string, requests: LoadRequest[], opts: LoadOptions = {}): Promise<LoadResult> {
  const { connections, duration, warmup } = { ...LOAD_DEFAULTS, ...opts };
  const reqs = toAutocannon(requests);
  if (warmup > 0) await run(url, reqs, connections, warmup);
  return summarise([await run(url, reqs, connections, duration)]);
}

export interface LoadTarget {
  name: string;
  url: string;
  requests: LoadRequest[];
  /** The server process, for its CPU time per response (single-process servers). */
  pid?: number;
  /** Several server processes (nodes of a cluster): their CPU time is summed. */
  pids?: number[];
  /**
   * Running totals read before and after each of this target's measured slices (not its warm-up, not
   * the other targets' slices), e.g. the CPU seconds of the redis-server serving it alone: the result's
   * `counted` holds what each grew by over the slices.
   */
  counters?: Record<string, () => number | Promise<number>>;
}

/** CPU seconds (user + system) a process has used so far, or NaN (no /proc). */
export function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
const CLOCK_TICKS = 100;

/**
 * Loads every target in turn, `rounds` times, `duration / rounds` seconds each (after one warm-up slice
 * each): on a shared machine, load from elsewhere then weighs on every target alike, so the ratios
 * between targets hold even when the absolute figures drift. Per target: req/s over all its slices,
 * median of the slices' p50 and p99.
 */
export async function loadInterleaved(targets: LoadTarget[], opts: LoadOptions & { rounds?: number } = {}): Promise<Map<string, LoadResult>> {
  const { connections, duration, warmup } = { ...LOAD_DEFAULTS, ...opts };
  const rounds = opts.rounds ?? 3;
  const slices = new Map<string, autocannon.Result[]>(targets.map((t) => [t.name, []]));
  const cpu = new Map<string, number>(targets.map((t) => [t.name, 0]));
  const counted = new Map<string, Record<string, number>>(targets.map((t) => [t.name, Object.fromEntries(Object.keys(t.counters ?? {}).map((k) => [k, 0]))]));
  const readCounters = async (t: LoadTarget) =>
    Object.fromEntries(await Promise.all(Object.entries(t.counters ?? {}).map(async ([k, read]) => [k, await read()] as const)));
  const reqs = new Map(targets.map((t) => [t.name, toAutocannon(t.requests)]));
  if (warmup > 0) for (const t of targets) await run(t.url, reqs.get(t.name)!, connections, warmup);
  for (let round = 0; round < rounds; round++) {
    for (const t of targets) {
      const pids = t.pids ?? (t.pid ? [t.pid] : []);
      const used = () => (pids.length > 0 ? pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) : NaN);
      const countersBefore = await readCounters(t);
      const before = used();
      slices.get(t.name)!.push(await run(t.url, reqs.get(t.name)!, connections, duration / rounds));
      cpu.set(t.name, cpu.get(t.name)! + used() - before);
      const countersAfter = await readCounters(t);
      const sums = counted.get(t.name)!;
      for (const k of Object.keys(sums)) sums[k]! += countersAfter[k]! - countersBefore[k]!;
    }
  }
  return new Map(
    [...slices].map(([name, results]) => {
      const r = summarise(results);
      return [name, { ...r, cpuUsPerResponse: (cpu.get(name)! * 1e6) / r.total, counted: counted.get(name)! }];
    }),
  );
}

function toAutocannon(requests: LoadRequest[]): autocannon.Request[] {
  return requests.map((r) => ({ method: r.method ?? 'GET', path: r.path, headers: r.headers, body: r.body }));
}

function summarise(results: autocannon.Result[]): LoadResult {
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  const seconds = results.reduce((n, r) => n + r.duration, 0);
  return {
    rps: total / seconds,
    p50: med(results.map((r) => r.latency.p50)),
    p99: med(results.map((r) => r.latency.p99)),
    total,
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    bytesPerResponse: total > 0 ? results.reduce((n, r) => n + r.throughput.total, 0) / total : 0,
    cpuUsPerResponse: NaN,
  };
}

function run(url: string, requests: autocannon.Request[], connections: number, duration: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections, duration, requests, pipelining: 1 }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

export function describeLoad(r: LoadResult): string {
  const bad = r.non2xx + r.errors > 0 ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : '';
  const cpu = Number.isFinite(r.cpuUsPerResponse) ? `, server CPU ${r.cpuUsPerResponse.toFixed(0)} µs/response` : '';
  return `${fmt.rate(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${cpu}${bad}`;
}
