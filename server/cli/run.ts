/**
 * The `svc` command line as a function: `runCli(argv, io)` dispatches one command, writes through `io`
 * and resolves to the exit code (0; 2 for a usage or configuration mistake; 1 for a failure). main.ts is
 * the process around it; tests call it in-process.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { SourceError } from '../../data/sources/read.ts';
import { ConfigError } from '../config.ts';
import { StateError } from '../state/errors.ts';
import { COMMANDS, type Command } from './commands.ts';
import { type CliIo, UsageError } from './output.ts';

export type { CliIo, CliStream } from './output.ts';

const HELP = `svc — account-and-lead data service

Usage: npm run svc --silent -- <command> [options] [--json]

${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}\n      ${c.summary}`)
  .join('\n')}

Every command takes --json (print one JSON value) and --help.
Configuration comes from the environment (PORT, SVC_DATA, SVC_STATE, SVC_REDIS_URL, SVC_TRUST_PROXY, SVC_DEMO …): see docs/configuration.md.
`;

/** The process's own streams, environment and folder: what `svc` on a terminal uses. */
export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/**
 * Runs one `svc` command (`argv` without node and the script) and resolves to its exit code. Output goes to
 * `io.stdout`/`io.stderr`, configuration comes from `io.env`, relative paths from `io.cwd`; what is not given
 * is the process's own. `serve` starts a server that runs until the process is signalled.
 */
export async function runCli(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const own = processIo();
  const cli: CliIo = { stdout: io.stdout ?? own.stdout, stderr: io.stderr ?? own.stderr, env: io.env ?? own.env, cwd: io.cwd ?? own.cwd };
  const { stdout, stderr } = cli;
  const json = argv.includes('--json');
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  const key = [words.slice(0, 2).join(' '), words[0] ?? ''].find((k) => k in COMMANDS);
  if (!key) {
    const asked = words.length === 0 || words[0] === 'help';
    if (!asked) stderr.write(`svc: unknown command "${words.join(' ')}"\n\n`);
    (asked ? stdout : stderr).write(HELP);
    return asked ? 0 : 2;
  }
  const command: Command = COMMANDS[key];
  const rest = argv.slice(key.split(' ').length);
  if (rest.includes('--help')) {
    stdout.write(`Usage: npm run svc --silent -- ${command.usage}\n\n${command.summary}\n${command.help ?? ''}`);
    return 0;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } } as ParseArgsConfig['options'],
      allowPositionals: true,
      strict: true,
    });
    return (await command.run(values as Record<string, unknown>, positionals, { json, io: cli })) ?? 0;
  } catch (e) {
    const known =
      e instanceof UsageError ||
      e instanceof StateError ||
      e instanceof ConfigError ||
      e instanceof SourceError ||
      e instanceof ZodError ||
      (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const message = e instanceof ZodError ? e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : (e as Error).message;
    if (json) stdout.write(JSON.stringify({ status: 'error', message }) + '\n');
    stderr.write(
      `svc ${key}: ${message}\n${e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? `usage: ${command.usage}\n` : ''}`,
    );
    if (!known) stderr.write(`${(e as Error).stack}\n`);
    return known ? 2 : 1;
  }
}

/** `runCli` with its output collected (tests, scripts): the exit code and what it wrote to stdout and stderr. */
export async function runCliCollected(argv: string[], io: Partial<Pick<CliIo, 'env' | 'cwd'>> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { ...io, stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
  return { code, stdout, stderr };
}
