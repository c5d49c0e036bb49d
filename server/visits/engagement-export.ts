/**
 * The engagement side of the events export (`GET /admin/api/customers/:id/events?kind=engagement`, beside
 * the raw page views of ./export.ts): what the engagement store keeps per identified account and UTC day —
 * engaged milliseconds per page and custom event counts per name — as NDJSON, one row per line:
 *
 *   {"kind":"engaged_time","customer_id":"demo","day":"2026-12-07","company_id":"100025","path":"/pricing","engaged_ms":41250,"cursor":"…"}
 *   {"kind":"event_count","customer_id":"demo","day":"2026-12-07","company_id":"100025","name":"demo_requested","count":2,"cursor":"…"}
 *
 * In the store's order (day, account, kind, path or name), resumed as the page views are: `cursor=<the last
 * line received>` answers exactly the lines after it, and fewer lines than `limit` means the range is done.
 * A day's rows are final once the day is over (today's still grow: export up to yesterday for a warehouse).
 */
import { z } from 'zod';
import { ApiError } from '../../core/error-codes.ts';
import type { EngagementRow, EngagementRowKey } from '../state/engagement/store.ts';
import { ISO_DAY, RAW_VIEW_RETENTION_DAYS } from '../state/visits/store.ts';
import { DEFAULT_EXPORT_LIMIT, MAX_EXPORT_LIMIT } from './export.ts';

/** What `kind` the export answers: the raw page views (default) or the engagement rows. */
export const EXPORT_KINDS = ['pageviews', 'engagement'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** The export's kind from its query; anything else is a 422 naming the kinds. */
export function exportKind(raw: unknown): ExportKind {
  if (raw === undefined) return 'pageviews';
  if (typeof raw === 'string' && (EXPORT_KINDS as readonly string[]).includes(raw)) return raw as ExportKind;
  throw new ApiError('invalid', `validation error: kind: one of ${EXPORT_KINDS.join(', ')}`);
}

/** A row's cursor: its key as base64url JSON (opaque to clients: pass it back as it is). */
export const rowCursor = (r: EngagementRowKey): string => Buffer.from(JSON.stringify([r.day, r.company_id, r.kind, r.key])).toString('base64url');

const CursorKey = z.tuple([ISO_DAY, z.string().min(1), z.enum(['engaged', 'event']), z.string().min(1)]);

/** The key a cursor names, or null when it is not one of this export's. */
export function parseRowCursor(cursor: string): EngagementRowKey | null {
  try {
    const parsed = CursorKey.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return parsed.success ? { day: parsed.data[0], company_id: parsed.data[1], kind: parsed.data[2], key: parsed.data[3] } : null;
  } catch {
    return null;
  }
}

const day = ISO_DAY.refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'not a calendar date');

export const EngagementExportQuery = z
  .object({
    from: day.optional(),
    to: day.optional(),
    cursor: z.string().max(2000).optional(),
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
    const after = q.cursor === undefined ? null : parseRowCursor(q.cursor);
    if (q.cursor !== undefined && after === null)
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'not a cursor of this export: pass back a line’s "cursor" as it is' });
    return { from, to, after, limit: q.limit ?? DEFAULT_EXPORT_LIMIT };
  });
export type EngagementExportQuery = z.output<typeof EngagementExportQuery>;

/** One line of the export (what OpenAPI documents). */
export const ExportedEngagementRow = z.union([
  z.object({
    kind: z.literal('engaged_time'),
    customer_id: z.string(),
    day: ISO_DAY,
    company_id: z.string(),
    path: z.string().describe('The page (query parameters collapsed but the customer’s kept ones); `(other)` past 200 a day'),
    engaged_ms: z.number().int().min(0),
    cursor: z.string(),
  }),
  z.object({
    kind: z.literal('event_count'),
    customer_id: z.string(),
    day: ISO_DAY,
    company_id: z.string(),
    name: z.string().describe('The custom event’s name; `(other)` past 100 names a day'),
    count: z.number().int().min(1),
    cursor: z.string(),
  }),
]);

export function engagementLine(customerId: string, r: EngagementRow): string {
  const line =
    r.kind === 'engaged'
      ? { kind: 'engaged_time', customer_id: customerId, day: r.day, company_id: r.company_id, path: r.key, engaged_ms: r.value, cursor: rowCursor(r) }
      : { kind: 'event_count', customer_id: customerId, day: r.day, company_id: r.company_id, name: r.key, count: r.value, cursor: rowCursor(r) };
  return `${JSON.stringify(line)}\n`;
}

/** Bytes gathered into one write, as the page views' export does. */
const CHUNK_BYTES = 64 * 1024;

export async function* engagementChunks(customerId: string, rows: AsyncIterable<EngagementRow>): AsyncIterable<string> {
  let chunk = '';
  for await (const row of rows) {
    chunk += engagementLine(customerId, row);
    if (chunk.length >= CHUNK_BYTES) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}
