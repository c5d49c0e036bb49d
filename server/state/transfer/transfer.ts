/**
 * Moving all state between backends (`svc state export FILE` / `svc state import FILE`): one JSON object
 * per line, each tagged with its `type`. Rate-limit counters are not moved: they expire within a window.
 * Tokens travel with their secret's hash (never a secret), so existing integrations keep working; webhook
 * endpoints travel with their signing secret (receivers verify with it) and SSO providers with their
 * client secret, so the file is as sensitive as the state itself.
 *
 * Six stores share the file, each writing and reading its own entries: the state store (StateEntry),
 * the visit store (VisitEntry), the webhook outbox (WebhookEntry), the user store (UserEntry), the CRM
 * sync's store (CrmEntry: connections travel with their secret, as webhook endpoints do) and the email
 * digests' store (DigestEntry). Their rows are
 * neutral — what the store means, not how a backend keeps it — so SQLite and Redis write and read the
 * same lines.
 */
import { z } from 'zod';
import { CustomerRecord, TagRecord, TokenRecord } from '../../../core/access-records.ts';
import { MAX_TERRITORY_RULES, OwnerRow, TerritoryRule } from '../../../core/alert-records.ts';
import { CRM_RUN_ERRORS_KEPT, CrmAccountRecord, CrmConnectionRecord, CrmProvider, CrmRunError, CrmRunRecord } from '../../../core/crm-records.ts';
import { CustomerId } from '../../../core/customer-records.ts';
import { DigestSettings } from '../../../core/digest-records.ts';
import { AuditEvent, Email, SsoProvider, UserId, UserRecord } from '../../../core/user-records.ts';
import { UNIDENTIFIED_REASONS } from '../../../core/vocabulary.ts';
import { CHARGEABLE_APIS } from '../../credits/rules.ts';
import { DELIVERY_STATUSES, EndpointSettings, HotPathPattern, NewWebhook, WebhookEventType } from '../../webhooks/schema.ts';
import { EngagementEntry } from '../engagement/entries.ts';
import { ISO_DAY, OTHER_PATHS, PAGES_PER_SESSION, PATHS_PER_ACCOUNT_DAY, RAW_VIEW_ID, RawPageView, SESSIONS_PER_ACCOUNT_DAY } from '../visits/store.ts';

const Pool = z.enum(['identification', 'enrichment']);

export const LedgerEntry = z.object({
  customer_id: CustomerId,
  api: z.enum(CHARGEABLE_APIS),
  pool: Pool,
  record: z.string(),
  month: z.string(),
  period: z.string(),
  dedupe_key: z.string().nullable(),
  token_id: z.string().nullable(),
  partner: z.string().nullable(),
  at: z.string(),
});
export type LedgerEntry = z.infer<typeof LedgerEntry>;

export const StateEntry = z.discriminatedUnion('type', [
  z.object({ type: z.literal('customer'), record: CustomerRecord }),
  z.object({ type: z.literal('token'), record: TokenRecord, secret_hash: z.string().min(1) }),
  z.object({ type: z.literal('tag'), record: TagRecord }),
  z.object({ type: z.literal('setting'), key: z.string(), value: z.string() }),
  /** Credits used per customer, pool and quota period (what balances read). */
  z.object({ type: z.literal('credit_usage'), customer_id: CustomerId, pool: Pool, period: z.string(), used: z.number().int().min(0) }),
  /** One charge of the ledger (usage reports and the monthly dedup are rebuilt from these). */
  z.object({ type: z.literal('charge'), charge: LedgerEntry }),
]);
export type StateEntry = z.infer<typeof StateEntry>;

export interface StateTransfer {
  /** Every record, customers before what belongs to them. */
  exportState(): AsyncIterable<StateEntry>;
  /** Whether the store holds no customer (an import goes only into such a store). */
  isEmpty(): Promise<boolean>;
  /**
   * Writes exported entries into this store, which must hold no customer yet (an import never merges
   * into live state). Returns the number of entries written.
   */
  importState(entries: AsyncIterable<StateEntry> | Iterable<StateEntry>): Promise<number>;
}

const Count = z.number().int().min(0);
// Compared as strings by both stores; whatever they recorded moves as it is.
const IsoTime = z.string().min(1);
/** An instant a store computes with (Redis scores the audit log by it, and expires keys from it). */
const Instant = z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'an ISO time');

/**
 * Page views and tag sightings (visits/store.ts): per-day aggregates, and the raw views kept for the export —
 * events, but only those of the raw events' retention, so the file stays as bounded as the store.
 */
