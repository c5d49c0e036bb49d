/** The page-view recorder from configuration: visit store on the SVC_STATE file (or Redis with SVC_REDIS_URL), NDJSON under SVC_EVENTS_DIR. */
import type { Config } from '../config.ts';
import type { Logger } from '../http/logger.ts';
import { RedisVisitStore } from '../state/redis-visits.ts';
import { SqliteVisitStore } from '../state/sqlite-visits.ts';
import { createEventLog } from './event-log.ts';
import { createRecorder, type PageViewRecorder } from './recorder.ts';

export async function openVisitRecorder(config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL' | 'SVC_EVENTS_DIR' | 'SVC_EVENTS_RETENTION_DAYS'>, log: Logger): Promise<PageViewRecorder> {
  const onError = (e: Error) => log.error(`page views: ${e.message}`);
  return createRecorder({
    // Shared by every node in Redis mode; the raw NDJSON files stay per node (each node logs what it served).
    visits: config.SVC_REDIS_URL ? await RedisVisitStore.open(config.SVC_REDIS_URL) : new SqliteVisitStore(config.SVC_STATE),
    events: createEventLog({ dir: config.SVC_EVENTS_DIR, retentionDays: config.SVC_EVENTS_RETENTION_DAYS, onError }),
    onError,
  });
}
