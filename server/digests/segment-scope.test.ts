/**
 * A digest scoped to segments holds the accounts those segments hold on every other surface, on SQLite
 * and on Redis: rules on engaged time, custom events, third-party topics and lookalikes — whose facts a
 * digest once built without — include the account they hold for and leave out the one they do not. The
 * digest is built by the real service on a real backend's visit, engagement and CRM stores; the data
 * snapshot is a small catalog in memory (companies, intent, topics). Pinned as well: each account's
 * membership is the one identification's way of gathering the facts (reading the stores per account) gives.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CustomerRecord } from '../../core/access-records.ts';
import type { CompanyRow } from '../../core/catalog-records.ts';
import type { Segment } from '../../core/customer-records.ts';
import type { DigestSettings } from '../../core/digest-records.ts';
import type { UserRecord } from '../../core/user-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import type { Catalog } from '../data/catalog.ts';
import type { CatalogTopics } from '../data/catalog-topics.ts';
import { gatherAccountFacts } from '../segments/account-facts.ts';
import { segmentMatches } from '../segments/evaluate.ts';
import { type Backend, openBackend } from '../state/backend.ts';
import { crmAccount, crmConnection } from '../testing/crm-records.ts';
import { TEST_CUSTOMER } from '../testing/fixtures.ts';
import { fakeCatalog } from '../testing/lookalike-catalog.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { lastPeriod } from './period.ts';
import { Digests } from './service.ts';

const NOW = Date.now();
/** Yesterday (UTC): the period of a daily digest in UTC sent today. */
const PERIOD = lastPeriod('day', 'UTC', NOW);
const DAY = new Date(PERIOD.startMs).toISOString().slice(0, 10);
const AT = `${DAY}T12:00:00.000Z`;

const company = (id: string, firmographics: Partial<CompanyRow>): CompanyRow => ({
  ...(Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])) as CompanyRow),
  company_id: id,
  name: `Company ${id}`,
  domain: `c${id}.example`,
  ...firmographics,
});
const SOFTWARE = {
  industry: 'Software',
  subindustry: 'CRM',
  naics: '511210',
  sic: '7372',
  employee_range: '200-499',
  revenue_range: '$10M-$50M',
  country_iso_code: 'US',
  region: 'North America',
};
/** 1 seeds the lookalike; 2 is like it in every feature; 3 in none. */
const COMPANIES = [
  company('1', SOFTWARE),
  company('2', SOFTWARE),
  company('3', {
    industry: 'Manufacturing',
    subindustry: 'Machinery',
    naics: '333111',
    sic: '3523',
    employee_range: '1-9',
    revenue_range: '$1B-$10B',
    country_iso_code: 'DE',
    region: 'EMEA',
  }),
];

/** The dataset's latest topic week: 3 surges on "crm", 2 barely reads about it. */
const LATEST_WEEK = '2026-11-30';
const TOPIC_SCORES: Record<string, number> = { '2': 20, '3': 85 };
const topics: CatalogTopics = {
  latestWeek: () => LATEST_WEEK,
  ofCompany: (id) => (id in TOPIC_SCORES ? [{ topic: 'crm', weeks: [{ week: LATEST_WEEK, score: TOPIC_SCORES[id]! }] }] : []),
  names: () => [],
  named: (name) => (name.trim().toLowerCase() === 'crm' ? 'crm' : null),
  companiesScoring: () => [],
};
const catalog: Catalog = Object.assign(fakeCatalog(COMPANIES), { intent: () => [], topics });

const SEGMENTS = {
  engaged: { id: 301, name: 'Read pricing', match: { engaged: { path: '/pricing*', min_seconds: 60, days: 7 } } },
  event: { id: 302, name: 'Asked for a demo', match: { event: { name: 'demo_requested', min_count: 2, days: 7 } } },
  topic: { id: 303, name: 'Researching CRM', match: { topic: { name: 'crm', min_score: 60, weeks: 1 } } },
  lookalike: { id: 304, name: 'Like account 1', match: { lookalike: { companies: ['1'], min_score: 0.7 } } },
  // Further back than the first-party window the digest reads for its stage moves.
  visited: { id: 305, name: 'Read the docs this quarter', match: { visited: { path: '/docs*', days: 90 } } },
  crm_stage: { id: 306, name: 'Open opportunities', match: { crm_stage: { in: ['opportunity'] } } },
} satisfies Record<string, Segment>;

/** Which segment holds which visiting account (2 and 3 both visit in the period). */
const EXPECTED: Record<keyof typeof SEGMENTS, string> = { engaged: '2', event: '3', topic: '3', lookalike: '2', visited: '3', crm_stage: '2' };

const BACKENDS = ['sqlite', 'redis'] as const;

