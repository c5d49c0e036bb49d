/**
 * The one identification request: a simple CORS GET (no custom header, no credentials, so no
 * preflight) to `<endpoint>/v3/company/details?tag=<tag>[&test_ip=<ip>]`.
 */
import type { SvcData } from './types.ts';

/**
 * The HTTP status, or 0 when no answer came (network error, blocked); and the answer on 200, else the
 * server's error body, or the browser's message.
 */
export type IdentificationResult = [status: number, body: Partial<SvcData> & { message?: string }];

/**
 * A URL of the service for a tag: `<endpoint><route>?tag=<tag>[&test_ip=<ip>]` (the demo's test IP, so
 * the lookup and the page view are the visitor the demo shows; other servers ignore it).
 */
export const serviceUrl = (endpoint: string, route: string, tag: string, testIp: string | null): string =>
  endpoint + route + '?' + new URLSearchParams(testIp ? { tag, test_ip: testIp } : { tag });

/** Never rejects: failures come back as a status (0: no answer) and a message. */
export function requestIdentification(url: string): Promise<IdentificationResult> {
  let status = 0;
  return fetch(url, { credentials: 'omit' })
    .then((response) => {
      status = response.status;
      return response.json();
    })
    .then(
      (body): IdentificationResult => [status, body ?? {}],
      (error: Error): IdentificationResult => [status, { message: error.message }],
    );
}
