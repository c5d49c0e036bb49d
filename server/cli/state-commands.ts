/** `svc state export FILE` / `svc state import FILE`: all state between backends (SQLite ⇄ Redis). */
import type { Config } from '../config.ts';
import { exportStateFile, importStateFile } from '../state/transfer-file.ts';
import type { StateStore } from '../state/store.ts';
import type { Command } from './commands.ts';
import { emit, UsageError } from './output.ts';
import { withStore } from './with-store.ts';

const backendName = (config: Config) => (config.SVC_REDIS_URL ? `Redis ${new URL(config.SVC_REDIS_URL).host}` : `SQLite ${config.SVC_STATE}`);

/** Runs one transfer between the configured store and FILE (the first positional). */
function transfer(positionals: string[], fn: (store: StateStore, file: string, name: string) => Promise<void>): Promise<void> {
  const file = positionals[0];
  if (!file) throw new UsageError('FILE is required');
  return withStore((store, config) => fn(store, file, backendName(config)));
}

export const STATE_COMMANDS: Record<string, Command> = {
  'state export': {
    usage: 'state export FILE',
    summary: 'write all state (customers, tokens as hashes, tags, settings, balances, the charge ledger) to FILE as JSON lines',
    help: '\nThe store is SQLite (SVC_STATE) or, with SVC_REDIS_URL set, Redis. FILE must not exist yet.\n',
    options: {},
    run: (_v, positionals, json) =>
      transfer(positionals, async (store, file, name) => {
        const entries = await exportStateFile(store, file);
        emit(json, { file, entries, from: name }, () => `exported ${entries} entries from ${name} to ${file}`);
      }),
  },
  'state import': {
    usage: 'state import FILE',
    summary: 'load a `state export` file into an empty store (SQLite, or Redis with SVC_REDIS_URL)',
    options: {},
    run: (_v, positionals, json) =>
      transfer(positionals, async (store, file, name) => {
        const entries = await importStateFile(store, file);
        emit(json, { file, entries, into: name }, () => `imported ${entries} entries from ${file} into ${name}`);
      }),
  },
};
