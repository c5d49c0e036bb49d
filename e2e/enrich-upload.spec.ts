/**
 * "Enrich a file" in a real Chromium against the demo-mode server, as a marketer (invited through the admin
 * API, signed in with the one-time link): pick a small CRM export with a bad row, see the column chosen from
 * its header, upload it, watch the job's progress reach Done, and download the result — every row of the
 * file plus the company columns and a `status` column (the bad row 422). A file the server refuses (a row
 * wider than the header) shows its message with the line.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { parse } from 'csv-parse/sync';
import { answerFor, pick, signInAsNew, visitors, watchConsoleProblems } from './helpers.ts';

test('a marketer uploads a CSV with a bad row, follows its progress to done and downloads the result with a status column', async ({ page, request }) => {
  const problems = watchConsoleProblems(page);
  // A company of the sample data and its domain, so one row is found.
  const v = pick(await visitors(request), (x) => x.label.startsWith('Company outside the segments'), 'outside-the-segments company');
  const company = (await answerFor(request, v.ip)).company as { name: string; domain: string };
  expect(company.domain).toBeTruthy();
  const name = `crm-export-${Date.now()}.csv`;
  const csv = `Contact,Work Email,Note\nAnn,ann@${company.domain},"met at ""Expo"", Oct"\nBob,,no email\nCy,cy@no-such-company-e2e.example,\n`;

  await signInAsNew(page, request, 'marketer', 'enrich');
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: 'Enrich a file' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Enrich a file');
  const form = page.getByTestId('enrich-form');

  // A file the server refuses: its message, with the line to fix.
  await form.locator('#enr-file').setInputFiles({ name: 'wide.csv', mimeType: 'text/csv', buffer: Buffer.from('email\na@b.example\nc@d.example,extra\n') });
  await form.getByRole('button', { name: 'Upload and enrich' }).click();
  await expect(page.getByTestId('enrich-error')).toContainText('The file cannot be enriched as it is: line 3: 2 fields, the header has 1');

  await form.locator('#enr-file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(form.getByTestId('enrich-file-info')).toContainText(name);
  // No column is called email: the marketer picks it from the file's header.
  const column = form.getByLabel('Column to enrich');
  await expect(column).toHaveValue('');
  await expect(form.getByRole('button', { name: 'Upload and enrich' })).toBeDisabled();
  await column.selectOption('Work Email');
  await form.getByRole('button', { name: 'Upload and enrich' }).click();
  await expect(page.getByTestId('enrich-error')).toHaveCount(0);

  const row = page.getByTestId('enrich-job').filter({ hasText: name });
  await expect(row.getByTestId('enrich-job-status')).toHaveText('Done', { timeout: 20_000 });
  await expect(row.getByTestId('enrich-job-progress')).toContainText('3 of 3 rows');
  await expect(row.getByTestId('enrich-job-statuses')).toHaveText('1 found · 1 no company · 1 invalid value');
  await expect(row).toContainText('column Work Email');

  const downloading = page.waitForEvent('download');
  await row.getByTestId('enrich-download').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(name.replace(/\.csv$/, '-enriched.csv'));
  const rows = parse(readFileSync((await download.path())!), { columns: true }) as Record<string, string>[];
  expect(rows.map((r) => [r.Contact, r['Work Email'], r.Note, r.status])).toEqual([
    ['Ann', `ann@${company.domain}`, 'met at "Expo", Oct', '200'],
    ['Bob', '', 'no email', '422'],
    ['Cy', 'cy@no-such-company-e2e.example', '', '404'],
  ]);
  expect(rows[0]!.company_domain).toBe(company.domain);
  expect(rows[0]!.company_name).toBe(company.name);
  expect(rows[1]!.company_domain).toBe('');
  expect(problems).toEqual([]);
});
