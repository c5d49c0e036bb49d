/**
 * Who is calling: a token (`Authorization: Token <40 alphanumerics>`) or, on the identification route only,
 * a public web tag id. Resolves to the customer and the settings that shape the answer.
 */

import type { CustomerRecord, TagRecord, TokenRecord } from '../../core/access-records.ts';
import type { TokenGroup } from '../../core/customer-records.ts';
import { isEntitled, notEntitledReason } from '../../core/entitlements.ts';
import { ApiError } from '../../core/error-codes.ts';
import type { AccessRecords } from '../state/access/service.ts';
import { isHostAllowed, requestHost } from './allowed-origin.ts';
import { hashesEqual, hashSecret, TOKEN_PATTERN } from './token-secret.ts';

/** What authentication reads of a request: its headers (server/http/api-request.ts is one). */
export interface HeaderSource {
  get(name: string): string | undefined;
}

export interface Caller {
  customer: CustomerRecord;
  token: TokenRecord | null;
  tag: TagRecord | null;
  /** `intent_topics`: the answers carry the account's followed intent topics (tokens only; absent: off). */
  settings: { scores: boolean; segment_names: boolean; intent_topics?: boolean };
  /** The page origin allowed to read the answer (tag or domain-restricted token), for CORS. */
  corsOrigin: string | null;
  /** The partner calling on the customer's behalf (X-svc-CustomID), for usage records. */
  partner: string | null;
}

/** The secret from `Authorization: Token <secret>`; 401 for any other shape. */
export function tokenFromHeader(header: string | undefined): string {
  if (!header) throw new ApiError('unauthenticated', 'missing Authorization header: send "Authorization: Token <API_TOKEN>"');
  const m = /^Token\s+(\S+)\s*$/i.exec(header);
  if (!m || !TOKEN_PATTERN.test(m[1])) throw new ApiError('unauthenticated', 'invalid API token: expected "Authorization: Token <40 alphanumeric characters>"');
  return m[1];
}

export async function authenticateToken(store: AccessRecords, req: HeaderSource, group: TokenGroup): Promise<Caller> {
  const presented = tokenFromHeader(req.get('authorization'));
  const partnerHeader = req.get('x-svc-customid');
  if (partnerHeader !== undefined) return authenticatePartner(store, req, group, presented, partnerHeader);
  const token = await store.authenticateToken(presented);
  if (!token) throw new ApiError('unauthenticated', 'invalid API token: unknown, rotated or deactivated');
  return authorise(store, req, group, token, null);
}

/** Group, package and domain checks (403) for an authenticated token. */
async function authorise(store: AccessRecords, req: HeaderSource, group: TokenGroup, token: TokenRecord, partner: string | null): Promise<Caller> {
  const customer = await store.getCustomer(token.customer_id);
  if (!customer) throw new ApiError('unauthenticated', 'invalid API token: its customer no longer exists');
  if (token.api_group !== group) throw new ApiError('forbidden', `this token belongs to the ${token.api_group} API group and cannot call the ${group} API`);
  if (!isEntitled(customer, group)) throw new ApiError('forbidden', notEntitledReason(customer, group));
  let corsOrigin: string | null = null;
  if (token.allowed_domains.length > 0) {
    corsOrigin = checkOrigin(req, token.allowed_domains, 'token');
  }
  return {
    customer,
    token,
    tag: null,
    settings: { scores: token.scores, segment_names: token.segment_names, intent_topics: token.intent_topics },
    corsOrigin,
    partner,
  };
}

/**
 * Partners (spec "Authentication" 5) authenticate with their own token and add X-svc-CustomID:
 *   <partner>-<customer>-<customer_api_token>: on behalf of a customer; the embedded customer token must
 *     be valid for this route, and that customer is served and charged (the partner is recorded);
 *   <partner>-<partner_api_token>: the partner's own data; the embedded token must be the presented one.
 * <partner> is the partner account's id or name, <customer> the customer's (case-insensitive). Anything
 * else is 401, so a malformed header never silently falls back to the partner's own account.
 */
