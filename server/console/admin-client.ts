/**
 * The console's only way to the server: the admin REST API under /admin/api and the sign-in routes under
 * /auth. The operator signs in with the admin token, sent as a Bearer header (never a cookie: credentials
 * `omit`); a user signs in with a password or single sign-on and rides on the HttpOnly session cookie
 * (credentials `same-origin`; the browser adds the Origin header the server wants on every change). JSON
 * bodies; every error becomes an `AdminApiError` carrying the server's `{status:'error', message}` text (so
 * the UI can show it, and a 401 can send the user to sign-in).
 */

import type { z } from 'zod';
import type { CustomerRecord, NewTag, NewToken, TagPatch, TagRecord, TagSettings, TokenRecord } from '../../core/access-records.ts';
import type { CrmProvider, CrmRunRecord } from '../../core/crm-records.ts';
import type { LookalikeSeed, Segment, SegmentMatch } from '../../core/customer-records.ts';
import type { DigestSettings, DigestSettingsPatch } from '../../core/digest-records.ts';
import type { Role } from '../../core/roles.ts';
import type { AuditEvent, SsoProvider, UserRecord } from '../../core/user-records.ts';
import type { TagSighting } from '../../core/visit-records.ts';
import type { AccountPage, FoundAccount } from '../accounts/account.ts';
import type { AlertPatch, AlertView, NewAlert, OwnersReport, OwnersView, TestAlertAnswer } from '../alerts/schema.ts';
import type { RotationAdvice } from '../auth/rotation.ts';
import type { CommitteeAnswer } from '../committee/schema.ts';
import type { CreditReport } from '../credits/report.ts';
import type { CrmCheck } from '../crm/provider.ts';
import type { CrmConnectionView } from '../crm/schema.ts';
import type { PreviewAccount } from '../crm/sync.ts';
import type { EnrichJob } from '../enrichment/jobs/job-store.ts';
import type { HomeSummary } from '../home/summary.ts';
import type { ListDetail, ListSummary, ListsAnswer, UploadReport } from '../lists/schema.ts';
import type { LookalikePreview } from '../lookalikes/schema.ts';
import type { OnboardingStatus } from '../onboarding/steps.ts';
import type { EnrichedPerson } from '../people/schema.ts';
import type { SegmentAccount } from '../segments/schema.ts';
import type { CustomerTopicsAnswer, TopicNamesAnswer } from '../topics/schema.ts';
import type { VisitsReport } from '../visits/report.ts';
import type { DeliveryRecord, NewWebhook, WebhookRecord } from '../webhooks/schema.ts';
import type { TestDelivery } from '../webhooks/service.ts';

/** A revealed person: People Enrichment's answer (its company's firmographics are not shown here). */
export interface RevealedPerson {
  person: EnrichedPerson;
}

/** A webhook endpoint as answered by create: the only time its signing secret is seen. */
export type WebhookWithSecret = WebhookRecord & { secret: string };

export type AdminToken = TokenRecord & RotationAdvice;
/** A token as answered by create and rotate: the only time its secret is seen. */
export type TokenWithSecret = AdminToken & { token: string };

/** A one-time link (invitation or password reset): its URL is shown once, never stored by the console. */
export interface IssuedLink {
  url: string;
  token: string;
  expires_at: string;
  /** Whether the server also mailed it (SVC_SMTP_URL). */
  mailed: boolean;
}

/** An invitation: an owner's of an address outside the customer's SSO domains is only mailed (no url, no token). */
export type IssuedInvitation = IssuedLink | { url?: undefined; token?: undefined; expires_at: string; mailed: boolean };

/** The customer's single sign-on provider as the API shows it (never its client secret). */
export type SsoSettings = Omit<SsoProvider, 'customer_id' | 'client_secret'>;
/** What PUT takes: the whole provider, its client secret included. */
export type SsoUpdate = SsoSettings & { client_secret: string };

