/**
 * The Segments page in a real Chromium against the demo-mode server, as a marketer (invited through the
 * admin API, signed in with the one-time link): build a segment with the builder around a sample company
 * that is in no segment yet, watch the live preview count it, save it, and see the demo site's tag answer
 * (the demo page at / with the demo tag) carry the new segment for a visitor from that company.
 */
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, answerFor, ORIGIN, pick, UA, visitors, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const PASSWORD = 'e2e segments passphrase';

async function signInAsNew(page: Page, request: APIRequestContext, role: string): Promise<string> {
  const email = `${role}-segments-${Date.now()}-${Math.floor(Math.random() * 1e6)}@acme.example`;
  const res = await request.post('/admin/api/customers/demo/invitations', { headers: admin, data: { email, role } });
  expect(res.status()).toBe(201);
  await page.goto((await res.json()).url);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText(`${email} · ${role}`);
  return email;
}

test('a marketer builds a segment, previews it live, saves it, and the demo tag answers with it', async ({ page, request, browser }) => {
  const problems = watchConsoleProblems(page);
  // A sample company no segment holds yet, and what the catalog says of it (asked as the demo tag asks).
  const v = pick(await visitors(request), (x) => x.label.startsWith('Company outside the segments'), 'outside-the-segments company');
  const before = await answerFor(request, v.ip);
  const company = before.company as { name: string; industry: string; employee_range: string; country_iso_code: string; sic: string | null };
  expect(company.name).toBe(v.company);
  const name = `E2E ${company.industry} ${Date.now() % 100000}`;
  expect(before.segments.names).not.toContain(name);

  await signInAsNew(page, request, 'marketer');
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Segments' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Segments' })).toBeVisible();
  // The customer's segments with their rule in words and size.
  const table = page.getByTestId('segments-table');
  await expect(table.getByRole('row', { name: /Enterprise Software/ })).toContainText(
    'Industry is Software, and Employees is 1,000-4,999, 5,000-9,999 or 10,000+',
  );
  await expect(table.getByRole('row', { name: /Enterprise Software/ }).getByTestId('segment-size')).toHaveText(/^\d[\d,]*$/);

  const builder = page.getByTestId('segment-builder');
  const preview = builder.getByTestId('segment-preview');
  // An empty rule is refused at the field, before anything is sent.
  await builder.getByLabel('Name').fill(name);
  await builder.getByRole('button', { name: 'Save segment' }).click();
  await expect(builder.getByTestId('segment-invalid')).toContainText('add at least one condition');

  // Industry (typed), then the preview counts at once.
  await builder.getByLabel('Add a condition on').selectOption({ label: 'Industry' });
  await builder.getByRole('button', { name: 'Add condition' }).click();
  await builder.getByLabel('Industry value').fill(company.industry);
  await builder.getByLabel('Industry value').press('Enter');
  await expect(preview.getByTestId('segment-rule-words')).toHaveText(`Industry is ${company.industry}`);
  await expect(preview.getByTestId('preview-size')).toHaveText(/^\d[\d,]* accounts? match$/);
  const broad = Number((await preview.getByTestId('preview-size').textContent())!.replace(/\D/g, ''));
  expect(broad).toBeGreaterThan(0);

  // Employees (picked from the vocabulary) and country (typed, upper-cased): the preview narrows as the rule changes.
  await builder.getByLabel('Add a condition on').selectOption({ label: 'Employees' });
  await builder.getByRole('button', { name: 'Add condition' }).click();
  await builder.getByTestId('condition-employee_range').getByLabel(company.employee_range, { exact: true }).check();
  await builder.getByLabel('Add a condition on').selectOption({ label: 'Country' });
  await builder.getByRole('button', { name: 'Add condition' }).click();
  await builder.getByLabel('Country value').fill('nope');
  await builder.getByRole('button', { name: 'Add country' }).click();
  await expect(builder.getByTestId('condition-country_iso_code').getByRole('alert')).toContainText('two-letter ISO country code');
  await builder.getByLabel('Country value').fill(company.country_iso_code.toLowerCase());
  await builder.getByRole('button', { name: 'Add country' }).click();
  await expect(preview.getByTestId('segment-rule-words')).toHaveText(
    `Industry is ${company.industry}, and Employees is ${company.employee_range}, and Country is ${company.country_iso_code}`,
  );
  await expect.poll(async () => Number(((await preview.getByTestId('preview-size').textContent()) ?? '').replace(/\D/g, ''))).toBeLessThanOrEqual(broad);
  await expect(preview.getByTestId('preview-size')).not.toContainText('updating');
  const size = Number((await preview.getByTestId('preview-size').textContent())!.replace(/\D/g, ''));
  expect(size).toBeGreaterThan(0);
  const accounts = preview.getByTestId('preview-accounts');
  await expect(accounts.getByRole('row')).toHaveCount(Math.min(size, 20) + 1);
  if (size <= 20) await expect(accounts).toContainText(company.name);

  await builder.getByRole('button', { name: 'Save segment' }).click();
  const notice = page.getByTestId('segments-notice');
  await expect(notice).toContainText(`Segment “${name}” created`);
  const id = Number(/\(id (\d+)\)/.exec((await notice.textContent()) ?? '')![1]);
  const row = page.getByTestId(`segment-${id}`);
  await expect(row).toContainText(name);
  await expect(row.getByTestId('segment-rule')).toHaveText(
    `Industry is ${company.industry}, and Employees is ${company.employee_range}, and Country is ${company.country_iso_code}`,
  );
  await expect(row.getByTestId('segment-size')).toHaveText(size.toLocaleString('en-US'));

  // The demo site, opened fresh (no cached answer) by a visitor from that company: the tag's answer carries the segment.
  const visitor = await browser.newContext({ baseURL: ORIGIN, userAgent: UA });
  const site = await visitor.newPage();
  await site.goto(`/?svc_test_ip=${v.ip}`);
  await expect
    .poll(() =>
      site.evaluate(() => (window as unknown as { svc: { data: { segments: { ids: number[]; names: string[] } } | null } }).svc.data?.segments ?? null),
    )
    .toEqual(expect.objectContaining({ ids: expect.arrayContaining([id]), names: expect.arrayContaining([name]) }));
  await visitor.close();

  // Renamed, then deleted: the name changes, the id goes and is not given again.
  await row.getByRole('button', { name: `Edit ${name}` }).click();
  await expect(page.getByRole('heading', { name: `Edit segment ${id}` })).toBeVisible();
  await builder.getByLabel('Name').fill(`${name} (renamed)`);
  await builder.getByRole('button', { name: 'Save changes' }).click();
  await expect(notice).toContainText(`Segment “${name} (renamed)” saved`);
  await expect(row).toContainText(`${name} (renamed)`);
  await row.getByRole('button', { name: `Delete ${name} (renamed)` }).click();
  await row.getByRole('button', { name: `Delete “${name} (renamed)”` }).click();
  await expect(notice).toContainText('deleted');
  await expect(page.getByTestId(`segment-${id}`)).toHaveCount(0);
  const after = await answerFor(request, v.ip);
  expect(after.segments.ids).not.toContain(id);
  expect(problems).toEqual([]);
});

test('a viewer reads the segments without the builder or buttons', async ({ page, request }) => {
  await signInAsNew(page, request, 'viewer');
  await page.goto('/console/#customer=demo&page=segments');
  await expect(page.getByRole('heading', { level: 1, name: 'Segments' })).toBeVisible();
  await expect(page.getByTestId('segments-table').getByRole('row', { name: /Enterprise Software/ })).toContainText('Industry is Software');
  await expect(page.getByTestId('segment-builder')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Edit|^Delete/ })).toHaveCount(0);
});
