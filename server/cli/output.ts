/** CLI output: with --json exactly one JSON value on stdout; otherwise a readable text. */
import { isAbsolute, resolve } from 'node:path';

export class UsageError extends Error {}

/** Where the CLI writes (process.stdout, or a caller's collector); isTTY as on a terminal's stream. */
export interface CliStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/**
 * What one run of the CLI writes to and reads from: the process's streams, environment and folder (`svc` on a
 * terminal), or a caller's (`runCli` in tests). Commands touch only these, never `process.stdout`/`env`/`cwd`.
 */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
  env: NodeJS.ProcessEnv;
  /** Relative paths (options, FILE, SVC_STATE …) are relative to it. */
  cwd: string;
}

/** One command run: its --json flag and its io. */
export interface CommandContext {
  json: boolean;
  io: CliIo;
}

export function emit({ json, io }: CommandContext, value: unknown, text: () => string): void {
  io.stdout.write(json ? JSON.stringify(value) + '\n' : text() + '\n');
}

/**
 * A path from the command line or the environment, for the file system: relative to `io.cwd`. Left as given
 * when `io.cwd` is the process's folder (what `svc` does), so messages show the path as it was typed.
 */
export function pathIn(io: CliIo, path: string): string {
  return isAbsolute(path) || resolve(io.cwd) === process.cwd() ? path : resolve(io.cwd, path);
}

export function requireOption(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function intOption(values: Record<string, unknown>, name: string, fallback?: number): number | undefined {
  const v = values[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(v);
}

export function listOption(v: unknown): string[] {
  const items = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return items
    .flatMap((x) => String(x).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}
