/**
 * Request bodies, read by the pipeline after authentication and rate limiting (so an unauthenticated or
 * refused caller's body is never parsed), with the ecosystem's pieces: `content-type` to read the header,
 * `raw-body` for a bounded read (with zlib for a compressed body), `busboy` for multipart/form-data.
 *
 * - `fields` (server-to-server routes): `application/x-www-form-urlencoded` (the spec), `multipart/form-data`
 *   (what many HTTP clients send for "form data": text fields only) or `application/json` (an object);
 *   any other Content-Type on a body is 415. No body reads as {}.
 * - `json` (admin API): JSON or no body (undefined); the admin guard has refused other types already.
 * - `text` (page-view beacon): any Content-Type, read as text ('' when there is none).
 * Too large → 413 `too_large`; unreadable → 400 `invalid`; an unknown charset or content coding → 415.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import busboy from 'busboy';
import contentType from 'content-type';
import getRawBody from 'raw-body';
import type { z } from 'zod';
import { ApiError } from '../../core/error-codes.ts';

/** The body types the `fields` routes read, named in the 415 answer. */
export const ACCEPTED_BODY_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'] as const;
/** Most form fields (or multipart parts) a body may carry. */
const MAX_FIELDS = 100;

/** Whether the request carries a body at all (RFC 9112 §6.3: a length or a transfer coding). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** The media type and charset of the Content-Type header (lower case), or null when there is none or it cannot be read. */
function mediaType(req: IncomingMessage): { type: string; charset: string | undefined } | null {
  const given = req.headers['content-type'];
  // What clients (and the benchmarks) send, taken as is: parsing it is ~1 µs of a form request.
  if (given === 'application/x-www-form-urlencoded' || given === 'application/json') return { type: given, charset: undefined };
  if (!given) return null;
  try {
    const parsed = contentType.parse(given);
    return { type: parsed.type, charset: parsed.parameters.charset?.toLowerCase() };
  } catch {
    // Parameters that do not parse (`application/json; foo`): the media type alone, as type-is reads it.
    const type = given.split(';')[0]!.trim().toLowerCase();
    return /^[\w.+-]+\/[\w.+-]+$/.test(type) ? { type, charset: undefined } : null;
  }
}

function unsupportedType(req: IncomingMessage, accepted: readonly string[], prefix = ''): ApiError {
  const given = req.headers['content-type'];
  return new ApiError(
    'unsupported_type',
    `${prefix}unsupported Content-Type${given ? ` ${JSON.stringify(given.slice(0, 100))}` : ' (none given)'}: send ${accepted.join(', ')}`,
  );
}

/** The body as a stream of its decoded bytes (a content coding undone), and the length to expect of it. */
function decoded(req: IncomingMessage): { stream: Readable; length: string | undefined } {
  const coding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  switch (coding) {
    case 'identity':
      return { stream: req, length: req.headers['content-length'] };
    case 'gzip':
    case 'x-gzip':
      return { stream: req.pipe(createGunzip()), length: undefined };
    case 'deflate':
      return { stream: req.pipe(createInflate()), length: undefined };
    case 'br':
      return { stream: req.pipe(createBrotliDecompress()), length: undefined };
    default:
      throw new ApiError('unsupported_type', `unsupported Content-Encoding ${JSON.stringify(coding.slice(0, 40))}: send identity, gzip, deflate or br`);
  }
}

/** The whole body as text in `charset` (utf-8 unless given), at most `limit` bytes. */
export async function readText(req: IncomingMessage, limit: number, charset = 'utf-8'): Promise<string> {
  if (charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii')
    throw new ApiError('unsupported_type', `unsupported charset "${charset.toUpperCase().slice(0, 40)}"`);
  if (Number(req.headers['content-length']) > limit) {
    req.resume(); // drained, so the connection can carry the answer
    throw new ApiError('too_large', 'request body too large');
  }
  const { stream, length } = decoded(req);
  const whole = stream === req ? parsedBody(req) : null;
  if (whole !== null) return utf8(whole);
  try {
    return utf8(await getRawBody(stream, { limit, length }));
  } catch (e) {
    const type = (e as { type?: string }).type;
    if (type === 'entity.too.large') throw new ApiError('too_large', 'request body too large');
    if (e instanceof ApiError) throw e;
    throw new ApiError('invalid', `request body could not be read (${type ?? (e as Error).message})`, {}, 400);
  }
}

/**
 * The whole body when the HTTP parser already holds all of it, else null (then raw-body reads it). By the
 * time the pipeline reads a body (after authentication and the rate limit's turn) a small one has long
 * arrived with its headers: taking it from the stream's buffer at once spares raw-body's listeners and the
 * stream's flowing mode, a few event-loop ticks per request. Only when nothing has read the stream yet
 * and exactly the declared length is buffered (an identity body whose Content-Length was checked against
 * the limit by the caller).
 */
function parsedBody(req: IncomingMessage): Buffer | null {
  const declared = req.headers['content-length'];
  if (!req.complete || req.readableFlowing !== null || declared === undefined || req.headers['transfer-encoding'] !== undefined) return null;
  if (req.readableLength !== Number(declared)) return null;
  return req.readableLength === 0 ? Buffer.alloc(0) : (req.read() as Buffer);
}

/**
 * Bytes as UTF-8 text, decoded here: raw-body's `encoding` builds an iconv-lite decoder per request (≈ 1 µs
 * of a form POST), and UTF-8 is all we accept. A leading byte order mark is dropped, as that decoder did.
 */
function utf8(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** JSON as body-parser's strict mode reads it: an empty body is {}, else an object or an array, else 400. */
function parseJson(text: string): unknown {
  if (text.length === 0) return {};
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') throw new ApiError('invalid', 'request body is not valid for its Content-Type', {}, 400);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('invalid', 'request body is not valid for its Content-Type', {}, 400);
  }
}

function parseForm(text: string): Record<string, unknown> {
  let count = 0;
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) if (++count >= MAX_FIELDS) throw new ApiError('too_large', 'too many parameters');
  return { ...parseQueryString(text, undefined, undefined, { maxKeys: MAX_FIELDS }) };
}

