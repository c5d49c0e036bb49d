/**
 * The HubSpot side of the CRM sync (provider.ts): svc's values onto company records, owners and stages read
 * back, through the official client `@hubspot/api-client` (13.x) — its request factories build every request,
 * so each goes out in the shape the SDK sends. server/testing/hubspot-stand-in.ts serves the same contracts
 * locally for the tests.
 *
 * What this module adds around the SDK, and why the SDK's own means are not used for it:
 *
 * - Rate limit: a rolling window of `rate.requests` per `rate.perMs` (HubSpot's private-app limit is 100 per
 *   10 s, TEN_SECONDLY_ROLLING) and a second one for the search endpoints (5 a second), each request
 *   holding its slot until it is answered (RollingWindow: so the limit holds as HubSpot counts). Not the SDK's
 *   `limiterOptions`: that Bottleneck is installed through a process-wide singleton (ApiDecoratorService —
 *   every `new Client()` replaces them, for the APIs of any client first used after it and for every
 *   `apiRequest`, which reads them at call time), so two connections' clients would share or swap limiters; and Bottleneck's reservoir
 *   refreshes a fixed window, not the rolling one HubSpot counts. Ours takes a slot per HTTP request, retries
 *   included.
 * - Retries: the SDK's `numberOfApiCallRetries` is left at 0. Its RetryDecorator waits a fixed 10 s × attempt
 *   on any TEN_SECONDLY_ROLLING 429 (ignoring Retry-After and X-HubSpot-RateLimit-Interval-Milliseconds),
 *   200 ms × attempt on a 5xx, knows nothing of timeouts or malformed answers, logs with console.error, lives in
 *   the same singleton, and its retries would bypass our limiter (it wraps the API method inside our call).
 *   Ours: bounded by `maxRetries`, backoff through `sleep`, a 429 waited out as the answer says.
 * - Counting (`requests()`): a middleware whose `pre` runs once per HTTP request, immediately before the SDK
 *   hands it to node-fetch. NB: in 13.5 the generated APIs apply `Client({ middleware })` — and the SDK's own
 *   User-agent header and `httpAgent` middlewares — only when a call passes `_options.middleware`
 *   (ObservableAPI: no call-time middleware, no middleware at all). So every call passes
 *   `{ middleware: [counter], middlewareMergeStrategy: 'append' }`, which brings the configured ones back.
 *   `client.apiRequest` (the token introspection) takes no middleware; it is counted where it is called (it
 *   is exactly one fetch, the SDK's decorators being empty).
 * - Timeouts: the SDK's fetch has no timeout or signal. Each attempt races a `timeoutMs` deadline, and the
 *   `httpAgent` given to the SDK destroys a socket that has been silent for `timeoutMs`, so an abandoned
 *   request does not hold its connection.
 */
import http from 'node:http';
import https from 'node:https';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Client } from '@hubspot/api-client';
import { FilterOperatorEnum, type SimplePublicObject, type StandardError } from '@hubspot/api-client/lib/codegen/crm/companies/index.js';
import {
  type Property,
  type PropertyCreate,
  PropertyCreateFieldTypeEnum,
  PropertyCreateTypeEnum,
} from '@hubspot/api-client/lib/codegen/crm/properties/index.js';
import type { CrmValue } from '../../core/crm-records.ts';
import { normaliseDomain } from './domain.ts';
import {
  CrmAuthError,
  type CrmCheck,
  type CrmClient,
  type CrmCreate,
  type CrmCreateResult,
  type CrmFieldSpec,
  type CrmRecordRef,
  CrmUnavailableError,
  type CrmWrite,
  type CrmWriteResult,
} from './provider.ts';

export interface HubSpotClientOptions {
  accessToken: string;
  /** Default https://api.hubapi.com. */
  baseUrl?: string;
  /** Default HubSpot's private-app limit: 100 requests per 10,000 ms (rolling). */
  rate?: { requests: number; perMs: number };
  /** One attempt's budget (default 30,000 ms). */
  timeoutMs?: number;
  /** Attempts after the first, for a 429, a 5xx, a timeout or a malformed answer (default 4). */
  maxRetries?: number;
  /** How backoff and 429 waits are slept (tests pass a recorder); the rate limiter always uses real timers. */
  sleep?: (ms: number) => Promise<void>;
}

