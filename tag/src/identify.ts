/**
 * The one identification request: a simple CORS GET (no custom header, no credentials, so no
 * preflight) to `<endpoint>/v3/company/details?tag=<tag>[&test_ip=<ip>]`.
 */
import type { SvcData } from './types.ts';

/** The answer on 200, else the server's error body, or the browser's message. */
type IdentificationBody = Partial<SvcData> & { message?: string };

/**
 * Asks, then calls `done` once with the HTTP status (0 when no answer came: network error, blocked) and
 * the body: failures come back as a status and a message, never as an exception (`done` itself must not throw:
 * the tag passes it guarded).
 */
export function requestIdentification(url: string, done: (status: number, body: IdentificationBody) => void): void {
  let status = 0;
  fetch(url, { credentials: 'omit' })
    .then((response) => {
      status = response.status;
      return response.json();
    })
    .then(
      (body: IdentificationBody | null) => done(status, body ?? {}),
      (error: Error) => done(status, error), // (its message is the body's: 6 B gzip less than a copy)
    );
}
