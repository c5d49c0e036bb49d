/**
 * The console's Webhooks section in a real Chromium against the demo-mode server: add an endpoint (the
 * signing secret is shown once), see it listed without its secret, open its (empty) delivery log, and
 * remove it; the form points at what is wrong before sending. And an endpoint with a chosen payload
 * version sent a test event: a local receiver (the e2e server may deliver to loopback:
 * SVC_WEBHOOK_ALLOW_PRIVATE) gets it, and the console shows its status and body.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN } from './helpers.ts';

let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, unknown>; body: string }[] = [];

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(202, { 'content-type': 'text/plain' }).end('queued by the test receiver');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/${Date.now()}`;
});
test.afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

async function openDemoCustomer(page: Page) {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto('/console/');
  await page.getByText('Operator token', { exact: true }).click();
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in with token' }).click();
  await page.getByLabel('Customer', { exact: true }).selectOption('demo');
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Webhooks' }).click();
  await expect(page.getByRole('heading', { name: 'Webhooks', level: 1 })).toBeVisible();
  return problems;
}

test('add a webhook, see its secret once, read its delivery log and remove it', async ({ page }) => {
  const problems = await openDemoCustomer(page);
  const section = page.getByTestId('webhooks');
  const form = section.getByTestId('create-webhook-form');
  const url = `https://hooks.example.com/svc/${Date.now()}`;

  await form.getByLabel(/^Receiver URL/).fill('hooks.example.com');
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await expect(form.getByRole('alert')).toContainText('full http(s) URL');

  await form.getByLabel(/^Receiver URL/).fill(url);
  await form.getByLabel('Hot pages').fill('/pricing*, pricing');
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await expect(form.getByRole('alert')).toContainText('“pricing” is not a path pattern');
  await form.getByLabel('Hot pages').fill('/pricing*, /demo');
  await form.getByRole('button', { name: 'Add webhook' }).click();

  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  const secret = (await dialog.getByTestId('secret-value').textContent())?.trim() ?? '';
  expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
  await dialog.getByRole('button', { name: /close/ }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByTestId('secret-dialog')).toHaveCount(0); // unmounted once its close event reached the page

  const endpoint = section.getByTestId('webhook').filter({ hasText: url });
  await expect(endpoint).toContainText('account.visited, account.hot');
  await expect(endpoint).toContainText('hot pages /pricing*, /demo');
  await expect(endpoint).toContainText(`secret ${secret.slice(0, 10)}…`);
  expect(await page.content()).not.toContain(secret);

  await endpoint.getByRole('button', { name: 'Deliveries' }).click();
  await expect(endpoint).toContainText('Nothing delivered yet.');

  await endpoint.getByRole('button', { name: 'Remove' }).click();
  await endpoint.getByRole('button', { name: 'Confirm remove' }).click();
  await expect(section.getByTestId('webhook').filter({ hasText: url })).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('choose a payload version, send a test event to a local receiver and see its status and body', async ({ page }) => {
  const problems = await openDemoCustomer(page);
  const section = page.getByTestId('webhooks');
  const form = section.getByTestId('create-webhook-form');
  await form.getByLabel(/^Receiver URL/).fill(receiverUrl);
  await form.getByLabel('Hot pages').fill('');
  await form.getByLabel('account.visited payload version').selectOption('1');
  await expect(form.getByLabel('account.hot payload version')).toHaveValue(''); // the newest by default
  await form.getByLabel('segment names').check();
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByRole('dialog').getByRole('button', { name: /close/ }).click();

  const endpoint = section.getByTestId('webhook').filter({ hasText: receiverUrl });
  await expect(endpoint.getByTestId('webhook-summary')).toHaveText(/^JSON webhook · account.visited v1, account.hot v\d+$/);
  await endpoint.getByRole('button', { name: 'Send test event' }).click();
  const answer = endpoint.getByTestId('test-answer');
  await expect(answer).toContainText('Test account.visited: HTTP 202 — delivered');
  await expect(answer).toContainText('queued by the test receiver');
  expect(received).toHaveLength(1);
  expect(received[0]!.headers['svc-test-event']).toBe('true');
  expect(JSON.parse(received[0]!.body)).toMatchObject({ type: 'account.visited', customer_id: 'demo' });
  expect(JSON.parse(received[0]!.body)).not.toHaveProperty('version'); // v1, as chosen

  await endpoint.getByRole('button', { name: 'Remove' }).click();
  await endpoint.getByRole('button', { name: 'Confirm remove' }).click();
  await expect(section.getByTestId('webhook').filter({ hasText: receiverUrl })).toHaveCount(0);
  expect(problems).toEqual([]);
});
