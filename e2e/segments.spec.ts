/**
 * The Segments page in a real Chromium against the demo-mode server, as a marketer (invited through the
 * admin API, signed in with the one-time link): build a segment with the builder around a sample company
 * that is in no segment yet, watch the live preview count it, save it, and see the demo site's tag answer
 * (the demo page at / with the demo tag) carry the new segment for a visitor from that company; build a
 * grouped rule with ANY and behaviour conditions, watch the preview follow each change (the counts the
 * preview API gives for the rule expected), save it and reopen it as built.
 */
import { type APIRequestContext, expect, test } from '@playwright/test';
import { ADMIN_TOKEN, answerFor, ORIGIN, pick, signInAsNew, UA, visitors, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

async function savedRule(request: APIRequestContext, id: number): Promise<unknown> {
  const res = await request.get(`/admin/api/customers/demo/segments/${id}`, { headers: admin });
  expect(res.status()).toBe(200);
  return (await res.json()).match;
}

/** Accounts the preview API counts for a rule: what the builder's preview must show for it. */
async function sizeOf(request: APIRequestContext, match: unknown): Promise<number> {
  const res = await request.post('/admin/api/customers/demo/segments/preview', { headers: admin, data: { match } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).size;
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

  await signInAsNew(page, request, 'marketer', 'segments');
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
  // The flat rule went through the builder and back unchanged.
  expect(await savedRule(request, id)).toEqual({
    industry: [company.industry],
    employee_range: [company.employee_range],
    country_iso_code: [company.country_iso_code],
  });
  await row.getByRole('button', { name: `Delete ${name} (renamed)` }).click();
  await row.getByRole('button', { name: `Delete “${name} (renamed)”` }).click();
  await expect(notice).toContainText('deleted');
  await expect(page.getByTestId(`segment-${id}`)).toHaveCount(0);
  const after = await answerFor(request, v.ip);
  expect(after.segments.ids).not.toContain(id);
  expect(problems).toEqual([]);
});

test('a marketer builds a grouped rule with ANY, sees the preview follow it, saves it and reopens it as built', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  const v = pick(await visitors(request), (x) => x.label.startsWith('Company outside the segments'), 'outside-the-segments company');
  const company = (await answerFor(request, v.ip)).company as { industry: string; country_iso_code: string };
  const name = `E2E grouped ${Date.now() % 100000}`;

  await signInAsNew(page, request, 'marketer', 'segments');
  await page.goto('/console/#customer=demo&page=segments');
  const builder = page.getByTestId('segment-builder');
  const preview = builder.getByTestId('segment-preview');
  const words = preview.getByTestId('segment-rule-words');
  /** The preview settled on the count the API gives for the rule. */
  const previewShows = async (match: unknown) => {
    const size = await sizeOf(request, match);
    await expect(preview.getByTestId('preview-size')).toHaveText(new RegExp(`^${size.toLocaleString('en-US')} (account matches|accounts match)$`));
    return size;
  };
  await builder.getByLabel('Name').fill(name);

  // The top level: industry, ALL (the default).
  await expect(builder.getByRole('radio', { name: 'Match ALL of these conditions' })).toBeChecked();
  await builder.getByLabel('Add a condition on').selectOption({ label: 'Industry' });
  await builder.getByRole('button', { name: 'Add condition', exact: true }).click();
  await builder.getByLabel('Industry value').fill(company.industry);
  await builder.getByLabel('Industry value').press('Enter');
  const industryOnly = await previewShows({ industry: [company.industry] });

  // A group: ANY of its own conditions (the other way than the top level), here the company's country ...
  await builder.getByRole('button', { name: 'Add a group' }).click();
  const group = builder.getByRole('group', { name: 'Group 1', exact: true });
  await expect(group.getByRole('radio', { name: 'Group 1: match ANY of its conditions' })).toBeChecked();
  await expect(group.getByLabel('Add a condition to group 1 on')).toBeFocused();
  await group.getByLabel('Add a condition to group 1 on').selectOption({ label: 'Country' });
  await group.getByRole('button', { name: 'Add a condition to group 1' }).click();
  await group.getByLabel('Country value').fill(company.country_iso_code);
  await group.getByLabel('Country value').press('Enter');
  const rule = { industry: [company.industry], groups: [{ op: 'any', country_iso_code: [company.country_iso_code] }] };
  await expect(words).toHaveText(`Industry is ${company.industry}, and Country is ${company.country_iso_code}`);
  await previewShows(rule);

  // ... or a visit to the pricing pages: a bad number of days is marked and nothing is previewed until fixed ...
  await group.getByLabel('Add a condition to group 1 on').selectOption({ label: 'Visited a page' });
  await group.getByRole('button', { name: 'Add a condition to group 1' }).click();
  await expect(group.getByLabel('Page path')).toBeFocused();
  await group.getByLabel('Page path').fill('/pricing*');
  await group.getByLabel('Visited within days').fill('0');
  await expect(group.getByTestId('condition-problem')).toContainText('from 1 to 400');
  await expect(group.getByLabel('Visited within days')).toHaveAttribute('aria-invalid', 'true');
  await expect(words).toHaveText('The rule has a problem: see the marked condition.');
  await expect(preview.getByTestId('preview-size')).toHaveCount(0);
  await group.getByLabel('Visited within days').fill('14');
  await expect(group.getByTestId('condition-problem')).toHaveCount(0);

  // ... or a late buying stage for a product of the customer.
  await group.getByLabel('Add a condition to group 1 on').selectOption({ label: 'Intent (buying stage or score)' });
  await group.getByRole('button', { name: 'Add a condition to group 1' }).click();
  await expect(group.getByLabel('Product')).toHaveValue('cdp');
  await group.getByTestId('condition-intent').getByLabel('Decision', { exact: true }).check();
  await group.getByTestId('condition-intent').getByLabel('Purchase', { exact: true }).check();
  const grouped = {
    industry: [company.industry],
    groups: [
      {
        op: 'any',
        country_iso_code: [company.country_iso_code],
        intent: { product: 'cdp', stages: ['Decision', 'Purchase'] },
        visited: { path: '/pricing*', days: 14 },
      },
    ],
  };
  const inWords =
    `Industry is ${company.industry}, and any of (Country is ${company.country_iso_code}; ` +
    'Intent for Customer Data Platform: stage Decision or Purchase; Visited /pricing* in the last 14 days)';
  await expect(words).toHaveText(inWords);
  const all = await previewShows(grouped);
  expect(all).toBeLessThanOrEqual(industryOnly);

  // The top level switched to ANY: the industry, or the group — the preview grows to the new count.
  await builder.getByRole('radio', { name: 'Match ANY of these conditions' }).check();
  const anyRule = { op: 'any', ...grouped };
  await expect(words).toHaveText(inWords.replace(`${company.industry}, and any of`, `${company.industry}, or any of`));
  const any = await previewShows(anyRule);
  expect(any).toBeGreaterThan(all);
  await expect(preview.getByTestId('preview-accounts').getByRole('row')).toHaveCount(Math.min(any, 20) + 1);

  // Saved exactly as built, shown in words beside its name with its size.
  await builder.getByRole('button', { name: 'Save segment' }).click();
  const notice = page.getByTestId('segments-notice');
  await expect(notice).toContainText(`Segment “${name}” created`);
  const id = Number(/\(id (\d+)\)/.exec((await notice.textContent()) ?? '')![1]);
  expect(await savedRule(request, id)).toEqual(anyRule);
  const row = page.getByTestId(`segment-${id}`);
  await expect(row.getByTestId('segment-rule')).toHaveText(inWords.replace(', and any of', ', or any of'));
  await expect(row.getByTestId('segment-size')).toHaveText(any.toLocaleString('en-US'));

  // Reopened: the builder holds the rule as built, and saving it again changes nothing.
  await row.getByRole('button', { name: `Edit ${name}` }).click();
  await expect(page.getByRole('heading', { name: `Edit segment ${id}` })).toBeVisible();
  await expect(builder.getByRole('radio', { name: 'Match ANY of these conditions' })).toBeChecked();
  const reopened = builder.getByRole('group', { name: 'Group 1', exact: true });
  await expect(reopened.getByRole('radio', { name: 'Group 1: match ANY of its conditions' })).toBeChecked();
  await expect(builder.getByRole('group', { name: 'Group 2', exact: true })).toHaveCount(0);
  await expect(reopened.getByTestId('condition-country_iso_code')).toContainText(company.country_iso_code);
  await expect(reopened.getByLabel('Page path')).toHaveValue('/pricing*');
  await expect(reopened.getByLabel('Visited within days')).toHaveValue('14');
  await expect(reopened.getByLabel('Product')).toHaveValue('cdp');
  await expect(reopened.getByTestId('condition-intent').getByLabel('Decision', { exact: true })).toBeChecked();
  await expect(reopened.getByTestId('condition-intent').getByLabel('Awareness', { exact: true })).not.toBeChecked();
  await expect(words).toHaveText(inWords.replace(', and any of', ', or any of'));
  await previewShows(anyRule);
  await builder.getByRole('button', { name: 'Save changes' }).click();
  await expect(notice).toContainText(`Segment “${name}” saved`);
  expect(await savedRule(request, id)).toEqual(anyRule);

  // Removing the group leaves the industry alone.
  await row.getByRole('button', { name: `Edit ${name}` }).click();
  await builder.getByRole('button', { name: 'Remove group 1' }).click();
  await expect(words).toHaveText(`Industry is ${company.industry}`);
  await previewShows({ op: 'any', industry: [company.industry] });
  await builder.getByRole('button', { name: 'Cancel' }).click();

  await row.getByRole('button', { name: `Delete ${name}` }).click();
  await row.getByRole('button', { name: `Delete “${name}”` }).click();
  await expect(page.getByTestId(`segment-${id}`)).toHaveCount(0);
  expect(problems).toEqual([]);
});

test('a viewer reads the segments without the builder or buttons', async ({ page, request }) => {
  await signInAsNew(page, request, 'viewer', 'segments');
  await page.goto('/console/#customer=demo&page=segments');
  await expect(page.getByRole('heading', { level: 1, name: 'Segments' })).toBeVisible();
  await expect(page.getByTestId('segments-table').getByRole('row', { name: /Enterprise Software/ })).toContainText('Industry is Software');
  await expect(page.getByTestId('segment-builder')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^Edit|^Delete/ })).toHaveCount(0);
});
