/**
 * The one backend root: picks SQLite (default, the file SVC_STATE) or Redis (SVC_REDIS_URL; a Redis
 * Cluster with SVC_REDIS_CLUSTER=1) from configuration and opens every store of the state on ONE
 * connection — the access records, metering and usage (`state`), the users, the visits, the webhook
 * outbox, the CRM sync's store, the email digests' store, the alerts' state and the engagement store (engaged time, custom events). `serve`, `serve --workers` and the CLI open state only through here.
 *
 * The state store owns the connection (the SQLite file's one connection and lock policy, sqlite/db.ts; a
 * node's Redis command client, redis/lifecycle.ts); the concern stores run on it and leave it open when
 * they close, so `close()` closes them first and the state store last.
 */
import type { Config } from '../config.ts';
import type { AlertStateStore } from './alerts/store.ts';
import type { CrmStore } from './crm/store.ts';
import type { DigestStore } from './digests/store.ts';
import type { EngagementStore } from './engagement/store.ts';
import type { StateLog } from './errors.ts';
import type { WebhookStore } from './outbox/store.ts';
import { SqliteStateStore } from './sqlite/store.ts';
import type { StateStore } from './store.ts';
import type { UserStore } from './users/store.ts';
import type { VisitStore } from './visits/store.ts';

export type BackendConfig = Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL' | 'SVC_JOURNAL_DIR' | 'SVC_OUTAGE_ALLOWANCE'> &
  Partial<Pick<Config, 'SVC_REDIS_TIMEOUT_MS' | 'SVC_REDIS_CLUSTER' | 'SVC_REDIS_WAIT' | 'SVC_EVENTS_RETENTION_DAYS' | 'SVC_AUDIT_RETENTION_DAYS'>>;

export interface Backend {
  /** Access records (customers, tokens, tags, settings), metering, usage reports, export and import. */
  readonly state: StateStore;
  readonly users: UserStore;
  readonly visits: VisitStore;
  readonly outbox: WebhookStore;
  /** CRM connections, pending accounts, sync leases and runs (server/crm/). */
  readonly crm: CrmStore;
  /** Email digests: each user's settings and the claims that send one digest per user and period (server/digests/). */
  readonly digests: DigestStore;
  /** Alerts' owners lists, territory rules, stage marks and mail marks (server/alerts/; the alerts are outbox endpoints). */
  readonly alerts: AlertStateStore;
  /** Engaged time and custom events of identified accounts, from the web tag (server/visits/engagement-beacons.ts). */
  readonly engagement: EngagementStore;
  /** Closes the concern stores, then the state store and with it the connection. */
  close(): Promise<void>;
}

/**
 * Opens the configured backend. `SVC_AUDIT_RETENTION_DAYS` is a server's (it prunes the audit log); the
 * CLI leaves it unset (kept for ever, as the CLI never prunes).
 */
