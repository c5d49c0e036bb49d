import type { KnownBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import { firmographics } from '../identification/identify.ts';
import { blockKitProblems } from '../testing/block-kit.ts';
import { type EnrichedFacts, needsEnrichment, type PageViewForWebhooks, type PlanningEndpoint, passesFilters, plannedEvents } from './events.ts';
import type { WebhookEvent } from './payloads.ts';
import { DIGEST_LINES, maskedSlackUrl, type SlackMessage, slackMessage } from './slack.ts';

const company = (id: string, name: string, domain: string): CompanyRow =>
  ({
    ...Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])),
    company_id: id,
    name: `${name}, Inc.`,
    domain,
    industry: 'Software',
    country: 'Germany',
    country_iso_code: 'DE',
    employee_range: '51-200',
  }) as CompanyRow;

const facts = (c: CompanyRow, pages: string[], overrides: Partial<EnrichedFacts> = {}): EnrichedFacts => ({
  company: firmographics(c),
  segments: [
    { id: 7, name: 'Enterprise DACH' },
    { id: 9, name: 'Evaluating <competitor>' },
  ],
  scores: [],
  entered_segment_ids: [],
  visit: { session_id: 's1', pages: pages.map((path, i) => ({ path, at: `2026-11-25T10:0${i}:00.000Z` })), session_count: 3 },
  ...overrides,
});

const view = (c: CompanyRow, pages: string[], over: Partial<PageViewForWebhooks> = {}): PageViewForWebhooks => ({
  customer_id: 'acme',
  tag_id: 'acme-tag',
  at: '2026-11-25T10:05:00.000Z',
  day: '2026-11-25',
  company_id: c.company_id,
  company: { name: c.name, domain: c.domain },
  path: pages[pages.length - 1]!,
  referrer_host: null,
  session_id: 's1',
  origin: 'https://www.acme.test',
  first_of_day_for_account: pages.length === 1,
  segment_ids: [7, 9],
  hot_account: false,
  excluded: false,
  enriched: facts(c, pages),
  ...over,
});

const slackEndpoint: PlanningEndpoint = {
  id: 'wh_slack',
  events: ['account.visited', 'account.hot'],
  hot_paths: ['/pricing*'],
  event_versions: { 'account.visited': 2, 'account.hot': 2 },
  segment_names: true,
  format: 'slack',
};
let n = 0;
const ids = () => `evt_${++n}`;
const ctx = { publicBaseUrl: 'https://svc.example.com/' };
const northwind = company('900001', 'Northwind Analytics', 'northwind.example');
const eventsOf = (v: PageViewForWebhooks, e: PlanningEndpoint = slackEndpoint): WebhookEvent[] => plannedEvents(v, e, ids).map((p) => p.event);

