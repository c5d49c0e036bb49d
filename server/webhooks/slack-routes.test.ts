/**
 * Slack endpoints through the admin API and a real server: what a Slack endpoint may be (its events, its
 * versions, its filters' segments), the test event as a Block Kit message, and the tag's page views
 * becoming one Slack message for the account at a local receiver standing in for Slack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockKitProblems } from '../testing/block-kit.ts';
import { sendPageView } from '../testing/page-view.ts';
import { IPS, startTestServer, TEST_ADMIN_TOKEN, type TestServer } from '../testing/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver.ts';
import { maskedSlackUrl } from './slack.ts';

const ADMIN = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

describe('Slack endpoints over the admin API', () => {
  let server: TestServer;
  let slack: WebhookReceiver;
  beforeAll(async () => {
    server = await startTestServer({ env: { SVC_TRUST_PROXY: 'loopback', SVC_WEBHOOK_POLL_MS: '100', SVC_PUBLIC_URL: 'https://svc.example.com' } });
    slack = await startWebhookReceiver();
  });
  afterAll(async () => {
    await server?.close();
    await slack?.close();
  });

  const admin = (path: string, method = 'GET', body?: unknown) =>
    server.request(`/admin/api/customers/acme${path}`, { method, headers: ADMIN, body: body === undefined ? undefined : JSON.stringify(body) });
  const beacon = (path: string, ip: string, session: string) => sendPageView(server.url, { path, ip, session });

  it('refuses what a Slack endpoint cannot be: tag.installed, v1 account events, filters naming no segment of the customer', async () => {
    const tagInstalled = await admin('/webhooks', 'POST', { url: slack.url, format: 'slack', events: ['account.visited', 'tag.installed'] });
    expect(tagInstalled.status).toBe(422);
    expect((await tagInstalled.json()).message).toMatch(/Slack endpoint gets account.visited, account.hot, segment.entered; not tag.installed/);
    const v1 = await admin('/webhooks', 'POST', { url: slack.url, format: 'slack', events: ['account.visited'], event_versions: { 'account.visited': 1 } });
    expect(v1.status).toBe(422);
    expect((await v1.json()).message).toMatch(/event_versions.account.visited: a Slack endpoint needs version 2/);
    const unknown = await admin('/webhooks', 'POST', { url: slack.url, format: 'slack', events: ['account.visited'], filters: { segments: [424242] } });
    expect(unknown.status).toBe(422);
    expect((await unknown.json()).message).toMatch(/filters.segments: no segment 424242/);
    const badFilter = await admin('/webhooks', 'POST', { url: slack.url, events: ['account.visited'], filters: { min_page_views: 0 } });
    expect(badFilter.status).toBe(422);
    const strange = await admin('/webhooks', 'POST', { url: slack.url, events: ['account.visited'], format: 'teams' });
    expect(strange.status).toBe(422);
  });

  it('a page view from the tag becomes one Block Kit message for the account; the test event is a Block Kit sample', async () => {
    const created = await admin('/webhooks', 'POST', {
      url: slack.url,
      format: 'slack',
      events: ['account.visited', 'account.hot'],
      filters: { segments: [101] },
    });
    expect(created.status).toBe(201);
    const endpoint = await created.json();
    // The URL is the channel's credential: whole only in the creation's answer, masked after it.
    expect(endpoint.url).toBe(slack.url);
    const masked = maskedSlackUrl(slack.url);
    expect(masked).not.toBe(slack.url);
    expect((await (await admin(`/webhooks/${endpoint.id}`)).json()).url).toBe(masked);
    expect((await (await admin('/webhooks')).json()).map((w: { url: string }) => w.url)).toEqual([masked]);
    const audit = JSON.stringify(await (await admin('/audit')).json());
    expect(audit).toContain(masked);
    expect(audit).not.toContain(slack.url);
    expect(endpoint).toMatchObject({
      format: 'slack',
      filters: { segments: [101] },
      segment_names: true, // a Slack channel shows names by default
      event_versions: { 'account.visited': 3, 'account.hot': 3 },
    });

    // Northwind is acme's hot account, in segment 101: its first view is "visited · is hot", one message.
    expect((await beacon('/pricing', IPS.northwind, 'sess-slack-0001')).status).toBe(204);
    const [first] = await slack.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(slack.received).toHaveLength(1);
    expect(first!.headers['svc-signature']).toBeUndefined();
    const message = JSON.parse(first!.body);
    expect(blockKitProblems(message)).toEqual([]);
    expect(message.blocks[0]).toMatchObject({ type: 'header', text: { type: 'plain_text', text: expect.stringMatching(/^🔥 .+ visited · is hot$/) } });
    const json = JSON.stringify(message);
    expect(json).toContain('https://svc.example.com/console/#customer=acme&amp;page=accounts&amp;account=900001');
    expect(json).toContain('`/pricing`');

    const log = await (await admin(`/webhooks/${endpoint.id}/deliveries`)).json();
    expect(log.map((d: { type: string; status: string }) => [d.type, d.status]).sort()).toEqual([
      ['account.hot', 'delivered'],
      ['account.visited', 'delivered'],
    ]);

    const test = await (await admin(`/webhooks/${endpoint.id}/test`, 'POST', {})).json();
    expect(test).toMatchObject({ delivered: true, status: 200, body: 'ok' });
    expect(test.slack.blocks[0].type).toBe('header');
    expect(JSON.parse(slack.received.at(-1)!.body)).toEqual(test.slack);
    expect((await admin(`/webhooks/${endpoint.id}/test`, 'POST', { type: 'tag.installed' })).status).toBe(422);
  });

  it('PATCH turns a v1 JSON endpoint into a Slack one on the newest versions, and sets filters', async () => {
    const created = await (await admin('/webhooks', 'POST', { url: slack.url, events: ['account.visited'], event_versions: { 'account.visited': 1 } })).json();
    const patched = await admin(`/webhooks/${created.id}`, 'PATCH', { format: 'slack', filters: { hot_only: true, min_page_views: 3 } });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ format: 'slack', filters: { hot_only: true, min_page_views: 3 }, event_versions: { 'account.visited': 3 } });
    // Its filters would pass over the sample's two-page visit: a test event is still sent.
    expect(await (await admin(`/webhooks/${created.id}/test`, 'POST', {})).json()).toMatchObject({ delivered: true, slack: { blocks: expect.any(Array) } });
    const narrow = await admin(`/webhooks/${created.id}`, 'PATCH', { filters: { segments: [424242] } });
    expect(narrow.status).toBe(422);
    expect((await admin(`/webhooks/${created.id}`, 'PATCH', { events: ['tag.installed'] })).status).toBe(422);
    expect((await admin(`/webhooks/${created.id}`, 'DELETE')).status).toBe(204);
  });
});