export const VisitEntry = z.discriminatedUnion('type', [
  /** One account's page views on one UTC day, with its pages and the session ids that day has seen. */
  z.object({
    type: z.literal('visit_account'),
    customer_id: CustomerId,
    day: ISO_DAY,
    // Never empty: both stores read an empty company as an anonymous view.
    company_id: z.string().min(1),
    page_views: Count,
    sessions: Count,
    first_seen: IsoTime,
    last_seen: IsoTime,
    // The store's own bounds hold for an imported day too: an edited file cannot grow one past them.
    pages: z
      .array(z.object({ path: z.string(), page_views: Count }))
      .max(PATHS_PER_ACCOUNT_DAY + 1)
      .refine((pages) => new Set(pages.map((p) => p.path)).size === pages.length, 'a path is listed once')
      .refine(
        (pages) => pages.filter((p) => p.path !== OTHER_PATHS).length <= PATHS_PER_ACCOUNT_DAY,
        `at most ${PATHS_PER_ACCOUNT_DAY} paths besides ${OTHER_PATHS}`,
      ),
    /** Only the newest days have them (they dedupe sessions within a day); moved so a visitor's session does not count twice. */
    session_ids: z
      .array(z.string())
      .max(SESSIONS_PER_ACCOUNT_DAY)
      .refine((ids) => new Set(ids).size === ids.length, 'a session id is listed once')
      .default([]),
  }),
  /** One of an account's recent sessions with its pages in order (visits/store.ts AccountSession). */
  z.object({
    type: z.literal('visit_session'),
    customer_id: CustomerId,
    company_id: z.string().min(1),
    session_id: z.string().min(1).max(64),
    first_seen: IsoTime,
    last_seen: IsoTime,
    page_views: z.number().int().min(1),
    pages: z.array(z.object({ at: IsoTime, path: z.string() })).max(PAGES_PER_SESSION),
  }),
  /**
   * The segments an account was in at its latest view (visits/store.ts swapAccountSegments): without them every
   * account would enter its segments again after the move (segment.entered sent twice). An empty list is
   * remembered too (in none: unlike no entry, not a first view). Redis keeps no time with them: its export
   * derives `updated_at` from the key's TTL (visits/redis-transfer.ts).
   */
  z.object({
    type: z.literal('visit_account_segments'),
    customer_id: CustomerId,
    company_id: z.string().min(1),
    segment_ids: z.array(z.number().int().min(1)),
    updated_at: Instant,
  }),
  /** Page views of one UTC day that matched no account. */
  z.object({ type: z.literal('visit_anonymous'), customer_id: CustomerId, day: ISO_DAY, page_views: Count }),
  /** Segments entered on one UTC day (visits/store.ts segmentEntries: Home's figure, counted where segment.entered is decided). */
  z.object({ type: z.literal('visit_segment_entries'), customer_id: CustomerId, day: ISO_DAY, entries: Count }),
  /** Those of them that matched no account for one reason (visits/coverage.ts): the Visitors report's split. */
  z.object({ type: z.literal('visit_unidentified'), customer_id: CustomerId, day: ISO_DAY, reason: z.enum(UNIDENTIFIED_REASONS), page_views: Count }),
  /**
   * A raw page view kept for the export, under its id (visits/store.ts nextRawViewId): the same id on the other
   * backend, so an export's cursor resumes there too. A customer's views come in id order.
   */
  z.object({
    type: z.literal('visit_event'),
    id: z.string().regex(RAW_VIEW_ID, 'an id <ms>-<n>'),
    view: RawPageView.extend({ customer_id: CustomerId }),
  }),
  /** An origin a web tag was seen on; `hits` (distinct minutes) decides which origins a full tag keeps (visits/store.ts). */
  z.object({
    type: z.literal('tag_sighting'),
    tag_id: z.string().min(1).max(200),
    origin: z.string().min(1),
    last_seen_at: IsoTime,
    hits: z.number().int().min(1),
  }),
]);
export type VisitEntry = z.infer<typeof VisitEntry>;

/** Ids that a Redis key or a zset member carries (`wh_…`, `dl_…`). */
const OutboxId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'an id is 1–64 letters, digits, _ or -');
const EpochMs = z.number().int().min(0);

/**
 * The webhook outbox (outbox/store.ts): endpoints with their signing secret, deliveries (pending ones and the
 * kept log), and the dedupe keys of the last DEDUPE_KEEP_MS (older ones can never come again). Leases are
 * not moved: a delivery in flight during the export is due again after the import (receivers dedupe on
 * the event id). Times are epoch milliseconds, as both backends keep them.
 */