describe.each(BACKENDS)('a digest scoped to segments, on %s', (name) => {
  let redis: RedisServer | undefined;
  let dir: string;
  let backend: Backend;
  let digests: Digests;
  let customer: CustomerRecord;
  let user: UserRecord;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-digest-scope-'));
    if (name === 'redis') redis = await startRedisServer();
    backend = await openBackend(
      { SVC_STATE: join(dir, 'svc.db'), SVC_REDIS_URL: redis?.url, SVC_JOURNAL_DIR: join(dir, 'journal'), SVC_OUTAGE_ALLOWANCE: 10 },
      () => {},
    );
    customer = await backend.state.importCustomer({ ...TEST_CUSTOMER, segments: Object.values(SEGMENTS) });
    user = await backend.users.createUser({ customer_id: customer.id, email: 'scope@acme.test', role: 'viewer', password_hash: null, sso: false });
    digests = new Digests({
      store: backend.digests,
      users: backend.users,
      customers: backend.state,
      dataset: { current: { catalog } },
      visits: backend.visits,
      crm: backend.crm,
      engagement: backend.engagement,
      owners: backend.alerts,
      mailer: null,
      baseUrl: 'https://svc.example',
      now: () => NOW,
      log: { info: () => {}, warn: () => {} },
    });
    const view = (company_id: string, path: string) =>
      backend.visits.recordPageView({ customer_id: customer.id, day: DAY, company_id, path, session_id: `s-${company_id}`, at: AT });
    await view('2', '/pricing');
    await view('3', '/pricing');
    await view('3', '/blog/crm');
    const sixtyDaysBefore = new Date(PERIOD.startMs - 60 * 86_400_000).toISOString();
    await backend.visits.recordPageView({
      customer_id: customer.id,
      day: sixtyDaysBefore.slice(0, 10),
      company_id: '3',
      path: '/docs/setup',
      session_id: 's-3-old',
      at: sixtyDaysBefore,
    });
    const engaged = (company_id: string, path: string, seconds: number) =>
      backend.engagement.addEngagedTime({ customer_id: customer.id, company_id, day: DAY, path, ms: seconds * 1000 });
    // 2 reads pricing for two minutes; 3 glances at it and reads the blog at length (another path).
    await engaged('2', '/pricing', 120);
    await engaged('3', '/pricing', 10);
    await engaged('3', '/blog/crm', 600);
    const event = (company_id: string, name: string) =>
      backend.engagement.addEvent({ customer_id: customer.id, company_id, at: AT, name, path: '/pricing', properties: {} });
    await event('3', 'demo_requested');
    await event('3', 'demo_requested');
    await event('2', 'demo_requested');
    await event('2', 'newsletter_signup');
    // What a sync read back from the customer's HubSpot: 2 is an opportunity there, 3 a customer.
    await backend.crm.putConnection({ record: crmConnection(customer.id, 'hubspot'), secret: 'a secret' });
    await backend.crm.putAccounts([
      crmAccount('2', { customer_id: customer.id, stage: 'opportunity' }),
      crmAccount('3', { customer_id: customer.id, stage: 'customer' }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await backend?.close();
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scoped = (...segments: number[]): DigestSettings => ({ digest: 'daily', hour: 8, time_zone: 'UTC', scope: { type: 'segments', segments, lists: [] } });
  const accountsOf = async (settings: DigestSettings) =>
    (await digests.build(user, customer, settings, PERIOD)).content.most_active.items.map((a) => a.company_id).sort();

  it.each(Object.keys(SEGMENTS) as (keyof typeof SEGMENTS)[])('with a %s rule holds the account it matches, not the other', async (kind) => {
    expect(await accountsOf(scoped(SEGMENTS[kind].id))).toEqual([EXPECTED[kind]]);
  });

  it('holds an account any of its segments holds', async () => {
    expect(await accountsOf(scoped(SEGMENTS.topic.id, SEGMENTS.lookalike.id))).toEqual(['2', '3']);
    expect(await accountsOf({ ...scoped(), digest: 'daily' })).toEqual([]);
  });

  it('holds each account exactly when identification’s way of gathering its facts says so', async () => {
    const now = new Date(PERIOD.endMs);
    const sources = { catalog, visits: backend.visits, engagement: backend.engagement, crm: backend.crm };
    for (const [kind, segment] of Object.entries(SEGMENTS)) {
      const inDigest = await accountsOf(scoped(segment.id));
      for (const id of ['2', '3']) {
        const facts = await gatherAccountFacts(sources, customer, id, now);
        const holds = customer.segments.filter((s) => s.id === segment.id).some((s) => segmentMatches(s.match, catalog.company(id)!, undefined, facts));
        expect(inDigest.includes(id), `${kind} on ${id}`).toBe(holds);
      }
    }
  });
});
