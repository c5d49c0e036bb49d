/**
 * The one request: a simple CORS GET (no custom headers, so no preflight), no credentials.
 */
import type { SvcData, SvcErrorDetail } from './types.ts';

/** `svc_test_ip` of the page URL's query (the server honours it in demo mode only), or "". */
export function testIp(search: string): string {
  try {
    return new URLSearchParams(search).get('svc_test_ip') || '';
  } catch {
    return '';
  }
}

export const detailsUrl = (endpoint: string, tag: string, ip?: string): string =>
  endpoint.replace(/\/+$/, '') +
  '/v3/company/details?tag=' +
  encodeURIComponent(tag) +
  (ip ? '&test_ip=' + encodeURIComponent(ip) : '');

const fail = (status: number, message: string): SvcErrorDetail => ({ status, message });

/** Resolves with the 200 answer; rejects with `{ status, message }` (status 0: network error). */
export async function fetchDetails(url: string, f: typeof fetch = fetch): Promise<SvcData> {
  let r: Response | undefined, body: { message?: string; company?: unknown } | undefined;
  try {
    r = await f(url, { credentials: 'omit' });
    body = await r.json();
  } catch (e) {
    if (!r) throw fail(0, (e as Error).message || 'network error');
  }
  if (r.status == 200 && body && body.company) return body as SvcData;
  throw fail(r.status, (body && body.message) || 'HTTP ' + r.status);
}
