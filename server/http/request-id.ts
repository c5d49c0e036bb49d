/**
 * The id a trusted proxy gave a request (nginx: `proxy_set_header X-Request-Id $request_id`, see
 * deploy/nginx-config.ts). nginx sends one client request to a second node when the first failed while
 * its answer was outstanding — possibly after the first node had already charged it. Both attempts carry
 * the same id, so the charge is keyed by it and the retry is answered without a second charge.
 *
 * Only a proxy the app trusts (SVC_TRUST_PROXY, Express's `trust proxy`) may name the id: a client that
 * could choose it would replay one id to get every answer after the first for free.
 */
import type { IncomingMessage } from 'node:http';

/** nginx's `$request_id` is 32 hex digits; other proxies' UUIDs and similar ids fit as well. */
const REQUEST_ID = /^[A-Za-z0-9-]{16,64}$/;

export type TrustProxy = (addr: string, hop: number) => boolean;

/** Whether a trusted proxy named the request id, given the compiled trust rule (server/http/api-request.ts `compileTrust`). */
export function trustedRequestIdOf(req: Pick<IncomingMessage, 'headers' | 'socket'>, trusts: TrustProxy | undefined): string | null {
  const id = req.headers['x-request-id'];
  if (typeof id !== 'string' || !REQUEST_ID.test(id)) return null;
  const peer = req.socket?.remoteAddress;
  return trusts && peer && trusts(peer, 0) ? id : null;
}

/** The dedup key of an identification charge made for a proxied request (per customer, like every key). */
export function retryChargeKey(customerId: string, requestId: string): string {
  return `${customerId}|request|${requestId}`;
}
