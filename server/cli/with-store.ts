/** The configured state store (SQLite, or Redis with SVC_REDIS_URL) opened for one command and closed whatever happens. */
import { type Config, loadConfig } from '../config.ts';
import type { AuditEntry } from '../http/route-def.ts';
import { openStateStore } from '../state/open-store.ts';
import type { StateStore } from '../state/store.ts';
import type { UserStore } from '../state/users.ts';
import type { VisitStore } from '../state/visits.ts';
import type { WebhookStore } from '../state/webhooks.ts';
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

export async function withStore<T>(io: CliIo, fn: (store: StateStore, config: Config) => Promise<T>): Promise<T> {
  const config = configFor(io);
  const store = await openStateStore(config, (m) => io.stderr.write(`svc state: ${m}\n`));
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

/**
 * A change made from the shell is the operator's: one record in the customer's audit log (as the admin API
 * writes for the operator's bearer token), through the user store on the same connection.
 */
export async function auditAsOperator(store: StateStore, config: Config, entry: AuditEntry): Promise<void> {
  const { openUserStore } = await import('../state/open-user-store.ts');
  const users = await openUserStore(store, { commandTimeoutMs: config.SVC_REDIS_TIMEOUT_MS });
  try {
    await users.appendAudit(operatorEvent(entry));
  } finally {
    await users.close();
  }
}

export interface AllStores {
  state: StateStore;
  visits: VisitStore;
  webhooks: WebhookStore;
  users: UserStore;
}

/** The state store with the visit store and the webhook outbox beside it, as a server opens them. */
export async function withAllStores<T>(io: CliIo, fn: (stores: AllStores, config: Config) => Promise<T>): Promise<T> {
  // Loaded only here: every other command would pay for the Redis client and the recorder's modules.
  const [{ openVisitStore }, { openWebhookStore }, { openUserStore }] = await Promise.all([
    import('../visits/open-recorder.ts'),
    import('../state/open-webhook-store.ts'),
    import('../state/open-user-store.ts'),
  ]);
  return withStore(io, async (state, config) => {
    const visits = await openVisitStore(config, state);
    try {
      const webhooks = await openWebhookStore(config, state);
      try {
        const users = await openUserStore(state, { commandTimeoutMs: config.SVC_REDIS_TIMEOUT_MS });
        try {
          return await fn({ state, visits, webhooks, users }, config);
        } finally {
          await users.close();
        }
      } finally {
        await webhooks.close();
      }
    } finally {
      await visits.close();
    }
  });
}
