import { describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES as SERVER_MAX } from '../enrichment/jobs/upload.ts';
import {
  csvHeader,
  defaultColumnOf,
  fileProblem,
  formatDuration,
  jobProgress,
  MAX_UPLOAD_BYTES,
  needsPolling,
  resultFileName,
  statusSummary,
  uploadError,
} from './enrich-view.ts';

describe('the Enrich a file page', () => {
  it('reads the header row of a file, quoted fields, a BOM and CRLF included; null without a whole first line', () => {
    expect(csvHeader('id,email,note\n1,a@b.c,x\n')).toEqual(['id', 'email', 'note']);
    expect(csvHeader('\uFEFF"Work, email","say ""hi""",Website\r\n')).toEqual(['Work, email', 'say "hi"', 'Website']);
    expect(csvHeader('"multi\nline",email\nrow')).toEqual(['multi\nline', 'email']);
    expect(csvHeader('email')).toBeNull();
    expect(csvHeader('')).toBeNull();
  });

  it('picks the column the server reads by default: email, else domain, case and spaces ignored', () => {
    expect(defaultColumnOf(['id', ' Email ', 'domain'])).toBe(' Email ');
    expect(defaultColumnOf(['Name', 'Domain'])).toBe('Domain');
    expect(defaultColumnOf(['Name', 'Website'])).toBeNull();
  });

  it('refuses a file before uploading when it is too big, empty or not CSV, with the same limit as the server', () => {
    expect(MAX_UPLOAD_BYTES).toBe(SERVER_MAX);
    expect(fileProblem({ name: 'big.csv', size: MAX_UPLOAD_BYTES + 1 }, ['email'])).toMatch(/big\.csv is 256 MB: the largest file is 256 MB/);
    expect(fileProblem({ name: 'e.csv', size: 0 }, null)).toBe('e.csv is empty.');
    expect(fileProblem({ name: 'x.xlsx', size: 10 }, null)).toMatch(/does not start with a CSV header/);
    expect(fileProblem({ name: 'ok.csv', size: 10 }, ['email'])).toBeNull();
  });

  it('says why an upload was refused in words a marketer can act on', () => {
    expect(uploadError(402, 'no Enrichment API credits left')).toMatch(/^No Enrichment credits left/);
    expect(uploadError(413, 'larger than 256 MB')).toMatch(/^The file is too big/);
    expect(uploadError(422, 'line 3: 2 fields, the header has 1')).toBe('The file cannot be enriched as it is: line 3: 2 fields, the header has 1');
    expect(uploadError(0, 'cannot reach the server')).toBe('The upload failed: cannot reach the server');
  });

  it('shows progress as rows, rate and time left; never 100 % before done', () => {
    expect(jobProgress({ status: 'running', rows_done: 1200, rows_total: 3000, rows_per_second: 850, seconds_left: 130 })).toEqual({
      percent: 40,
      rows: '1,200 of 3,000 rows',
      rate: '850 rows/s',
      left: 'about 2 min 10 s left',
      status: 'Running',
    });
    expect(jobProgress({ status: 'running', rows_done: 2999, rows_total: 3000, rows_per_second: null, seconds_left: null })).toMatchObject({
      percent: 99,
      rate: '',
      left: '',
    });
    expect(jobProgress({ status: 'queued', rows_done: 0, rows_total: 0, rows_per_second: null, seconds_left: null })).toMatchObject({
      percent: 0,
      status: 'Queued',
    });
    expect(jobProgress({ status: 'done', rows_done: 10, rows_total: 10, rows_per_second: 5, seconds_left: null })).toMatchObject({ percent: 100, left: '' });
    expect(formatDuration(3 * 3600 + 59)).toBe('3 h 1 min');
    expect(formatDuration(7)).toBe('7 s');
  });

  it('sums the rows per status in words, most common first; polls while a job is queued or running', () => {
    expect(statusSummary({ '404': 100, '200': 2871, '422': 29, '402': 0 })).toBe('2,871 found · 100 no company · 29 invalid value');
    expect(statusSummary({ '503': 1 })).toBe('1 status 503');
    expect(needsPolling([{ status: 'done' }, { status: 'queued' }])).toBe(true);
    expect(needsPolling([{ status: 'done' }, { status: 'failed' }])).toBe(false);
    expect(resultFileName('contacts.CSV')).toBe('contacts-enriched.csv');
  });
});
