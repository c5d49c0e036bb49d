/**
 * The `svc` command line: `npm run svc --silent -- <command> [options]`. Every command accepts --json and
 * then prints exactly one JSON value. Run with --help (or `help`) for the list.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ZodError } from 'zod';
import { SourceError } from '../../data/sources/read.ts';
import { ConfigError } from '../config.ts';
import { StateError } from '../state/store.ts';
import { COMMANDS, type Command } from './commands.ts';
import { UsageError } from './output.ts';

const HELP = `svc — account-and-lead data service

Usage: npm run svc --silent -- <command> [options] [--json]

${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}\n      ${c.summary}`)
  .join('\n')}

Every command takes --json (print one JSON value) and --help.
Configuration comes from the environment (PORT, SVC_DATA, SVC_STATE, SVC_REDIS_URL, SVC_TRUST_PROXY, SVC_DEMO …): see README.md.
`;

export async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  const key = [words.slice(0, 2).join(' '), words[0] ?? ''].find((k) => k in COMMANDS);
  if (!key) {
    const asked = words.length === 0 || words[0] === 'help';
    if (!asked) process.stderr.write(`svc: unknown command "${words.join(' ')}"\n\n`);
    (asked ? process.stdout : process.stderr).write(HELP);
    return asked ? 0 : 2;
  }
  const command: Command = COMMANDS[key];
  const rest = argv.slice(key.split(' ').length);
  if (rest.includes('--help')) {
    process.stdout.write(`Usage: npm run svc --silent -- ${command.usage}\n\n${command.summary}\n${command.help ?? ''}`);
    return 0;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' } } as ParseArgsConfig['options'],
      allowPositionals: true,
      strict: true,
    });
    return (await command.run(values as Record<string, unknown>, positionals, json)) ?? 0;
  } catch (e) {
    const known =
      e instanceof UsageError ||
      e instanceof StateError ||
      e instanceof ConfigError ||
      e instanceof SourceError ||
      e instanceof ZodError ||
      (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    const message = e instanceof ZodError ? e.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') : (e as Error).message;
    if (json) process.stdout.write(JSON.stringify({ status: 'error', message }) + '\n');
    process.stderr.write(
      `svc ${key}: ${message}\n${e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? `usage: ${command.usage}\n` : ''}`,
    );
    if (!known) process.stderr.write(`${(e as Error).stack}\n`);
    return known ? 2 : 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  },
);
