/** `svc state export FILE` / `svc state import FILE`: all state between backends (SQLite ⇄ Redis). */
import { loadConfig } from '../config.ts';
import { openStateStore } from '../state/open-store.ts';
import { exportStateFile, importStateFile } from '../state/transfer-file.ts';
import type { Command } from './commands.ts';
import { emit, UsageError } from './output.ts';

const backend = () => {
  const config = loadConfig();
  return { config, name: config.SVC_REDIS_URL ? `Redis ${new URL(config.SVC_REDIS_URL).host}` : `SQLite ${config.SVC_STATE}` };
};

export const STATE_COMMANDS: Record<string, Command> = {
  'state export': {
    usage: 'state export FILE',
    summary: 'write all state (customers, tokens as hashes, tags, settings, balances, the charge ledger) to FILE as JSON lines',
    help: '\nThe store is SQLite (SVC_STATE) or, with SVC_REDIS_URL set, Redis. FILE must not exist yet.\n',
    options: {},
    async run(_v, positionals, json) {
      const file = positionals[0];
      if (!file) throw new UsageError('FILE is required');
      const { config, name } = backend();
      const store = await openStateStore(config);
      try {
        const entries = await exportStateFile(store, file);
        emit(json, { file, entries, from: name }, () => `exported ${entries} entries from ${name} to ${file}`);
      } finally {
        await store.close();
      }
    },
  },
  'state import': {
    usage: 'state import FILE',
    summary: 'load a `state export` file into an empty store (SQLite, or Redis with SVC_REDIS_URL)',
    options: {},
    async run(_v, positionals, json) {
      const file = positionals[0];
      if (!file) throw new UsageError('FILE is required');
      const { config, name } = backend();
      const store = await openStateStore(config);
      try {
        const entries = await importStateFile(store, file);
        emit(json, { file, entries, into: name }, () => `imported ${entries} entries from ${file} into ${name}`);
      } finally {
        await store.close();
      }
    },
  },
};