describe('a Slack message for one account visit', () => {
  it('pins the blocks: header, firmographic fields, the visit’s pages, the console link', () => {
    const message: SlackMessage = slackMessage(eventsOf(view(northwind, ['/', '/pricing'], { first_of_day_for_account: true })), ctx)!;
    // Typed against @slack/types: the builder's blocks are KnownBlock[] (a compile-time check).
    const blocks: KnownBlock[] = message.blocks;
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(message).toEqual({
      text: '🔥 Northwind Analytics visited · is hot (northwind.example): /, /pricing',
      unfurl_links: false,
      unfurl_media: false,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: '🔥 Northwind Analytics visited · is hot', emoji: true } },
        {
          type: 'section',
          fields: [
            { type: 'mrkdwn', text: '*Domain*\nnorthwind.example' },
            { type: 'mrkdwn', text: '*Industry*\nSoftware' },
            { type: 'mrkdwn', text: '*Size*\n51-200 employees' },
            { type: 'mrkdwn', text: '*Country*\nGermany' },
            { type: 'mrkdwn', text: '*Segments*\nEnterprise DACH, Evaluating &lt;competitor&gt;' },
            { type: 'mrkdwn', text: '*Sessions*\n3' },
          ],
        },
        { type: 'section', text: { type: 'mrkdwn', text: '*Pages this visit*\n• `/`\n• `/pricing`' } },
        {
          type: 'context',
          elements: [
            {
              type: 'mrkdwn',
              text: '<https://svc.example.com/console/#customer=acme&amp;page=accounts&amp;account=900001|Open the account in the console> · 2026-11-25 10:05 UTC',
            },
          ],
        },
      ],
    });
    expect(blockKitProblems(JSON.parse(JSON.stringify(message)))).toEqual([]);
  });

  it('escapes what a visitor or a catalog controls: no link, mention or broken code span can be injected', () => {
    const evil = company('900002', 'Evil <!channel> & Co', 'evil.example');
    const message = slackMessage(eventsOf(view(evil, ['/x`y<@U123>'], { first_of_day_for_account: true })), ctx)!;
    // Every mrkdwn text (the fallback too); the header is plain_text, shown as written.
    const mrkdwn = [message.text, ...JSON.stringify(message.blocks.slice(1)).split('"text":')].join('\n');
    expect(mrkdwn).not.toContain('<!channel>');
    expect(mrkdwn).not.toContain('<@U123>');
    expect(message.text).toContain('&lt;!channel&gt;');
    expect(message.blocks[2]).toMatchObject({ text: { text: "*Pages this visit*\n• `/x'y&lt;@U123&gt;`" } });
    expect(blockKitProblems(message)).toEqual([]);
  });

  it('shows segment ids when the endpoint may not see names, and v1 events with what they carry', () => {
    const ids1 = slackMessage(eventsOf(view(northwind, ['/']), { ...slackEndpoint, segment_names: false }), ctx)!;
    expect(JSON.stringify(ids1.blocks[1])).toContain('*Segments*\\n#7, #9');
    const v1 = slackMessage(eventsOf(view(northwind, ['/']), { ...slackEndpoint, event_versions: {} }), ctx)!;
    expect(v1.blocks[0]).toMatchObject({ text: { text: 'Northwind Analytics, Inc. visited' } });
    expect(blockKitProblems(v1)).toEqual([]);
  });
});

describe('a Slack digest when several accounts arrive at once', () => {
  const many = (count: number) =>
    Array.from({ length: count }, (_, i) => eventsOf(view(company(String(910000 + i), `Company ${i}`, `c${i}.example`), ['/'])) as WebhookEvent[]).flat();

  it('one message: a header counting the accounts and a line each with its link', () => {
    const message = slackMessage(many(7), ctx)!;
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: '7 accounts visited', emoji: true } });
    expect(message.blocks.filter((b) => b.type === 'section')).toHaveLength(7);
    expect(message.blocks[1]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '*<https://svc.example.com/console/#customer=acme&amp;page=accounts&amp;account=910000|Company 0>* visited\nc0.example · Software · 51-200 employees · Germany · Enterprise DACH, Evaluating &lt;competitor&gt;\n`/`',
      },
    });
    expect(message.text.startsWith('7 accounts visited: Company 0, Company 1')).toBe(true);
    expect(blockKitProblems(message)).toEqual([]);
  });

  it(`lists at most ${DIGEST_LINES} accounts and counts the rest`, () => {
    const message = slackMessage(many(40), ctx)!;
    expect(message.blocks.filter((b) => b.type === 'section')).toHaveLength(DIGEST_LINES);
    expect(JSON.stringify(message.blocks.at(-1))).toContain(`…and ${40 - DIGEST_LINES} more`);
    expect(blockKitProblems(message)).toEqual([]);
  });

  it('events of one account claimed together are one account message, not a digest', () => {
    const both = eventsOf(view(northwind, ['/', '/pricing']), { ...slackEndpoint, filters: { hot_only: true } });
    expect(both.map((e) => e.type)).toEqual(['account.visited', 'account.hot']);
    expect(slackMessage(both, ctx)!.blocks[0]).toMatchObject({ type: 'header', text: { text: '🔥 Northwind Analytics visited · is hot' } });
  });
});

