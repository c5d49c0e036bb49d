/**
 * A Slack alert end to end in Chromium: a Slack endpoint added in the console (Format: Slack, a hot-page
 * filter) pointing at a local receiver that stands in for Slack (the e2e server may deliver to loopback:
 * SVC_WEBHOOK_ALLOW_PRIVATE), a real page view from the demo tag (`svc_test_ip`) → the receiver gets one
 * Block Kit message about that account, linking to its page in the console, and the console's delivery
 * log shows the delivery.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { blockKitProblems } from '../server/testing/block-kit.ts';
import { maskedSlackUrl } from '../server/webhooks/slack.ts';
import { ADMIN_TOKEN, answerFor, failOnPageErrors, pick, recordEvents, serve, visitors, waitForEvent } from './helpers.ts';

let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, unknown>; body: any }[] = [];

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.end('ok'); // what Slack answers a message it took
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/services/T000/B000/${Date.now()}`;
});
test.afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});
failOnPageErrors();

test('a Slack endpoint added in the console gets one Block Kit message for the account a page view came from', async ({ page, request }) => {
  // The console: Format Slack, account.hot only on a hot page of this spec (earlier specs may have made
  // today's first view of the account already), hot accounts only.
  await page.goto('/console/');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.getByLabel('Customer', { exact: true }).selectOption('demo');
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Webhooks' }).click();
  const section = page.getByTestId('webhooks');
  const form = section.getByTestId('create-webhook-form');
  await form.getByLabel('Slack', { exact: true }).check();
  await form.getByLabel(/^Slack incoming-webhook URL/).fill(receiverUrl);
  await form.getByLabel('account.visited').uncheck();
  await form.getByLabel('Hot pages').fill('/t/slack-alert*');
  await expect(form.getByTestId('slack-filters')).toBeVisible();
  await form.getByLabel('hot accounts only').check();
  await form.getByRole('button', { name: 'Add Slack alert' }).click();
  await page.getByRole('dialog').getByRole('button', { name: /close/ }).click();
  // The URL is the channel's credential: once added, the console shows it masked, never whole.
  const endpoint = section.getByTestId('webhook').filter({ hasText: maskedSlackUrl(receiverUrl) });
  await expect(section).not.toContainText(receiverUrl);
  await expect(endpoint.getByTestId('webhook-summary')).toHaveText(/^Slack · account.hot v\d+ · filters: hot accounts only$/);

  // A real page view from the demo tag, for a company the sample data identifies.
  const company = pick(await visitors(request), (v) => v.kind === 'company', 'company');
  const answer = await answerFor(request, company.ip);
  const visitor = await page.context().newPage();
  await recordEvents(visitor);
  const url = await serve(visitor, '/t/slack-alert', { body: '<h1>Pricing</h1>' });
  await visitor.goto(`${url}?svc_test_ip=${company.ip}`);
  await waitForEvent(visitor, 'svc:ready');

  // The receiver standing in for Slack: one message, Block Kit, about that account.
  await expect.poll(() => received.length, { timeout: 15_000 }).toBe(1);
  const [{ headers, body }] = received as [{ headers: Record<string, unknown>; body: any }];
  expect(headers['content-type']).toBe('application/json');
  expect(blockKitProblems(body)).toEqual([]);
  const name = answer.company.display_name ?? answer.company.name;
  expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: expect.stringContaining(`${name} is hot`), emoji: true } });
  const json = JSON.stringify(body);
  expect(json).toContain(answer.company.domain);
  expect(json).toContain('`/t/slack-alert`');
  expect(json).toContain(`/console/#customer=demo&amp;page=accounts&amp;account=${answer.company.companyId}`);

  // The console's delivery log shows it like any delivery.
  await endpoint.getByRole('button', { name: 'Deliveries' }).click();
  await expect(endpoint.getByTestId('deliveries')).toContainText('account.hot');
  await expect(endpoint.getByTestId('deliveries')).toContainText('delivered');

  await endpoint.getByRole('button', { name: 'Remove' }).click();
  await endpoint.getByRole('button', { name: 'Confirm remove' }).click();
  await expect(section.getByTestId('webhook').filter({ hasText: receiverUrl })).toHaveCount(0);
  await visitor.close();
});
