/**
 * `npm run bench -- start [runs]`: cold start (spawn → first answer of /readyz) and resident memory after
 * that answer, of the production bundle (`node dist/server/main.js serve`) against the development start
 * (`node --import tsx server/cli/main.ts serve`, the baseline), on the sample data, alternating runs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDataset } from '../data/build/build.ts';
import { freePort } from '../deploy/processes.ts';
import { buildServer } from '../server/build.ts';
import { fmt, median, record } from './results.ts';

interface Start {
  ms: number;
  rss: number;
}

async function startOnce(args: string[], data: string, state: string): Promise<Start> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...args, 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_DATA: data,
      SVC_STATE: state,
      // The default configuration (a line per request; here only the start-up lines), stdout to /dev/null.
      SVC_LOG: 'info',
      SVC_ADMIN_TOKEN: 'bench-start-admin-token-0123456789',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = performance.now() - t0;
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
    return { ms, rss };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

export async function benchStart(args: string[]): Promise<void> {
  const runs = Number(args[0] ?? 5);
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-start-'));
  try {
    await buildServer();
    await buildDataset({ in: 'data/sample', out: join(dir, 'data') });
    const variants = { tsx: ['--import', 'tsx', 'server/cli/main.ts'], bundle: ['dist/server/main.js'] };
    const results: Record<keyof typeof variants, Start[]> = { tsx: [], bundle: [] };
    for (let i = 0; i < runs; i++) {
      for (const [name, a] of Object.entries(variants) as [keyof typeof variants, string[]][])
        results[name].push(await startOnce(a, join(dir, 'data'), join(dir, `${name}.db`)));
    }
    const m = (name: keyof typeof variants) => ({ ms: median(results[name].map((r) => r.ms)), rss: median(results[name].map((r) => r.rss)) });
    const tsx = m('tsx');
    const bundle = m('bundle');
    record({
      benchmark: `cold start, sample data (${runs} runs each)`,
      figures: `node dist/server/main.js: ${fmt.ms(bundle.ms)} to first answer, RSS ${fmt.mib(bundle.rss)}; tsx server/cli/main.ts: ${fmt.ms(tsx.ms)}, RSS ${fmt.mib(tsx.rss)}`,
      ratio: `bundle starts ${(tsx.ms / bundle.ms).toFixed(2)}× faster, RSS ×${(bundle.rss / tsx.rss).toFixed(2)}`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