export interface AuditRange {
  from: string;
  to: string;
}

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
  /** Sends a sample event now (a Slack endpoint: its Block Kit message) and answers what the receiver said. */
  testWebhook(customerId: string, webhookId: string): Promise<TestDelivery>;
  /** Home: this period (`from`/`to`, default the last 7 days) against the one before it. */
  home(customerId: string, range?: { from: string; to: string }): Promise<HomeSummary>;
  /** The visitors report; `from`/`to` YYYY-MM-DD, `segment` a segment id. */
  visits(customerId: string, range: VisitsRange): Promise<VisitsReport>;
  /** The same report as CSV text (Accept: text/csv). */
  visitsCsv(customerId: string, range: VisitsRange): Promise<string>;
  /** The report's days with their coverage (match rate, unidentified page views by reason) as CSV. */
  visitsDaysCsv(customerId: string, range: VisitsRange): Promise<string>;
  /** The account page's search box: companies by id, domain or name prefix (at most 20). */
  searchAccounts(customerId: string, q: string): Promise<{ accounts: FoundAccount[] }>;
  /** One account's page (firmographics, scores, journey …) over `from`–`to`. */
  account(customerId: string, companyId: string, range: VisitsRange): Promise<AccountPage>;
  /** Its page views per day and sessions' pages as CSV text. */
  accountCsv(customerId: string, companyId: string, range: VisitsRange): Promise<string>;
  /** The account's buying committee: its people by function × seniority (which contact details exist, never the values). */
  accountPeople(customerId: string, companyId: string): Promise<CommitteeAnswer>;
  /** The committee as CSV text. */
  accountPeopleCsv(customerId: string, companyId: string): Promise<string>;
  /** People Enrichment's answer for one of them: 1 Enrichment credit, free again this month (402: none left, an AdminApiError). */
  revealPerson(customerId: string, companyId: string, personId: string): Promise<RevealedPerson>;
  tags(customerId: string): Promise<TagRecord[]>;
  createTag(body: NewTag & { rate_limit?: number; visitor_rate_limit?: number }): Promise<TagRecord>;
  tagSightings(customerId: string): Promise<TagSighting[]>;
  /** The onboarding checklist (server/onboarding/steps.ts). */
  onboarding(customerId: string): Promise<OnboardingStatus>;
  /** Replaces the tag's server-managed settings (the whole object: absent keys are the bundle's defaults). */
  updateTagSettings(tagId: string, settings: TagSettings): Promise<TagRecord>;
  /** Changes only the fields given (allowed domains, limits, answers, `disabled`). */
  updateTag(tagId: string, patch: TagPatch): Promise<TagRecord>;
  deleteTag(tagId: string): Promise<void>;
  segments(customerId: string): Promise<Segment[]>;
  createSegment(customerId: string, body: { name: string; match: SegmentMatch }): Promise<Segment>;
  updateSegment(customerId: string, segmentId: number, patch: { name?: string; match?: SegmentMatch }): Promise<Segment>;
  deleteSegment(customerId: string, segmentId: number): Promise<void>;
  /** How many catalog accounts the rule matches and the first 20 (nothing saved). */
  previewSegment(customerId: string, match: SegmentMatch): Promise<SegmentPreview>;
  /** The third-party intent topics the customer follows (its settings) and the dataset's latest week. */
  topics(customerId: string): Promise<CustomerTopicsAnswer>;
  /** Replaces the followed topics (names of the dataset's topics; 422 for another). */
  setTopics(customerId: string, topics: string[]): Promise<CustomerTopicsAnswer>;
  /** The dataset's topics whose name holds `q`, each with its accounts and whether the customer follows it. */
  topicNames(customerId: string, q?: string): Promise<TopicNamesAnswer>;
  /** The catalog accounts most like a seed, with scores and reasons (nothing saved). */
  previewLookalikes(customerId: string, body: { seed: LookalikeSeed; limit?: number }): Promise<LookalikePreview>;
  /** The segment's accounts as a paid-media audience file (`linkedin`: LinkedIn's company-list template). */
  segmentAudience(customerId: string, segmentId: number, format: 'linkedin'): Promise<Blob>;
  /** A signed link to that file, which downloads it without signing in until it expires. */
  segmentAudienceLink(customerId: string, segmentId: number, format: 'linkedin'): Promise<{ url: string; format: string; expires_at: string }>;
  users(customerId: string): Promise<UserRecord[]>;
  invite(customerId: string, body: { email: string; role: Role }): Promise<IssuedInvitation>;
  setUserRole(customerId: string, userId: string, role: Role): Promise<UserRecord>;
  removeUser(customerId: string, userId: string): Promise<void>;
  resetPassword(customerId: string, userId: string): Promise<IssuedLink>;
  /** The provider, or null when the customer has none (the API's 404). */
  sso(customerId: string): Promise<SsoSettings | null>;
  setSso(customerId: string, body: SsoUpdate): Promise<SsoSettings>;
  removeSso(customerId: string): Promise<void>;
  audit(customerId: string, range: AuditRange): Promise<{ events: AuditEvent[] }>;
  /** Account lists (hot, excluded, named) with their sizes. */
  lists(customerId: string): Promise<ListsAnswer>;
  /** One list and a page of its accounts. */
  list(customerId: string, listId: string, page?: { offset: number; limit: number }): Promise<ListDetail>;
  createList(customerId: string, name: string): Promise<ListSummary>;
  /** Renames a named list or replaces its company ids. */
  updateList(customerId: string, listId: string, body: { name?: string; company_ids?: string[] }): Promise<ListSummary>;
  deleteList(customerId: string, listId: string): Promise<void>;
  /** A CSV file of accounts (body `text/csv`): the report; a bad file is an AdminApiError and changes nothing. */
  uploadList(customerId: string, listId: string, csv: string, mode: 'add' | 'replace'): Promise<UploadReport>;
  /** This node's enrichment jobs of the customer, newest first. */
  enrichJobs(customerId: string): Promise<{ node: string; jobs: EnrichJob[] }>;
  /** A CSV file to enrich (streamed as the body, `text/csv`): the queued job; a refused file is an AdminApiError. */
  uploadEnrichment(customerId: string, file: Blob, opts: { name: string; column: string | null }): Promise<EnrichJob>;
  /** A finished job's result file. */
  enrichResult(customerId: string, jobId: string): Promise<Blob>;
  deleteEnrichJob(customerId: string, jobId: string): Promise<void>;
  /** The same events as CSV text (Accept: text/csv). */
  auditCsv(customerId: string, range: AuditRange): Promise<string>;
  /** The customer's CRM connections (never a secret). */
  crm(customerId: string): Promise<{ customer_id: string; providers: CrmProvider[]; connections: CrmConnectionView[] }>;
  /** Connects a CRM (the credential tested first: a refused one is an AdminApiError 422 with the provider's message). */
  connectCrm(customerId: string, provider: CrmProvider, body: CrmConnectBody): Promise<{ connection: CrmConnectionView; check: CrmCheck }>;
  updateCrm(customerId: string, provider: CrmProvider, patch: CrmPatchBody): Promise<CrmConnectionView>;
  disconnectCrm(customerId: string, provider: CrmProvider): Promise<void>;
  testCrm(customerId: string, provider: CrmProvider): Promise<CrmTest>;
  /** Starts a run (202): incremental, or every account with `full`. */
  syncCrm(customerId: string, provider: CrmProvider, opts: { full: boolean }): Promise<{ run: CrmRunRecord }>;
  /** What a run would write, without writing. */
  previewCrm(customerId: string, provider: CrmProvider, opts: { full: boolean }): Promise<CrmPreview>;
  /** The connection's runs, newest first. */
  crmRuns(customerId: string, provider: CrmProvider, limit?: number): Promise<{ runs: CrmRunRecord[] }>;
  /** The signed-in user's email digest settings (`/auth/me/notifications`; the operator token has none: 400). */
  notifications(): Promise<DigestSettings>;
  /** Changes the fields given; a bad one is an AdminApiError 422 naming it. */
  updateNotifications(patch: DigestSettingsPatch): Promise<DigestSettings>;
  /** The customer's alerts (Slack and Teams URLs masked). */
  alerts(customerId: string): Promise<AlertView[]>;
  /** A webhook destination's signing secret is in this answer only. */
  createAlert(customerId: string, body: NewAlertBody): Promise<AlertView & { secret?: string }>;
  /** Only the fields given (`paused: true` pauses it). */
  updateAlert(customerId: string, alertId: string, patch: AlertPatchBody): Promise<AlertView>;
  deleteAlert(customerId: string, alertId: string): Promise<void>;
  /** Puts a labelled test of the alert in the outbox (202): its delivery shows in `alertDeliveries`. */
  testAlert(customerId: string, alertId: string): Promise<z.infer<typeof TestAlertAnswer>>;
  alertDeliveries(customerId: string, alertId: string, limit?: number): Promise<DeliveryRecord[]>;
  /** The owners list and territory rules as uploaded. */
  owners(customerId: string): Promise<z.infer<typeof OwnersView>>;
  /** Replaces the owners list with a CSV file (`text/csv`): the counts read; a bad row is an AdminApiError 422 naming it, and changes nothing. */
  uploadOwners(customerId: string, csv: string | Blob): Promise<z.infer<typeof OwnersReport>>;
}

