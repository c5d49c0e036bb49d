/**
 * The console upload's file: the request body streamed to disk (never held in memory: a 1M-row export is
 * ≈ 60–100 MB) within MAX_UPLOAD_BYTES, then checked in one streaming pass before a job is made of it, so
 * a file the job could not finish is refused at once with the line to fix (422) instead of failing later.
 */
import { createWriteStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { ApiError } from '../../../core/error-codes.ts';
import { CsvSyntaxError, csvRecordBatches } from '../../../data/sources/csv-records.ts';
import { ADDED_COLUMNS, JobRefusedError, planColumns } from './file-job.ts';

/** Largest upload (decoded): a 1M-row CRM export with a few columns is ≈ 60–100 MB. */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;
const MB = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

const tooLarge = () => new ApiError('too_large', `the file is larger than ${MB(MAX_UPLOAD_BYTES)}: split it, or run svc enrich on the server (no size limit)`);

/** Writes the body to `file` (identity or gzip coding), refusing it with 413 once it passes `limit` bytes. Resolves to its size. */
export async function saveBody(req: IncomingMessage, file: string, limit = MAX_UPLOAD_BYTES): Promise<number> {
  const coding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (coding !== 'identity' && coding !== 'gzip' && coding !== 'x-gzip') {
    req.resume();
    throw new ApiError('unsupported_type', `unsupported Content-Encoding ${JSON.stringify(coding.slice(0, 40))}: send the file as it is, or gzip-compressed`);
  }
  if (coding === 'identity' && Number(req.headers['content-length']) > limit) {
    req.resume(); // drained, so the client reads the answer rather than a reset connection
    throw tooLarge();
  }
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > limit ? tooLarge() : null, chunk);
    },
  });
  try {
    await (coding === 'identity'
      ? pipeline(req, counter, createWriteStream(file, { flags: 'wx' }))
      : pipeline(req, createGunzip(), counter, createWriteStream(file, { flags: 'wx' })));
  } catch (e) {
    if (!req.complete) req.resume();
    if (e instanceof ApiError) throw e;
    if ((e as { code?: string }).code?.startsWith('Z_')) throw new ApiError('invalid', 'the gzip-compressed body could not be decompressed', {}, 400);
    throw new ApiError('invalid', `the upload was cut off (${(e as Error).message})`, {}, 400);
  }
  return size;
}

/** What the check found: the data rows and the column the job will read. */
export interface CheckedFile {
  rows: number;
  column: string;
}

/**
 * One streaming pass over the saved file: it is CSV (UTF-8, or UTF-16 with a BOM), has a header with the
 * column to read and none of the columns the job adds, at least one data row, and no row wider than the
 * header. Any problem is a 422 naming its line.
 */
export async function checkFile(file: string, column: string | undefined): Promise<CheckedFile> {
  let rows = 0;
  let width = -1;
  let used = '';
  try {
    for await (const batch of csvRecordBatches(file)) {
      for (const record of batch) {
        if (width < 0) {
          const plan = planColumns(record.fields, column);
          width = plan.header.length - ADDED_COLUMNS.length;
          used = plan.header[plan.index]!;
          continue;
        }
        if (record.fields.length > width)
          throw new ApiError('invalid', `line ${record.line}: ${record.fields.length} fields, the header has ${width}: fix the file and upload it again`);
        rows++;
      }
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof CsvSyntaxError) throw new ApiError('invalid', `not a readable CSV file: ${e.message}`);
    if (e instanceof JobRefusedError) throw new ApiError('invalid', e.message.replace('with --column', 'with the column choice'));
    throw new ApiError('invalid', `not a readable CSV file: ${(e as Error).message}`);
  }
  if (width < 0) throw new ApiError('invalid', 'the file is empty: it needs a header row and at least one row');
  if (rows === 0) throw new ApiError('invalid', 'the file has a header but no rows');
  return { rows, column: used };
}
