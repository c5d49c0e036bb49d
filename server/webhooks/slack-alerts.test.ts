/**
 * Slack alerts through the real outbox and dispatcher, on both state backends, to a local receiver
 * standing in for Slack: the Block Kit message, the digest when many accounts arrive at once, one
 * message a second per endpoint, filters, and a 429's Retry-After. The clock is fake; the HTTP is real.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import { firmographics } from '../identification/identify.ts';
import { createLogger } from '../observability/logger.ts';
import { RedisWebhookStore } from '../state/outbox/redis.ts';
import { SqliteWebhookStore } from '../state/outbox/sqlite.ts';
import type { WebhookStore } from '../state/outbox/store.ts';
import { blockKitProblems } from '../testing/block-kit.ts';
import { type RedisServer, startRedisServer } from '../testing/redis-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import type { PageViewForWebhooks } from './events.ts';
import type { EndpointFilters } from './schema.ts';
import { RETRY_AFTER_MAX_MS, retryAfterMs, SLACK_MIN_INTERVAL_MS, WebhookService } from './service.ts';

const T0 = Date.parse('2026-11-25T10:00:00Z');

const company = (i: number): CompanyRow =>
  ({
    ...Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])),
    company_id: String(900000 + i),
    name: `Company ${i} GmbH`,
    domain: `c${i}.example`,
    industry: 'Manufacturing',
    country: 'Germany',
    employee_range: '201-500',
  }) as CompanyRow;

/** A page view of company `i` that is the `pages.length`-th of its visit, with the enriched facts the server gathers. */
function view(i: number, pages: string[], over: Partial<PageViewForWebhooks> = {}, clock = T0): PageViewForWebhooks {
  const c = company(i);
  const at = new Date(clock).toISOString();
  return {
    customer_id: 'acme',
    tag_id: 'acme-tag',
    at,
    day: at.slice(0, 10),
    company_id: c.company_id,
    company: { name: c.name, domain: c.domain },
    path: pages[pages.length - 1]!,
    referrer_host: null,
    session_id: `s${i}`,
    origin: 'https://www.acme.test',
    first_of_day_for_account: pages.length === 1,
    segment_ids: i % 2 === 0 ? [7] : [],
    hot_account: false,
    excluded: false,
    enriched: {
      company: firmographics(c),
      segments: i % 2 === 0 ? [{ id: 7, name: 'Enterprise DACH' }] : [],
      scores: [],
      entered_segment_ids: [],
      visit: { session_id: `s${i}`, pages: pages.map((path) => ({ path, at })), session_count: 1 },
    },
    ...over,
  };
}

describe('Retry-After', () => {
  it('reads seconds or an HTTP date; ignores what it cannot read; waits an hour at most', () => {
    expect(retryAfterMs('30', T0)).toBe(30_000);
    expect(retryAfterMs(new Date(T0 + 12_000).toUTCString(), T0)).toBe(12_000);
    expect(retryAfterMs(new Date(T0 - 5_000).toUTCString(), T0)).toBe(0);
    expect(retryAfterMs('soon', T0)).toBeNull();
    expect(retryAfterMs(null, T0)).toBeNull();
    expect(retryAfterMs('999999', T0)).toBe(RETRY_AFTER_MAX_MS);
  });
});

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.close();
});

const backends: Array<[string, () => Promise<{ store: WebhookStore; cleanup(): Promise<void> }>]> = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-slack-'));
      const store = new SqliteWebhookStore(join(dir, 'svc.db'));
      return { store, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'Redis',
    async () => {
      const admin = createClient({ url: redis.url });
      await admin.connect();
      await admin.flushAll();
      await admin.close();
      return { store: await RedisWebhookStore.open(redis.url), cleanup: async () => {} };
    },
  ],
];

