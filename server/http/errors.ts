/**
 * Errors a caller can hit, always answered as the spec's `{"status":"error","message":…}` plus a stable
 * `code` (core/error-codes.ts). Routes and domain code throw `ApiError(code, …)`, the state store its own
 * kinds, libraries their own statuses: this module alone turns each into a status and a code.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import { ApiError, ERROR_CODES, ERROR_STATUS, type ErrorBody, type ErrorCode } from '../../core/error-codes.ts';
import { mask } from '../observability/log-mask.ts';
import type { Logger } from '../observability/logger.ts';
import { noteStateStoreError } from '../observability/request-facts.ts';
import { StateError, StoreUnavailableError } from '../state/errors.ts';

/**
 * Anything shaped like a secret: API tokens are 40 alphanumerics, and a message may hold a cut-off piece
 * of one; no message we write ever needs a run this long, so none survives into an answer.
 */
const SECRET_LIKE = /[A-Za-z0-9]{20,}/g;

/** The message with every secret-like run replaced: error answers never echo a secret the caller sent. */
export function redactSecrets(message: string): string {
  return message.replace(SECRET_LIKE, '[redacted]');
}

/**
 * The state store's domain errors as API errors. The statuses are those of before the codes (400, 403,
 * 404, 409): a value the store refuses (`invalid`) stays 400.
 */
export function stateApiError(err: StateError): ApiError {
  switch (err.kind) {
    case 'invalid':
      return new ApiError('invalid', err.message, {}, 400);
    case 'not_entitled':
      return new ApiError('forbidden', err.message);
    case 'not_found':
      return new ApiError('not_found', err.message);
    case 'conflict':
      return new ApiError('conflict', err.message);
  }
}

const CODE_OF_STATUS = new Map<number, ErrorCode>(ERROR_CODES.map((code) => [ERROR_STATUS[code], code]));

/**
 * The code of a status we did not choose: a library's error (body-parser: 400 malformed, 413, 415
 * charset or encoding; the router: 400 undecodable path). Its 400 is a request that cannot be read, never
 * a blank field; any other client status without a code of its own is `invalid` too.
 */
export function codeOfStatus(status: number): ErrorCode {
  if (status >= 500) return status === 503 ? 'unavailable' : 'internal';
  const code = CODE_OF_STATUS.get(status);
  return code === undefined || code === 'blank' ? 'invalid' : code;
}

/**
 * Writes an error body. Our own callers name the code; without one (a status from elsewhere) it is the
 * status's (codeOfStatus).
 */
export function sendError(res: Response, status: number, message: string, code: ErrorCode = codeOfStatus(status)): void {
  res.status(status).json({ status: 'error', message: redactSecrets(message), code } satisfies ErrorBody);
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, 404, `no such route: ${req.method} ${req.path}`, 'not_found');
};

/** An error answer: status, the headers the error names (Retry-After, RateLimit-*, WWW-Authenticate …) and the body. */
export interface ErrorAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: ErrorBody;
}

const answer = (status: number, message: string, code: ErrorCode, headers: Readonly<Record<string, string>> = {}): ErrorAnswer => ({
  status,
  headers,
  body: { status: 'error', message: redactSecrets(message), code },
});

/**
 * The one error path: every thrown thing becomes a status, a code and the spec's body; only the unexpected
 * is a 500 (and is logged, with `where`: the method and the path without its query, masked like request lines).
 */
export function errorAnswer(err: unknown, log: Logger, where: () => string): ErrorAnswer {
  if (err instanceof ApiError) return answer(err.status, err.message, err.code, err.headers);
  if (err instanceof StateError) return errorAnswer(stateApiError(err), log, where);
  // The store could not do it now (locked, unreachable, file replaced): retryable, never a 500.
  if (err instanceof StoreUnavailableError) {
    noteStateStoreError('request');
    return answer(503, 'service temporarily unavailable (state store), retry shortly', 'unavailable', { 'Retry-After': String(err.retryAfterS) });
  }
  if (err instanceof ZodError) {
    const issue = err.issues[0];
    return answer(422, `${issue?.path.join('.') || 'request'}: ${issue?.message}`, 'invalid');
  }
  // Library errors that carry their own status (body-parser in the app shell: 400 malformed, 413, 415 …): kept.
  const status = (err as { status?: number; statusCode?: number })?.status ?? (err as { statusCode?: number })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const type = (err as { type?: string }).type;
    const message =
      type === 'entity.too.large'
        ? 'request body too large'
        : type === 'entity.parse.failed'
          ? 'request body is not valid for its Content-Type'
          : (err as Error).message;
    return answer(status, message, codeOfStatus(status));
  }
  log.error(`${where()}: ${(err as Error)?.stack ?? String(err)}`);
  return answer(500, 'internal server error', 'internal');
}

/** The request's method and path without its query (`?ip=` is a visitor's address, `?email=` a person), masked. */
export function describeRequest(method: string | undefined, url: string): string {
  const q = url.indexOf('?');
  return `${method} ${mask(q < 0 ? url : url.slice(0, q))}`;
}

/** The app shell's last middleware (static files, console, docs): the same error path as the API routes. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    const a = errorAnswer(err, log, () => describeRequest(req.method, req.originalUrl ?? req.url));
    res.set(a.headers);
    res.status(a.status).json(a.body);
  };
}
