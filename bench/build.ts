/**
 * Data build at scale: `data generate --companies N` (default 1,000,000: about 5 million networks, with
 * people and domains in proportion), then `data build`, each as the CLI runs them, under /usr/bin/time -v
 * (wall time, CPU time, peak RSS), with the build's own split (networks.mmdb, people table, catalog);
 * networks.mmdb alone (bench/build-networks.ts); output sizes; then the server's cold start (spawn → first
 * answer) and RSS on the built folder. The load average is printed with the figures: the machine is shared.
 *
 * Baselines in the same run: for the build, reading the same source files as raw bytes (the I/O floor of
 * any build); for the cold start, the same server started on the small bench data (20,000 companies).
 *
 *   npm run bench -- build [--companies N] [--keep]     (--keep: reuse generated sources from an earlier run)
 */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildServer } from '../server/build.ts';
import { type BenchData, ensureBenchData, seedBenchState } from './bench-data.ts';
import { startApp } from './endpoints.ts';
import { ROOT } from './http-load.ts';
import { fmt, record } from './results.ts';

const TIME = '/usr/bin/time';

interface Measured {
  ms: number;
  /** Peak RSS in bytes (from /usr/bin/time -v), or NaN when it is not available. */
  peakRss: number;
  /** User + system CPU time in ms (from /usr/bin/time -v), or NaN: on a shared machine it moves less than the wall time. */
  cpuMs: number;
  stdout: string;
}

export async function benchBuild(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { companies: { type: 'string' }, keep: { type: 'boolean' } } });
  const companies = Number(values.companies ?? 1_000_000);
  const dir = join(tmpdir(), 'svc-bench', `build-${companies}`);
  const sources = join(dir, 'sources');
  const out = join(dir, 'out');
  mkdirSync(dir, { recursive: true });

  let generate: Measured | null = null;
  if (!(values.keep && existsSync(join(sources, 'customers.json')))) {
    rmSync(sources, { recursive: true, force: true });
    generate = await measured(['data', 'generate', '--out', sources, '--companies', String(companies), '--json']);
    console.log(`generate: ${fmt.s(generate.ms)}, peak RSS ${fmt.mib(generate.peakRss)}`);
  }
  const sourceBytes = readdirSync(sources).reduce((n, f) => n + statSync(join(sources, f)).size, 0);
  const floorMs = await readAll(sources);
  console.log(`sources: ${fmt.mib(sourceBytes)}; raw read ${fmt.s(floorMs)}`);

  rmSync(out, { recursive: true, force: true });
  const load0 = loadavg()[0];
  const build = await measured(['data', 'build', '--in', sources, '--out', out, '--json']);
  const summary = JSON.parse(build.stdout) as {
    networks: number;
    companies: number;
    people: number;
    domains: number;
    bytes: { networks: number; catalog: number };
    phases: { networks_ms: number; people_ms: number; catalog_ms: number };
  };
  const { phases } = summary;
  console.log(
    `build: ${fmt.s(build.ms)} (CPU ${fmt.s(build.cpuMs)}), peak RSS ${fmt.mib(build.peakRss)}; networks.mmdb ${fmt.mib(summary.bytes.networks)}, catalog.db ${fmt.mib(summary.bytes.catalog)}`,
  );
  console.log(`  in the build: networks.mmdb ${fmt.s(phases.networks_ms)}, people table ${fmt.s(phases.people_ms)}, catalog ${fmt.s(phases.catalog_ms)}`);
  // networks.mmdb alone: the same worker with nothing else running (the figure of issue 13's table).
  rmSync(join(dir, 'networks-alone'), { recursive: true, force: true });
  const alone = await networksAlone(sources, join(dir, 'networks-alone'));
  const load1 = loadavg()[0];
  console.log(`networks.mmdb alone: ${fmt.s(alone.ms)} (CPU ${fmt.s(alone.cpuMs)}); load average ${load0.toFixed(1)} → ${load1.toFixed(1)}`);

  const big: BenchData = { dir, sources, data: out };
  const small = await ensureBenchData();
  const bigStart = await coldStart(big, join(dir, 'state.db'));
  const smallStart = await coldStart(small, join(dir, 'state-small.db'));
  console.log(
    `cold start: ${fmt.ms(bigStart.ms)} (RSS ${fmt.mib(bigStart.rss)}) on ${companies.toLocaleString('en-US')} companies; ${fmt.ms(smallStart.ms)} (RSS ${fmt.mib(smallStart.rss)}) on 20,000`,
  );

  const gen = generate ? `generate ${fmt.s(generate.ms)} (peak RSS ${fmt.mib(generate.peakRss)}); ` : '';
  record({
    benchmark: `data build, ${companies.toLocaleString('en-US')} companies (${summary.networks.toLocaleString('en-US')} networks, ${summary.people.toLocaleString('en-US')} people, ${summary.domains.toLocaleString('en-US')} domains)`,
    figures:
      `${gen}build ${fmt.s(build.ms)} (CPU ${fmt.s(build.cpuMs)}), peak RSS ${fmt.mib(build.peakRss)}; in it networks.mmdb ${fmt.s(phases.networks_ms)}, people ${fmt.s(phases.people_ms)}, catalog ${fmt.s(phases.catalog_ms)}; ` +
      `networks.mmdb alone ${fmt.s(alone.ms)} (CPU ${fmt.s(alone.cpuMs)}); sources ${fmt.mib(sourceBytes)}, networks.mmdb ${fmt.mib(summary.bytes.networks)}, catalog.db ${fmt.mib(summary.bytes.catalog)}; ` +
      `cold start ${fmt.ms(bigStart.ms)}, RSS ${fmt.mib(bigStart.rss)} (20,000 companies: ${fmt.ms(smallStart.ms)}, ${fmt.mib(smallStart.rss)}); raw read of the sources ${fmt.s(floorMs)}; ` +
      `load average ${load0.toFixed(1)} → ${load1.toFixed(1)} (2 cores, shared)`,
    ratio: `build/raw read ${fmt.x(build.ms / floorMs)}; cold start big/small ${fmt.x(bigStart.ms / smallStart.ms)}; goals (issue 38): build ${fmt.x(build.ms / 60_000)} of 60 s, peak RSS ${fmt.x(build.peakRss / (3 * 2 ** 30))} of 3 GiB, networks.mmdb alone ${fmt.x(alone.ms / 15_000)} of 15 s; cold start ${fmt.x(bigStart.ms / 2000)} of 2 s`,
  });
}

