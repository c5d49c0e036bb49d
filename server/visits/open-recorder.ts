/**
 * The page-view recorder from configuration: the visit store on Redis when SVC_REDIS_URL is set (shared by
 * every node), else in the SQLite file SVC_STATE, either way on the state store's connection; raw events
 * as NDJSON under SVC_EVENTS_DIR (per node).
 */
import type { Config } from '../config.ts';
import type { Logger } from '../http/logger.ts';
import { pageViewLinesDropped } from '../observability/metrics.ts';
import { sharedRedis, sharedSqlite } from '../state/open-store.ts';
import { SqliteVisitStore } from '../state/sqlite-visits.ts';
import type { StateStore } from '../state/store.ts';
import type { VisitStore } from '../state/visits.ts';
import { createEventLog } from './event-log.ts';
import { createRecorder, type PageViewRecorder } from './recorder.ts';

type EventLogConfig = Pick<Config, 'SVC_EVENTS_DIR' | 'SVC_EVENTS_RETENTION_DAYS'> & Partial<Pick<Config, 'SVC_EVENTS_MAX_DAY_MB' | 'SVC_EVENTS_MAX_TOTAL_MB'>>;

export async function openVisitRecorder(
  config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL'> & EventLogConfig,
  log: Logger,
  state: StateStore,
): Promise<PageViewRecorder> {
  const onError = (e: Error) => log.error(`page views: ${e.message}`);
  return createRecorder({
    visits: await openVisitStore(config, state),
    events: createEventLog({
      dir: config.SVC_EVENTS_DIR,
      retentionDays: config.SVC_EVENTS_RETENTION_DAYS,
      maxDayBytes: config.SVC_EVENTS_MAX_DAY_MB === undefined ? undefined : config.SVC_EVENTS_MAX_DAY_MB * 1024 * 1024,
      maxTotalBytes: config.SVC_EVENTS_MAX_TOTAL_MB === undefined ? undefined : config.SVC_EVENTS_MAX_TOTAL_MB * 1024 * 1024,
      onError,
      onDrop: (reason) => pageViewLinesDropped.inc({ reason }),
    }),
    onError,
  });
}

/**
 * The visit store alone (the recorder's, and what `svc state export/import` moves). Its raw views (the
 * export) are kept as long as the NDJSON files: SVC_EVENTS_RETENTION_DAYS.
 */
export async function openVisitStore(
  config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL'> & Partial<Pick<Config, 'SVC_REDIS_TIMEOUT_MS' | 'SVC_EVENTS_RETENTION_DAYS'>>,
  state: StateStore,
): Promise<VisitStore> {
  const rawRetentionDays = config.SVC_EVENTS_RETENTION_DAYS;
  if (config.SVC_REDIS_URL) {
    // Loaded only when used, as the state store's Redis client; on that client (one per node), not one of its own.
    const { RedisVisitStore } = await import('../state/redis-visits.ts');
    return RedisVisitStore.open((await sharedRedis(state)) ?? config.SVC_REDIS_URL, { commandTimeoutMs: config.SVC_REDIS_TIMEOUT_MS, rawRetentionDays });
  }
  return new SqliteVisitStore(sharedSqlite(state) ?? config.SVC_STATE, { rawRetentionDays });
}