export async function openBackend(config: BackendConfig, log?: StateLog): Promise<Backend> {
  const rawRetentionDays = config.SVC_EVENTS_RETENTION_DAYS;
  const users = { auditRetentionDays: config.SVC_AUDIT_RETENTION_DAYS };
  if (config.SVC_REDIS_URL) {
    // Loaded only on Redis: the embedded default (and every CLI call on it) does not pay for the client.
    const [
      { RedisStateStore },
      { RedisUserStore },
      { RedisVisitStore },
      { RedisWebhookStore },
      { RedisCrmStore },
      { RedisDigestStore },
      { RedisAlertStateStore },
      { RedisEngagementStore },
    ] = await Promise.all([
      import('./redis/store.ts'),
      import('./users/redis.ts'),
      import('./visits/redis.ts'),
      import('./outbox/redis.ts'),
      import('./crm/redis.ts'),
      import('./digests/redis.ts'),
      import('./alerts/redis.ts'),
      import('./engagement/redis.ts'),
    ]);
    const state = await RedisStateStore.open({
      url: config.SVC_REDIS_URL,
      cluster: config.SVC_REDIS_CLUSTER,
      waitReplicas: config.SVC_REDIS_WAIT,
      journalDir: config.SVC_JOURNAL_DIR,
      outageAllowance: config.SVC_OUTAGE_ALLOWANCE,
      commandTimeoutMs: config.SVC_REDIS_TIMEOUT_MS,
      log,
    });
    return assemble(state, async (opened) => {
      const u = keep(opened, new RedisUserStore(state.redis, { ...users, commandTimeoutMs: config.SVC_REDIS_TIMEOUT_MS }));
      const visits = keep(opened, await RedisVisitStore.open(state.redis, { commandTimeoutMs: config.SVC_REDIS_TIMEOUT_MS, rawRetentionDays }));
      const outbox = keep(opened, await RedisWebhookStore.open(state.redis));
      const timeouts = { commandTimeoutMs: config.SVC_REDIS_TIMEOUT_MS };
      const crm = keep(opened, new RedisCrmStore(state.redis, timeouts));
      const digests = keep(opened, new RedisDigestStore(state.redis, timeouts));
      const engagement = keep(opened, new RedisEngagementStore(state.redis, timeouts));
      return { users: u, visits, outbox, crm, digests, alerts: keep(opened, new RedisAlertStateStore(state.redis, timeouts)), engagement };
    });
  }
  const [
    { SqliteUserStore },
    { SqliteVisitStore },
    { SqliteWebhookStore },
    { SqliteCrmStore },
    { SqliteDigestStore },
    { SqliteAlertStateStore },
    { SqliteEngagementStore },
  ] = await Promise.all([
    import('./users/sqlite.ts'),
    import('./visits/sqlite.ts'),
    import('./outbox/sqlite.ts'),
    import('./crm/sqlite.ts'),
    import('./digests/sqlite.ts'),
    import('./alerts/sqlite.ts'),
    import('./engagement/sqlite.ts'),
  ]);
  const state = new SqliteStateStore(config.SVC_STATE, { log });
  return assemble(state, async (opened) => {
    const u = keep(opened, new SqliteUserStore(state.sqlite, users));
    const visits = keep(opened, new SqliteVisitStore(state.sqlite, { rawRetentionDays }));
    const outbox = keep(opened, new SqliteWebhookStore(state.sqlite));
    const crm = keep(opened, new SqliteCrmStore(state.sqlite));
    const digests = keep(opened, new SqliteDigestStore(state.sqlite));
    const engagement = keep(opened, new SqliteEngagementStore(state.sqlite));
    return { users: u, visits, outbox, crm, digests, alerts: keep(opened, new SqliteAlertStateStore(state.sqlite)), engagement };
  });
}

/** The concern stores on the state store's connection; if one cannot be opened, what was opened is closed. */
async function assemble(state: StateStore, open: (opened: { close(): Promise<void> }[]) => Promise<Omit<Backend, 'state' | 'close'>>): Promise<Backend> {
  let stores: Omit<Backend, 'state' | 'close'>;
  const opened: { close(): Promise<void> }[] = [];
  try {
    stores = await open(opened);
  } catch (e) {
    // A store opened before the one that failed holds a share of the connection: it lets go first.
    await Promise.allSettled(opened.map((s) => s.close()));
    await state.close();
    throw e;
  }
  let closing: Promise<void> | null = null;
  return {
    state,
    ...stores,
    close() {
      closing ??= (async () => {
        try {
          await Promise.all([
            stores.users.close(),
            stores.visits.close(),
            stores.outbox.close(),
            stores.crm.close(),
            stores.digests.close(),
            stores.alerts.close(),
            stores.engagement.close(),
          ]);
        } finally {
          await state.close();
        }
      })();
      return closing;
    },
  };
}

/** Notes a store as opened (closed again if a later one fails) and hands it on. */
function keep<T extends { close(): Promise<void> }>(opened: { close(): Promise<void> }[], store: T): T {
  opened.push(store);
  return store;
}
