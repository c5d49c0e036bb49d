/**
 * What the visit store failed to write for the recorder (page views, tag sightings), counted since the
 * start and reported at most once a minute with how many since the last report: an outage fails every
 * view, and a log line per view would bury the log (and cost more than the view).
 */

/** Visit-store failures are reported at most this often (with how many there were since the last report). */
export const STORE_FAILURE_REPORT_MS = 60_000;

export type StoreFailureKind = 'page_views' | 'tag_sightings';

export class StoreFailures {
  /** Since the start. */
  readonly counts = { page_views: 0, tag_sightings: 0 };
  /** Since the last report. */
  private readonly unreported = { page_views: 0, tag_sightings: 0 };
  private lastFailure: Error | null = null;
  private reportedAt = -Infinity;

  constructor(
    private readonly onError: (e: Error) => void,
    private readonly now: () => number,
  ) {}

  failed(kind: StoreFailureKind, error: Error): void {
    this.counts[kind]++;
    this.unreported[kind]++;
    this.lastFailure = error;
    if (this.now() - this.reportedAt >= STORE_FAILURE_REPORT_MS) this.report();
  }

  /** Reports the failures since the last report, if any. */
  report(): void {
    const { unreported, reportedAt, lastFailure } = this;
    if (unreported.page_views === 0 && unreported.tag_sightings === 0) return;
    const what = [
      unreported.page_views > 0 ? `${unreported.page_views} page view(s) not counted (their NDJSON lines written)` : '',
      unreported.tag_sightings > 0 ? `${unreported.tag_sightings} tag sighting(s) not written` : '',
    ].filter(Boolean);
    const since = reportedAt === -Infinity ? '' : ` since ${new Date(reportedAt).toISOString()}`;
    this.onError(
      new Error(`visit store failing: ${what.join(', ')}${since}; reported at most once a minute; last error: ${lastFailure?.message}`, { cause: lastFailure }),
    );
    unreported.page_views = 0;
    unreported.tag_sightings = 0;
    this.reportedAt = this.now();
  }
}
