/**
 * The export of a customer's raw page views (`GET /admin/api/customers/:id/events`): the views every node
 * recorded, as the visit store keeps them (a table on SQLite, a stream per customer on Redis: visits.ts
 * `rawPageViews`), streamed as NDJSON — one JSON object per line, the recorded view exactly as the NDJSON
 * event log writes it (recorder.ts RecordedPageView) plus its `cursor`.
 *
 * Resuming: the lines come in the store's order (visits.ts nextRawViewId: the time of each view, never
 * going back), and each line's `cursor` is its position: `cursor=<the last line received>` answers
 * exactly the lines after it. A cursor per line rather than a trailer or a last line: a client cut off
 * anywhere (a dropped connection, a crash while loading) resumes from the last complete line it has, with
 * nothing to look for at the end. `limit` bounds one answer; fewer lines than `limit` means the range is
 * done (as of now: views recorded later come after the last cursor).
 */
import { z } from 'zod';
import { daysBetween, ISO_DAY, type KeptRawView, parseRawViewId, RAW_VIEW_ID, RAW_VIEW_RETENTION_DAYS, RawPageView } from '../state/visits/store.ts';

/** Lines of one answer when `limit` is not given, and at most. */
export const DEFAULT_EXPORT_LIMIT = 100_000;
export const MAX_EXPORT_LIMIT = 1_000_000;
/** Bytes gathered into one write: one chunk of the chunked answer (and of gzip's input) per about this. */
const CHUNK_BYTES = 64 * 1024;

const realDay = ISO_DAY.refine((d) => daysBetween(d, d).length === 1 && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'not a calendar date');

export const EventsExportQuery = z
  .object({
    from: realDay.optional(),
    to: realDay.optional(),
    cursor: z.string().regex(RAW_VIEW_ID, 'not a cursor of this export: pass back a line’s "cursor" as it is').optional(),
    limit: z
      .string()
      .regex(/^\d{1,9}$/, 'limit must be a whole number')
      .transform(Number)
      .pipe(z.number().min(1, 'limit must be at least 1').max(MAX_EXPORT_LIMIT, `limit is at most ${MAX_EXPORT_LIMIT}`))
      .optional(),
  })
  .transform((q, ctx) => {
    const to = q.to ?? new Date().toISOString().slice(0, 10);
    const from = q.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - (RAW_VIEW_RETENTION_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    if (from > to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must not be after to' });
    return { from, to, after: q.cursor === undefined ? null : parseRawViewId(q.cursor), limit: q.limit ?? DEFAULT_EXPORT_LIMIT };
  });
export type EventsExportQuery = z.output<typeof EventsExportQuery>;

/** One line of the export (what OpenAPI documents): the recorded view and its cursor. */
export const ExportedPageView = RawPageView.extend({
  cursor: z.string().describe('Where this line sits: `cursor=<it>` answers the lines after it'),
});

/** A kept view's line: its kept text (the NDJSON log's line) with the cursor as its last field. */
export function exportLine(row: KeptRawView): string {
  return `${row.text.slice(0, -1)},"cursor":"${row.id}"}\n`;
}

/** The lines of `rows`, gathered into chunks of about CHUNK_BYTES (one write each, not one per line). */
export async function* exportChunks(rows: AsyncIterable<KeptRawView>): AsyncIterable<string> {
  let chunk = '';
  for await (const row of rows) {
    chunk += exportLine(row);
    if (chunk.length >= CHUNK_BYTES) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}
