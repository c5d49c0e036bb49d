/** What a CLI command runs on: its configuration and the backend opened for it. */
import { type Config, loadConfig } from '../config.ts';
import type { AuditEntry } from '../http/route-def.ts';
import { type Backend, openBackend } from '../state/backend.ts';
import type { StateStore } from '../state/store.ts';
import type { UserStore } from '../state/users/store.ts';
import { operatorEvent } from '../users/audit-fields.ts';
import { type CliIo, pathIn } from './output.ts';

/** Settings that name a file or folder: relative to the CLI's folder (`io.cwd`). */
const PATH_SETTINGS = ['SVC_DATA', 'SVC_STATE', 'SVC_JOURNAL_DIR', 'SVC_SEED', 'SVC_DIST', 'SVC_EVENTS_DIR', 'SVC_GEOIP_DB'] as const;

/** The configuration from the CLI's environment (`io.env`) and the command's flags. */
export function configFor(io: CliIo, overrides: Partial<Record<keyof Config, string>> = {}): Config {
  const config = loadConfig(io.env, overrides);
  for (const key of PATH_SETTINGS) {
    const path = config[key];
    if (path !== undefined) config[key] = pathIn(io, path);
  }
  return config;
}

/**
 * The configured backend (server/state/backend.ts: SQLite, or Redis with SVC_REDIS_URL) opened for one
 * command and closed whatever happens; `fn` gets the state store and, for commands that need them, the
 * users, visits and outbox on the same connection.
 */
export async function withStore<T>(io: CliIo, fn: (store: StateStore, config: Config, backend: Backend) => Promise<T>): Promise<T> {
  const config = configFor(io);
  // No audit retention: a server prunes the audit log (SVC_AUDIT_RETENTION_DAYS), a command never does.
  const backend = await openBackend({ ...config, SVC_AUDIT_RETENTION_DAYS: undefined }, (m) => io.stderr.write(`svc state: ${m}\n`));
  try {
    return await fn(backend.state, config, backend);
  } finally {
    await backend.close();
  }
}

/**
 * A change made from the shell is the operator's: one record in the customer's audit log (as the admin API
 * writes for the operator's bearer token).
 */
export async function auditAsOperator(users: UserStore, entry: AuditEntry): Promise<void> {
  await users.appendAudit(operatorEvent(entry));
}