async function authenticatePartner(store: AccessRecords, req: HeaderSource, group: TokenGroup, presented: string, header: string): Promise<Caller> {
  const bad = (why: string) =>
    new ApiError('unauthenticated', `invalid X-svc-CustomID: ${why}; expected <partner>-<customer>-<customer_api_token> or <partner>-<partner_api_token>`);
  const m = /^(.+)-([A-Za-z0-9]{40})$/.exec(header.trim());
  if (!m) throw bad('it does not end with -<40 alphanumeric token>');
  const [, names, embedded] = m;
  const partnerToken = await store.authenticateToken(presented);
  if (!partnerToken) throw new ApiError('unauthenticated', 'invalid API token: unknown, rotated or deactivated');
  const partner = await store.getCustomer(partnerToken.customer_id);
  if (!partner) throw new ApiError('unauthenticated', 'invalid API token: its customer no longer exists');
  const is = (name: string, c: CustomerRecord) => name.toLowerCase() === c.id.toLowerCase() || name.toLowerCase() === c.name.toLowerCase();

  if (hashesEqual(hashSecret(embedded), hashSecret(presented))) {
    // Never echo the header: a caller who mixed up its parts would find its own token in the answer.
    if (!is(names, partner)) throw bad('the name before the token is not the partner that owns this token');
    return authorise(store, req, group, partnerToken, partner.id);
  }
  const customerToken = await store.authenticateToken(embedded);
  if (!customerToken) throw bad('the embedded customer token is unknown, rotated or deactivated');
  const customer = await store.getCustomer(customerToken.customer_id);
  const named =
    customer &&
    [customer.id, customer.name].some((n) => names.toLowerCase().endsWith('-' + n.toLowerCase()) && is(names.slice(0, names.length - n.length - 1), partner));
  if (!customer || !named) throw bad(`it must name the partner (${partner.id}) and the customer that owns the embedded token`);
  return authorise(store, req, group, customerToken, partner.id);
}

/**
 * A token of any group, for what every token may ask about itself (GET /v3/usage): its own group's
 * checks (package, allowed domains) still apply; partner headers do not (a partner asks with its own token).
 */
export async function authenticateAnyToken(store: AccessRecords, req: HeaderSource): Promise<Caller> {
  const token = await store.authenticateToken(tokenFromHeader(req.get('authorization')));
  if (!token) throw new ApiError('unauthenticated', 'invalid API token: unknown, rotated or deactivated');
  return authorise(store, req, token.api_group, token, null);
}

export async function authenticateTag(store: AccessRecords, req: HeaderSource, tagId: string): Promise<Caller> {
  const tag = await store.getTag(tagId);
  if (!tag) throw new ApiError('unauthenticated', `unknown web tag ${JSON.stringify(tagId.slice(0, 64))}`);
  const corsOrigin = checkOrigin(req, tag.allowed_domains, 'web tag');
  // After the origin check (a foreign page learns nothing of the tag); readable by the allowed page, so its
  // console shows why the tag stopped answering.
  if (tag.disabled) {
    throw new ApiError(
      'forbidden',
      `web tag ${tag.tag_id} is disabled: it answers no lookups and records no page views until it is enabled again (console, Web tags)`,
      corsOrigin ? { 'Access-Control-Allow-Origin': corsOrigin } : {},
    );
  }
  const customer = await store.getCustomer(tag.customer_id);
  if (!customer) throw new ApiError('unauthenticated', 'unknown web tag: its customer no longer exists');
  if (!isEntitled(customer, 'identification')) throw new ApiError('forbidden', "the customer's packages no longer cover the identification API");
  return { customer, token: null, tag, settings: { scores: tag.scores, segment_names: tag.segment_names }, corsOrigin, partner: null };
}

/** 403 unless the page (Origin, else Referer) is on an allowed domain; returns the Origin to echo in CORS. */
function checkOrigin(req: HeaderSource, allowed: readonly string[], what: string): string | null {
  const origin = req.get('origin');
  const host = requestHost(origin, req.get('referer'));
  if (!host) throw new ApiError('forbidden', `this ${what} is restricted to its allowed domains and the request names no page (Origin or Referer)`);
  if (!isHostAllowed(host, allowed)) throw new ApiError('forbidden', `${host} is not an allowed domain of this ${what}`);
  return origin && origin !== 'null' ? origin : null;
}
