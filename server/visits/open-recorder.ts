/** The page-view recorder from configuration: visit store on the SVC_STATE file, NDJSON under SVC_EVENTS_DIR. */
import type { Config } from '../config.ts';
import type { Logger } from '../http/logger.ts';
import { SqliteVisitStore } from '../state/sqlite-visits.ts';
import { createEventLog } from './event-log.ts';
import { createRecorder, type PageViewRecorder } from './recorder.ts';

export function openVisitRecorder(config: Pick<Config, 'SVC_STATE' | 'SVC_REDIS_URL' | 'SVC_EVENTS_DIR' | 'SVC_EVENTS_RETENTION_DAYS'>, log: Logger): PageViewRecorder {
  if (config.SVC_REDIS_URL) {
    // No Redis visit store yet: each node then counts its own page views in its SVC_STATE file.
    log.error('SVC_REDIS_URL is set but page views are counted in the SQLite file SVC_STATE of each node (no Redis visit store yet)');
  }
  const onError = (e: Error) => log.error(`page views: ${e.message}`);
  return createRecorder({
    visits: new SqliteVisitStore(config.SVC_STATE),
    events: createEventLog({ dir: config.SVC_EVENTS_DIR, retentionDays: config.SVC_EVENTS_RETENTION_DAYS, onError }),
    onError,
  });
}
