/**
 * The account page's People tab in a real Chromium against the demo-mode server. A marketer (not an
 * admin: invited through the admin API and signed in with the one-time link) opens an account of the
 * sample data, sees its buying committee by function × seniority with which contact details exist, reveals
 * one person — the contact details appear and the Enrichment credits shown go down by exactly one — then,
 * after a reload, reveals the same person again: still one credit (the monthly dedup People Enrichment
 * has), checked against the credits API too. Export CSV downloads the committee without contact details.
 * With the customer's Enrichment credits spent (the operator lowers the quota to what is used), a reveal
 * says so plainly (the 402). axe-core finds no serious or critical violation at 1,366 × 768 and 390 × 844,
 * and the phone page does not scroll sideways.
 */
import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ADMIN_TOKEN, answerFor, signInAsNew, visitors, watchConsoleProblems } from './helpers.ts';

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const SHOTS = 'test-results/screenshots';
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const RUN = Date.now().toString(36);

interface Person {
  people_id: string;
  name: string | null;
  has_email: boolean;
}

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

/** A company of the demo visitors with at least two named people at its domain, and them. */
async function accountWithPeople(request: APIRequestContext): Promise<{ companyId: string; people: Person[] }> {
  for (const v of (await visitors(request)).filter((x) => x.kind === 'company' && x.company)) {
    const companyId: string = (await answerFor(request, v.ip)).company.companyId;
    const res = await request.get(`/admin/api/customers/demo/accounts/${companyId}/people`, { headers: admin });
    expect(res.status()).toBe(200);
    const people = ((await res.json()).groups as { levels: { people: Person[] }[] }[]).flatMap((g) => g.levels.flatMap((l) => l.people)).filter((p) => p.name);
    if (people.length >= 2) return { companyId, people };
  }
  throw new Error('no demo visitor company has two people in the sample data');
}

const enrichment = async (request: APIRequestContext) => {
  const credits = await (await request.get('/admin/api/customers/demo/credits', { headers: admin })).json();
  return credits.balances.find((b: { pool: string }) => b.pool === 'enrichment') as { quota: number; used: number; remaining: number };
};
const count = (n: number) => n.toLocaleString('en-US');

test('a marketer reveals a person of an account: the credits shown go down by one, revealing again costs nothing', async ({ page, request }) => {
  test.setTimeout(90_000);
  const problems = watchConsoleProblems(page);
  const { companyId, people } = await accountWithPeople(request);
  const [first, second] = people as [Person, Person];
  const start = await enrichment(request);

  await page.setViewportSize(LAPTOP);
  await signInAsNew(page, request, 'marketer', `people-${RUN}`);
  // A fresh load each time (a fragment-only navigation would keep what the page showed).
  const openPeople = async () => {
    await page.goto(`/console/#customer=demo&page=accounts&account=${companyId}`);
    await page.reload();
    await page.getByRole('tablist', { name: 'About this account' }).getByRole('tab', { name: 'People' }).click();
    await expect(page.getByTestId('account-people').getByRole('heading', { name: 'Buying committee' })).toBeVisible();
    return page.getByTestId('account-people');
  };
  let section = await openPeople();
  await expect(section.getByTestId('people-summary')).toContainText(/^[\d,]+ people at /);
  await expect(section.getByTestId('people-matrix')).toBeVisible();
  const remaining = section.getByTestId('people-credits-remaining');
  await expect(remaining).toHaveText(count(start.remaining));

  // Reveal: the details appear in the row, the credits shown go down by exactly one.
  const row = section.locator(`[data-person="${first.people_id}"]`);
  await expect(row).not.toContainText('@');
  await section.getByRole('button', { name: `Reveal ${first.name}` }).click();
  await expect(row.getByText('Revealed')).toBeVisible();
  if (first.has_email) await expect(row.getByTestId('people-revealed')).toContainText('Email:');
  await expect(remaining).toHaveText(count(start.remaining - 1));
  expect(await enrichment(request)).toEqual({ ...start, used: start.used + 1, remaining: start.remaining - 1 });
  const email = first.has_email ? await row.getByRole('link').first().textContent() : null;
  await expectAccessible(page, 'the People tab at 1,366 px');
  await page.screenshot({ path: `${SHOTS}/account-people-${LAPTOP.width}.png`, fullPage: true });

  // The committee as CSV: the people, never their contact details.
  const [download] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Export CSV' }).click()]);
  expect(download.suggestedFilename()).toBe(`people-demo-${companyId}.csv`);
  const csv = readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\n')[0]).toBe('function,seniority,people_id,name,title,company_id,country,state,city,has_email,has_phone,has_mobile');
  expect(csv).toContain(`,${first.people_id},`);
  if (email) expect(csv).not.toContain(email);

  // Again, after a reload (the page forgot what it showed): the same person is free this month.
  section = await openPeople();
  await expect(remaining).toHaveText(count(start.remaining - 1));
  await section.getByRole('button', { name: `Reveal ${first.name}` }).click();
  await expect(section.locator(`[data-person="${first.people_id}"]`).getByText('Revealed')).toBeVisible();
  await expect(remaining).toHaveText(count(start.remaining - 1));
  expect(await enrichment(request)).toEqual({ ...start, used: start.used + 1, remaining: start.remaining - 1 });

  // Out of credits: the operator lowers the quota to what is used; a reveal says so, and shows nothing.
  const lowered = await request.patch('/admin/api/customers/demo', { headers: admin, data: { enrichment_credits: start.used + 1 } });
  expect(lowered.status()).toBe(200);
  try {
    section = await openPeople();
    await expect(remaining).toHaveText('0');
    await section.getByRole('button', { name: `Reveal ${second.name}` }).click();
    await expect(section.getByTestId('people-reveal-error')).toHaveText(
      `Could not reveal ${second.name}: no Enrichment credits are left this contract year (a reveal costs 1 credit, free again for the same person this month). Ask your customer success manager to add credits.`,
    );
    await expect(section.getByRole('button', { name: `Reveal ${second.name}` })).toBeVisible();
    await expect(section.locator(`[data-person="${second.people_id}"]`)).not.toContainText('Revealed');
    expect((await enrichment(request)).used).toBe(start.used + 1);

    await page.setViewportSize(PHONE);
    await expect(section.getByRole('heading', { name: 'Buying committee' })).toBeVisible();
    await expectAccessible(page, 'the People tab at 390 px');
    await expectNoPageScroll(page, 'the People tab at 390 px');
    await page.screenshot({ path: `${SHOTS}/account-people-${PHONE.width}.png`, fullPage: true });
  } finally {
    const restored = await request.patch('/admin/api/customers/demo', { headers: admin, data: { enrichment_credits: start.quota } });
    expect(restored.status()).toBe(200);
  }
  expect(problems).toEqual([]);
});