/** svc's property group on companies: svc writes only properties of this group. */
export const HUBSPOT_GROUP = 'svc';
const OBJECT = 'companies';
const READ_PROPERTIES = ['domain', 'hubspot_owner_id', 'lifecyclestage', 'type'];
const TOKEN_INFO_PATH = '/oauth/v2/private-apps/get/access-token-info';
/** Batch read, update and create take 100 inputs. */
const BATCH = 100;
const SEARCH_PAGE = 200;
/** HubSpot answers no search past its 10,000th result. */
const SEARCH_RESULT_CAP = 10_000;
/**
 * Each domain is searched as `d` and `www.d`, in two filter groups (ORed) of one IN filter each: 100 values
 * per IN filter is HubSpot's most, so 100 domains per search (half the searches of one group of 50).
 */
const DOMAINS_PER_SEARCH = 100;
/** The search endpoints' own limit, on top of the app's. */
const SEARCH_RATE = { requests: 5, perMs: 1_000 };
/** Backoff for 5xx, timeouts and malformed answers: 500 ms doubling, at most 30 s. */
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** A 429 asking for longer than this is not waited out inside a run. */
const MAX_RATE_WAIT_MS = 120_000;
/** The answers by which HubSpot refuses a batch's content (rather than the request). */
const REFUSALS = new Set([400, 409, 422]);

const SCOPES = {
  companiesRead: 'crm.objects.companies.read',
  companiesWrite: 'crm.objects.companies.write',
  schemaRead: 'crm.schemas.companies.read',
  schemaWrite: 'crm.schemas.companies.write',
  owners: 'crm.objects.owners.read',
};

/** HubSpot's error body (the SDK hands it over parsed, unmodelled). */
interface ErrorBody {
  message?: string;
  category?: string;
  policyName?: string;
  context?: Record<string, unknown>;
  errors?: Array<{ message?: string; code?: string; context?: Record<string, unknown> }>;
}

/** A 401/403: the credential is refused or lacks a scope. */
class HubSpotAuthError extends CrmAuthError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A 4xx other than 401/403/429: HubSpot refused what was sent; retrying it unchanged gets the same. */
class HubSpotRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message ?? `HubSpot answered ${status}`);
  }
}

class DeadlineError extends Error {}

/** What failed, as the retry loop sees it. */
type Failure =
  | { kind: 'auth'; status: number; message: string }
  | { kind: 'refused'; status: number; body: ErrorBody }
  | { kind: 'rate'; waitMs: number | null; reason: string }
  | { kind: 'transient'; reason: string; unsent: boolean };

/** The SDK's ApiException (one class per generated module) and our stand-in for apiRequest's answers. */
interface HttpFailure {
  code: number;
  body: unknown;
  headers: Record<string, string>;
}
/** A non-2xx answer to `apiRequest` (which, unlike the generated APIs, resolves whatever the status), shaped as ApiException. */
class AnswerError extends Error implements HttpFailure {
  constructor(
    readonly code: number,
    readonly body: unknown,
    readonly headers: Record<string, string>,
  ) {
    super(`HTTP ${code}`);
  }
}
const isHttpFailure = (e: unknown): e is HttpFailure =>
  typeof e === 'object' && e !== null && typeof (e as HttpFailure).code === 'number' && 'body' in e && 'headers' in e;

const asBody = (b: unknown): ErrorBody => (typeof b === 'object' && b !== null ? (b as ErrorBody) : typeof b === 'string' ? { message: b } : {});

/** How long a 429 asks to wait: Retry-After, else the window HubSpot names, else its policy's; null: not within a run. */
function rateLimitWait(headers: Record<string, string>, body: ErrorBody): number | null {
  if (body.policyName === 'DAILY') return null;
  const retryAfter = headers['retry-after'];
  let ms: number | undefined;
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (Number.isNaN(ms)) ms = undefined;
  }
  if (ms === undefined) {
    const interval = Number(headers['x-hubspot-ratelimit-interval-milliseconds']);
    if (Number.isFinite(interval) && interval > 0) ms = interval;
  }
  ms ??= body.policyName === 'SECONDLY' || /secondly/i.test(body.message ?? '') ? 1_000 : 10_000;
  return ms > MAX_RATE_WAIT_MS ? null : Math.max(0, ms);
}

