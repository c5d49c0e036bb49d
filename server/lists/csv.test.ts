import { describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { ApiError } from '../../core/error-codes.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE } from '../testing/fixtures.ts';
import { type CompanyLookup, nextIds, readAccountRows, resolveRows } from './csv.ts';

const COMPANIES = [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE];
const catalog: CompanyLookup = {
  company: (id) => COMPANIES.find((c) => c.company_id === id) ?? null,
  companiesByDomain: (d) => COMPANIES.filter((c) => c.domain === d) as CompanyRow[],
};

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('not refused');
}

describe('reading an account CSV', () => {
  it('reads a domain or company_id per row, numbered as a spreadsheet does (header row 1), blank lines skipped', () => {
    const rows = readAccountRows('\uFEFFName,Domain,Company ID\r\nA,northwind.example,\r\nB,,900002\r\n\r\nC,"bluepeak.example",900003\n');
    expect(rows).toEqual([
      { row: 2, column: 'domain', value: 'northwind.example' },
      { row: 3, column: 'company_id', value: '900002' },
      // A company id wins over the domain of the same row.
      { row: 4, column: 'company_id', value: '900003' },
    ]);
    expect(readAccountRows('company_id\n 900001 \n')).toEqual([{ row: 2, column: 'company_id', value: '900001' }]);
  });

  it('refuses a bad file whole: empty, unreadable, no usable column, no rows, too many rows', () => {
    expect(refusal(() => readAccountRows(''))).toMatchObject({ code: 'invalid', message: expect.stringMatching(/empty/) });
    expect(refusal(() => readAccountRows('domain\n"northwind.example\n'))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/not readable CSV/),
    });
    expect(refusal(() => readAccountRows('name,url\nA,northwind.example\n'))).toMatchObject({
      code: 'invalid',
      message: expect.stringMatching(/no domain or company_id column.*"name", "url"/),
    });
    expect(refusal(() => readAccountRows('domain\n'))).toMatchObject({ code: 'invalid', message: expect.stringMatching(/no accounts/) });
    const big = `domain\n${'a.example\n'.repeat(11)}`;
    expect(refusal(() => readAccountRows(big, 10))).toMatchObject({ code: 'too_large', message: expect.stringMatching(/more than 10 rows/) });
    expect(readAccountRows(`domain\n${'a.example\n'.repeat(10)}`, 10)).toHaveLength(10);
  });
});

describe('resolving rows against the catalog', () => {
  it('reports every row once: matched (first row of an account), not found, duplicated', () => {
    const rows = readAccountRows(
      ['domain,company_id', 'https://www.northwind.example/about,', ',900002', 'nobody.example,', 'not a domain,', ',,', ',900001', 'bluepeak.example,'].join(
        '\n',
      ),
    );
    const r = resolveRows(rows, catalog);
    expect(r.matched).toEqual(['900001', '900002']);
    expect(r.not_found).toEqual([
      { row: 4, value: 'nobody.example' },
      { row: 5, value: 'not a domain' },
      { row: 6, value: '' },
    ]);
    expect(r.duplicates).toEqual([
      { row: 7, value: '900001' },
      { row: 8, value: 'bluepeak.example' },
    ]);
  });

  it('add keeps the list and appends what is new; replace is the matched ids', () => {
    expect(nextIds(['1', '2'], ['2', '3'], 'add')).toEqual(['1', '2', '3']);
    expect(nextIds(['1', '2'], ['2', '3'], 'replace')).toEqual(['2', '3']);
  });
});
