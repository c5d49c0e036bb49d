/** Errors a caller can hit, always answered as the spec's `{"status":"error","message":…}`. */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import { StateError, StoreUnavailableError, type StateErrorKind } from '../state/errors.ts';
import { noteStateStoreError } from '../observability/request-facts.ts';
import type { Logger } from './logger.ts';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Anything shaped like a secret: API tokens are 40 alphanumerics, and a message may hold a cut-off piece
 * of one; no message we write ever needs a run this long, so none survives into an answer.
 */
const SECRET_LIKE = /[A-Za-z0-9]{20,}/g;

/** The message with every secret-like run replaced: error answers never echo a secret the caller sent. */
export function redactSecrets(message: string): string {
  return message.replace(SECRET_LIKE, '[redacted]');
}

/** The HTTP status of each domain error of the state store. */
export const STATE_ERROR_STATUS: Record<StateErrorKind, 400 | 403 | 404 | 409> = {
  invalid: 400,
  not_entitled: 403,
  not_found: 404,
  conflict: 409,
};

export function sendError(res: Response, status: number, message: string): void {
  res.status(status).json({ status: 'error', message: redactSecrets(message) });
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(res, 404, `no such route: ${req.method} ${req.path}`);
};

/** Last middleware: maps every thrown thing to a status; only the unexpected is a 500 (and is logged). */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) return;
    if (err instanceof HttpError) {
      res.set(err.headers);
      return sendError(res, err.status, err.message);
    }
    if (err instanceof StateError) return sendError(res, STATE_ERROR_STATUS[err.kind], err.message);
    // The store could not do it now (locked, unreachable, file replaced): retryable, never a 500.
    if (err instanceof StoreUnavailableError) {
      noteStateStoreError('request');
      res.set('Retry-After', String(err.retryAfterS));
      return sendError(res, 503, 'service temporarily unavailable (state store), retry shortly');
    }
    if (err instanceof ZodError) {
      const issue = err.issues[0];
      return sendError(res, 422, `${issue?.path.join('.') || 'request'}: ${issue?.message}`);
    }
    // body-parser errors carry their own status (400 malformed, 413 too large, 415 charset …).
    const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const type = (err as { type?: string }).type;
      const message =
        type === 'entity.too.large' ? 'request body too large' : type === 'entity.parse.failed' ? 'request body is not valid for its Content-Type' : (err as Error).message;
      return sendError(res, status, message);
    }
    log.error(`${req.method} ${req.originalUrl}: ${(err as Error)?.stack ?? String(err)}`);
    sendError(res, 500, 'internal server error');
  };
}
