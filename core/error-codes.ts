/**
 * The machine-readable error codes of every error body (`{status: "error", message, code}`), one enum
 * shared by the server, the console, the CLI and the docs. Domain code throws a code; the HTTP layer
 * alone turns it into a status through ERROR_STATUS (and ALSO_STATUS). This module imports nothing (a
 * neutral core).
 */
export const ERROR_CODES = [
  'unauthenticated',
  'forbidden',
  'rate_limited',
  'quota_exhausted',
  'invalid',
  'blank',
  'not_found',
  'conflict',
  'unsupported_type',
  'too_large',
  'unavailable',
  'method_not_allowed',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The HTTP status of each code (spec "Errors": 400 blank, 422 invalid, …). */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  unauthenticated: 401,
  forbidden: 403,
  rate_limited: 429,
  quota_exhausted: 402,
  invalid: 422,
  blank: 400,
  not_found: 404,
  conflict: 409,
  unsupported_type: 415,
  too_large: 413,
  unavailable: 503,
  method_not_allowed: 405,
  internal: 500,
};

/**
 * The statuses a code is also answered with. The spec's numbers came before the codes and must not
 * change: its 400 also answers a request that cannot be read at all (a malformed body, a repeated query
 * parameter, a value the state store refuses), which is `invalid` but keeps its 400. No other pair exists.
 */
export const ALSO_STATUS = { invalid: [400] } as const satisfies Partial<Record<ErrorCode, readonly number[]>>;

/** The statuses ALSO_STATUS allows for `C` besides its own (none for most codes). */
export type AlsoStatus<C extends ErrorCode> = C extends keyof typeof ALSO_STATUS ? (typeof ALSO_STATUS)[C][number] : never;

/** What each code means, for docs/api.md and the OpenAPI document. */
export const ERROR_MEANING: Readonly<Record<ErrorCode, string>> = {
  unauthenticated: 'no credential, or one that is unknown, inactive or malformed',
  forbidden: 'the credential may not do this (API group, package, allowed domain, cross-origin)',
  rate_limited: 'a rate limit is spent for this window; retry after Retry-After seconds',
  quota_exhausted: "the contract year's credits of this pool are spent",
  invalid: 'a value is not valid (422, validation error), or the request cannot be read at all (400: malformed body, repeated query parameter)',
  blank: 'a required field or parameter is blank',
  not_found: 'no such route or record',
  conflict: 'the record already exists, or the change conflicts with the current state',
  unsupported_type: "the body's Content-Type is not accepted here",
  too_large: 'the body is larger than this route accepts',
  unavailable: 'the service cannot answer right now (state store locked or unreachable); retry after Retry-After seconds',
  method_not_allowed: 'the route exists but not with this method (see Allow)',
  internal: 'an unexpected error on our side (logged)',
};

/** Every error body (spec "Errors": `status` and `message`), with its code. */
export interface ErrorBody {
  status: 'error';
  message: string;
  code: ErrorCode;
}

/**
 * An error a caller can hit: its code decides the status (ERROR_STATUS), unless `status` names one of
 * ALSO_STATUS's for that code (checked by the compiler). Domain code throws these, never statuses.
 */
export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;

  constructor(
    readonly code: C,
    message: string,
    readonly headers: Record<string, string> = {},
    status?: AlsoStatus<C>,
  ) {
    super(message);
    this.status = status ?? ERROR_STATUS[code];
  }
}
