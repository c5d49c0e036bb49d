/**
 * The Alerts page end to end in a real Chromium against the demo-mode server. A marketer (not an admin,
 * invited through the admin API and signed in with the one-time link) uploads an owners list (a bad file is
 * refused naming its row, nothing changed), then creates a Microsoft Teams alert "an account enters segment
 * X → also its owner" in the console, its Workflows URL pointing at a local receiver that stands in for
 * Teams (the e2e server may deliver to loopback: SVC_WEBHOOK_ALLOW_PRIVATE). A page view sent as the tag
 * sends it moves the account into X (a rule on the page it viewed), and the receiver gets one Adaptive Card
 * about that account (checked with the `adaptivecards` object model), @mentioning its owner from the list;
 * "Send test" shows the test's delivery; pause, resume, edit and delete work. A viewer reads the alerts
 * without a control. axe-core finds no serious or critical violation at 1,366 × 768 and 390 × 844, and the
 * phone page does not scroll sideways.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { adaptiveCardProblems } from '../server/testing/adaptive-card.ts';
import { ADMIN_TOKEN, answerFor, pick, signInAsNew, TAG, visitors, watchConsoleProblems } from './helpers.ts';

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const SHOTS = 'test-results/screenshots';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const RUN = Date.now().toString(36);
const SIG = `e2e-sig-${RUN}`;

let receiver: Server;
let teamsUrl: string;
const received: { body: any }[] = [];

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.statusCode = 202; // what a Teams Workflows trigger answers a message it took
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  teamsUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/workflows/${RUN}/triggers/manual/paths/invoke?api-version=2016-06-01&sig=${SIG}`;
});
test.afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
});

async function expectAccessible(page: Page, what: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `${what}: axe violations`,
  ).toEqual([]);
}

async function expectNoPageScroll(page: Page, what: string) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, `${what} scrolls sideways`).toBeLessThanOrEqual(client);
}

/** A page view sent as the tag sends it (a text/plain beacon from a page of the site; demo mode's test_ip stands for the visitor's network). */
async function pageView(page: Page, ip: string, path: string): Promise<void> {
  await page.goto('/');
  const status = await page.evaluate(
    async ({ tag, ip, path, session }) =>
      (
        await fetch(`/v1/events?tag=${tag}&test_ip=${ip}`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
          body: JSON.stringify({ type: 'pageview', path, session }),
        })
      ).status,
    { tag: TAG, ip, path, session: `e2e-alerts-${RUN}` },
  );
  expect(status).toBe(204);
}

const cards = () => received.map((r) => r.body?.attachments?.[0]?.content).filter(Boolean);
const isTest = (card: unknown) => JSON.stringify(card).includes('TEST ALERT');