/** POST …/alerts: what the API takes (filter and paused optional). */
export type NewAlertBody = z.input<typeof NewAlert>;
/** PATCH …/alerts/:alertId. */
export type AlertPatchBody = z.input<typeof AlertPatch>;

/** PUT …/crm/:provider: HubSpot's private-app token, or Salesforce's client credentials and My Domain URL. */
export type CrmConnectBody = (
  | { access_token: string; base_url?: string; create_missing: boolean }
  | { client_id: string; client_secret: string; url: string; create_missing: boolean }
) & { mapping?: Record<string, string | null> };

/** PATCH …/crm/:provider: only the fields given (a mapping value null: not written). */
export interface CrmPatchBody {
  mapping?: Record<string, string | null>;
  create_missing?: boolean;
  status?: 'active' | 'paused';
}

/** "Test connection": what the credential may do, or the provider's refusal. */
export interface CrmTest {
  ok: boolean;
  message: string | null;
  check: CrmCheck | null;
}

/** A dry run: its counts (a run record never stored) and the accounts that would be written (at most 1,000). */
export interface CrmPreview {
  run: CrmRunRecord;
  accounts: PreviewAccount[];
}

/** `GET /auth/me`. */
export interface MeAnswer {
  email: string | null;
  role: string;
  customer_id: string | null;
}

