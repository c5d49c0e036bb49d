/**
 * The console upload's file: the request body streamed to disk (never held in memory: a 1M-row export is
 * ≈ 60–100 MB) within its limits (./limits.ts: size, gzip ratio, the room left), then checked in one streaming pass before a job is made of it, so
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
import { GZIP_SLACK_BYTES, mb, type Room } from './limits.ts';

/** Largest upload (decoded) by default (SVC_JOBS_MAX_UPLOAD_MB): a 1M-row CRM export with a few columns is ≈ 60–100 MB. */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

const tooLarge = (limit: number) =>
  new ApiError('too_large', `the file is larger than ${mb(limit)}: split it, or run svc enrich on the server (no size limit)`);

/** How much a body may decode to. */
export interface UploadLimit {
  /** The largest upload (SVC_JOBS_MAX_UPLOAD_MB): 413 past it. */
  maxBytes: number;
  /** A gzip body decodes to at most this many times its compressed bytes, plus GZIP_SLACK_BYTES: 413 past it. */
  gzipRatio?: number;
  /** The room left on the node or to the customer (./limits.ts `admit`), and its refusal past it. */
  room?: Room;
}

/**
 * Writes the body to `file` (identity or gzip coding), refusing it once it passes its limit: never more than
 * the limit is written (a gzip bomb stops at its ratio's bound, a few KB of it at most). Resolves to its size.
 */
export async function saveBody(req: IncomingMessage, file: string, limit: number | UploadLimit = MAX_UPLOAD_BYTES): Promise<number> {
  const { maxBytes, gzipRatio, room } = typeof limit === 'number' ? { maxBytes: limit, gzipRatio: undefined, room: undefined } : limit;
  const coding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (coding !== 'identity' && coding !== 'gzip' && coding !== 'x-gzip') {
    req.resume();
    throw new ApiError('unsupported_type', `unsupported Content-Encoding ${JSON.stringify(coding.slice(0, 40))}: send the file as it is, or gzip-compressed`);
  }
  const gzip = coding !== 'identity';
  const declared = Number(req.headers['content-length']);
  const refusalAt = (n: number): ApiError | null => {
    if (n > maxBytes) return tooLarge(maxBytes);
    if (room && n > room.bytes) return room.refusal();
    return null;
  };
  if (!gzip && Number.isFinite(declared)) {
    const refused = refusalAt(declared);
    if (refused) {
      req.resume(); // drained, so the client reads the answer rather than a reset connection
      throw refused;
    }
  }
  // The compressed bytes received so far (or announced: Node refuses a body longer than its Content-Length).
  let compressed = 0;
  const compressedCounter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      compressed += chunk.length;
      done(null, chunk);
    },
  });
  const ratioBound = () =>
    gzipRatio === undefined ? Number.POSITIVE_INFINITY : gzipRatio * Math.max(compressed, Number.isFinite(declared) ? declared : 0) + GZIP_SLACK_BYTES;
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      const refused =
        refusalAt(size) ??
        (gzip && size > ratioBound()
          ? new ApiError(
              'too_large',
              `the gzip-compressed file decompresses to more than ${gzipRatio} times its compressed size (${mb(compressed)} compressed): a CSV export does not compress that well; send it uncompressed, or split it`,
            )
          : null);
      done(refused, refused ? undefined : chunk);
    },
  });
  try {
    await (gzip
      ? pipeline(req, compressedCounter, createGunzip(), counter, createWriteStream(file, { flags: 'wx' }))
      : pipeline(req, counter, createWriteStream(file, { flags: 'wx' })));
  } catch (e) {
    const cut = !req.complete;
    if (cut) req.resume();
    // Refused mid-body: the client may still be sending it, so the connection is not reused (a client that
    // pooled it would send its next request into the rest of this body).
    if (e instanceof ApiError) throw cut ? new ApiError(e.code, e.message, { ...e.headers, Connection: 'close' }, e.status as never) : e;
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