test('a marketer creates a Teams alert "entered segment X → owner"; a page view moves the account into X; the channel gets one Adaptive Card', async ({
  page,
  request,
  context,
}) => {
  test.setTimeout(60_000);
  const problems = watchConsoleProblems(page);
  const company = pick(await visitors(request), (v) => v.kind === 'company' && !!v.company, 'company');
  const answer = await answerFor(request, company.ip);
  const { domain, companyId } = answer.company as { domain: string; companyId: string };
  const name: string = answer.company.display_name ?? answer.company.name;
  // Segment X: this account, once it has viewed this run's pricing page — so the page view below moves it in.
  const path = `/e2e-alerts-${RUN}/pricing`;
  const made = await request.post('/admin/api/customers/demo/segments', {
    headers: admin,
    data: { name: `Pricing viewers ${RUN}`, match: { company_id: [companyId], visited: { path: `/e2e-alerts-${RUN}/*`, days: 1 } } },
  });
  expect(made.status()).toBe(201);
  const segment = (await made.json()) as { id: number; name: string };

  await page.setViewportSize(LAPTOP);
  const email = await signInAsNew(page, request, 'marketer', `alerts-${RUN}`);
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Alerts' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Alerts' })).toBeVisible();

  // The owners list: a bad file is refused naming its row, and nothing changes; a good one says what it read.
  const owners = page.getByTestId('owners');
  const upload = async (csv: string) => {
    await owners.getByLabel('Owners list (CSV)').setInputFiles({ name: 'owners.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await owners.getByRole('button', { name: 'Upload' }).click();
  };
  await upload(`domain,owner_email\n${domain},${email}\nnot a domain!,someone@acme.example\n`);
  await expect(owners.getByTestId('owners-error')).toContainText('row 3: domain: not a domain');
  await expect(owners.getByTestId('owners-error')).toContainText('nothing was changed');
  await upload(`domain,owner_email,teams_mention\n${domain},${email},${email}\n`);
  await expect(owners.getByTestId('owners-report')).toHaveText('Read 1 account row and 0 territory rules; the list is replaced.');
  await expect(owners.getByTestId('owners-summary')).toContainText('1 account with an owner and 0 territory rules');

  // The alert: entered segment X → Teams, and the account's owner too.
  const form = page.getByRole('form', { name: 'New alert' });
  await form.getByLabel(/^Name/).fill(`Pricing viewers to the rep ${RUN}`);
  await expect(form.getByLabel('When')).toHaveValue('segment_entered');
  // Said before asking the server: no segment chosen.
  await form.getByRole('button', { name: 'Create alert' }).click();
  await expect(form.getByRole('alert')).toHaveText('Choose the segment an account enters.');
  await expect(form.getByLabel('Segment', { exact: true })).toBeFocused();
  await form.getByLabel('Segment', { exact: true }).selectOption({ label: segment.name });
  await form.getByLabel('Send to').selectOption('teams');
  // No webhook (signed JSON) destination for a marketer: that is an admin's.
  await expect(form.getByLabel('Send to').locator('option')).toHaveText(['Slack', 'Microsoft Teams', 'Email']);
  await form.getByLabel('Teams Workflows URL').fill(teamsUrl);
  await form.getByLabel(/^Send it to the account’s owner too/).check();
  await expectAccessible(page, 'the alert form at 1366');
  await form.getByRole('button', { name: 'Create alert' }).click();

  const card = page.getByTestId('alert').filter({ hasText: `Pricing viewers to the rep ${RUN}` });
  await expect(card.getByTestId('alert-trigger')).toHaveText(`When an account enters ${segment.name}`);
  await expect(card.getByTestId('alert-destination')).toContainText('To the Microsoft Teams channel http://127.0.0.1:');
  await expect(card.getByTestId('alert-owner')).toContainText('Also to the account’s owner');
  await expect(card.getByTestId('alert-status')).toHaveText('active');
  // The Workflows URL is the channel's credential: shown masked, never whole.
  expect(await page.content()).not.toContain(SIG);
  await expect(form.getByLabel(/^Name/)).toHaveValue('');
  const created = (await (await request.get('/admin/api/customers/demo/alerts', { headers: admin })).json()).find(
    (a: { name: string }) => a.name === `Pricing viewers to the rep ${RUN}`,
  );
  expect(created).toMatchObject({
    trigger: { type: 'segment_entered', segment: segment.id },
    destination: { type: 'teams' },
    route_to_owner: { instead_of_channel: false },
    created_by: email,
  });
  await expectAccessible(page, 'the alerts page at 1366');
  await page.screenshot({ path: `${SHOTS}/alerts-1366.png`, fullPage: true });

  // A real page view moves the account into X: the receiver standing in for Teams gets one Adaptive Card about it.
  const visitor = await context.newPage();
  await pageView(visitor, company.ip, path);
  await expect.poll(() => cards().length, { timeout: 15_000 }).toBe(1);
  const [adaptive] = cards();
  expect(received[0]!.body.type).toBe('message');
  expect(adaptiveCardProblems(adaptive)).toEqual([]);
  const text = JSON.stringify(adaptive);
  for (const fact of [name, domain, segment.name, path]) expect(text).toContain(fact);
  expect(text).toContain(`/console/#customer=demo&page=accounts&account=${companyId}`);
  expect(isTest(adaptive)).toBe(false);
  // Its owner from the uploaded list, @mentioned by its Teams mention.
  expect(adaptive.msteams?.entities).toEqual([expect.objectContaining({ type: 'mention', mentioned: expect.objectContaining({ id: email }) })]);

  // "Send test": a card labelled as a test, and the page says it was delivered. The page view above raised one card only.
  await pageView(visitor, company.ip, path);
  await card.getByRole('button', { name: 'Send test' }).click();
  await expect(card.getByTestId('alert-test-result')).toHaveText('Test delivered (HTTP 202).', { timeout: 20_000 });
  await expect.poll(() => cards().filter(isTest).length).toBe(1);
  expect(cards().filter((c) => !isTest(c))).toHaveLength(1);
  await visitor.close();

  // Pause and resume; edit the name; delete (confirmed).
  await card.getByRole('button', { name: 'Pause' }).click();
  await expect(card.getByTestId('alert-status')).toHaveText('paused');
  await card.getByRole('button', { name: 'Resume' }).click();
  await expect(card.getByTestId('alert-status')).toHaveText('active');
  await card.getByRole('button', { name: 'Edit' }).click();
  const edit = card.getByRole('form', { name: `Edit Pricing viewers to the rep ${RUN}` });
  await expect(edit.getByLabel('Teams Workflows URL')).toHaveValue('');
  await edit.getByLabel(/^Name/).fill(`Renamed ${RUN}`);
  await edit.getByRole('button', { name: 'Save alert' }).click();
  const renamed = page.getByTestId('alert').filter({ hasText: `Renamed ${RUN}` });
  await expect(renamed.getByTestId('alert-destination')).toContainText('Microsoft Teams');
  await renamed.getByRole('button', { name: 'Delete' }).click();
  await renamed.getByRole('button', { name: `Delete “Renamed ${RUN}”` }).click();
  await expect(page.getByTestId('alert').filter({ hasText: `Renamed ${RUN}` })).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('on a phone the alerts and their form fit and pass axe; a viewer reads them without a control', async ({ page, request, browser }) => {
  const problems = watchConsoleProblems(page);
  const res = await request.post('/admin/api/customers/demo/alerts', {
    headers: admin,
    data: {
      name: `Phone check ${RUN}: a fairly long alert name that has to wrap on a phone`,
      trigger: { type: 'hot', hot_paths: ['/pricing*', '/demo*'] },
      filter: { min_page_views: 2, owner: 'with' },
      destination: { type: 'email', to: ['sales-team-with-a-long-address@acme.example'] },
      route_to_owner: { instead_of_channel: true, fallback: { to: ['fallback@acme.example'] } },
    },
  });
  expect(res.status()).toBe(201);
  const alert = (await res.json()) as { id: string; name: string };

  await page.setViewportSize(PHONE);
  await signInAsNew(page, request, 'marketer', `alerts-phone-${RUN}`);
  await page.goto('/console/#customer=demo&page=alerts');
  const card = page.locator(`[data-alert-id="${alert.id}"]`);
  await expect(card.getByTestId('alert-trigger')).toHaveText('When an account becomes hot: a hot account, or a view of /pricing* or /demo*');
  await expect(card.getByTestId('alert-filter')).toHaveText('Only accounts with at least 2 page views in the visit, with an owner');
  await card.getByRole('button', { name: 'Edit' }).click();
  await expect(card.getByRole('form')).toBeVisible();
  await expect(card.getByLabel('Email addresses')).toHaveValue('sales-team-with-a-long-address@acme.example');
  await expectAccessible(page, 'the alerts page at 390');
  await expectNoPageScroll(page, 'the alerts page');
  await page.screenshot({ path: `${SHOTS}/alerts-390.png`, fullPage: true });

  const viewerContext = await browser.newContext({ viewport: PHONE });
  const viewer = await viewerContext.newPage();
  await signInAsNew(viewer, request, 'viewer', `alerts-viewer-${RUN}`);
  await viewer.goto('/console/#customer=demo&page=alerts');
  await expect(viewer.getByTestId('alerts-read-only')).toBeVisible();
  const seen = viewer.locator(`[data-alert-id="${alert.id}"]`);
  await expect(seen.getByTestId('alert-trigger')).toBeVisible();
  await expect(seen.getByRole('button')).toHaveCount(0);
  await expect(viewer.getByRole('form', { name: 'New alert' })).toHaveCount(0);
  await expect(viewer.getByTestId('owners-form')).toHaveCount(0);
  await expectAccessible(viewer, 'the alerts page of a viewer at 390');
  await viewerContext.close();

  expect((await request.delete(`/admin/api/customers/demo/alerts/${alert.id}`, { headers: admin })).status()).toBe(204);
  expect(problems).toEqual([]);
});
