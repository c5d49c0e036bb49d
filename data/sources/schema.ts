/**
 * Source formats of the dataset (see ../../shared/DESIGN.md "Data").
 *
 * One zod schema per file is the validation, the TypeScript type and the documentation. The generator
 * writes these files and `data build` reads them. The rows of `companies.csv` and `people.csv` are the
 * catalog records of the neutral core (core/catalog-records.ts: the server answers from them too); here
 * are their columns and the other sources' rows. `customers.json` (SOURCE_FILES.customers) holds the
 * customer records of the neutral core (core/customer-records.ts): the server seeds customers from it.
 * CSV files have a header row; extra columns are allowed (and ignored). Blank CSV cells are "".
 */
import { z } from 'zod';
import { CompanyRow, PersonRow } from '../../core/catalog-records.ts';
import { TopicName, TopicScore, TopicWeek } from '../../core/topic-records.ts';
import { CONFIDENCES, PRIVACY_REASONS } from '../../core/vocabulary.ts';

const blank = z.string().default('');

export { CONFIDENCES, PRIVACY_REASONS };
export const Confidence = z.enum(CONFIDENCES);
export type Confidence = z.infer<typeof Confidence>;

/** Network kinds that carry no B2B use case: answered as `Non-actionable Match`. */
export const NON_COMPANY_KINDS = ['isp', 'hosting', 'bot'] as const;

/** The columns of companies.csv, in the order the generator and the import write them. */
export const COMPANY_COLUMNS = Object.keys(CompanyRow.shape) as (keyof CompanyRow)[];

/** A network kind: a lower-case word (shared with the fast path, ./fast-rows.ts). */
export const KIND_PATTERN = /^[a-z][a-z0-9_-]*$/;

/**
 * `network` is a CIDR (`203.0.113.0/24`, `2001:db8:1200::/40`) or an inclusive range
 * (`203.0.113.10-203.0.113.99`, `2001:db8::10-2001:db8::ff`), IPv4 or IPv6 in any text form (checked
 * by the MMDB writer when the index is built: host bits set, a zone id, a range across families or inside
 * 2002::/16 — aliased to IPv4 — are refused with the row's number).
 * `kind` is `company` or a non-company kind (`isp`, `hosting`, `bot`, or another); `company_id` only for
 * `company`. `privacy` (optional column, blank by default): the network hides who is behind it (`vpn`,
 * `tor`, `proxy`, `relay`, `hosting`: core/vocabulary.ts) and answers `Non-actionable Match` whatever its
 * kind. Overlaps are legal: the most specific network wins; equal networks: the later row wins.
 */
export const NetworkRow = z
  .object({
    network: z.string().min(1),
    kind: z.string().regex(KIND_PATTERN, 'kind must be a lower-case word such as company, isp, hosting, bot'),
    company_id: blank,
    confidence: Confidence,
    country: blank,
    state: blank,
    city: blank,
    privacy: z.enum(['', ...PRIVACY_REASONS], { error: `privacy must be blank or one of ${PRIVACY_REASONS.join(', ')}` }).default(''),
  })
  .refine((r) => (r.kind === 'company') === (r.company_id !== ''), {
    message: 'company_id is required for kind "company" and only for it',
  });
export type NetworkRow = z.infer<typeof NetworkRow>;
export const NETWORK_COLUMNS = ['network', 'kind', 'company_id', 'confidence', 'country', 'state', 'city', 'privacy'] as const;

export const DomainRow = z.object({ domain: z.string().min(1), company_id: z.string().min(1) });
export type DomainRow = z.infer<typeof DomainRow>;
export const DOMAIN_COLUMNS = ['domain', 'company_id'] as const;

/** The columns of people.csv. */
export const PERSON_COLUMNS = Object.keys(PersonRow.shape) as (keyof PersonRow)[];

/** Starts with an ISO date (shared with the fast path, ./fast-rows.ts). */
export const ISO_DATE_PATTERN = /^\d{4}-\d{2}-\d{2}/;
const isoDate = z.string().regex(ISO_DATE_PATTERN, 'expected an ISO date (YYYY-MM-DD…)');

/** Third-party intent signal on a topic for an account; `strength` 0–100. */
export const IntentRow = z.object({
  company_id: z.string().min(1),
  topic: z.string().min(1),
  strength: z.coerce.number().min(0).max(100),
  observed_at: isoDate,
});
export type IntentRow = z.infer<typeof IntentRow>;
export const INTENT_COLUMNS = ['company_id', 'topic', 'strength', 'observed_at'] as const;

/** First-party engagement of a person (email opens, form fills, page views, meetings …). */
export const EngagementRow = z.object({
  people_id: z.string().min(1),
  activity: z.string().min(1),
  count: z.coerce.number().int().min(0),
  observed_at: isoDate,
});
export type EngagementRow = z.infer<typeof EngagementRow>;
export const ENGAGEMENT_COLUMNS = ['people_id', 'activity', 'count', 'observed_at'] as const;

/**
 * Third-party topic surge of an account (core/topic-records.ts): its score 0–100 on a topic in a week
 * (`week`: any date of it, read as its Monday). What `data import --intent-topics` writes from a vendor's
 * Company Surge export; one row per (company, topic, week) — a repeat keeps the higher score.
 */
export const TopicRow = z.object({
  company_id: z.string().min(1),
  topic: TopicName,
  score: TopicScore,
  week: TopicWeek,
});
export type TopicRow = z.infer<typeof TopicRow>;
export const TOPIC_COLUMNS = ['company_id', 'topic', 'score', 'week'] as const;

/** File names inside a sources folder. */
export const SOURCE_FILES = {
  companies: 'companies.csv',
  networks: 'networks.csv',
  domains: 'domains.csv',
  people: 'people.csv',
  intent: 'intent.csv',
  engagement: 'engagement.csv',
  topics: 'topics.csv',
  customers: 'customers.json',
} as const;