export const WebhookEntry = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('webhook_endpoint'),
    endpoint: z.object({
      id: OutboxId,
      customer_id: CustomerId,
      url: NewWebhook.shape.url,
      events: z.array(WebhookEventType).min(1),
      hot_paths: z.array(HotPathPattern).max(50),
      description: z.string(),
      /** The signing secret itself: receivers verify signatures with it, so it moves as it is. */
      secret: z.string().min(1),
      created_at: z.string().min(1),
      /** Absent in files exported before endpoints had settings: the defaults (v1 payloads). */
      settings: EndpointSettings.partial().optional(),
    }),
  }),
  z.object({
    type: z.literal('webhook_delivery'),
    delivery: z
      .object({
        id: OutboxId,
        event_id: z.string().min(1),
        webhook_id: OutboxId,
        customer_id: CustomerId,
        type: WebhookEventType,
        /** Null for a delivery a Redis outbox stored before it kept the key on the delivery (the key moves as a webhook_dedupe entry). */
        dedupe_key: z.string().min(1).nullable(),
        /** The signed JSON, byte for byte. */
        body: z.string(),
        status: z.enum(DELIVERY_STATUSES),
        attempts: z.number().int().min(0),
        created_at: EpochMs,
        next_attempt_at: EpochMs.nullable(),
        last_attempt_at: EpochMs.nullable(),
        last_status: z.number().int().nullable(),
        last_error: z.string().nullable(),
        delivered_at: EpochMs.nullable(),
      })
      .refine((d) => d.status !== 'pending' || d.next_attempt_at !== null, { message: 'a pending delivery has a next attempt', path: ['next_attempt_at'] }),
  }),
  /** A dedupe key enqueued at `at` (each recent one, whether or not its delivery is still kept). */
  z.object({ type: z.literal('webhook_dedupe'), webhook_id: OutboxId, dedupe_key: z.string().min(1), at: EpochMs }),
]);
export type WebhookEntry = z.infer<typeof WebhookEntry>;

/**
 * A customer's people (users.ts): users with the scrypt hash of their password (never a password), SSO
 * providers WITH their client secret (signing in needs it), and the audit log, oldest first per customer.
 * Never sessions or invitations: a restored state asks everybody to sign in (or be invited) again.
 */
export const UserEntry = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('user'),
    record: UserRecord.extend({ id: UserId, email: Email, created_at: Instant, last_login_at: Instant.nullable() }),
    password_hash: z.string().min(1).nullable(),
  }),
  z.object({ type: z.literal('sso_provider'), provider: SsoProvider }),
  z.object({ type: z.literal('audit_event'), event: AuditEvent.extend({ id: UserId, at: Instant }) }),
]);
export type UserEntry = z.infer<typeof UserEntry>;

/**
 * The CRM records as the CRM store takes them (crm/service.ts checks every write with these, an import
 * too): ids that name Redis keys and members, run times it orders by, at most CRM_RUN_ERRORS_KEPT errors.
 */
export const CrmConnectionChecked = CrmConnectionRecord.extend({ customer_id: CustomerId });
export const CrmAccountChecked = CrmAccountRecord.extend({ customer_id: CustomerId, company_id: z.string().min(1) });
export const CrmRunChecked = CrmRunRecord.extend({
  id: z.string().min(1),
  customer_id: CustomerId,
  started_at: Instant,
  errors: z.array(CrmRunError).max(CRM_RUN_ERRORS_KEPT),
});

/**
 * The CRM sync's state (crm/store.ts): each connection WITH its secret (the sync signs in to the CRM with
 * it, so it moves as it is), then its pending accounts, its account records and its runs. Leases are not
 * moved: a run in flight during the export starts again after the import. Pending times are epoch ms.
 */
export const CrmEntry = z.discriminatedUnion('type', [
  z.object({ type: z.literal('crm_connection'), record: CrmConnectionChecked, secret: z.string().min(1) }),
  z.object({
    type: z.literal('crm_pending'),
    customer_id: CustomerId,
    provider: CrmProvider,
    company_id: z.string().min(1),
    at: EpochMs.max(Number.MAX_SAFE_INTEGER),
    force: z.boolean(),
  }),
  z.object({ type: z.literal('crm_account'), record: CrmAccountChecked }),
  z.object({ type: z.literal('crm_run'), run: CrmRunChecked }),
]);
export type CrmEntry = z.infer<typeof CrmEntry>;

/** A digest period (digests/store.ts): `day:` or `week:` and the local date it starts on. */
export const DigestPeriod = z.string().regex(/^(day|week):\d{4}-\d{2}-\d{2}$/, 'a period day:YYYY-MM-DD or week:YYYY-MM-DD');

