import { describe, expect, it } from 'vitest';
import { readAccountRows } from '../lists/csv.ts';
import type { UploadReport } from '../lists/schema.ts';
import { csvCell, csvForAccounts, deletable, reportHeadline, withoutAccount } from './lists-view.ts';

const report = (over: Partial<UploadReport> = {}): UploadReport => ({
  mode: 'add',
  rows: 4,
  matched: 2,
  not_found: [{ row: 3, value: 'nobody.example' }],
  duplicates: [{ row: 5, value: '900001' }],
  applied: true,
  added: 2,
  removed: 0,
  size: 3,
  ...over,
});

describe('the Lists page helpers', () => {
  it('turns typed accounts into the upload CSV the server reads (domains and company ids)', () => {
    const csv = csvForAccounts(' northwind.example\n900002, https://bluepeak.example/x \n\n')!;
    expect(csv).toBe('domain,company_id\nnorthwind.example,\n,900002\nhttps://bluepeak.example/x,\n');
    expect(readAccountRows(csv)).toEqual([
      { row: 2, column: 'domain', value: 'northwind.example' },
      { row: 3, column: 'company_id', value: '900002' },
      { row: 4, column: 'domain', value: 'https://bluepeak.example/x' },
    ]);
    expect(csvForAccounts('  \n ')).toBeNull();
    expect(csvCell('a,"b"')).toBe('"a,""b"""');
  });

  it('says what the report says', () => {
    expect(reportHeadline(report())).toBe(
      '2 rows matched · 1 row not found · 1 row duplicated. Applied (add): 2 accounts added, 0 accounts removed; the list holds 3 accounts.',
    );
    expect(reportHeadline(report({ applied: false, reason: 'dry run: nothing was changed', matched: 1 }))).toBe(
      '1 row matched · 1 row not found · 1 row duplicated. Nothing changed: dry run: nothing was changed.',
    );
  });

  it('removes one account; only named lists are deleted', () => {
    expect(withoutAccount(['1', '2', '3'], '2')).toEqual(['1', '3']);
    expect(deletable('named')).toBe(true);
    expect(deletable('hot')).toBe(false);
  });
});