describe.each(backends)('Slack alerts: %s', (_name, backend) => {
  let store: WebhookStore;
  let cleanup: () => Promise<void>;
  let receiver: WebhookReceiver;
  let service: WebhookService;
  let clock: number;
  beforeEach(async () => {
    ({ store, cleanup } = await backend());
    receiver = await startWebhookReceiver();
    clock = T0;
    service = new WebhookService({
      store,
      log: createLogger('silent'),
      now: () => clock,
      timeoutMs: 2000,
      allowPrivate: true,
      publicBaseUrl: 'https://svc.example.com',
    });
  });
  afterEach(async () => {
    await service.stop();
    await store.close();
    await receiver.close();
    await cleanup();
  });

  const slackEndpoint = (filters: EndpointFilters = {}) =>
    store.createEndpoint({
      customer_id: 'acme',
      url: receiver.url,
      events: ['account.visited', 'account.hot'],
      hot_paths: ['/pricing*'],
      description: '',
      secret: 'whsec_unused_by_slack',
      settings: { event_versions: { 'account.visited': 2, 'account.hot': 2 }, segment_names: true, scores: false, format: 'slack', filters },
    });
  const bodies = () => receiver.received.map((r) => JSON.parse(r.body) as { text: string; blocks: Array<{ type: string; text?: { text: string } }> });

  it('one account visit: one Block Kit message with the company, its segments, its pages and the console link', async () => {
    const { id } = await slackEndpoint();
    expect(await service.onPageView(view(2, ['/']))).toBe(1);
    expect(await service.runDue()).toBe(1);
    const [req] = receiver.received;
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['svc-signature']).toBeUndefined(); // the Slack URL is the secret; nothing to verify
    const [message] = bodies();
    expect(blockKitProblems(message)).toEqual([]);
    expect(message!.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(message!.blocks[0]!.text!.text).toBe('Company 2 visited');
    const json = JSON.stringify(message);
    for (const fact of ['c2.example', 'Manufacturing', '201-500 employees', 'Germany', 'Enterprise DACH', '`/`']) expect(json).toContain(fact);
    expect(json).toContain('https://svc.example.com/console/#customer=acme&amp;page=accounts&amp;account=900002');
    const [logged] = await store.listDeliveries('acme', id, 10);
    expect(logged).toMatchObject({ type: 'account.visited', company_id: '900002', status: 'delivered', attempts: 1, last_status: 200 });
  });

  it('many accounts at once: one digest message, its result on every delivery; then at most one message a second', async () => {
    const { id } = await slackEndpoint();
    for (let i = 0; i < 7; i++) await service.onPageView(view(i, ['/']));
    expect(await service.runDue()).toBe(1); // one attempt, seven deliveries
    expect(receiver.received).toHaveLength(1);
    const [digest] = bodies();
    expect(blockKitProblems(digest)).toEqual([]);
    expect(digest!.blocks[0]!.text!.text).toBe('7 accounts visited');
    expect(digest!.blocks.filter((b) => b.type === 'section')).toHaveLength(7);
    const log = await store.listDeliveries('acme', id, 20);
    expect(log).toHaveLength(7);
    expect(log.every((d) => d.status === 'delivered' && d.attempts === 1 && d.last_status === 200)).toBe(true);

    // Another account within the second: it waits for the endpoint's rest, then goes out on its own.
    clock += 200;
    await service.onPageView(view(8, ['/'], {}, clock));
    expect(service.restingUntilOf(id)).toBe(T0 + SLACK_MIN_INTERVAL_MS);
    expect(await service.runDue()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    clock = T0 + SLACK_MIN_INTERVAL_MS;
    expect(await service.runDue()).toBe(1);
    expect(bodies()[1]!.blocks[0]!.text!.text).toBe('Company 8 visited');
  });

  it('filters: only accounts in the segments, on their view that reaches the page views, hot only', async () => {
    await slackEndpoint({ segments: [7], min_page_views: 2 });
    await service.onPageView(view(2, ['/'])); // in segment 7, one page: not yet
    await service.onPageView(view(3, ['/', '/about'])); // two pages, not in segment 7
    expect(await service.runDue()).toBe(0);
    await service.onPageView(view(2, ['/', '/docs'])); // its second page: now
    expect(await service.runDue()).toBe(1);
    expect(bodies().map((b) => b.blocks[0]!.text!.text)).toEqual(['Company 2 visited']);
    expect(JSON.stringify(bodies()[0])).toContain('`/docs`');
  });

  it('hot only: a hot page raises the alert (visited and hot in one message)', async () => {
    await slackEndpoint({ hot_only: true });
    await service.onPageView(view(4, ['/']));
    expect(await service.runDue()).toBe(0);
    await service.onPageView(view(4, ['/', '/pricing']));
    expect(await service.runDue()).toBe(1);
    expect(bodies()[0]!.blocks[0]!.text!.text).toBe('🔥 Company 4 visited · is hot');
  });

  it('a 429 with Retry-After: every delivery of the message waits that long, and the endpoint sends nothing before', async () => {
    const { id } = await slackEndpoint();
    receiver.answer([{ status: 429, headers: { 'retry-after': '7' } }]);
    await service.onPageView(view(1, ['/']));
    await service.onPageView(view(2, ['/']));
    await service.runDue();
    expect(receiver.received).toHaveLength(1);
    const waiting = await store.listDeliveries('acme', id, 10);
    expect(waiting).toHaveLength(2);
    for (const d of waiting) {
      expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status: 429, last_error: 'HTTP 429 (rate limited: retry after 7 s)' });
      expect(d.next_attempt_at).toBe(new Date(T0 + 7000).toISOString());
    }
    expect(service.restingUntilOf(id)).toBe(T0 + 7000);
    clock = T0 + 6000;
    await service.onPageView(view(3, ['/'], {}, clock));
    expect(await service.runDue()).toBe(0); // still resting: not even the new account
    clock = T0 + 7000;
    expect(await service.runDue()).toBe(1);
    expect(receiver.received).toHaveLength(2);
    expect(bodies()[1]!.blocks[0]!.text!.text).toBe('3 accounts visited');
    expect((await store.listDeliveries('acme', id, 10)).map((d) => [d.status, d.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 2],
      ['delivered', 2],
    ]);
  });

  it('a test event to a Slack endpoint posts the Block Kit sample and shows the answer', async () => {
    const { sampleEvent } = await import('./samples.ts');
    const event = sampleEvent({
      type: 'account.visited',
      version: 2,
      customer: { id: 'acme', segments: [{ id: 7, name: 'Enterprise DACH' }] } as never,
      endpoint: { id: 'wh', segment_names: true, scores: false, hot_paths: [] },
      company: company(5),
      tag: null,
      now: new Date(T0),
    });
    const result = await service.sendTest({ url: receiver.url, secret: 'x', format: 'slack' }, event);
    expect(result).toMatchObject({ delivered: true, status: 200, body: 'ok' });
    expect(blockKitProblems(JSON.parse(receiver.received[0]!.body))).toEqual([]);
    expect(result.slack!.blocks[0]).toMatchObject({ type: 'header', text: { text: '🔥 Company 5 visited' } });
  });
});
