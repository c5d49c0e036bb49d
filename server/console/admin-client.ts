/**
 * The console's only way to the server: the admin REST API under /admin/api, with the admin token as a
 * Bearer header, JSON bodies, and every error turned into an `AdminApiError` carrying the server's
 * `{status:'error', message}` text (so the UI can show it, and a 401 can send the user to sign-in).
 */
import type { RotationAdvice } from '../auth/rotation.ts';
import type { CreditReport } from '../credits/report.ts';
import type { CustomerRecord, NewTag, NewToken, TagRecord, TokenRecord } from '../state/store.ts';
import type { TagSighting } from '../state/visits.ts';
import type { VisitsReport } from '../visits/report.ts';
import type { DeliveryRecord, NewWebhook, WebhookRecord } from '../webhooks/schema.ts';

/** A webhook endpoint as answered by create: the only time its signing secret is seen. */
export type WebhookWithSecret = WebhookRecord & { secret: string };

export type AdminToken = TokenRecord & RotationAdvice;
/** A token as answered by create and rotate: the only time its secret is seen. */
export type TokenWithSecret = AdminToken & { token: string };

export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface AdminClient {
  customers(): Promise<CustomerRecord[]>;
  credits(customerId: string): Promise<CreditReport>;
  tokens(customerId: string): Promise<AdminToken[]>;
  createToken(body: NewToken): Promise<TokenWithSecret>;
  setTokenActive(id: string, active: boolean): Promise<AdminToken>;
  rotateToken(id: string): Promise<TokenWithSecret>;
  deleteToken(id: string): Promise<void>;
  webhooks(customerId: string): Promise<WebhookRecord[]>;
  createWebhook(customerId: string, body: NewWebhook): Promise<WebhookWithSecret>;
  deleteWebhook(customerId: string, webhookId: string): Promise<void>;
  webhookDeliveries(customerId: string, webhookId: string): Promise<DeliveryRecord[]>;
  /** The visitors report; `from`/`to` YYYY-MM-DD, `segment` a segment id. */
  visits(customerId: string, range: VisitsRange): Promise<VisitsReport>;
  /** The same report as CSV text (Accept: text/csv). */
  visitsCsv(customerId: string, range: VisitsRange): Promise<string>;
  tags(customerId: string): Promise<TagRecord[]>;
  createTag(body: NewTag & { rate_limit?: number; visitor_rate_limit?: number }): Promise<TagRecord>;
  tagSightings(customerId: string): Promise<TagSighting[]>;
}

export interface VisitsRange {
  from: string;
  to: string;
  segment?: number | null;
}

/** The message to show for a failed answer: the server's own when it sent one. */
export async function errorMessage(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { message?: unknown };
    if (typeof body?.message === 'string' && body.message) return body.message;
  } catch {
    // not JSON (a proxy's error page …): fall through to the status line
  }
  return `the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
}

export function adminClient(adminToken: string, fetchImpl: Fetch = (i, init) => fetch(i, init), base = '/admin/api'): AdminClient {
  async function call<T>(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${adminToken}`, accept };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetchImpl(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch (e) {
      throw new AdminApiError(0, `cannot reach the server: ${(e as Error).message}`);
    }
    if (!res.ok) throw new AdminApiError(res.status, await errorMessage(res));
    if (res.status === 204) return undefined as T;
    return (accept === 'application/json' ? await res.json() : await res.text()) as T;
  }
  const id = encodeURIComponent;
  const range = (r: VisitsRange) => new URLSearchParams({ from: r.from, to: r.to, ...(r.segment != null ? { segment: String(r.segment) } : {}) }).toString();
  return {
    customers: () => call('GET', '/customers'),
    credits: (customerId) => call('GET', `/customers/${id(customerId)}/credits`),
    tokens: (customerId) => call('GET', `/tokens?customer=${id(customerId)}`),
    createToken: (body) => call('POST', '/tokens', body),
    setTokenActive: (tokenId, active) => call('POST', `/tokens/${id(tokenId)}/${active ? 'activate' : 'deactivate'}`, {}),
    rotateToken: (tokenId) => call('POST', `/tokens/${id(tokenId)}/rotate`, {}),
    deleteToken: (tokenId) => call('DELETE', `/tokens/${id(tokenId)}`),
    webhooks: (customerId) => call('GET', `/customers/${id(customerId)}/webhooks`),
    createWebhook: (customerId, body) => call('POST', `/customers/${id(customerId)}/webhooks`, body),
    deleteWebhook: (customerId, webhookId) => call('DELETE', `/customers/${id(customerId)}/webhooks/${id(webhookId)}`),
    webhookDeliveries: (customerId, webhookId) => call('GET', `/customers/${id(customerId)}/webhooks/${id(webhookId)}/deliveries`),
    visits: (customerId, r) => call('GET', `/customers/${id(customerId)}/visits?${range(r)}`),
    visitsCsv: (customerId, r) => call('GET', `/customers/${id(customerId)}/visits?${range(r)}`, undefined, 'text/csv'),
    tags: (customerId) => call('GET', `/tags?customer=${id(customerId)}`),
    createTag: (body) => call('POST', '/tags', body),
    tagSightings: (customerId) => call('GET', `/customers/${id(customerId)}/tag-sightings`),
  };
}

/** The same client, calling `onUnauthorized` with the server's message whenever an answer is 401 (then rethrowing). */
export function onUnauthorized(client: AdminClient, handler: (message: string) => void): AdminClient {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(client) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    guarded[name] = (...args: unknown[]) =>
      method(...args).catch((e: unknown) => {
        if (e instanceof AdminApiError && e.status === 401) handler(e.message);
        throw e;
      });
  }
  return guarded as unknown as AdminClient;
}
