/**
 * Salesforce's side of the CRM sync (provider.ts), through the official client `jsforce`: a connected
 * app's client id and secret (OAuth 2.0 client-credentials flow against the org's My Domain URL), Account
 * records matched by `Website`, their owners read through `Owner.Email`/`Owner.Name`, svc's values
 * written with sObject Collections (200 records a request, each record with its own result).
 *
 * svc never writes a field it does not own: only custom fields named `Svc_…__c`, which the customer's
 * admin creates (the Metadata API is out of scope — check() names the missing ones). A standard field, or
 * another app's custom field, is refused before anything is sent, whatever the mapping says.
 *
 * Every request is one jsforce builds (the token request of its OAuth2 helper, describe, query/queryMore,
 * the collections PATCH/POST); the client only wraps jsforce's HTTP transport (MeteredTransport) to count
 * requests, bound each one by `timeoutMs`, and see each answer's status, which jsforce's errors do not
 * carry.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as delay } from 'node:timers/promises';
// jsforce's core (Connection, OAuth2) without the Bulk, SOAP, Streaming… modules its package root loads;
// the package's own `jsforce/core` entry is a directory, which Node's ES module resolution refuses.
import { Connection, OAuth2 } from 'jsforce/lib/core.js';
import { Transport } from 'jsforce/lib/transport.js';
import type { HttpRequest, HttpRequestOptions, SaveResult } from 'jsforce/lib/types/common.js';
import { normaliseDomain } from './domain.ts';
import {
  CrmAuthError,
  type CrmCheck,
  type CrmClient,
  type CrmCreate,
  type CrmCreateResult,
  type CrmFieldSpec,
  type CrmRecordError,
  type CrmRecordRef,
  CrmUnavailableError,
  type CrmWrite,
  type CrmWriteResult,
} from './provider.ts';

export interface SalesforceClientOptions {
  /** The org's My Domain URL, e.g. https://acme.my.salesforce.com (the token endpoint and the REST API). */
  url: string;
  clientId: string;
  clientSecret: string;
  apiVersion?: string;
  /** Per HTTP request, until the answer's headers arrive. */
  timeoutMs?: number;
  /** Retries of a request that failed for a passing reason (5xx, 429, timeout, a dropped connection). */
  maxRetries?: number;
  sleep?: (ms: number) => Promise<void>;
}

export const SALESFORCE_API_VERSION = '62.0';
/** sObject Collections take at most 200 records a request (REST API: "Update Records Using sObject Collections"). */
export const SALESFORCE_BATCH = 200;
/**
 * The longest query URL sent. Salesforce refuses a URI and headers over 16,384 bytes (414/431, Help
 * article 000386264) and a SOQL statement over 100,000 characters (App Limits cheatsheet); the SOQL
 * travels URL-encoded in a GET, so half the URI limit keeps both well away.
 */
export const SALESFORCE_MAX_QUERY_URL = 8_000;
/**
 * Writes stop once the org has used this share of its daily API requests (Sforce-Limit-Info
 * `api-usage=used/max`): what is left goes to `retry` for a later run, so svc never eats the last of the
 * allowance the customer's other integrations and users need that day.
 */
export const SALESFORCE_API_USAGE_CEILING = 0.9;

/** A field svc owns: a custom field named `Svc_…__c` (the admin creates them; svc writes nothing else). */
export const isSvcField = (name: string): boolean => /^Svc_[A-Za-z0-9_]*[A-Za-z0-9]__c$/.test(name);

/** `s` escaped for inside a SOQL string literal (SOQL reference, "Quoted String Escape Sequences"). */
const soqlEscape = (s: string): string => s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
/** A SOQL string literal. */
export const soqlString = (s: string): string => `'${soqlEscape(s)}'`;
/** A LIKE pattern matching `s` anywhere: its own `%` and `_` escaped (`\%`, `\_`) so they match only themselves. */
export const soqlContains = (s: string): string => `'%${soqlEscape(s).replace(/[%_]/g, '\\$&')}%'`;

const ID = /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/;
const SELECT = 'SELECT Id, Website, Type, Owner.Email, Owner.Name FROM Account WHERE ';

/** What one try of a request saw, for deciding what its failure means (jsforce's errors carry no status). */
interface Attempt {
  /** The last answer's HTTP status; -1 when the request got none (timeout, dropped connection); null before any. */
  status: number | null;
  body: string;
  reauthenticated: boolean;
  /** Salesforce's words when it refused the credential. */
  refused: string | null;
}

