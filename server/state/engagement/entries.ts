/**
 * The engagement store's lines of `svc state export/import` (server/state/transfer/): neutral rows — what
 * the store means, not how a backend keeps it — so SQLite and Redis write and read the same lines. The
 * store's own bounds hold for an imported line too (an edited file cannot grow a day past them).
 */
import { z } from 'zod';
import { CustomerId } from '../../../core/customer-records.ts';
import { EventName, EventProperties } from '../../../core/engagement-records.ts';
import { OTHER_KEY } from './store.ts';

const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD');
// Never empty: an account is who the time or the event is attributed to.
const CompanyId = z.string().min(1).max(200);
const Path = z.string().min(1).max(1024);
const Instant = z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'an ISO time');

export const EngagementEntry = z.discriminatedUnion('type', [
  /** An account's engaged milliseconds on a path on a UTC day. */
  z.object({
    type: z.literal('engaged_time'),
    customer_id: CustomerId,
    company_id: CompanyId,
    day: Day,
    path: Path,
    ms: z.number().int().min(0),
  }),
  /** An account's count of a custom event name on a UTC day. */
  z.object({
    type: z.literal('event_count'),
    customer_id: CustomerId,
    company_id: CompanyId,
    day: Day,
    name: z.union([EventName, z.literal(OTHER_KEY)]),
    count: z.number().int().min(1),
  }),
  /** One of an account's latest custom events; an account's come oldest first. */
  z.object({
    type: z.literal('recent_event'),
    customer_id: CustomerId,
    company_id: CompanyId,
    at: Instant,
    name: EventName,
    path: Path,
    properties: EventProperties,
  }),
]);
export type EngagementEntry = z.infer<typeof EngagementEntry>;
