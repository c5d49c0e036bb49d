/**
 * Shared by every benchmark: the machine's description, printing, and one dated row per benchmark run
 * appended to bench/RESULTS.md (figures, the ratio against the baseline measured in the same run, and
 * the command that produced it). Benchmarks never pass or fail on time: the machine is shared.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

export const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

const HEADER = `# Benchmark results

Appended by \`npm run bench\` (one row per benchmark run; see bench/README.md). Figures are medians unless
named otherwise; every ratio is against a baseline measured in the same run on the same machine. The
machine is shared with other work, so compare ratios rather than absolute figures across rows.

| date | machine | benchmark | figures | ratio | command (at commit) |
|---|---|---|---|---|---|
`;

export function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model.trim() ?? 'unknown CPU'} ×${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`;
}

/** The commit measured (`git describe`-like: short hash, `+changes` when the tree differs from it). */
export function revision(): string {
  try {
    const hash = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'server', 'data', 'bench'], { encoding: 'utf8' }).trim() !== '';
    return hash + (dirty ? '+changes' : '');
  } catch {
    return 'unknown';
  }
}

/** The command line that reproduces the current benchmark (set by bench/run.ts). */
export let currentCommand = 'npm run bench';
export function setCommand(cmd: string): void {
  currentCommand = cmd;
}

export interface ResultRow {
  benchmark: string;
  figures: string;
  ratio: string;
  command?: string;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** Prints the row and appends it to bench/RESULTS.md. */
export function record(row: ResultRow): void {
  const command = row.command ?? currentCommand;
  if (!existsSync(RESULTS_FILE)) writeFileSync(RESULTS_FILE, HEADER);
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  appendFileSync(
    RESULTS_FILE,
    `| ${date} | ${cell(machine())} | ${cell(row.benchmark)} | ${cell(row.figures)} | ${cell(row.ratio)} | \`${cell(command)}\` (at ${revision()}) |\n`,
  );
  console.log(`\n== ${row.benchmark}\n   ${row.figures}\n   ratio: ${row.ratio}\n   (appended to bench/RESULTS.md)\n`);
}

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export const fmt = {
  ns: (n: number) => `${n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0)} ns`,
  ms: (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(0)} ms`,
  s: (n: number) => `${(n / 1000).toFixed(1)} s`,
  mib: (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`,
  rate: (n: number) => `${Math.round(n).toLocaleString('en-US')}`,
  x: (n: number) => `${n.toFixed(2)}×`,
};
