/**
 * Domain errors of the state store. They say what went wrong in the store's terms; the HTTP layer
 * (`server/http/errors.ts`) and the CLI map them to statuses and exit codes.
 */

/** Why a request to the store was refused: something the caller can fix. */
export type StateErrorKind = 'invalid' | 'not_entitled' | 'not_found' | 'conflict';

/** A request the caller can fix (unknown customer, package not bought …): the CLI and admin API show the message. */
export class StateError extends Error {
  constructor(
    message: string,
    readonly kind: StateErrorKind = 'invalid',
  ) {
    super(message);
  }
}

/**
 * The store cannot do this now (locked by another process, backend unreachable, state file replaced):
 * nothing was changed, the same request may succeed shortly. `retryAfterS` is the advised wait.
 */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    readonly retryAfterS = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
