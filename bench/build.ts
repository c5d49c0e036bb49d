/**
 * Data build at scale: `data generate --companies N` (default 1,000,000: about 5 million networks, with
 * people and domains in proportion), then `data build`, each as the CLI runs them, under /usr/bin/time -v
 * (wall time, peak RSS); output sizes; then the server's cold start (spawn → first answer) and RSS on the
 * built folder.
 *
 * Baselines in the same run: for the build, reading the same source files as raw bytes (the I/O floor of
 * any build); for the cold start, the same server started on the small bench data (20,000 companies).
 *
 *   npm run bench -- build [--companies N] [--keep]     (--keep: reuse generated sources from an earlier run)
 */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBenchData, seedBenchState, type BenchData } from './bench-data.ts';
import { startApp } from './endpoints.ts';
import { ROOT } from './http-load.ts';
import { fmt, record } from './results.ts';

const TIME = '/usr/bin/time';

interface Measured {
  ms: number;
  /** Peak RSS in bytes (from /usr/bin/time -v), or NaN when it is not available. */
  peakRss: number;
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
  const build = await measured(['data', 'build', '--in', sources, '--out', out, '--json']);
  const summary = JSON.parse(build.stdout) as { networks: number; companies: number; people: number; domains: number; bytes: { networks: number; catalog: number } };
  console.log(`build: ${fmt.s(build.ms)}, peak RSS ${fmt.mib(build.peakRss)}; networks.mmdb ${fmt.mib(summary.bytes.networks)}, catalog.db ${fmt.mib(summary.bytes.catalog)}`);

  const big: BenchData = { dir, sources, data: out };
  const small = await ensureBenchData();
  const bigStart = await coldStart(big, join(dir, 'state.db'));
  const smallStart = await coldStart(small, join(dir, 'state-small.db'));
  console.log(`cold start: ${fmt.ms(bigStart.ms)} (RSS ${fmt.mib(bigStart.rss)}) on ${companies.toLocaleString('en-US')} companies; ${fmt.ms(smallStart.ms)} (RSS ${fmt.mib(smallStart.rss)}) on 20,000`);

  const gen = generate ? `generate ${fmt.s(generate.ms)} (peak RSS ${fmt.mib(generate.peakRss)}); ` : '';
  record({
    benchmark: `data build, ${companies.toLocaleString('en-US')} companies (${summary.networks.toLocaleString('en-US')} networks, ${summary.people.toLocaleString('en-US')} people, ${summary.domains.toLocaleString('en-US')} domains)`,
    figures:
      `${gen}build ${fmt.s(build.ms)}, peak RSS ${fmt.mib(build.peakRss)}; sources ${fmt.mib(sourceBytes)}, networks.mmdb ${fmt.mib(summary.bytes.networks)}, catalog.db ${fmt.mib(summary.bytes.catalog)}; ` +
      `cold start ${fmt.ms(bigStart.ms)}, RSS ${fmt.mib(bigStart.rss)} (20,000 companies: ${fmt.ms(smallStart.ms)}, ${fmt.mib(smallStart.rss)}); raw read of the sources ${fmt.s(floorMs)}`,
    ratio: `build/raw read ${fmt.x(build.ms / floorMs)}; cold start big/small ${fmt.x(bigStart.ms / smallStart.ms)}; goals: build ${fmt.x(build.ms / 60_000)} of 60 s, ${fmt.x(build.peakRss / 2 ** 32)} of 4 GiB, cold start ${fmt.x(bigStart.ms / 2000)} of 2 s`,
  });
}

/** Runs the CLI under /usr/bin/time -v (when present): wall time and peak RSS of the whole process. */
export async function measured(cliArgs: string[]): Promise<Measured> {
  const useTime = existsSync(TIME);
  const cmd = [process.execPath, '--import', 'tsx', 'server/cli/main.ts', ...cliArgs];
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
  return { ms, peakRss: rss ? Number(rss[1]) * 1024 : NaN, stdout };
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