/** The sign-in routes (/auth): cookie-based, same origin. */
export interface AuthClient {
  /** 204 + the session cookie; 401 for a wrong pair, 429 when throttled (the message says so). */
  login(email: string, password: string): Promise<void>;
  /** Takes an invitation or reset link once and sets the password: 204 + the session cookie. */
  accept(token: string, password: string): Promise<void>;
  /** Who the session cookie (or, given, the admin token) belongs to; 401 when none. */
  me(adminToken?: string | null): Promise<MeAnswer>;
  logout(): Promise<void>;
}

export interface SegmentPreview {
  size: number;
  accounts: SegmentAccount[];
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

/**
 * One request: with the admin token as Bearer and no cookies, or (no token) with the session cookie of
 * this origin. JSON in and out (or text for another `accept`); errors as AdminApiError.
 */
async function request<T>(fetchImpl: Fetch, adminToken: string | null, method: string, url: string, body?: unknown, accept = 'application/json'): Promise<T> {
  const headers: Record<string, string> = { accept };
  if (adminToken) headers.authorization = `Bearer ${adminToken}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetchImpl(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: adminToken ? 'omit' : 'same-origin',
      cache: 'no-store',
    });
  } catch (e) {
    throw new AdminApiError(0, `cannot reach the server: ${(e as Error).message}`);
  }
  if (!res.ok) throw new AdminApiError(res.status, await errorMessage(res));
  if (res.status === 204) return undefined as T;
  return (accept === 'application/json' ? await res.json() : await res.text()) as T;
}

/** A CSV body (the account-list, enrichment and owners uploads: text, or a File the browser streams), otherwise as `request`. */
async function sendCsv<T>(fetchImpl: Fetch, adminToken: string | null, url: string, csv: string | Blob, method: 'POST' | 'PUT' = 'POST'): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'text/csv' };
  if (adminToken) headers.authorization = `Bearer ${adminToken}`;
  let res: Response;
  try {
    res = await fetchImpl(url, { method, headers, body: csv, credentials: adminToken ? 'omit' : 'same-origin', cache: 'no-store' });
  } catch (e) {
    throw new AdminApiError(0, `cannot reach the server: ${(e as Error).message}`);
  }
  if (!res.ok) throw new AdminApiError(res.status, await errorMessage(res));
  return (await res.json()) as T;
}

/** A file answer (a result download) as a Blob, otherwise as `request`. */
async function fetchBlob(fetchImpl: Fetch, adminToken: string | null, url: string): Promise<Blob> {
  const headers: Record<string, string> = { accept: 'text/csv' };
  if (adminToken) headers.authorization = `Bearer ${adminToken}`;
  let res: Response;
  try {
    res = await fetchImpl(url, { method: 'GET', headers, credentials: adminToken ? 'omit' : 'same-origin', cache: 'no-store' });
  } catch (e) {
    throw new AdminApiError(0, `cannot reach the server: ${(e as Error).message}`);
  }
  if (!res.ok) throw new AdminApiError(res.status, await errorMessage(res));
  return res.blob();
}

/** The admin API as the operator (`adminToken`) or, with null, as the signed-in user (session cookie); `me` is where the signed-in user's own settings live. */
export function adminClient(adminToken: string | null, fetchImpl: Fetch = (i, init) => fetch(i, init), base = '/admin/api', me = '/auth/me'): AdminClient {
  const call = <T>(method: string, path: string, body?: unknown, accept?: string) => request<T>(fetchImpl, adminToken, method, `${base}${path}`, body, accept);
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
    testWebhook: (customerId, webhookId) => call('POST', `/customers/${id(customerId)}/webhooks/${id(webhookId)}/test`, {}),
    home: (customerId, r) => call('GET', `/customers/${id(customerId)}/home${r ? `?${range(r)}` : ''}`),
    visits: (customerId, r) => call('GET', `/customers/${id(customerId)}/visits?${range(r)}`),
    visitsCsv: (customerId, r) => call('GET', `/customers/${id(customerId)}/visits?${range(r)}`, undefined, 'text/csv'),
    visitsDaysCsv: (customerId, r) => call('GET', `/customers/${id(customerId)}/visits.csv?${range(r)}&rows=days`, undefined, 'text/csv'),
    searchAccounts: (customerId, q) => call('GET', `/customers/${id(customerId)}/accounts?${new URLSearchParams({ q })}`),
    account: (customerId, companyId, r) => call('GET', `/customers/${id(customerId)}/accounts/${id(companyId)}?${range(r)}`),
    accountCsv: (customerId, companyId, r) => call('GET', `/customers/${id(customerId)}/accounts/${id(companyId)}?${range(r)}`, undefined, 'text/csv'),
    accountPeople: (customerId, companyId) => call('GET', `/customers/${id(customerId)}/accounts/${id(companyId)}/people`),
    accountPeopleCsv: (customerId, companyId) => call('GET', `/customers/${id(customerId)}/accounts/${id(companyId)}/people.csv`, undefined, 'text/csv'),
    // Body-less, as the route takes none.
    revealPerson: (customerId, companyId, personId) => call('POST', `/customers/${id(customerId)}/accounts/${id(companyId)}/people/${id(personId)}/reveal`),
    tags: (customerId) => call('GET', `/tags?customer=${id(customerId)}`),
    createTag: (body) => call('POST', '/tags', body),
    tagSightings: (customerId) => call('GET', `/customers/${id(customerId)}/tag-sightings`),
    onboarding: (customerId) => call('GET', `/customers/${id(customerId)}/onboarding`),
    updateTagSettings: (tagId, settings) => call('PATCH', `/tags/${id(tagId)}/settings`, settings),
    updateTag: (tagId, patch) => call('PATCH', `/tags/${id(tagId)}`, patch),
    deleteTag: (tagId) => call('DELETE', `/tags/${id(tagId)}`),
    segments: (customerId) => call('GET', `/customers/${id(customerId)}/segments`),
    createSegment: (customerId, body) => call('POST', `/customers/${id(customerId)}/segments`, body),
    updateSegment: (customerId, segmentId, patch) => call('PATCH', `/customers/${id(customerId)}/segments/${segmentId}`, patch),
    deleteSegment: (customerId, segmentId) => call('DELETE', `/customers/${id(customerId)}/segments/${segmentId}`),
    previewSegment: (customerId, match) => call('POST', `/customers/${id(customerId)}/segments/preview`, { match }),
    topics: (customerId) => call('GET', `/customers/${id(customerId)}/topics`),
    setTopics: (customerId, topics) => call('PUT', `/customers/${id(customerId)}/topics`, { topics }),
    topicNames: (customerId, q = '') => call('GET', `/customers/${id(customerId)}/topics/names?${new URLSearchParams({ q })}`),
    previewLookalikes: (customerId, body) => call('POST', `/customers/${id(customerId)}/lookalikes/preview`, body),
    segmentAudience: (customerId, segmentId, format) =>
      fetchBlob(fetchImpl, adminToken, `${base}/customers/${id(customerId)}/segments/${segmentId}/audience.csv?${new URLSearchParams({ format })}`),
    segmentAudienceLink: (customerId, segmentId, format) => call('POST', `/customers/${id(customerId)}/segments/${segmentId}/audience-link`, { format }),
    users: (customerId) => call('GET', `/customers/${id(customerId)}/users`),
    invite: (customerId, body) => call('POST', `/customers/${id(customerId)}/invitations`, body),
    setUserRole: (customerId, userId, role) => call('PATCH', `/customers/${id(customerId)}/users/${id(userId)}`, { role }),
    removeUser: (customerId, userId) => call('DELETE', `/customers/${id(customerId)}/users/${id(userId)}`),
    resetPassword: (customerId, userId) => call('POST', `/customers/${id(customerId)}/users/${id(userId)}/reset-password`, {}),
    sso: (customerId) =>
      call<SsoSettings>('GET', `/customers/${id(customerId)}/sso`).catch((e: unknown) => {
        if (e instanceof AdminApiError && e.status === 404) return null;
        throw e;
      }),
    setSso: (customerId, body) => call('PUT', `/customers/${id(customerId)}/sso`, body),
    removeSso: (customerId) => call('DELETE', `/customers/${id(customerId)}/sso`),
    audit: (customerId, r) => call('GET', `/customers/${id(customerId)}/audit?${new URLSearchParams({ from: r.from, to: r.to })}`),
    auditCsv: (customerId, r) => call('GET', `/customers/${id(customerId)}/audit?${new URLSearchParams({ from: r.from, to: r.to })}`, undefined, 'text/csv'),
    lists: (customerId) => call('GET', `/customers/${id(customerId)}/lists`),
    list: (customerId, listId, page = { offset: 0, limit: 500 }) =>
      call('GET', `/customers/${id(customerId)}/lists/${id(listId)}?${new URLSearchParams({ offset: String(page.offset), limit: String(page.limit) })}`),
    createList: (customerId, name) => call('POST', `/customers/${id(customerId)}/lists`, { name }),
    updateList: (customerId, listId, body) => call('PUT', `/customers/${id(customerId)}/lists/${id(listId)}`, body),
    deleteList: (customerId, listId) => call('DELETE', `/customers/${id(customerId)}/lists/${id(listId)}`),
    uploadList: (customerId, listId, csv, mode) =>
      sendCsv(fetchImpl, adminToken, `${base}/customers/${id(customerId)}/lists/${id(listId)}/upload?${new URLSearchParams({ mode })}`, csv),
    enrichJobs: (customerId) => call('GET', `/customers/${id(customerId)}/enrichment-jobs`),
    uploadEnrichment: (customerId, file, { name, column }) =>
      sendCsv(
        fetchImpl,
        adminToken,
        `${base}/customers/${id(customerId)}/enrichment-jobs?${new URLSearchParams({ name, ...(column ? { column } : {}) })}`,
        file,
      ),
    enrichResult: (customerId, jobId) => fetchBlob(fetchImpl, adminToken, `${base}/customers/${id(customerId)}/enrichment-jobs/${id(jobId)}/result.csv`),
    deleteEnrichJob: (customerId, jobId) => call('DELETE', `/customers/${id(customerId)}/enrichment-jobs/${id(jobId)}`),
    crm: (customerId) => call('GET', `/customers/${id(customerId)}/crm`),
    connectCrm: (customerId, provider, body) => call('PUT', `/customers/${id(customerId)}/crm/${id(provider)}`, body),
    updateCrm: (customerId, provider, patch) => call('PATCH', `/customers/${id(customerId)}/crm/${id(provider)}`, patch),
    disconnectCrm: (customerId, provider) => call('DELETE', `/customers/${id(customerId)}/crm/${id(provider)}`),
    testCrm: (customerId, provider) => call('POST', `/customers/${id(customerId)}/crm/${id(provider)}/test`, {}),
    syncCrm: (customerId, provider, { full }) => call('POST', `/customers/${id(customerId)}/crm/${id(provider)}/sync`, { full }),
    previewCrm: (customerId, provider, { full }) => call('POST', `/customers/${id(customerId)}/crm/${id(provider)}/sync`, { full, dry_run: true }),
    crmRuns: (customerId, provider, limit = 10) => call('GET', `/customers/${id(customerId)}/crm/${id(provider)}/runs?limit=${limit}`),
    notifications: () => request(fetchImpl, adminToken, 'GET', `${me}/notifications`),
    updateNotifications: (patch) => request(fetchImpl, adminToken, 'PATCH', `${me}/notifications`, patch),
    alerts: (customerId) => call('GET', `/customers/${id(customerId)}/alerts`),
    createAlert: (customerId, body) => call('POST', `/customers/${id(customerId)}/alerts`, body),
    updateAlert: (customerId, alertId, patch) => call('PATCH', `/customers/${id(customerId)}/alerts/${id(alertId)}`, patch),
    deleteAlert: (customerId, alertId) => call('DELETE', `/customers/${id(customerId)}/alerts/${id(alertId)}`),
    testAlert: (customerId, alertId) => call('POST', `/customers/${id(customerId)}/alerts/${id(alertId)}/test`, {}),
    alertDeliveries: (customerId, alertId, limit = 20) => call('GET', `/customers/${id(customerId)}/alerts/${id(alertId)}/deliveries?limit=${limit}`),
    owners: (customerId) => call('GET', `/customers/${id(customerId)}/owners`),
    uploadOwners: (customerId, csv) => sendCsv(fetchImpl, adminToken, `${base}/customers/${id(customerId)}/owners`, csv, 'PUT'),
  };
}

/** The sign-in routes: always with this origin's cookies (the session is an HttpOnly cookie the page never reads). */
export function authClient(fetchImpl: Fetch = (i, init) => fetch(i, init), base = '/auth'): AuthClient {
  return {
    login: (email, password) => request(fetchImpl, null, 'POST', `${base}/login`, { email, password }),
    accept: (token, password) => request(fetchImpl, null, 'POST', `${base}/accept`, { token, password }),
    me: (adminToken = null) => request(fetchImpl, adminToken, 'GET', `${base}/me`),
    logout: () => request(fetchImpl, null, 'POST', `${base}/logout`),
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