const attempts = new AsyncLocalStorage<Attempt>();

/** Failed for a passing reason past the retries: reads give up (CrmUnavailableError), writes put the ids in `retry`. */
class PassingFailure extends CrmUnavailableError {}

/**
 * jsforce's transport with three changes, all at the one place every HTTP request of a Connection and its
 * OAuth2 helper passes: a count of requests sent; jsforce's own silent retries off (its fetch layer
 * retries GETs on 5xx up to 5 times with 0.5–8 s sleeps, invisible to a count and to the caller's backoff
 * budget), so each call here is one HTTP request; and the timeout. Redirects are not counted (Salesforce's
 * REST API answers none).
 */
class MeteredTransport extends Transport {
  sent = 0;
  constructor(private readonly timeoutMs: number) {
    super();
  }
  override httpRequest(req: HttpRequest, options: HttpRequestOptions = {}) {
    this.sent++;
    const attempt = attempts.getStore();
    const answer = super.httpRequest(req, { ...options, timeout: this.timeoutMs, retry: { ...options.retry, maxRetries: 0, methods: [] } });
    // Registered before jsforce awaits the answer, so the attempt knows the status when jsforce's error arrives.
    answer.then(
      (res) => {
        if (attempt) {
          attempt.status = res.statusCode;
          attempt.body = res.body;
        }
      },
      () => {
        if (attempt) attempt.status = -1;
      },
    );
    return answer;
  }
}

interface AccountRow {
  Id: string;
  Website?: string | null;
  Type?: string | null;
  Owner?: { Email?: string | null; Name?: string | null } | null;
}

interface QueryPage {
  done: boolean;
  nextRecordsUrl?: string;
  records: AccountRow[];
}

interface DescribeField {
  name: string;
  type: string;
  updateable: boolean;
}

/** Salesforce's describe types each svc field type can be written to. */
const WRITABLE_TYPES: Record<CrmFieldSpec['type'], readonly string[]> = {
  string: ['string', 'textarea', 'url', 'picklist', 'email', 'phone'],
  number: ['double', 'int', 'long', 'percent', 'currency'],
  datetime: ['datetime'],
  bool: ['boolean'],
};

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Salesforce's message of an error answer (`[{message, errorCode}]`), else the body. */
function answerMessage(body: string): string {
  try {
    const v = JSON.parse(body) as unknown;
    const first = Array.isArray(v) ? v[0] : v;
    if (first && typeof first === 'object' && typeof (first as { message?: unknown }).message === 'string') return (first as { message: string }).message;
  } catch {}
  return body.slice(0, 200);
}

/** The field a Salesforce error names: its `fields`, else the column of "No such column 'X' on …". */
function namedField(fields: readonly string[] | undefined | null, message: string): string | null {
  return fields?.[0] ?? /No such column '([^']+)'/.exec(message)?.[1] ?? null;
}

/** Characters `s` takes in the URL: jsforce encodes it with encodeURIComponent, and the URL parser then escapes `'` too. */
const urlLength = (s: string): number => encodeURIComponent(s).length + 2 * (s.split("'").length - 1);

/** The queries of `clauses` joined by `joiner`, each query's URL kept within `budget` characters. */
function chunkQueries(prefix: string, clauses: readonly string[], joiner: string, suffix: string, budget: number): string[] {
  const out: string[] = [];
  const fixed = urlLength(prefix + suffix);
  const gap = urlLength(joiner);
  let parts: string[] = [];
  let size = fixed;
  for (const clause of clauses) {
    const len = urlLength(clause);
    if (parts.length > 0 && size + gap + len > budget) {
      out.push(prefix + parts.join(joiner) + suffix);
      parts = [];
      size = fixed;
    }
    size += len + (parts.length > 0 ? gap : 0);
    parts.push(clause);
  }
  if (parts.length > 0) out.push(prefix + parts.join(joiner) + suffix);
  return out;
}

function toRef(row: AccountRow): CrmRecordRef {
  return {
    crm_id: row.Id,
    domain: normaliseDomain(row.Website),
    owner_email: row.Owner?.Email ?? null,
    owner_name: row.Owner?.Name ?? null,
    stage: null,
    type: row.Type ?? null,
  };
}