/** multipart/form-data, text fields only: a file part is 422, a field or part over the limits 413, anything malformed 400. */
function readMultipart(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  if (Number(req.headers['content-length']) > limit) {
    req.resume();
    return Promise.reject(new ApiError('too_large', 'request body too large'));
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fieldSize: limit, fieldNameSize: 200, fields: MAX_FIELDS, parts: MAX_FIELDS, files: 0 } });
    } catch {
      reject(new ApiError('invalid', 'request body is not valid multipart/form-data', {}, 400));
      return;
    }
    const fields: Record<string, string | string[]> = Object.create(null);
    let failed = false;
    let total = 0;
    const fail = (err: ApiError) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      reject(err);
    };
    parser.on('field', (name, value, info) => {
      total += value.length + name.length;
      if (info.valueTruncated || info.nameTruncated || total > limit) return fail(new ApiError('too_large', 'request body too large'));
      const prior = fields[name];
      fields[name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
    });
    parser.on('file', (_name, stream) => {
      stream.resume();
      fail(new ApiError('invalid', 'validation error: multipart bodies carry text fields only, not files'));
    });
    parser.on('fieldsLimit', () => fail(new ApiError('too_large', 'request body too large')));
    parser.on('partsLimit', () => fail(new ApiError('too_large', 'request body too large')));
    parser.on('filesLimit', () => fail(new ApiError('invalid', 'validation error: multipart bodies carry text fields only, not files')));
    parser.on('error', () => fail(new ApiError('invalid', 'request body is not valid multipart/form-data', {}, 400)));
    parser.on('close', () => {
      if (!failed) resolve({ ...fields });
    });
    req.on('aborted', () => fail(new ApiError('invalid', 'request body could not be read (aborted)', {}, 400)));
    req.pipe(parser);
  });
}

/** A `fields` body as a plain object ({} without a body). */
export async function readFields(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  if (!hasBody(req)) return {};
  const media = mediaType(req);
  if (media === null || !(ACCEPTED_BODY_TYPES as readonly string[]).includes(media.type)) {
    req.resume();
    throw unsupportedType(req, ACCEPTED_BODY_TYPES);
  }
  const body =
    media.type === 'multipart/form-data'
      ? await readMultipart(req, limit)
      : media.type === 'application/json'
        ? parseJson(await readText(req, limit, media.charset))
        : parseForm(await readText(req, limit, media.charset));
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid', 'the request body must be form fields or a JSON object');
  return body as Record<string, unknown>;
}

/** A `json` body (undefined without one). */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  const media = mediaType(req);
  if (media === null || !(media.type === 'application/json' || (media.type.startsWith('application/') && media.type.endsWith('+json')))) {
    req.resume();
    throw unsupportedType(req, ['application/json']);
  }
  return parseJson(await readText(req, limit, media.charset));
}

/** A `text` body, any Content-Type ('' without one). */
export function readAnyText(req: IncomingMessage, limit: number): Promise<string> {
  if (!hasBody(req)) return Promise.resolve('');
  return readText(req, limit, mediaType(req)?.charset ?? 'utf-8');
}

/** Parses input with a route's schema, `fields` rules: `invalid` (422) for the first type/length issue, else `blank` (400). */
export function parseFields<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const invalid = issues.find((i) => !(i.code === 'custom' && (i.params as { code?: string } | undefined)?.code === 'blank'));
  const issue = invalid ?? issues[0]!;
  const path = issue.path.join('.');
  if (invalid) throw new ApiError('invalid', `validation error: ${path ? `${path}: ` : ''}${issue.message}`);
  throw new ApiError('blank', issue.message);
}

/** Parses input with a route's schema, `record` rules: the first issue is 422 `path: message`. */
export function parseRecord<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ApiError('invalid', `${issue?.path.join('.') || 'request'}: ${issue?.message}`);
}
