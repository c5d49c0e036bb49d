/**
 * The page-view recorder from configuration: the visit store the backend opened (server/state/backend.ts:
 * on Redis when SVC_REDIS_URL is set, shared by every node, else in the SQLite file SVC_STATE); raw events
 * as NDJSON under SVC_EVENTS_DIR (per node).
 */
import type { Config } from '../config.ts';
import type { Logger } from '../observability/logger.ts';
import { pageViewLinesDropped } from '../observability/metrics.ts';
import type { EngagementStore } from '../state/engagement/store.ts';
import type { VisitStore } from '../state/visits/store.ts';
import { createEventLog } from './event-log.ts';
import { createRecorder, type PageViewRecorder } from './recorder.ts';

type EventLogConfig = Pick<Config, 'SVC_EVENTS_DIR' | 'SVC_EVENTS_RETENTION_DAYS'> & Partial<Pick<Config, 'SVC_EVENTS_MAX_DAY_MB' | 'SVC_EVENTS_MAX_TOTAL_MB'>>;

export function openVisitRecorder(config: EventLogConfig, log: Logger, visits: VisitStore, engagement?: EngagementStore): PageViewRecorder {
  const onError = (e: Error) => log.error(`page views: ${e.message}`);
  return createRecorder({
    visits,
    engagement,
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