/**
 * The email digests' state (digests/store.ts): each user's settings, and the periods whose digest is done
 * (sent, nothing to say, or given up) while they are kept, so a move between backends never sends one
 * again. Claims in flight are not moved (as leases): a digest being sent during the export is sent after.
 */
export const DigestEntry = z.discriminatedUnion('type', [
  z.object({ type: z.literal('digest_settings'), customer_id: CustomerId, user_id: UserId, settings: DigestSettings, updated_at: Instant }),
  z.object({
    type: z.literal('digest_done'),
    customer_id: CustomerId,
    user_id: UserId,
    period: DigestPeriod,
    status: z.enum(['sent', 'empty', 'failed']),
    attempts: z.number().int().min(0),
    at_ms: EpochMs,
    keep_until_ms: EpochMs,
  }),
]);
export type DigestEntry = z.infer<typeof DigestEntry>;

/**
 * The alerts' state beside the outbox (alerts/store.ts; the alerts themselves move as outbox endpoints):
 * each customer's owners list (a line per row) and territory rules, and the stage marks (an account's
 * first time at a buying stage per product: moved, so stage_reached does not fire again after a move).
 * Mail marks are not moved (they last a day).
 */
export const AlertEntry = z.discriminatedUnion('type', [
  z.object({ type: z.literal('alert_territories'), customer_id: CustomerId, rules: z.array(TerritoryRule).max(MAX_TERRITORY_RULES), updated_at: Instant }),
  z.object({ type: z.literal('alert_owner'), customer_id: CustomerId, row: OwnerRow }),
  z.object({
    type: z.literal('alert_stage'),
    customer_id: CustomerId,
    company_id: z
      .string()
      .min(1)
      .regex(/^[^|]+$/),
    product: z.string().min(1),
    stage: z
      .string()
      .min(1)
      .regex(/^[^|]+$/),
    at: EpochMs,
  }),
]);
export type AlertEntry = z.infer<typeof AlertEntry>;

/** Every line of an export file, whichever store it belongs to (one union: a bad line's message names its field). */
export const TransferEntry = z.discriminatedUnion('type', [
  ...StateEntry.options,
  ...VisitEntry.options,
  ...WebhookEntry.options,
  ...UserEntry.options,
  ...CrmEntry.options,
  ...DigestEntry.options,
  ...AlertEntry.options,
  ...EngagementEntry.options,
]);
export type TransferEntry = z.infer<typeof TransferEntry>;

const VISIT_TYPES: ReadonlySet<string> = new Set(VisitEntry.options.map((o) => o.shape.type.value));
const WEBHOOK_TYPES: ReadonlySet<string> = new Set(WebhookEntry.options.map((o) => o.shape.type.value));
const USER_TYPES: ReadonlySet<string> = new Set(UserEntry.options.map((o) => o.shape.type.value));
const CRM_TYPES: ReadonlySet<string> = new Set(CrmEntry.options.map((o) => o.shape.type.value));
const DIGEST_TYPES: ReadonlySet<string> = new Set(DigestEntry.options.map((o) => o.shape.type.value));
const ALERT_TYPES: ReadonlySet<string> = new Set(AlertEntry.options.map((o) => o.shape.type.value));
const ENGAGEMENT_TYPES: ReadonlySet<string> = new Set(EngagementEntry.options.map((o) => o.shape.type.value));

/** Which store writes and reads an entry. */
export function storeOf(entry: TransferEntry): 'state' | 'visits' | 'webhooks' | 'users' | 'crm' | 'digests' | 'alerts' | 'engagement' {
  if (ENGAGEMENT_TYPES.has(entry.type)) return 'engagement';
  if (DIGEST_TYPES.has(entry.type)) return 'digests';
  if (ALERT_TYPES.has(entry.type)) return 'alerts';
  if (VISIT_TYPES.has(entry.type)) return 'visits';
  if (WEBHOOK_TYPES.has(entry.type)) return 'webhooks';
  if (USER_TYPES.has(entry.type)) return 'users';
  return CRM_TYPES.has(entry.type) ? 'crm' : 'state';
}

/** How a store beside the state store (visits, webhook outbox, users, CRM) moves its entries. */
export interface EntryTransfer<E> {
  /** Every entry, streamed: a bounded page of the store at a time (SCAN on Redis, keyset pages on SQLite). */
  exportEntries(): AsyncIterable<E>;
  /** Whether the store holds none of its entries (an import goes only into such a store). */
  isEmpty(): Promise<boolean>;
  /**
   * Writes exported entries into this store, which must be empty (StateError `conflict` otherwise: an
   * import never merges into live data). Returns the number of entries written.
   */
  importEntries(entries: AsyncIterable<E> | Iterable<E>): Promise<number>;
}
