/**
 * `npm run bench -- log-line [--lines N] [--rounds R]`: what one request's log line costs in CPU — the
 * request observer's `begin` + `done` for a typical identification request (token mode, a Match
 * charged one credit) with the server's own logger at `info` against the same at `error` (metrics only,
 * the baseline), each in a process of its own whose stdout is redirected to a file, as a user's
 * `npm start > svc.log` (bench/log-line-child.ts). For reference, plain pino writing the same fields with
 * its documented asynchronous destination, in the same run. Variants interleave over rounds; the figure is
 * the median over rounds of CPU µs (user + system, all threads) per request.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runFolder } from './bench-data.ts';
import { ROOT } from './http-load.ts';
import { fmt, median, record } from './results.ts';

const VARIANTS = ['off', 'on', 'pino'] as const;
type Variant = (typeof VARIANTS)[number];

/** One child: CPU µs per request, and the bytes it wrote to stdout. */
async function measureChild(variant: Variant, lines: number, out: string): Promise<{ us: number; bytes: number }> {
  const fd = openSync(out, 'w');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/log-line-child.ts', variant, String(lines)], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', fd, 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    if (code !== 0) throw new Error(`log-line-child ${variant} exited with ${code}:\n${stderr}`);
    const { cpuUsPerLine } = JSON.parse(stderr.trim().split('\n').at(-1)!) as { cpuUsPerLine: number };
    return { us: cpuUsPerLine, bytes: statSync(out).size };
  } finally {
    closeSync(fd);
  }
}

export async function benchLogLine(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { lines: { type: 'string' }, rounds: { type: 'string' } } });
  const lines = Number(values.lines ?? 200_000);
  const rounds = Number(values.rounds ?? 3);
  const work = runFolder('log-line');
  const samples = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  let lineBytes = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const v of VARIANTS) {
        const r = await measureChild(v, lines, join(work, `${v}.log`));
        samples.get(v)!.push(r.us);
        if (v === 'on') lineBytes = r.bytes / (lines + Math.min(50_000, lines));
        console.log(`   round ${round + 1}, ${v.padEnd(4)} ${r.us.toFixed(2)} µs/request`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const off = median(samples.get('off')!);
  const on = median(samples.get('on')!);
  const plain = median(samples.get('pino')!);
  const line = on - off;
  record({
    benchmark: `log line: request observer on a typical identification request, logs on (SVC_LOG=info, stdout to a file) vs off (${lines.toLocaleString('en-US')} requests × ${rounds} rounds, one process each)`,
    figures: `request line ${line.toFixed(2)} µs CPU (goal ≤ 3 µs; ${lineBytes.toFixed(0)} B); observer logs on ${on.toFixed(2)} µs/request, logs off ${off.toFixed(2)} µs/request; plain pino, same fields, pino.destination({ sync: false }): ${plain.toFixed(2)} µs/line`,
    ratio: `observer logs on/off ${fmt.x(on / off)}; request line/plain pino line ${fmt.x(line / plain)}`,
  });
}
