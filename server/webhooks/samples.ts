/**
 * A sample of any event in any version, as the planner would build it (the same code, so a sample is what
 * a real delivery looks like): the account is a real company of the catalog (the customer's first hot
 * account, else the catalog's first company), the segment the customer's first, the tag its first.
 */
import { randomBytes } from 'node:crypto';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import { firmographics } from '../identification/identify.ts';
import { type EnrichedFacts, type PageViewForWebhooks, plannedEvents, tagInstalledEvent } from './events.ts';
import type { WebhookEvent } from './payloads.ts';
import type { WebhookEventType } from './schema.ts';

export interface SampleInput {
  type: WebhookEventType;
  version: number;
  customer: CustomerRecord;
  endpoint: { id: string; segment_names: boolean; scores: boolean; hot_paths: readonly string[] };
  /** The account the sample is about; null when the catalog is empty (a made-up company then). */
  company: CompanyRow | null;
  tag: { id: string; origin: string | null } | null;
  now: Date;
}

const sampleId = () => `evt_test_${randomBytes(10).toString('hex')}`;

export function sampleEvent(input: SampleInput): WebhookEvent {
  const { type, version, customer, now } = input;
  const at = now.toISOString();
  if (type === 'tag.installed') {
    return tagInstalledEvent(
      { customer_id: customer.id, tag_id: input.tag?.id ?? 'tag_sample', origin: input.tag?.origin ?? 'https://www.example.com', at },
      sampleId,
    );
  }
  const company = input.company ?? SAMPLE_COMPANY;
  const segment = customer.segments[0] ?? { id: 1, name: 'Sample segment' };
  const session = 'sample-session-0001';
  const enriched: EnrichedFacts = {
    company: firmographics(company),
    segments: [{ id: segment.id, name: segment.name }],
    entered_segment_ids: [segment.id],
    scores: [],
    visit: {
      session_id: session,
      pages: [
        { path: '/', at: new Date(now.getTime() - 60_000).toISOString() },
        { path: '/pricing', at },
      ],
      session_count: 3,
    },
    // v3: a made-up month of engagement on the sample's pages.
    engagement: {
      from: new Date(now.getTime() - 29 * 86_400_000).toISOString().slice(0, 10),
      to: at.slice(0, 10),
      engaged_seconds: 312,
      pages: [
        { path: '/pricing', engaged_seconds: 254 },
        { path: '/', engaged_seconds: 58 },
      ],
      events: [{ name: 'demo_requested', count: 1 }],
      recent_events: [{ at, name: 'demo_requested', path: '/pricing', properties: { plan: 'pro' } }],
    },
  };
  const view: PageViewForWebhooks = {
    customer_id: customer.id,
    tag_id: input.tag?.id ?? 'tag_sample',
    at,
    day: at.slice(0, 10),
    company_id: company.company_id,
    company: { name: company.name || null, domain: company.domain || null },
    path: '/pricing',
    referrer_host: 'www.google.com',
    session_id: session,
    origin: input.tag?.origin ?? 'https://www.example.com',
    first_of_day_for_account: true,
    segment_ids: [segment.id],
    hot_account: true,
    excluded: false,
    enriched,
  };
  const endpoint = { ...input.endpoint, events: [type], event_versions: { [type]: version } };
  const event = plannedEvents(view, endpoint, sampleId)[0]?.event;
  if (!event) throw new Error(`no sample for ${type} v${version}`);
  return event;
}

/** The account of a sample when the catalog holds none. */
const SAMPLE_COMPANY = {
  ...Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])),
  company_id: '0',
  name: 'Example Inc.',
  domain: 'example.com',
  industry: 'Software',
  country: 'United States',
  country_iso_code: 'US',
  employee_range: '51-200',
} as CompanyRow;
