/**
 * The console's Integrations page in a real Chromium against the demo-mode server and a local HubSpot
 * stand-in (server/testing/hubspot-stand-in.ts, started here on loopback and given as the connection's base
 * URL through the connect form's advanced field). Companies visit (page views sent as the tag sends them),
 * the stand-in holds CRM records of their domains, and an admin connects HubSpot, tests the connection,
 * previews what would be written, has a 422 of the mapping shown, syncs, and sees the run succeed; the
 * stand-in's records then hold svc's values. Pause / resume, a replaced credential keeping the mapping, a
 * revoked token making the connection "needs attention" with HubSpot's message, disconnect behind a
 * confirmation. A marketer sees the same page read-only; a viewer's deep link says the page is not
 * available to the role.
 */
import { expect, type Page, test } from '@playwright/test';
import { type HubSpotStandIn, startHubSpotStandIn } from '../server/testing/hubspot-stand-in.ts';
import { ADMIN_TOKEN, answerFor, ORIGIN, signInAsNew, visitors, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const RUN = Date.now().toString(36);

let hubspot: HubSpotStandIn;

test.beforeAll(async () => {
  hubspot = await startHubSpotStandIn();
});
test.afterAll(async ({ request }) => {
  // A connection left behind by a failed run would be synced by the schedule against a closed stand-in.
  await request.delete('/admin/api/customers/demo/crm/hubspot', { headers: admin });
  await hubspot.close();
});

/** One page view from the demo page as the tag sends it (demo mode's test_ip stands in for the company network). */
async function visit(page: Page, ip: string, path: string): Promise<void> {
  const status = await page.evaluate(
    async ({ ip, path, session }) =>
      (
        await fetch(`/v1/events?tag=demo-web-tag&test_ip=${ip}`, {
          method: 'POST',
          keepalive: true,
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
          body: JSON.stringify({ type: 'pageview', path, session }),
        })
      ).status,
    { ip, path, session: `e2e-crm-${RUN}-${ip.replace(/[^0-9a-f]/gi, '_')}` },
  );
  expect(status).toBe(204);
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Console pages' });

test('an admin connects HubSpot, tests, previews, syncs and sees the run; a marketer sees it read-only', async ({ page, request, browser }) => {
  test.setTimeout(120_000);
  const problems = watchConsoleProblems(page);

  // Visiting companies, each with a CRM record of its domain; one CRM record no account matches.
  const companies = (await visitors(request)).filter((v) => v.kind === 'company' && v.company);
  expect(companies.length).toBeGreaterThan(0);
  const records = new Map<string, string>(); // domain → CRM id
  await page.goto('/');
  for (const v of companies) {
    const domain = ((await answerFor(request, v.ip)).company as { domain: string }).domain;
    expect(domain).toBeTruthy();
    if (!records.has(domain)) records.set(domain, hubspot.companies.add({ name: v.company!, domain }));
    await visit(page, v.ip, `/e2e-crm-${RUN}/pricing`);
  }
  const stranger = hubspot.companies.add({ name: 'Nobody visited', domain: `never-visited-${RUN}.example` });
  const today = new Date().toISOString().slice(0, 10);
  await expect
    .poll(async () => {
      const report = await (await request.get(`/admin/api/customers/demo/visits?from=${today}&to=${today}`, { headers: admin })).json();
      const names = new Set(report.accounts.map((a: { name: string }) => a.name));
      return companies.every((v) => names.has(v.company));
    })
    .toBe(true);

  // An admin opens Integrations from the navigation: both CRMs, neither connected.
  await signInAsNew(page, request, 'admin', 'integrations');
  await nav(page).getByRole('link', { name: 'Integrations' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Integrations' })).toBeVisible();
  const card = page.getByTestId('crm-hubspot');
  await expect(card.getByTestId('crm-status')).toHaveText('not connected');
  await expect(page.getByTestId('crm-salesforce').getByTestId('crm-status')).toHaveText('not connected');

  // Connect: the form points at the missing token before sending anything.
  const connect = card.getByTestId('crm-connect-form');
  await connect.getByRole('button', { name: 'Connect HubSpot' }).click();
  await expect(connect.getByRole('alert')).toContainText('access token');
  await expect(connect.getByLabel('Access token')).toBeFocused();
  await connect.getByLabel('Access token').fill(hubspot.token);
  await connect.getByText('Advanced', { exact: true }).click();
  await connect.getByLabel('API base URL').fill(hubspot.url);
  await connect.getByRole('button', { name: 'Connect HubSpot' }).click();

  await expect(card.getByTestId('crm-status')).toHaveText('active');
  await expect(card.getByTestId('crm-base-url')).toHaveText(hubspot.url);
  await expect(card.getByTestId('crm-secret')).toHaveText(`${hubspot.token.slice(0, 6)}…`);
  expect(await page.content()).not.toContain(hubspot.token);
  // The connect answered its test: svc's properties were created in the portal.
  await expect(card.getByTestId('crm-test-writable')).toContainText('svc_segments');
  expect(hubspot.properties.get('svc_page_views_30d')).toBeDefined();

  // Test connection: what the token may do.
  await card.getByRole('button', { name: 'Hide' }).click();
  await card.getByRole('button', { name: 'Test connection' }).click();
  const tested = card.getByTestId('crm-test');
  await expect(tested).toContainText('The credential works');
  await expect(tested.getByTestId('crm-test-scopes')).toContainText('crm.objects.companies.write');
  await expect(tested.getByTestId('crm-test-objects')).toContainText('companies');
  await expect(tested.getByTestId('crm-test-missing')).toHaveText('none');

  // The mapping: a field svc does not own is refused (the server's 422 said, its row marked); emptied: not written.
  const mapping = card.getByTestId('crm-mapping-form');
  const hot = mapping.getByLabel('hot', { exact: true });
  await expect(hot).toHaveValue('svc_hot');
  await hot.fill('hot_flag');
  await mapping.getByRole('button', { name: 'Save mapping' }).click();
  await expect(mapping.getByRole('status')).toContainText('Not saved: validation error: mapping.hot: hot_flag is not a field svc owns');
  await expect(hot).toHaveAttribute('aria-invalid', 'true');
  await hot.fill('');
  await mapping.getByRole('button', { name: 'Save mapping' }).click();
  await expect(mapping.getByRole('status')).toHaveText('Mapping saved: the next sync writes these fields.');
  await expect(hot).not.toHaveAttribute('aria-invalid', 'true');

  // Preview (every account, so a scheduled run in between changes nothing): the matched accounts and their values.
  await card.getByLabel('every account (as a full backfill)').check();
  await card.getByRole('button', { name: 'Preview' }).click();
  const preview = card.getByTestId('crm-preview');
  const n = records.size;
  await expect(preview.getByTestId('crm-preview-count')).toHaveText(`${n} ${n === 1 ? 'account would get these values' : 'accounts would get these values'}`);
  const table = preview.getByTestId('crm-preview-table');
  await expect(table.locator('tbody tr')).toHaveCount(n);
  for (const [domain, id] of records) await expect(table.getByRole('row').filter({ hasText: domain })).toContainText(id);
  await expect(table.locator('thead')).toContainText('svc_page_views_30d');
  await expect(table.locator('thead')).not.toContainText('svc_hot');
  // Nothing was written by the preview.
  for (const id of records.values()) expect(hubspot.companies.get(id)!.properties.svc_company_id ?? null).toBeNull();

  // Sync now: 202, then the runs log is followed until the run ends. (The schedule may have started one
  // first: the console then says a run is under way, and that run is the one seen.)
  await card.getByRole('button', { name: 'Sync now' }).click();
  await expect(card.getByText(/Sync started \(run_|wait for it to finish/)).toBeVisible();
  const runs = () =>
    card.getByTestId('crm-run').evaluateAll((rows) =>
      rows.map((r) => ({
        kind: r.getAttribute('data-kind'),
        status: r.getAttribute('data-status'),
        written: Number(r.querySelector('[data-count="written"]')?.textContent?.replace(/,/g, '')),
      })),
    );
  await expect
    .poll(async () => (await runs()).some((r) => r.kind === 'incremental' && r.status === 'succeeded' && r.written > 0), { timeout: 60_000 })
    .toBe(true);
  await expect(card.getByTestId('crm-underway')).toHaveCount(0);
  await expect(card.getByTestId('crm-last-run')).toContainText('succeeded');

  // The CRM records hold svc's values (svc_hot was mapped to nothing); the stranger is untouched.
  for (const id of records.values()) {
    const props = hubspot.companies.get(id)!.properties;
    expect(props.svc_company_id).toBeTruthy();
    expect(Number(props.svc_page_views_30d)).toBeGreaterThanOrEqual(1);
    expect(props.svc_last_visit_at).toBeTruthy();
    expect(props.svc_hot ?? null).toBeNull();
  }
  expect(Object.keys(hubspot.companies.get(stranger)!.properties).filter((k) => k.startsWith('svc_'))).toEqual([]);

  // Pause and resume.
  await card.getByRole('button', { name: 'Pause' }).click();
  await expect(card.getByTestId('crm-status')).toHaveText('paused');
  await card.getByRole('button', { name: 'Resume' }).click();
  await expect(card.getByTestId('crm-status')).toHaveText('active');

  // A marketer sees the connection, the mapping and the runs, and no control that changes them.
  const marketerContext = await browser.newContext({ baseURL: ORIGIN });
  const marketer = await marketerContext.newPage();
  const marketerProblems = watchConsoleProblems(marketer);
  await signInAsNew(marketer, request, 'marketer', 'integrations');
  await nav(marketer).getByRole('link', { name: 'Integrations' }).click();
  const seen = marketer.getByTestId('crm-hubspot');
  await expect(seen.getByTestId('crm-status')).toHaveText('active');
  await expect(seen.getByTestId('crm-secret')).toHaveText(`${hubspot.token.slice(0, 6)}…`);
  await expect(marketer.getByTestId('crm-read-only')).toBeVisible();
  await expect(seen.getByTestId('crm-mapping')).toContainText('svc_page_views_30d');
  await expect(seen.getByTestId('crm-run').first()).toBeVisible();
  await expect(seen.getByRole('button', { name: /Sync now|Full backfill|Test connection|Preview|Pause|Disconnect|Save mapping/ })).toHaveCount(0);
  await expect(seen.getByRole('textbox')).toHaveCount(0);
  await expect(marketer.getByTestId('crm-salesforce').getByTestId('crm-connect-form')).toHaveCount(0);
  expect(marketerProblems).toEqual([]);
  await marketerContext.close();

  // Replacing the credential (tested first) keeps the mapping.
  await card.getByText('Replace the credential', { exact: true }).click();
  const replace = card.getByRole('form', { name: 'Test and replace' });
  await expect(replace.getByLabel('API base URL')).toHaveValue(hubspot.url);
  await replace.getByLabel('Access token').fill(hubspot.token);
  await replace.getByRole('button', { name: 'Test and replace' }).click();
  await expect(card.getByTestId('crm-test')).toContainText('The credential works');
  await expect(hot).toHaveValue('');
  await expect(card.getByTestId('crm-test-writable')).not.toContainText('svc_hot');

  // A revoked token: the test says HubSpot's refusal, and the connection needs attention with its message.
  hubspot.faults.revokeToken();
  await card.getByRole('button', { name: 'Test connection' }).click();
  await expect(card.getByTestId('crm-test').getByRole('alert')).toContainText('HubSpot refused the credential');
  await expect(card.getByTestId('crm-status')).toHaveText('needs attention');
  await expect(card.getByTestId('crm-attention')).not.toBeEmpty();
  await expect(card.getByTestId('crm-needs-attention')).toBeVisible();
  await expect(card.getByRole('button', { name: 'Resume' })).toBeVisible();

  // Disconnect asks first; then the connect form is back.
  await card.getByRole('button', { name: 'Disconnect' }).click();
  await card.getByRole('button', { name: 'Keep it' }).click();
  await expect(card.getByTestId('crm-status')).toHaveText('needs attention');
  await card.getByRole('button', { name: 'Disconnect' }).click();
  await card.getByRole('button', { name: 'Disconnect for good' }).click();
  await expect(card.getByTestId('crm-status')).toHaveText('not connected');
  await expect(card.getByTestId('crm-connect-form')).toBeVisible();
  expect(problems).toEqual([]);
});

test('a viewer opening #page=integrations is told the role may not open it', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  await signInAsNew(page, request, 'viewer', 'integrations');
  await expect(nav(page).getByRole('link', { name: 'Integrations' })).toHaveCount(0);
  await page.goto('/console/#customer=demo&page=integrations');
  await expect(page.getByRole('heading', { level: 1, name: 'Integrations: not available to your role' })).toBeVisible();
  await expect(page.getByTestId('page-unavailable')).toContainText('integrations:read');
  await expect(page.getByTestId('integrations-page')).toHaveCount(0);
  expect(problems).toEqual([]);
});