export function createSalesforceClient(opts: SalesforceClientOptions): CrmClient {
  const url = opts.url.replace(/\/+$/, '');
  const version = opts.apiVersion ?? SALESFORCE_API_VERSION;
  const maxRetries = opts.maxRetries ?? 3;
  const sleep = opts.sleep ?? ((ms: number) => delay(ms));
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const transport = new MeteredTransport(timeoutMs);

  const oauth2 = new OAuth2({ loginUrl: url, clientId: opts.clientId, clientSecret: opts.clientSecret });
  oauth2._transport = transport;
  const conn = new Connection({
    oauth2,
    instanceUrl: url,
    version,
    // The client-credentials flow issues no refresh token: a refused session (401 INVALID_SESSION_ID) is
    // answered by asking for a new token, once per attempt; a second refusal is the credential's fault.
    refreshFn: (_conn, callback) => {
      const attempt = attempts.getStore();
      if (attempt?.reauthenticated) {
        attempt.refused = answerMessage(attempt.body);
        callback(new Error(attempt.refused));
        return;
      }
      if (attempt) attempt.reauthenticated = true;
      authenticate().then(
        (token) => callback(null, token),
        (e: unknown) => {
          // jsforce rewraps the error ("Unable to refresh session due to: …"): the attempt keeps Salesforce's words.
          if (e instanceof CrmAuthError && attempt) attempt.refused = e.message;
          callback(e instanceof Error ? e : new Error(String(e)));
        },
      );
    },
  });
  conn._transport = transport;

  let scopes: string[] = [];
  let authenticating: Promise<string> | null = null;

  /** A new access token (one request at a time, shared by whoever asks meanwhile). */
  function authenticate(): Promise<string> {
    authenticating ??= (async () => {
      try {
        const token = await oauth2.requestToken({ grant_type: 'client_credentials' });
        conn.accessToken = token.access_token;
        conn.instanceUrl = token.instance_url || url;
        scopes = (token.scope ?? '').split(' ').filter(Boolean);
        return token.access_token;
      } catch (e) {
        // The token endpoint's 4xx (invalid_client "invalid client credentials", invalid_grant …) refuse the
        // credential; a 5xx or no answer is passing.
        const status = attempts.getStore()?.status ?? null;
        if (status !== null && status >= 400 && status < 500) throw new CrmAuthError(messageOf(e));
        throw e;
      } finally {
        authenticating = null;
      }
    })();
    return authenticating;
  }

  /**
   * `fn` with a session, retried with backoff while it fails for a passing reason. A refused credential
   * (the token endpoint's 4xx, a 401 after one re-authentication, a 403) is a CrmAuthError at once; the
   * daily request limit (403 REQUEST_LIMIT_EXCEEDED) a CrmUnavailableError at once — waiting seconds does
   * not bring it back. `unanswered: false`: a request that got no answer is not sent again (a create that
   * timed out may have been saved).
   */
  async function call<T>(fn: () => Promise<T>, how: { fresh?: boolean; unanswered?: boolean } = {}): Promise<T> {
    for (let tried = 0; ; tried++) {
      const attempt: Attempt = { status: null, body: '', reauthenticated: false, refused: null };
      try {
        return await attempts.run(attempt, async () => {
          if (how.fresh || !conn.accessToken) await authenticate();
          return fn();
        });
      } catch (e) {
        if (e instanceof CrmAuthError) throw e;
        if (attempt.refused !== null) throw new CrmAuthError(attempt.refused);
        const code = (e as { errorCode?: unknown }).errorCode;
        if (code === 'REQUEST_LIMIT_EXCEEDED') throw new CrmUnavailableError(`Salesforce: ${messageOf(e)}`);
        const status = attempt.status;
        if (status === 401 || status === 403) throw new CrmAuthError(messageOf(e));
        const passing = status === 429 || (status !== null && status >= 500) || (status === -1 && how.unanswered !== false);
        // jsforce words its own abort as "timeout of 10 minutes", whatever the timeout was.
        const why = (e as { name?: unknown }).name === 'AbortError' ? `no answer within ${timeoutMs} ms` : messageOf(e);
        if (status === -1 && !passing) throw new PassingFailure(`Salesforce did not answer: ${why}`);
        if (!passing) throw e;
        if (tried >= maxRetries) throw new PassingFailure(`Salesforce kept failing (${tried + 1} tries): ${why}`);
        await sleep(Math.min(30_000, 1_000 * 2 ** tried));
      }
    }
  }

  /** Every record of these queries, following `nextRecordsUrl` (2,000 records a page); each page retried alone. */
  async function queryAll(soqls: readonly string[]): Promise<AccountRow[]> {
    const rows: AccountRow[] = [];
    for (const soql of soqls) {
      let page = await call(async () => (await conn.query(soql)) as unknown as QueryPage);
      rows.push(...page.records);
      while (!page.done && page.nextRecordsUrl) {
        const next = page.nextRecordsUrl;
        page = await call(async () => (await conn.queryMore(next)) as unknown as QueryPage);
        rows.push(...page.records);
      }
    }
    return rows;
  }

  /** What the SOQL may take of a query URL (the instance URL is the token answer's). */
  const budget = () => SALESFORCE_MAX_QUERY_URL - `${conn.instanceUrl}/services/data/v${version}/query?q=`.length;

  /** Whether the org has used its share of today's API requests, as the last answer's Sforce-Limit-Info says. */
  const nearDailyLimit = (): boolean => {
    const usage = conn.limitInfo?.apiUsage;
    return !!usage && usage.limit > 0 && usage.used >= usage.limit * SALESFORCE_API_USAGE_CEILING;
  };

  /** A whole request Salesforce refused (400 JSON_PARSER_ERROR, INVALID_FIELD …): the error each of its records gets. */
  function refusal(e: unknown): { field: string | null; message: string } | null {
    const err = e as { errorCode?: unknown; data?: unknown };
    if (typeof err.errorCode !== 'string') return null;
    const data = Array.isArray(err.data) ? err.data[0] : err.data;
    const fields = (data as { fields?: string[] } | undefined)?.fields;
    const message = `${err.errorCode}: ${messageOf(e)}`;
    return { field: namedField(fields, messageOf(e)), message };
  }

  /** The errors of one record's result; null when it failed for a passing reason (a row lock) and goes to `retry`. */
  function recordErrors(crmId: string | null, result: SaveResult): CrmRecordError[] | null {
    const errors = (result.errors ?? []) as { statusCode?: string; errorCode?: string; message?: string; fields?: string[] }[];
    if (errors.some((e) => (e.statusCode ?? e.errorCode) === 'UNABLE_TO_LOCK_ROW')) return null;
    if (errors.length === 0) return [{ crm_id: crmId, field: null, message: 'Salesforce refused the record without saying why' }];
    const out: CrmRecordError[] = [];
    for (const e of errors) {
      const message = `${e.statusCode ?? e.errorCode ?? 'ERROR'}: ${e.message ?? ''}`;
      const field = namedField(e.fields, e.message ?? '');
      // One error per named field (the sync writes the record again without them), else one for the record.
      if (field || out.length === 0) out.push({ crm_id: crmId, field, message });
    }
    return out;
  }

  /**
   * Sends `items` in collections of 200 (`send`), stopping at the daily-limit ceiling or once Salesforce
   * kept failing for a chunk past the retries: the rest goes to `retry` then.
   */
  async function inBatches<T>(
    items: readonly T[],
    send: (chunk: readonly T[]) => Promise<SaveResult[]>,
    on: {
      saved: (item: T, result: SaveResult) => void;
      retry: (item: T) => void;
      refused: (item: T, error: { field: string | null; message: string }) => void;
    },
    unanswered: boolean,
  ): Promise<void> {
    for (let i = 0; i < items.length; i += SALESFORCE_BATCH) {
      const chunk = items.slice(i, i + SALESFORCE_BATCH);
      if (nearDailyLimit()) {
        for (const item of items.slice(i)) on.retry(item);
        return;
      }
      let results: SaveResult[];
      try {
        results = await call(() => send(chunk), { unanswered });
      } catch (e) {
        if (e instanceof PassingFailure) {
          for (const item of items.slice(i)) on.retry(item);
          return;
        }
        const refused = e instanceof CrmAuthError || e instanceof CrmUnavailableError ? null : refusal(e);
        if (!refused) throw e;
        for (const item of chunk) on.refused(item, refused);
        continue;
      }
      if (!Array.isArray(results) || results.length !== chunk.length) {
        for (const item of items.slice(i)) on.retry(item);
        return;
      }
      for (const [k, item] of chunk.entries()) on.saved(item, results[k]);
    }
  }

  return {
    provider: 'salesforce',

    async check(fields) {
      // Salesforce has no `ensure`: the Metadata API is out of scope; the customer's admin creates the fields svc names.
      const describe = await call(async () => (await conn.sobject('Account').describe()) as unknown as { queryable: boolean; fields: DescribeField[] }, {
        fresh: true,
      });
      const byName = new Map(describe.fields.map((f) => [f.name.toLowerCase(), f]));
      const writable: string[] = [];
      const missing: string[] = [];
      for (const spec of fields) {
        const field = byName.get(spec.name.toLowerCase());
        const ok = isSvcField(spec.name) && !!field && field.updateable && WRITABLE_TYPES[spec.type].includes(field.type);
        (ok ? writable : missing).push(spec.name);
      }
      const check: CrmCheck = {
        scopes: [...scopes],
        objects: describe.queryable ? ['Account', 'User'] : [],
        writable_fields: writable,
        missing_fields: missing,
        created_fields: [],
      };
      return check;
    },

    async findByDomains(domains) {
      const wanted = new Set<string>();
      for (const d of domains) {
        const n = normaliseDomain(d);
        if (n) wanted.add(n);
      }
      const found = new Map<string, CrmRecordRef[]>();
      if (wanted.size === 0) return found;
      // `Website` is free text ("https://www.Acme.com/about"): a contains-match finds the candidates (LIKE is
      // case-insensitive), the normalised host keeps only exact domains (notacme.com is not acme.com).
      const clauses = [...wanted].map((d) => `Website LIKE ${soqlContains(d)}`);
      const seen = new Set<string>();
      for (const row of await queryAll(chunkQueries(SELECT, clauses, ' OR ', '', budget()))) {
        const ref = toRef(row);
        if (!ref.domain || !wanted.has(ref.domain) || seen.has(ref.crm_id)) continue;
        seen.add(ref.crm_id);
        const refs = found.get(ref.domain);
        if (refs) refs.push(ref);
        else found.set(ref.domain, [ref]);
      }
      return found;
    },

    async readRecords(crmIds) {
      const ids = [...new Set(crmIds.filter((id) => ID.test(id)))];
      if (ids.length === 0) return [];
      const rows = await queryAll(chunkQueries(`${SELECT}Id IN (`, ids.map(soqlString), ', ', ')', budget()));
      return rows.map(toRef);
    },

    async update(writes) {
      const result: CrmWriteResult = { written: [], errors: [], retry: [] };
      const sendable: CrmWrite[] = [];
      for (const w of writes) {
        const foreign = Object.keys(w.values).find((f) => !isSvcField(f));
        if (foreign) result.errors.push({ crm_id: w.crm_id, field: foreign, message: `svc writes only its own Svc_…__c fields, not ${foreign}` });
        else sendable.push(w);
      }
      await inBatches(
        sendable,
        // jsforce sends an array as one sObject Collections PATCH (API 42.0+); it splits past 200 only with
        // `allowRecursive`, and then without the retry and limit checks between chunks, so inBatches chunks.
        (chunk) =>
          conn.sobject('Account').update(
            chunk.map((w) => ({ Id: w.crm_id, ...w.values })),
            { allOrNone: false },
          ),
        {
          saved: (w, r) => {
            if (r.success) return void result.written.push(w.crm_id);
            const errors = recordErrors(w.crm_id, r);
            if (errors) result.errors.push(...errors);
            else result.retry.push(w.crm_id);
          },
          retry: (w) => result.retry.push(w.crm_id),
          refused: (w, e) => result.errors.push({ crm_id: w.crm_id, ...e }),
        },
        // Writing the same values again is harmless: an update that got no answer is sent again.
        true,
      );
      return result;
    },

    async create(rows: readonly CrmCreate[]) {
      const result: CrmCreateResult = { created: [], errors: [], retry: [] };
      const sendable: CrmCreate[] = [];
      for (const row of rows) {
        const foreign = Object.keys(row.values).find((f) => !isSvcField(f));
        if (foreign)
          result.errors.push({ domain: row.domain, crm_id: null, field: foreign, message: `svc writes only its own Svc_…__c fields, not ${foreign}` });
        else sendable.push(row);
      }
      await inBatches(
        sendable,
        (chunk) =>
          conn.sobject('Account').create(
            chunk.map((row) => ({ Name: row.name, Website: row.domain, ...row.values })),
            { allOrNone: false },
          ),
        {
          saved: (row, r) => {
            if (r.success) return void result.created.push({ domain: row.domain, crm_id: r.id });
            const errors = recordErrors(null, r);
            if (errors) result.errors.push(...errors.map((e) => ({ ...e, domain: row.domain })));
            else result.retry.push(row.domain);
          },
          // A create that got no answer may have been saved: the next run looks the domain up again before creating.
          retry: (row) => result.retry.push(row.domain),
          refused: (row, e) => result.errors.push({ domain: row.domain, crm_id: null, ...e }),
        },
        false,
      );
      return result;
    },

    requests: () => transport.sent,
  };
}
