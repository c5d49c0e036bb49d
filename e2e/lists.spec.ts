/**
 * The Lists page in a real Chromium against the demo-mode server, as a marketer (invited through the admin
 * API, signed in with the one-time link): upload a hot-accounts CSV with a bad row and a duplicated one and
 * see the report (matched / not found / duplicated rows) and the account in the list; a file without a
 * usable column is refused with the server's message and changes nothing. The hot list is put back after.
 */
import { type APIRequestContext, expect, test } from '@playwright/test';
import { ADMIN_TOKEN, answerFor, pick, signInAsNew, visitors, watchConsoleProblems } from './helpers.ts';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const HOT = '/admin/api/customers/demo/lists/hot';

const hotAccounts = async (request: APIRequestContext) => (await (await request.get('/admin/api/customers/demo', { headers: admin })).json()).hot_accounts;

test('a marketer uploads a hot-accounts CSV with a bad row and sees the report', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  const original = await hotAccounts(request);
  // A sample company that is not a hot account yet, and its domain as the catalog has it.
  const v = pick(await visitors(request), (x) => x.label.startsWith('Company outside the segments'), 'outside-the-segments company');
  const company = (await answerFor(request, v.ip)).company as { name: string; domain: string };
  expect(company.domain).toBeTruthy();
  try {
    await signInAsNew(page, request, 'marketer', 'lists');
    await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Lists' }).click();
    const lists = page.getByTestId('lists');
    await expect(lists.getByTestId('list-row-hot')).toContainText('Hot accounts');
    await expect(lists.getByTestId('list-row-hot')).toContainText(String(original.length));
    const detail = page.getByTestId('list-detail');
    await expect(detail.getByRole('heading', { name: /Hot accounts/ })).toBeVisible();

    // Row 2 matches, row 3 names no company, row 4 names row 2's company again.
    const csv = `domain\n${company.domain}\nno-such-company-e2e.example\nhttps://www.${company.domain.toUpperCase()}/pricing\n`;
    await detail.locator('#list-file').setInputFiles({ name: 'hot-accounts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await detail.getByRole('button', { name: 'Upload', exact: true }).click();
    const report = detail.getByTestId('upload-report');
    await expect(report.getByTestId('report-matched')).toHaveText('Matched: 1');
    await expect(report.getByTestId('report-not-found-count')).toHaveText('Not found: 1');
    await expect(report.getByTestId('report-duplicates-count')).toHaveText('Duplicated: 1');
    await expect(report.getByTestId('report-not-found').getByRole('row', { name: /no-such-company-e2e\.example/ })).toContainText('3');
    await expect(report.getByTestId('report-duplicates').getByRole('row', { name: /pricing/ })).toContainText('4');
    await expect(report).toContainText(`Applied (add): 1 account added, 0 accounts removed; the list holds ${original.length + 1} accounts.`);
    // The account is in the list now, with its name from the catalog.
    await expect(detail.getByTestId('list-members').getByRole('row', { name: new RegExp(company.domain.replace(/\./g, '\\.')) })).toContainText(company.name);
    await expect(lists.getByTestId('list-row-hot')).toContainText(String(original.length + 1));

    // A file without a domain or company_id column: the server's message, and nothing changed.
    await detail.locator('#list-file').setInputFiles({ name: 'wrong.csv', mimeType: 'text/csv', buffer: Buffer.from('name,url\nAcme,acme.example\n') });
    await detail.getByRole('button', { name: 'Upload', exact: true }).click();
    await expect(detail.getByTestId('list-error')).toContainText('no domain or company_id column');
    expect((await hotAccounts(request)).length).toBe(original.length + 1);
    expect(problems).toEqual([]);
  } finally {
    const restored = await request.put(HOT, { headers: admin, data: { hot_accounts: original } });
    expect(restored.status()).toBe(200);
  }
});