let bundle: Promise<unknown> | undefined;

/**
 * Runs the CLI as production does — the bundle, `node dist/server/main.js` (built from the working tree once
 * per run; `data build`'s worker threads are bundled beside it) — under /usr/bin/time -v (when present):
 * wall time and peak RSS of the whole process. Rows before 2026-12-07T10:05Z ran the sources through tsx.
 */
export async function measured(cliArgs: string[]): Promise<Measured> {
  await (bundle ??= buildServer());
  const useTime = existsSync(TIME);
  const cmd = [process.execPath, 'dist/server/main.js', ...cliArgs];
  const started = performance.now();
  const child = spawn(useTime ? TIME : cmd[0], useTime ? ['-v', ...cmd] : cmd.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number>((r) => child.once('exit', (c) => r(c ?? 1)));
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${cliArgs.join(' ')} failed (${code}):\n${stderr.slice(-4000)}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
  const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
  const cpuMs = user && system ? (Number(user[1]) + Number(system[1])) * 1000 : NaN;
  return { ms, peakRss: rss ? Number(rss[1]) * 1024 : NaN, cpuMs, stdout };
}

/** networks.mmdb alone, as the build's worker makes it (bench/build-networks.ts, in a process of its own). */
async function networksAlone(sources: string, out: string): Promise<{ ms: number; cpuMs: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/build-networks.ts', sources, out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const code = await new Promise<number>((r) => child.once('exit', (c) => r(c ?? 1)));
  if (code !== 0) throw new Error(`bench/build-networks.ts failed (${code})`);
  return JSON.parse(stdout) as { ms: number; cpuMs: number };
}

/** Reads every source file as raw bytes (the floor of any build that must read them). */
export async function readAll(dir: string): Promise<number> {
  const t0 = performance.now();
  for (const f of readdirSync(dir)) {
    await new Promise<void>((resolve, reject) => {
      const s = createReadStream(join(dir, f), { highWaterMark: 1 << 20 });
      s.on('data', () => {});
      s.on('end', resolve);
      s.on('error', reject);
    });
  }
  return performance.now() - t0;
}

/** Spawn → first HTTP answer of `svc serve` on a data folder, and its RSS then. */
async function coldStart(data: BenchData, stateFile: string): Promise<{ ms: number; rss: number }> {
  const state = await seedBenchState(data, stateFile);
  const t0 = performance.now();
  const app = await startApp(data, state);
  const ms = performance.now() - t0;
  const rss = rssOf(app.pid);
  await app.stop();
  return { ms, rss };
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}