function classify(err: unknown): Failure {
  if (err instanceof DeadlineError) return { kind: 'transient', reason: err.message, unsent: false };
  if (isHttpFailure(err)) {
    const body = asBody(err.body);
    if (err.code === 401 || err.code === 403)
      return { kind: 'auth', status: err.code, message: body.message ?? `HubSpot refused the credential (${err.code})` };
    if (err.code === 429) return { kind: 'rate', waitMs: rateLimitWait(err.headers ?? {}, body), reason: body.message ?? 'HTTP 429' };
    if (err.code >= 500) return { kind: 'transient', reason: `HTTP ${err.code}${body.message ? `: ${body.message}` : ''}`, unsent: false };
    return { kind: 'refused', status: err.code, body };
  }
  if (err instanceof SyntaxError) return { kind: 'transient', reason: `malformed answer (${err.message})`, unsent: false };
  const e = err as { name?: string; code?: string; message?: string };
  // node-fetch's FetchError: a refused connection or an unknown host sent nothing.
  const unsent = e?.name === 'FetchError' && (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN');
  // Anything else the SDK throws while reading an answer (no Content-Type, an HTML error page) is an unreadable answer.
  return { kind: 'transient', reason: e?.message ?? String(err), unsent };
}

/**
 * A rolling window of `max` requests per `perMs`, as HubSpot counts them at arrival. A request holds its
 * slot from before it is sent until its answer (or failure) is in, and for `perMs` after that: since a
 * request arrives at HubSpot after we send it and before its answer comes back, no `perMs` window of
 * arrivals can then hold more than `max` — whatever the network or a stalled process does between. Slots
 * are handed out in call order, on real timers: a test's fake `sleep` cannot break the limit.
 */
class RollingWindow {
  /** In flight (end null), or answered at `end` (performance.now()). */
  private slots: Array<{ end: number | null }> = [];
  private tail: Promise<unknown> = Promise.resolve();
  private ended: (() => void) | null = null;
  constructor(
    private readonly max: number,
    private readonly perMs: number,
  ) {
    if (!(max >= 1) || !(perMs > 0)) throw new Error(`invalid rate: ${max} per ${perMs} ms`);
  }
  /** Waits for a slot; call the function returned once the request is answered or abandoned. */
  take(): Promise<() => void> {
    const turn = this.tail.then(() => this.wait());
    this.tail = turn.catch(() => undefined);
    return turn;
  }
  private async wait(): Promise<() => void> {
    for (;;) {
      const now = performance.now();
      this.slots = this.slots.filter((s) => s.end === null || s.end > now - this.perMs);
      if (this.slots.length < this.max) {
        const slot: { end: number | null } = { end: null };
        this.slots.push(slot);
        return () => {
          if (slot.end !== null) return;
          slot.end = performance.now();
          this.ended?.();
        };
      }
      // Full: until the oldest answered slot leaves the window, or an in-flight one is answered.
      let timer: NodeJS.Timeout | undefined;
      const answered = this.slots.flatMap((s) => (s.end === null ? [] : [s.end]));
      await new Promise<void>((resolve) => {
        this.ended = resolve;
        if (answered.length > 0) timer = setTimeout(resolve, Math.max(1, Math.ceil(Math.min(...answered) + this.perMs - now)));
      });
      clearTimeout(timer);
      this.ended = null;
    }
  }
}

/** An agent whose sockets are destroyed after `idleMs` without traffic (free or busy): a stalled request lets go of its connection. */
function idleClosingAgent(secure: boolean, idleMs: number): http.Agent {
  const arm = (socket: Duplex | null | undefined) => {
    if (socket instanceof Socket) {
      socket.setTimeout(idleMs);
      socket.on('timeout', () => socket.destroy(new Error(`no traffic for ${idleMs} ms`)));
    }
    return socket;
  };
  const options = { keepAlive: true, timeout: idleMs };
  if (secure) {
    return new (class extends https.Agent {
      override createConnection(o: http.ClientRequestArgs, cb?: (err: Error | null, stream: Duplex) => void) {
        return arm(super.createConnection(o, cb));
      }
    })(options);
  }
  return new (class extends http.Agent {
    override createConnection(o: http.ClientRequestArgs, cb?: (err: Error | null, stream: Duplex) => void) {
      return arm(super.createConnection(o, cb));
    }
  })(options);
}

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/** A value as HubSpot's properties take it: text; '' clears. */
export function hubspotValue(v: CrmValue): string {
  if (v === null) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

function propertyCreate(f: CrmFieldSpec): PropertyCreate {
  const base = { name: f.name, label: f.label, groupName: HUBSPOT_GROUP, description: 'Written by svc (account data).' };
  switch (f.type) {
    case 'string':
      return { ...base, type: PropertyCreateTypeEnum.String, fieldType: PropertyCreateFieldTypeEnum.Text };
    case 'number':
      return { ...base, type: PropertyCreateTypeEnum.Number, fieldType: PropertyCreateFieldTypeEnum.Number };
    case 'datetime':
      return { ...base, type: PropertyCreateTypeEnum.Datetime, fieldType: PropertyCreateFieldTypeEnum.Date };
    case 'bool':
      return {
        ...base,
        type: PropertyCreateTypeEnum.Enumeration,
        fieldType: PropertyCreateFieldTypeEnum.Booleancheckbox,
        options: [
          { label: 'True', value: 'true', displayOrder: 0, hidden: false },
          { label: 'False', value: 'false', displayOrder: 1, hidden: false },
        ],
      };
  }
}

// -- Batch writes: what HubSpot refused, and of which record ---------------------------------------------------

interface WriteItem {
  /** The crm id (update) or the domain (create). */
  key: string;
  properties: Record<string, string>;
}

interface Refusal {
  field: string | null;
  message: string;
}

/** What one batch answer (200/201/207) says: the keys written (→ crm id), the keys refused, a refusal naming none. */
interface BatchAnswer {
  done: Map<string, string>;
  refused: Map<string, Refusal>;
  unattributed: Refusal | null;
}

interface BatchOutcome {
  done: Map<string, string>;
  refused: Map<string, Refusal>;
  retry: string[];
}

const idsOf = (context: Record<string, unknown> | undefined): string[] => {
  const ids = context?.ids;
  return Array.isArray(ids) ? ids.map(String) : [];
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The property of `item` an error names: in its context (`propertyName`, `properties`) or quoted in its message. */
function fieldNamed(item: WriteItem, message: string, context?: Record<string, unknown>): string | null {
  const named = new Set<string>();
  for (const key of ['propertyName', 'propertyNames', 'properties', 'name']) {
    const v = context?.[key];
    for (const n of Array.isArray(v) ? v : v === undefined ? [] : [v]) named.add(String(n));
  }
  for (const name of Object.keys(item.properties)) {
    if (named.has(name) || new RegExp(`["'\`]${escapeRe(name)}["'\`]|\\b${escapeRe(name)}\\b`).test(message)) return name;
  }
  return null;
}

/**
 * The validation results of a refused write: HubSpot puts them as JSON in the message
 * ("Property values were not valid: [{"isValid":false,"message":"Property \"x\" does not exist",
 * "error":"PROPERTY_DOESNT_EXIST","name":"x"}]"), sometimes in `errors` too.
 */
function validationResults(body: ErrorBody): Array<{ name: string; error: string; message: string }> {
  const out: Array<{ name: string; error: string; message: string }> = [];
  const message = body.message ?? '';
  const start = message.indexOf('[');
  if (start !== -1) {
    try {
      const parsed = JSON.parse(message.slice(start)) as unknown;
      if (Array.isArray(parsed)) {
        for (const r of parsed as Array<Record<string, unknown>>) {
          if (typeof r?.name === 'string') out.push({ name: r.name, error: String(r.error ?? ''), message: String(r.message ?? message) });
        }
      }
    } catch {
      // Not the JSON list: the patterns below.
    }
  }
  for (const m of message.matchAll(/Property \\?"([^"\\]+)\\?" does not exist/g)) {
    out.push({ name: m[1]!, error: 'PROPERTY_DOESNT_EXIST', message: `Property "${m[1]}" does not exist` });
  }
  for (const e of body.errors ?? []) {
    const names = e.context?.propertyName;
    for (const n of Array.isArray(names) ? names : []) out.push({ name: String(n), error: e.code ?? '', message: e.message ?? message });
  }
  return out;
}

// -- The client --------------------------------------------------------------------------------------------

export function createHubSpotClient(opts: HubSpotClientOptions): CrmClient {
  const baseUrl = (opts.baseUrl ?? 'https://api.hubapi.com').replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const maxRetries = opts.maxRetries ?? 4;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const rate = opts.rate ?? { requests: 100, perMs: 10_000 };
  const window = new RollingWindow(rate.requests, rate.perMs);
  const searchWindow = new RollingWindow(SEARCH_RATE.requests, SEARCH_RATE.perMs);

  // numberOfApiCallRetries and limiterOptions unset: this Client installs no decorators (see the header).
  const hubspot = new Client({
    accessToken: opts.accessToken,
    basePath: baseUrl,
    httpAgent: idleClosingAgent(baseUrl.startsWith('https:'), timeoutMs),
  });
  const companies = hubspot.crm.companies;
  const properties = hubspot.crm.properties;
  const owners = hubspot.crm.owners.ownersApi;

  let sent = 0;
  const counter = {
    pre: <C>(context: C): Promise<C> => {
      sent++;
      return Promise.resolve(context);
    },
    post: <C>(context: C): Promise<C> => Promise.resolve(context),
  };
  const sdk = { middleware: [counter], middlewareMergeStrategy: 'append' as const };

  const withDeadline = <T>(attempt: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    // The losing attempt still settles (its socket is destroyed by the agent): nobody waits for it.
    attempt.catch(() => undefined);
    return Promise.race([attempt, deadline]).finally(() => clearTimeout(timer));
  };

  /**
   * One request with its retries. `idempotent: false` (batch create): a 5xx, timeout or malformed answer may
   * have been acted on, so it is not sent again — the caller leaves those rows to a later run, which looks
   * their domains up first. A 429 or a connection never made are retried either way.
   */
  async function call<T>(what: string, send: () => Promise<T>, o: { search?: boolean; idempotent?: boolean } = {}): Promise<T> {
    let reason = '';
    for (let attempt = 0; ; attempt++) {
      const searchSlot = o.search ? await searchWindow.take() : null;
      const slot = await window.take();
      let waitMs: number;
      try {
        return await withDeadline(send());
      } catch (err) {
        const f = classify(err);
        if (f.kind === 'auth') throw new HubSpotAuthError(f.message, f.status);
        if (f.kind === 'refused') throw new HubSpotRefusal(f.status, f.body);
        if (f.kind === 'rate') {
          if (f.waitMs === null) throw new CrmUnavailableError(`HubSpot ${what}: ${f.reason}`);
          reason = f.reason;
          waitMs = f.waitMs;
        } else {
          reason = f.reason;
          if (o.idempotent === false && !f.unsent) throw new CrmUnavailableError(`HubSpot ${what}: ${reason} (not sent again: it may have been applied)`);
          waitMs = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
        }
      } finally {
        slot();
        searchSlot?.();
      }
      if (attempt >= maxRetries) throw new CrmUnavailableError(`HubSpot ${what}: ${reason} (${attempt + 1} attempts)`);
      await sleep(waitMs);
    }
  }

  // -- check -----------------------------------------------------------------------------------------------

  /** The token's scopes by private-app introspection [hubspot-stand-in: token]; null when HubSpot will not introspect it (an OAuth token). */
  async function introspect(): Promise<string[] | null> {
    try {
      const info = await call('token introspection', async () => {
        // apiRequest bypasses the middleware: counted here, one fetch.
        sent++;
        const res = await hubspot.apiRequest({ method: 'POST', path: TOKEN_INFO_PATH, body: { tokenKey: opts.accessToken } });
        const text = await res.text();
        if (res.status >= 400) {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // The text is the message.
          }
          const headers: Record<string, string> = {};
          res.headers.forEach((value, name) => {
            headers[name] = value;
          });
          throw new AnswerError(res.status, body, headers);
        }
        return JSON.parse(text) as { scopes?: unknown };
      });
      return Array.isArray(info.scopes) ? info.scopes.map(String) : [];
    } catch (err) {
      if (err instanceof HubSpotRefusal) return null;
      throw err;
    }
  }

  async function check(fields: readonly CrmFieldSpec[], { ensure }: { ensure: boolean }): Promise<CrmCheck> {
    const scopes = await introspect();
    const has = (scope: string) => scopes === null || scopes.includes(scope);
    const objects: string[] = [];
    if (scopes !== null) {
      if (has(SCOPES.companiesRead) && has(SCOPES.companiesWrite)) objects.push('companies');
      if (has(SCOPES.owners)) objects.push('owners');
    } else {
      // No introspection: what the token can read, by reading one of each.
      await call('company read', () => companies.basicApi.getPage(1, undefined, ['domain'], undefined, undefined, false, sdk));
      objects.push('companies');
      try {
        await call('owners read', () => owners.getPage(undefined, undefined, 1, false, sdk));
        objects.push('owners');
      } catch (err) {
        if (!(err instanceof HubSpotAuthError && err.status === 403)) throw err;
      }
    }
    const names = fields.map((f) => f.name);
    if (!has(SCOPES.schemaRead)) return { scopes: scopes ?? [], objects, writable_fields: [], missing_fields: names, created_fields: [] };

    const created: string[] = [];
    const canCreate = ensure && has(SCOPES.schemaWrite);
    let group = true;
    try {
      await call('property group read', () => properties.groupsApi.getByName(OBJECT, HUBSPOT_GROUP, sdk));
    } catch (err) {
      if (!(err instanceof HubSpotRefusal && err.status === 404)) throw err;
      group = false;
    }
    if (!group && canCreate) {
      try {
        await call('property group create', () => properties.groupsApi.create(OBJECT, { name: HUBSPOT_GROUP, label: HUBSPOT_GROUP, displayOrder: -1 }, sdk));
        created.push(HUBSPOT_GROUP);
      } catch (err) {
        // A retry of a create that went through meets the group it made.
        if (!(err instanceof HubSpotRefusal && err.status === 409)) throw err;
      }
      group = true;
    }

    const readAll = async () =>
      new Map((await call('properties read', () => properties.coreApi.getAll(OBJECT, false, undefined, sdk))).results.map((p) => [p.name, p] as const));
    let existing: Map<string, Property> = await readAll();
    const absent = fields.filter((f) => !existing.has(f.name));
    if (group && canCreate && absent.length > 0) {
      const answer = await call('properties create', () => properties.batchApi.create(OBJECT, { inputs: absent.map(propertyCreate) }, sdk));
      created.push(...answer.results.map((p) => p.name));
      existing = await readAll();
    }
    // svc writes only properties of its own group: a same-named property of another group (the customer's,
    // or HubSpot's) counts as missing — svc must not overwrite a field it does not own.
    const writable = (name: string) => {
      const p = existing.get(name);
      return p !== undefined && p.groupName === HUBSPOT_GROUP && p.modificationMetadata?.readOnlyValue !== true;
    };
    return {
      scopes: scopes ?? [],
      objects,
      writable_fields: names.filter(writable),
      missing_fields: names.filter((n) => !writable(n)),
      created_fields: created,
    };
  }

  // -- owners ------------------------------------------------------------------------------------------------

  /** Owner id → email and name, per client instance: active owners, then the deactivated ones when an id is not among them. */
  const ownerCache = new Map<string, { email: string | null; name: string | null }>();
  let activeOwners: Promise<void> | null = null;
  let archivedOwners: Promise<void> | null = null;
  let ownersRefused = false;

  async function loadOwners(archived: boolean): Promise<void> {
    let after: string | undefined;
    do {
      const page = await call('owners read', () => owners.getPage(undefined, after, 500, archived, sdk));
      for (const o of page.results) {
        const name = [o.firstName, o.lastName].filter(Boolean).join(' ').trim();
        ownerCache.set(o.id, { email: o.email || null, name: name || null });
      }
      after = page.paging?.next?.after;
    } while (after);
  }

  async function ownersOf(ids: ReadonlySet<string>): Promise<void> {
    if (ids.size === 0 || ownersRefused) return;
    try {
      activeOwners ??= loadOwners(false);
      await activeOwners;
      if ([...ids].some((id) => !ownerCache.has(id))) {
        archivedOwners ??= loadOwners(true);
        await archivedOwners;
      }
    } catch (err) {
      // Without the owners scope the records are still matched and written; owners stay unknown (check() says so).
      if (err instanceof HubSpotAuthError && err.status === 403) {
        ownersRefused = true;
        return;
      }
      activeOwners = archivedOwners = null;
      throw err;
    }
  }

  async function refs(objects: readonly SimplePublicObject[]): Promise<CrmRecordRef[]> {
    await ownersOf(new Set(objects.flatMap((o) => (o.properties.hubspot_owner_id ? [o.properties.hubspot_owner_id] : []))));
    return objects.map((o) => {
      const owner = o.properties.hubspot_owner_id ? ownerCache.get(o.properties.hubspot_owner_id) : undefined;
      return {
        crm_id: o.id,
        domain: normaliseDomain(o.properties.domain),
        owner_email: owner?.email ?? null,
        owner_name: owner?.name ?? null,
        stage: o.properties.lifecyclestage || null,
        type: o.properties.type || null,
      };
    });
  }

  // -- reads -------------------------------------------------------------------------------------------------

  /** The records of these domains: one filterGroup `domain IN [d, www.d …]`, paged by `after`. */
  async function searchDomains(domains: readonly string[]): Promise<SimplePublicObject[]> {
    const bare = [...domains];
    const www = domains.map((d) => `www.${d}`);
    const found: SimplePublicObject[] = [];
    let after: string | undefined;
    for (;;) {
      const offset = after === undefined ? 0 : Number(after);
      const page = await call(
        'company search',
        () =>
          companies.searchApi.doSearch(
            {
              filterGroups: [
                { filters: [{ propertyName: 'domain', operator: FilterOperatorEnum.In, values: bare }] },
                { filters: [{ propertyName: 'domain', operator: FilterOperatorEnum.In, values: www }] },
              ],
              properties: READ_PROPERTIES,
              limit: Math.min(SEARCH_PAGE, SEARCH_RESULT_CAP - offset),
              after,
            },
            sdk,
          ),
        { search: true },
      );
      // More than HubSpot will page through: the domains in halves. One domain with over 10,000 records keeps its first 10,000.
      if (page.total > SEARCH_RESULT_CAP && domains.length > 1 && after === undefined) {
        const half = Math.ceil(domains.length / 2);
        return [...(await searchDomains(domains.slice(0, half))), ...(await searchDomains(domains.slice(half)))];
      }
      found.push(...page.results);
      after = page.paging?.next?.after;
      if (after === undefined || Number(after) >= SEARCH_RESULT_CAP) return found;
    }
  }

  async function findByDomains(domains: readonly string[]): Promise<Map<string, CrmRecordRef[]>> {
    const wanted = new Set(domains.flatMap((d) => normaliseDomain(d) ?? []));
    const byId = new Map<string, SimplePublicObject>();
    for (const chunk of chunks([...wanted], DOMAINS_PER_SEARCH)) for (const o of await searchDomains(chunk)) byId.set(o.id, o);
    const out = new Map<string, CrmRecordRef[]>();
    for (const r of await refs([...byId.values()])) {
      if (r.domain === null || !wanted.has(r.domain)) continue;
      const list = out.get(r.domain);
      if (list) list.push(r);
      else out.set(r.domain, [r]);
    }
    return out;
  }

  async function readRecords(crmIds: readonly string[]): Promise<CrmRecordRef[]> {
    const found: SimplePublicObject[] = [];
    for (const chunk of chunks([...new Set(crmIds)], BATCH)) {
      // A 207 lists the ids HubSpot no longer has (OBJECT_NOT_FOUND): they are absent from the answer.
      const answer = await call('company batch read', () =>
        companies.batchApi.read({ inputs: chunk.map((id) => ({ id })), properties: READ_PROPERTIES, propertiesWithHistory: [] }, false, sdk),
      );
      found.push(...answer.results);
    }
    return refs(found);
  }

  // -- writes ------------------------------------------------------------------------------------------------

  /**
   * Sends `items` in batches of 100. A batch HubSpot refuses as a whole (a 400: one bad value or a deleted
   * property fails all 100, the ids unnamed) is not given up: the records it names (by id, or by carrying a
   * property that does not exist) are refused and the rest sent again; when it names none, the suspects (the
   * records carrying a property whose value it refused, else all) are halved and sent again until the bad
   * ones are alone — at most one extra request per record of the batch, after which the suspects left are
   * refused with HubSpot's message. A batch that keeps failing for a passing reason goes to `retry`.
   */
  async function writeInBatches(items: readonly WriteItem[], send: (batch: WriteItem[]) => Promise<BatchAnswer>, what: string): Promise<BatchOutcome> {
    const outcome: BatchOutcome = { done: new Map(), refused: new Map(), retry: [] };

    const write = async (batch: WriteItem[], budget: { left: number }): Promise<void> => {
      if (batch.length === 0) return;
      let answer: BatchAnswer;
      try {
        answer = await send(batch);
      } catch (err) {
        if (err instanceof CrmUnavailableError) {
          outcome.retry.push(...batch.map((i) => i.key));
          return;
        }
        if (!(err instanceof HubSpotRefusal)) throw err;
        if (!REFUSALS.has(err.status)) throw new CrmUnavailableError(`HubSpot ${what}: ${err.message} (HTTP ${err.status})`);
        return refusedWhole(batch, err, budget);
      }
      for (const [key, id] of answer.done) outcome.done.set(key, id);
      for (const [key, r] of answer.refused) outcome.refused.set(key, r);
      for (const i of batch) {
        if (answer.done.has(i.key) || answer.refused.has(i.key)) continue;
        // Neither written nor named: HubSpot did not confirm it (a 207 without ids), so it is not counted as written.
        outcome.refused.set(i.key, answer.unattributed ?? { field: null, message: 'HubSpot did not confirm this record (absent from its batch answer)' });
      }
    };

    const refusedWhole = async (batch: WriteItem[], err: HubSpotRefusal, budget: { left: number }): Promise<void> => {
      const message = err.message;
      const named = new Set([...idsOf(err.body.context), ...(err.body.errors ?? []).flatMap((e) => idsOf(e.context))]);
      const results = validationResults(err.body);
      const deleted = new Map(results.filter((r) => r.error === 'PROPERTY_DOESNT_EXIST').map((r) => [r.name, r.message]));
      const invalid = new Map(results.filter((r) => r.error !== 'PROPERTY_DOESNT_EXIST').map((r) => [r.name, r.message]));
      const refusedNow = new Map<string, Refusal>();
      for (const i of batch) {
        if (named.has(i.key)) {
          refusedNow.set(i.key, { field: fieldNamed(i, message, err.body.context), message });
          continue;
        }
        const gone = Object.keys(i.properties).find((p) => deleted.has(p));
        if (gone) refusedNow.set(i.key, { field: gone, message: deleted.get(gone)! });
      }
      if (refusedNow.size > 0) {
        for (const [key, r] of refusedNow) outcome.refused.set(key, r);
        return write(
          batch.filter((i) => !refusedNow.has(i.key)),
          budget,
        );
      }
      const carriers = batch.filter((i) => Object.keys(i.properties).some((p) => invalid.has(p)));
      const suspects = carriers.length > 0 ? carriers : batch;
      const others = batch.filter((i) => !suspects.includes(i));
      if (suspects.length === 1 || budget.left <= 0) {
        for (const i of suspects) {
          const field = Object.keys(i.properties).find((p) => invalid.has(p)) ?? null;
          outcome.refused.set(i.key, { field, message: field ? invalid.get(field)! : message });
        }
        return write(others, budget);
      }
      budget.left--;
      const half = Math.ceil(suspects.length / 2);
      await write([...others, ...suspects.slice(0, half)], budget);
      await write(suspects.slice(half), budget);
    };

    for (const batch of chunks(items, BATCH)) await write(batch, { left: batch.length });
    return outcome;
  }

  /** A 200/201/207 of a batch write: the keys written, the keys refused (by `context.ids`), a refusal naming none. */
  function readAnswer(
    batch: WriteItem[],
    results: SimplePublicObject[],
    errors: StandardError[],
    keyOf: (o: SimplePublicObject) => string | null,
  ): BatchAnswer {
    const byKey = new Map(batch.map((i) => [i.key, i]));
    const done = new Map<string, string>();
    for (const o of results) {
      const key = keyOf(o);
      if (key !== null && byKey.has(key)) done.set(key, o.id);
    }
    const refused = new Map<string, Refusal>();
    let unattributed: Refusal | null = null;
    for (const e of errors) {
      const ids = idsOf(e.context).filter((id) => byKey.has(id));
      for (const id of ids) refused.set(id, { field: fieldNamed(byKey.get(id)!, e.message, e.context), message: e.message });
      if (ids.length === 0) unattributed ??= { field: null, message: e.message };
    }
    return { done, refused, unattributed };
  }

  async function update(writes: readonly CrmWrite[]): Promise<CrmWriteResult> {
    // One input per record (HubSpot refuses a batch naming an id twice): the values of repeated writes merged.
    const merged = new Map<string, Record<string, string>>();
    for (const w of writes) {
      const props = merged.get(w.crm_id) ?? {};
      for (const [k, v] of Object.entries(w.values)) props[k] = hubspotValue(v);
      merged.set(w.crm_id, props);
    }
    const items = [...merged].map(([key, props]) => ({ key, properties: props }));
    const outcome = await writeInBatches(
      items,
      async (batch) => {
        const answer = await call('company batch update', () =>
          companies.batchApi.update({ inputs: batch.map((i) => ({ id: i.key, properties: i.properties })) }, sdk),
        );
        return readAnswer(batch, answer.results, 'errors' in answer ? (answer.errors ?? []) : [], (o) => o.id);
      },
      'company batch update',
    );
    return {
      written: [...outcome.done.keys()],
      errors: [...outcome.refused].map(([crm_id, r]) => ({ crm_id, field: r.field, message: r.message })),
      retry: outcome.retry,
    };
  }

  async function create(rows: readonly CrmCreate[]): Promise<CrmCreateResult> {
    // One record per domain; the answer is matched back by the domain it carries (HubSpot does not keep input order).
    const byDomain = new Map<string, Record<string, string>>();
    for (const r of rows) {
      if (byDomain.has(r.domain)) continue;
      const props: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.values)) props[k] = hubspotValue(v);
      byDomain.set(r.domain, { ...props, name: r.name, domain: r.domain });
    }
    const items = [...byDomain].map(([key, props]) => ({ key, properties: props }));
    const outcome = await writeInBatches(
      items,
      async (batch) => {
        const answer = await call(
          'company batch create',
          () => companies.batchApi.create({ inputs: batch.map((i) => ({ properties: i.properties, associations: [] })) }, sdk),
          { idempotent: false },
        );
        const keys = new Map(batch.map((i) => [normaliseDomain(i.key) ?? i.key, i.key]));
        return readAnswer(
          batch,
          answer.results,
          'errors' in answer ? (answer.errors ?? []) : [],
          (o) => keys.get(normaliseDomain(o.properties.domain) ?? '') ?? null,
        );
      },
      'company batch create',
    );
    return {
      created: [...outcome.done].map(([domain, crm_id]) => ({ domain, crm_id })),
      errors: [...outcome.refused].map(([domain, r]) => ({ crm_id: null, domain, field: r.field, message: r.message })),
      retry: outcome.retry,
    };
  }

  return {
    provider: 'hubspot',
    check,
    findByDomains,
    readRecords,
    update,
    create,
    requests: () => sent,
  };
}