describe('filters in planning (Slack and JSON endpoints alike)', () => {
  const json: PlanningEndpoint = { id: 'wh_json', events: ['account.visited', 'account.hot', 'segment.entered'], hot_paths: ['/pricing*'] };

  it('segments: the account is in any of them; segment.entered only for the filter’s segments', () => {
    const v = view(northwind, ['/'], { enriched: facts(northwind, ['/'], { entered_segment_ids: [7, 9] }) });
    expect(eventsOf(v, { ...json, filters: { segments: [3] } })).toEqual([]);
    expect(eventsOf(v, { ...json, filters: { segments: [3, 9] } }).map((e) => [e.type, 'segment' in e.data ? e.data.segment.id : null])).toEqual([
      ['account.visited', null],
      ['segment.entered', 9],
    ]);
  });

  it('hot only: a hot account, or a view of a hot page; account.visited comes at the first such view of the day', () => {
    const endpoint = { ...json, events: ['account.visited'] as const, filters: { hot_only: true } };
    expect(eventsOf(view(northwind, ['/']), endpoint)).toEqual([]);
    expect(eventsOf(view(northwind, ['/', '/about']), endpoint)).toEqual([]);
    expect(eventsOf(view(northwind, ['/', '/about', '/pricing/teams']), endpoint).map((e) => e.type)).toEqual(['account.visited']);
    expect(eventsOf(view(northwind, ['/'], { hot_account: true }), endpoint).map((e) => e.type)).toEqual(['account.visited']);
    const [planned] = plannedEvents(view(northwind, ['/', '/pricing']), endpoint, ids);
    expect(planned!.dedupe_key).toBe('account.visited|900001|2026-11-25'); // still once a day
  });

  it('min page views: the visit’s pages (this view included) reach it; tried only at the view that reaches it', () => {
    const endpoint = { ...json, events: ['account.visited'] as const, filters: { min_page_views: 3 } };
    expect(eventsOf(view(northwind, ['/']), endpoint)).toEqual([]);
    expect(eventsOf(view(northwind, ['/', '/a']), endpoint)).toEqual([]);
    expect(eventsOf(view(northwind, ['/', '/a', '/b']), endpoint).map((e) => e.type)).toEqual(['account.visited']);
    // Past it, later views do not enqueue again (the outbox would dedupe them; they are not even tried).
    expect(eventsOf(view(northwind, ['/', '/a', '/b', '/c']), endpoint)).toEqual([]);
    // Without the visit's facts (the visit store could not say) a view counts as one page.
    expect(passesFilters(view(northwind, ['/'], { enriched: undefined }), endpoint)).toBe(false);
  });

  it('all given conditions must hold; an endpoint without filters gets every account', () => {
    const both = { ...json, events: ['account.hot'] as const, filters: { hot_only: true, min_page_views: 2 } };
    expect(eventsOf(view(northwind, ['/pricing']), both)).toEqual([]);
    expect(eventsOf(view(northwind, ['/', '/pricing']), both).map((e) => e.type)).toEqual(['account.hot']);
    expect(eventsOf(view(northwind, ['/', '/pricing']), { ...json, events: ['account.hot'] }).map((e) => e.type)).toEqual(['account.hot']);
  });

  it('a Slack endpoint hears of a hot account once a day, not once per hot page', () => {
    const keys = (path: string) => plannedEvents(view(northwind, ['/', path]), { ...slackEndpoint, events: ['account.hot'] }, ids).map((p) => p.dedupe_key);
    expect(keys('/pricing')).toEqual(['account.hot|900001|2026-11-25']);
    expect(keys('/pricing/teams')).toEqual(['account.hot|900001|2026-11-25']);
  });

  it('enrichment is gathered for Slack endpoints and for filters on segments or page views', () => {
    expect(needsEnrichment({ ...json, events: ['account.visited'], format: 'slack' })).toBe(true);
    expect(needsEnrichment({ ...json, events: ['account.visited'], filters: { min_page_views: 2 } })).toBe(true);
    expect(needsEnrichment({ ...json, events: ['account.visited'], filters: { segments: [1] } })).toBe(true);
    expect(needsEnrichment({ ...json, events: ['account.visited'], filters: { hot_only: true } })).toBe(false);
  });
});

describe('a Slack URL as answers show it', () => {
  it('keeps the workspace and channel ids and the last 4 characters of the secret; drops the query', () => {
    expect(maskedSlackUrl('https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstWXYZ')).toBe(
      'https://hooks.slack.com/services/T0123ABCD/B0456EFGH/…WXYZ',
    );
    expect(maskedSlackUrl('http://127.0.0.1:4000/slack/hook-0123456789?token=secret')).toBe('http://127.0.0.1:4000/slack/…6789');
    // A short last segment shows nothing of itself: 4 of 8 characters would give half of it away.
    expect(maskedSlackUrl('https://example.com/a/short')).toBe('https://example.com/a/…');
    expect(maskedSlackUrl('not a url')).toBe('…');
  });
});
