/**
 * A local stand-in of Salesforce's REST API for the CRM sync's tests: server/crm/salesforce.ts runs against
 * it through jsforce, on 127.0.0.1 and a random port. It answers what the client asks, the way Salesforce's
 * published contracts say (the REST API Developer Guide unless a handler names another doc):
 *
 *   POST /services/oauth2/token                    a connected app's OAuth 2.0 client-credentials flow
 *   GET  /services/data/                           the versions list
 *   GET  /services/data/vXX.X/sobjects/T/describe  Account and User describe
 *   GET  /services/data/vXX.X/query?q=…            SOQL (the subset of salesforce-soql.ts), 2,000 records a page
 *   GET  /services/data/vXX.X/query/<locator>      the next page (nextRecordsUrl)
 *   PATCH|POST /services/data/vXX.X/composite/sobjects  sObject Collections update / create, per-record results
 *
 * Every REST answer carries `Sforce-Limit-Info: api-usage=used/max`; errors are arrays of
 * `{message, errorCode, fields?}`. Tests seed accounts, users and fields and script faults (per-record
 * failures, a deleted field, revoked sessions, a rotated secret, stalls, 5xx, the daily request limit).
 * Matching Website LIKE '%…%' goes through a trigram index, so 100,000 accounts stay quick.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { matches, parseSoql, renameFields, type SoqlCondition, SoqlError, type SoqlValue } from './salesforce-soql.ts';

export type SfValue = string | number | boolean | null;
export type SfRecord = Record<string, SfValue>;
export type SfFieldType = 'id' | 'string' | 'textarea' | 'url' | 'email' | 'picklist' | 'reference' | 'double' | 'boolean' | 'datetime';

/** A field as Account describe lists it (the DescribeFieldResult properties the client and tests read). */
export interface SfField {
  name: string;
  label: string;
  type: SfFieldType;
  length: number;
  custom: boolean;
  createable: boolean;
  updateable: boolean;
  nillable: boolean;
  referenceTo: string[];
  relationshipName: string | null;
}

export interface SfUser {
  Id: string;
  Email: string;
  Name: string;
  Username: string;
  IsActive: boolean;
}

export interface StandInRequest {
  method: string;
  /** The request target as sent (path and query string). */
  url: string;
  /** Path without the query string. */
  path: string;
  /** The query string, decoded (`q` of a query holds the SOQL). */
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** The answer's status, once answered. */
  status: number | null;
}

export interface CustomFieldSpec {
  type?: SfFieldType;
  label?: string;
  length?: number;
  updateable?: boolean;
}

export interface SalesforceStandInOptions {
  clientId?: string;
  clientSecret?: string;
  /** The connected app's OAuth scopes, as the token answer lists them. */
  scope?: string;
  apiUsage?: { used: number; max: number };
  /** Custom Account fields the org has from the start, by name (`Svc_…__c`). */
  customFields?: Record<string, CustomFieldSpec>;
}

export interface SalesforceStandIn {
  /** The org's My Domain URL (token endpoint and REST API). */
  url: string;
  clientId: string;
  /** The connected app's current secret (rotateSecret changes it). */
  readonly clientSecret: string;
  /** The client-credentials flow's run-as user: the token's user, the owner of created accounts. */
  integrationUser: SfUser;
  accounts: {
    /** Adds accounts (Id, Name, Website, Type, OwnerId and custom fields; the rest defaulted); returns their 18-character ids. */
    seed(rows: readonly SfRecord[]): string[];
    get(id: string): SfRecord | undefined;
    all(): SfRecord[];
    readonly size: number;
  };
  users: {
    add(user: { Id?: string; Email: string; Name: string }): string;
    get(id: string): SfUser | undefined;
  };
  fields: {
    /** Account describe's fields. */
    list(): SfField[];
    add(name: string, spec?: CustomFieldSpec): void;
    delete(name: string): void;
  };
  requests: StandInRequest[];
  faults: {
    /** Updates of these records fail with this error (per-record result), until clear(). */
    failRecords(ids: readonly string[], statusCode: string, message: string, fields?: string[]): void;
    /** The admin deletes a custom field: its values go, and naming it is INVALID_FIELD. */
    deleteField(name: string): void;
    /** Every access token issued so far stops working (401 INVALID_SESSION_ID). */
    revokeSessions(): void;
    /** Every access token, new ones too, is refused (401 INVALID_SESSION_ID) until clear(). */
    refuseSessions(): void;
    /** The connected app gets a new consumer secret (returned); the old one is refused from now on. */
    rotateSecret(): string;
    /** The next `count` REST requests wait `ms` before being handled. */
    stallNext(ms: number, count?: number): void;
    /** The next `n` REST requests fail whole with `status` (503 SERVER_UNAVAILABLE by default). */
    serverErrorNext(n: number, status?: number): void;
    /** The org's daily API usage (Sforce-Limit-Info); at `max`, requests get 403 REQUEST_LIMIT_EXCEEDED. */
    setApiUsage(used: number, max: number): void;
    clear(): void;
  };
  apiUsage(): { used: number; max: number };
  close(): Promise<void>;
}

/** REST API: "Limits" — the REST URI with its headers is at most 16,384 bytes (Help article 000386264). */
const MAX_URI = 16_384;
/** SOQL and SOSL limits (App Limits cheatsheet): a statement is at most 100,000 characters. */
const MAX_SOQL = 100_000;
/** REST API: "Execute a SOQL Query" — up to 2,000 records a batch; Sforce-Query-Options batchSize 200–2,000. */
const DEFAULT_BATCH = 2_000;
/** REST API: "Update Records Using sObject Collections" — up to 200 records a request. */
const MAX_COLLECTION = 200;

const JSON_TYPE = 'application/json;charset=UTF-8';
const SUFFIX = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The 18-character id of a 15-character one: three checksum characters of the case of each 5 (SOAP API, "ID Field Type"). */
export function id18(id: string): string {
  const id15 = id.slice(0, 15);
  let suffix = '';
  for (let chunk = 0; chunk < 3; chunk++) {
    let bits = 0;
    for (let i = 0; i < 5; i++) {
      const c = id15.charCodeAt(chunk * 5 + i);
      if (c >= 65 && c <= 90) bits |= 1 << i;
    }
    suffix += SUFFIX[bits];
  }
  return id15 + suffix;
}

const key15 = (id: string) => id.slice(0, 15);
const ID_TEXT = /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/;
const sfDate = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');

/** The versions list (REST API "Versions"): from 31.0 (Summer '14) to 66.0 (Spring '26), three releases a year. */
const VERSIONS = Array.from({ length: 36 }, (_, i) => {
  const v = 31 + i;
  const k = v - 62;
  const season = ['Winter', 'Spring', 'Summer'][((k % 3) + 3) % 3];
  const year = 25 + Math.floor(k / 3);
  return { label: `${season} '${year}`, url: `/services/data/v${v}.0`, version: `${v}.0` };
});

function standardAccountFields(): SfField[] {
  const f = (name: string, label: string, type: SfFieldType, more: Partial<SfField> = {}): SfField => ({
    name,
    label,
    type,
    length: type === 'id' || type === 'reference' ? 18 : ['string', 'url', 'picklist', 'email', 'textarea'].includes(type) ? 255 : 0,
    custom: false,
    createable: true,
    updateable: true,
    nillable: true,
    referenceTo: [],
    relationshipName: null,
    ...more,
  });
  const system = { createable: false, updateable: false, nillable: false };
  return [
    f('Id', 'Account ID', 'id', system),
    f('IsDeleted', 'Deleted', 'boolean', system),
    f('Name', 'Account Name', 'string', { nillable: false }),
    f('Type', 'Account Type', 'picklist'),
    f('ParentId', 'Parent Account ID', 'reference', { referenceTo: ['Account'], relationshipName: 'Parent' }),
    f('Website', 'Website', 'url'),
    f('Industry', 'Industry', 'picklist'),
    f('OwnerId', 'Owner ID', 'reference', { nillable: false, referenceTo: ['User'], relationshipName: 'Owner' }),
    f('CreatedDate', 'Created Date', 'datetime', system),
    f('LastModifiedDate', 'Last Modified Date', 'datetime', system),
    f('SystemModstamp', 'System Modstamp', 'datetime', system),
  ];
}

const USER_FIELDS = ['Id', 'Username', 'Name', 'Email', 'IsActive'] as const;

const customField = (name: string, spec: CustomFieldSpec = {}): SfField => {
  if (!/__c$/.test(name)) throw new Error(`salesforce stand-in: a custom field's name ends in __c (${name})`);
  const type = spec.type ?? 'string';
  return {
    name,
    label: spec.label ?? name.replace(/__c$/, '').replace(/_/g, ' '),
    type,
    length: spec.length ?? (['string', 'url', 'picklist', 'email'].includes(type) ? 255 : type === 'textarea' ? 131_072 : 0),
    custom: true,
    createable: spec.updateable ?? true,
    updateable: spec.updateable ?? true,
    nillable: true,
    referenceTo: [],
    relationshipName: null,
  };
};

const soapType = (t: SfFieldType) =>
  t === 'id' || t === 'reference'
    ? 'tns:ID'
    : t === 'double'
      ? 'xsd:double'
      : t === 'boolean'
        ? 'xsd:boolean'
        : t === 'datetime'
          ? 'xsd:dateTime'
          : 'xsd:string';

/** A DescribeFieldResult (REST API "sObject Describe"; SOAP API "DescribeFieldResult"), the common properties. */
const describeField = (f: SfField) => ({
  aggregatable: f.type !== 'textarea',
  autoNumber: false,
  byteLength: f.length * 3,
  calculated: false,
  createable: f.createable,
  custom: f.custom,
  defaultValue: null,
  defaultedOnCreate: !f.createable || f.type === 'boolean',
  externalId: false,
  filterable: f.type !== 'textarea',
  groupable: !['double', 'datetime', 'textarea'].includes(f.type),
  idLookup: f.type === 'id',
  label: f.label,
  length: f.length,
  name: f.name,
  nillable: f.nillable,
  picklistValues: [],
  precision: f.type === 'double' ? 18 : 0,
  referenceTo: f.referenceTo,
  relationshipName: f.relationshipName,
  scale: 0,
  soapType: soapType(f.type),
  sortable: f.type !== 'textarea',
  type: f.type,
  unique: false,
  updateable: f.updateable,
});

interface SfError {
  message: string;
  errorCode: string;
  fields?: string[];
}

interface Answer {
  status: number;
  body: unknown;
}

const errors = (status: number, ...list: SfError[]): Answer => ({ status, body: list });
/** INVALID_FIELD as queries word it (SOQL on an unknown column). */
const noSuchColumn = (name: string, object: string) =>
  `No such column '${name}' on entity '${object}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`;

interface Selected {
  /** The relationship (Owner) or null for the account's own field. */
  rel: string | null;
  field: string;
}

interface Cursor {
  keys: string[];
  select: Selected[];
  version: string;
  batch: number;
}

export async function startSalesforceStandIn(opts: SalesforceStandInOptions = {}): Promise<SalesforceStandIn> {
  const clientId = opts.clientId ?? `3MVG9${randomBytes(30).toString('base64url')}`;
  let clientSecret = opts.clientSecret ?? randomBytes(32).toString('hex').toUpperCase();
  const scope = opts.scope ?? 'api';
  const usage = { used: opts.apiUsage?.used ?? 0, max: opts.apiUsage?.max ?? 100_000 };
  const orgId = id18(`00D5g${'0'.repeat(5)}${randomBytes(4).toString('hex').slice(0, 5).toUpperCase()}`);

  let serial = 0;
  const newId = (prefix: string) => {
    let n = ++serial;
    let s = '';
    for (let i = 0; i < 10; i++) {
      s = B62[n % 62] + s;
      n = Math.floor(n / 62);
    }
    return id18(`${prefix}Dn${s}`);
  };

  const fields = new Map<string, SfField>();
  for (const f of standardAccountFields()) fields.set(f.name.toLowerCase(), f);
  for (const [name, spec] of Object.entries(opts.customFields ?? {})) fields.set(name.toLowerCase(), customField(name, spec));

  const users = new Map<string, SfUser>();
  const addUser = (u: { Id?: string; Email: string; Name: string }): string => {
    const Id = u.Id ? id18(u.Id) : newId('005');
    users.set(key15(Id), { Id, Email: u.Email, Name: u.Name, Username: u.Email, IsActive: true });
    return Id;
  };
  const integrationUserId = addUser({ Email: 'svc-integration@example.invalid', Name: 'svc Integration' });
  const integrationUser = users.get(key15(integrationUserId))!;

  const accounts = new Map<string, SfRecord>();
  /** Accounts in the order they were added (never removed): a position is an account's place in answers. */
  const seqKeys: string[] = [];
  const seqOf = new Map<string, number>();

  // Website trigram index: each trigram of the lower-cased Website → the positions of the accounts having
  // it, ascending (accounts are indexed in the order they were added), so lists intersect by binary search.
  const grams = new Map<string, number[]>();
  let indexed = false;
  const gramsOf = (text: string): Set<string> => {
    const lower = text.toLowerCase();
    const out = new Set<string>();
    for (let i = 0; i + 3 <= lower.length; i++) out.add(lower.slice(i, i + 3));
    return out;
  };
  const indexAccount = (seq: number, website: SfValue) => {
    if (!indexed || typeof website !== 'string') return;
    for (const g of gramsOf(website)) {
      let list = grams.get(g);
      if (!list) grams.set(g, (list = []));
      list.push(seq);
    }
  };
  const invalidateIndex = () => {
    indexed = false;
    grams.clear();
  };
  /** Whether ascending `list` holds `x`, searching from `from`; the position reached. */
  const search = (list: readonly number[], x: number, from: number): [boolean, number] => {
    let lo = from;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return [list[lo] === x, lo];
  };
  /** The accounts whose Website may contain `literal` (those having all its trigrams; a superset). */
  const lookup = (literal: string): number[] => {
    if (!indexed) {
      indexed = true;
      for (const [key, a] of accounts) indexAccount(seqOf.get(key)!, a.Website);
    }
    const lists = [...gramsOf(literal)].map((g) => grams.get(g) ?? []).sort((a, b) => a.length - b.length);
    let out = lists[0] ?? [];
    for (let i = 1; i < lists.length && out.length > 4; i++) {
      const next: number[] = [];
      let at = 0;
      for (const x of out) {
        const [found, pos] = search(lists[i], x, at);
        if (found) next.push(x);
        at = pos;
      }
      out = next;
    }
    return out;
  };

  const fieldOf = (name: string): SfField | undefined => fields.get(name.toLowerCase());

  const sessions = new Set<string>();
  let refuseAll = false;
  const failing = new Map<string, SfError & { statusCode: string }>();
  let stalls: number[] = [];
  let serverErrors: number[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const cursors = new Map<string, Cursor>();
  const requests: StandInRequest[] = [];

  const seed = (rows: readonly SfRecord[]): string[] => {
    const now = sfDate(Date.now());
    return rows.map((row) => {
      const Id = typeof row.Id === 'string' ? id18(row.Id) : newId('001');
      const record: SfRecord = {
        Id,
        IsDeleted: false,
        Name: `Account ${serial}`,
        Type: null,
        ParentId: null,
        Website: null,
        Industry: null,
        OwnerId: integrationUserId,
      };
      for (const [name, value] of Object.entries(row)) {
        const f = fieldOf(name);
        if (!f) throw new Error(`salesforce stand-in: Account has no field ${name}`);
        if (f.name !== 'Id') record[f.name] = value;
      }
      record.CreatedDate = record.LastModifiedDate = record.SystemModstamp = now;
      const key = key15(Id);
      if (!accounts.has(key)) {
        seqOf.set(key, seqKeys.length);
        seqKeys.push(key);
      } else invalidateIndex();
      accounts.set(key, record);
      indexAccount(seqOf.get(key)!, record.Website);
      return Id;
    });
  };

  const deleteCustomField = (name: string) => {
    const f = fieldOf(name);
    if (!f?.custom) throw new Error(`salesforce stand-in: ${name} is not a custom field of Account`);
    fields.delete(name.toLowerCase());
    for (const record of accounts.values()) delete record[f.name];
  };

  // --- SOQL ---------------------------------------------------------------------------------------

  const canonicalAccountField = (name: string): string => {
    const f = fieldOf(name);
    if (!f) throw new SoqlError(noSuchColumn(name, 'Account'), 'INVALID_FIELD');
    return f.name;
  };

  const selected = (path: string): Selected => {
    const parts = path.split('.');
    if (parts.length === 1) return { rel: null, field: canonicalAccountField(path) };
    const ref = [...fields.values()].find((f) => f.relationshipName?.toLowerCase() === parts[0].toLowerCase());
    if (!ref || parts.length !== 2 || ref.relationshipName !== 'Owner')
      throw new SoqlError(
        `Didn't understand relationship '${parts[0]}' in field path. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.`,
        'INVALID_FIELD',
      );
    const field = USER_FIELDS.find((f) => f.toLowerCase() === parts[1].toLowerCase());
    if (!field) throw new SoqlError(noSuchColumn(parts[1], 'User'), 'INVALID_FIELD');
    return { rel: 'Owner', field };
  };

  /**
   * The positions of the accounts meeting a condition, found through the index and checked (null when the
   * index cannot narrow it: every account is checked then). An OR of LIKEs checks each candidate against
   * its own branch only, so a query of hundreds of domains stays quick over 100,000 accounts.
   */
  const matching = (c: SoqlCondition | null): number[] | null => {
    if (!c) return null;
    const meets = (seq: number, cond: SoqlCondition) => {
      const record = accounts.get(seqKeys[seq])!;
      return matches(cond, (f) => (record[f] ?? null) as SoqlValue);
    };
    // An id names its account (on its 15 case-sensitive characters): nothing left to check.
    const byIds = (ids: SoqlValue[]) =>
      ids.flatMap((v) => {
        const seq = typeof v === 'string' ? seqOf.get(key15(v)) : undefined;
        return seq !== undefined ? [seq] : [];
      });
    switch (c.kind) {
      case 'or': {
        const out = new Set<number>();
        for (const t of c.terms) {
          const part = matching(t);
          if (!part) return null;
          for (const seq of part) out.add(seq);
        }
        return [...out];
      }
      case 'and': {
        let best: number[] | null = null;
        for (const t of c.terms) {
          const part = matching(t);
          if (part && (!best || part.length < best.length)) best = part;
        }
        return best ? best.filter((seq) => meets(seq, c)) : null;
      }
      case 'like': {
        const literal = c.pattern.literals.reduce((a, b) => (b.length > a.length ? b : a), '');
        if (c.field !== 'Website' || literal.length < 3) return null;
        return lookup(literal).filter((seq) => meets(seq, c));
      }
      case 'cmp':
        return c.field === 'Id' && c.op === '=' ? byIds([c.value]) : null;
      case 'in':
        return c.field === 'Id' && !c.negated ? byIds(c.values) : null;
      default:
        return null;
    }
  };

  const project = (record: SfRecord, select: readonly Selected[], version: string) => {
    const out: Record<string, unknown> = { attributes: { type: 'Account', url: `/services/data/v${version}/sobjects/Account/${record.Id}` } };
    for (const s of select) {
      if (s.rel === null) {
        out[s.field] = record[s.field] ?? null;
        continue;
      }
      const owner = typeof record.OwnerId === 'string' ? users.get(key15(record.OwnerId)) : undefined;
      if (!owner) {
        out[s.rel] = null;
        continue;
      }
      const rel = (out[s.rel] ??= { attributes: { type: 'User', url: `/services/data/v${version}/sobjects/User/${owner.Id}` } }) as Record<string, unknown>;
      rel[s.field] = owner[s.field as keyof SfUser];
    }
    return out;
  };

  const page = (locator: string, cursor: Cursor, offset: number): Answer => {
    const end = Math.min(cursor.keys.length, offset + cursor.batch);
    const records: unknown[] = [];
    for (let i = offset; i < end; i++) {
      const record = accounts.get(cursor.keys[i]);
      if (record) records.push(project(record, cursor.select, cursor.version));
    }
    const done = end >= cursor.keys.length;
    if (done) cursors.delete(locator);
    return {
      status: 200,
      body: {
        totalSize: cursor.keys.length,
        done,
        ...(done ? {} : { nextRecordsUrl: `/services/data/v${cursor.version}/query/${locator}-${end}` }),
        records,
      },
    };
  };

  /** REST API "Execute a SOQL Query": the first batch, and a locator for the rest. */
  const query = (soql: string, version: string, batch: number): Answer => {
    try {
      if (soql.length > MAX_SOQL) throw new SoqlError(`SOQL statements cannot be longer than ${MAX_SOQL} characters`);
      const q = parseSoql(soql);
      if (q.object.toLowerCase() !== 'account')
        throw new SoqlError(
          `sObject type '${q.object}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name.`,
          'INVALID_TYPE',
        );
      const select = q.fields.map(selected);
      const where = renameFields(q.where, canonicalAccountField);
      const found = matching(where);
      let keys: string[];
      if (found) keys = [...new Set(found)].sort((a, b) => a - b).map((seq) => seqKeys[seq]);
      else if (where) keys = seqKeys.filter((k) => matches(where, (f) => (accounts.get(k)![f] ?? null) as SoqlValue));
      else keys = [...seqKeys];
      if (q.limit !== null) keys = keys.slice(0, q.limit);
      const locator = id18(`01g${randomBytes(8).toString('hex').slice(0, 12).toUpperCase()}`);
      const cursor: Cursor = { keys, select, version, batch };
      cursors.set(locator, cursor);
      return page(locator, cursor, 0);
    } catch (e) {
      if (e instanceof SoqlError) return errors(400, { message: e.message, errorCode: e.errorCode });
      throw e;
    }
  };

  /** REST API "Retrieve the Remaining SOQL Query Results". */
  const queryMore = (locatorText: string): Answer => {
    const m = /^(.+)-(\d+)$/.exec(locatorText);
    const cursor = m ? cursors.get(m[1]) : undefined;
    if (!m || !cursor) return errors(400, { message: 'invalid query locator', errorCode: 'INVALID_QUERY_LOCATOR' });
    return page(m[1], cursor, Number(m[2]));
  };

  // --- sObject Collections -----------------------------------------------------------------------

  /**
   * A value as the JSON deserialiser takes it for the field's type, or the message of the whole-request
   * 400 JSON_PARSER_ERROR Salesforce answers when it cannot (a text for a number, say).
   */
  const coerce = (f: SfField, value: unknown): { value: SfValue } | { parseError: string } => {
    const refuse = () => ({
      parseError: `Cannot deserialize instance of ${f.type} from ${typeof value} value ${JSON.stringify(value)} or request may be missing a required field`,
    });
    if (value === null) return { value: f.type === 'boolean' ? false : null };
    switch (f.type) {
      case 'double':
        return typeof value === 'number' ? { value } : refuse();
      case 'boolean':
        return typeof value === 'boolean' ? { value } : refuse();
      case 'datetime':
        return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? { value } : refuse();
      default:
        return typeof value === 'string' || typeof value === 'number' ? { value: String(value) } : refuse();
    }
  };

  /**
   * REST API "Update Records Using sObject Collections" / "Create Records Using sObject Collections":
   * 400 for a request that is not well formed; else 200 with a SaveResult per record in order
   * (`{id, success, errors: [{statusCode, message, fields}]}`); allOrNone rolls back all on any failure.
   */
  const collection = (method: 'PATCH' | 'POST', text: string): Answer => {
    let body: { allOrNone?: unknown; records?: unknown };
    try {
      body = JSON.parse(text);
    } catch (e) {
      return errors(400, { message: `Unexpected character: ${(e as Error).message}`, errorCode: 'JSON_PARSER_ERROR' });
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.records))
      return errors(400, { message: 'Cannot deserialize instance of List from the request body: records is required', errorCode: 'JSON_PARSER_ERROR' });
    const records = body.records as Record<string, unknown>[];
    if (records.length > MAX_COLLECTION)
      return errors(400, { message: `record limit reached. cannot submit more than ${MAX_COLLECTION} records into this call`, errorCode: 'EXCEEDED_ID_LIMIT' });
    const now = sfDate(Date.now());
    type Outcome = { ok: true; key: string | null; changes: SfRecord } | { ok: false; error: SfError & { statusCode: string } };
    const outcomes: Outcome[] = [];
    const fail = (statusCode: string, message: string, fields: string[] = []): Outcome => ({
      ok: false,
      error: { statusCode, message, errorCode: statusCode, fields },
    });
    for (const rec of records) {
      const type = (rec?.attributes as { type?: unknown } | undefined)?.type;
      if (typeof type !== 'string') return errors(400, { message: 'Must send a concrete entity type.', errorCode: 'INVALID_TYPE' });
      if (type.toLowerCase() !== 'account') return errors(400, { message: `sObject type '${type}' is not supported.`, errorCode: 'INVALID_TYPE' });
      const changes: SfRecord = {};
      let outcome: Outcome | null = null;
      for (const [name, value] of Object.entries(rec)) {
        if (name === 'attributes' || (method === 'PATCH' && name.toLowerCase() === 'id')) continue;
        const f = fieldOf(name);
        if (!f) {
          // Per record, as svc's sync expects it of a deleted field; Salesforce may refuse the whole request instead.
          outcome ??= fail('INVALID_FIELD', `No such column '${name}' on sobject of type Account`, [name]);
          continue;
        }
        if (f.name === 'Id') {
          outcome ??= fail('INVALID_FIELD_FOR_INSERT_UPDATE', 'cannot specify Id in an insert call', ['Id']);
          continue;
        }
        const coerced = coerce(f, value);
        if ('parseError' in coerced) return errors(400, { message: coerced.parseError, errorCode: 'JSON_PARSER_ERROR' });
        if (!(method === 'PATCH' ? f.updateable : f.createable)) {
          outcome ??= fail(
            'INVALID_FIELD_FOR_INSERT_UPDATE',
            `Unable to create/update fields: ${f.name}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
            [f.name],
          );
          continue;
        }
        if (typeof coerced.value === 'string' && f.length > 0 && coerced.value.length > f.length) {
          outcome ??= fail('STRING_TOO_LONG', `${f.label}: data value too large: ${coerced.value.slice(0, 40)} (max length=${f.length})`, [f.name]);
          continue;
        }
        if (f.name === 'OwnerId' && (typeof coerced.value !== 'string' || !users.has(key15(coerced.value)))) {
          outcome ??= fail('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', ['OwnerId']);
          continue;
        }
        changes[f.name] = coerced.value;
      }
      if (method === 'PATCH') {
        const id = rec.id ?? rec.Id;
        if (typeof id !== 'string' || id === '') outcome = fail('MISSING_ARGUMENT', 'id not specified in an update call');
        else if (!ID_TEXT.test(id) || !id.startsWith('001')) outcome = fail('MALFORMED_ID', `Account ID: id value of incorrect type: ${id}`, ['Id']);
        else if (!accounts.has(key15(id))) outcome = fail('ENTITY_IS_DELETED', 'entity is deleted');
        else if (failing.has(key15(id))) outcome = { ok: false, error: failing.get(key15(id))! };
        outcomes.push(outcome ?? { ok: true, key: key15(id as string), changes });
      } else {
        if (typeof changes.Name !== 'string' || changes.Name.trim() === '')
          outcome ??= fail('REQUIRED_FIELD_MISSING', 'Required fields are missing: [Name]', ['Name']);
        outcomes.push(outcome ?? { ok: true, key: null, changes });
      }
    }
    const rollBack = body.allOrNone === true && outcomes.some((o) => !o.ok);
    const results = outcomes.map((o) => {
      if (!o.ok) return { success: false, errors: [{ statusCode: o.error.statusCode, message: o.error.message, fields: o.error.fields ?? [] }] };
      if (rollBack)
        return {
          success: false,
          errors: [
            {
              statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
              message: 'Record rolled back because not all records were valid and the request was using AllOrNone header',
              fields: [],
            },
          ],
        };
      if (o.key === null) {
        const [id] = seed([{ OwnerId: integrationUserId, ...o.changes }]);
        return { id, success: true, errors: [] };
      }
      const record = accounts.get(o.key)!;
      Object.assign(record, o.changes, { LastModifiedDate: now, SystemModstamp: now });
      if ('Website' in o.changes) invalidateIndex();
      return { id: record.Id, success: true, errors: [] };
    });
    return { status: 200, body: results };
  };

  // --- describe ----------------------------------------------------------------------------------

  /** REST API "sObject Describe": the object's properties and its fields. */
  const describe = (object: string, version: string): Answer | null => {
    const base = `/services/data/v${version}/sobjects`;
    if (object.toLowerCase() === 'account')
      return {
        status: 200,
        body: {
          name: 'Account',
          label: 'Account',
          labelPlural: 'Accounts',
          keyPrefix: '001',
          custom: false,
          createable: true,
          updateable: true,
          deletable: true,
          queryable: true,
          retrieveable: true,
          searchable: true,
          layoutable: true,
          childRelationships: [],
          recordTypeInfos: [],
          fields: [...fields.values()].map(describeField),
          urls: { sobject: `${base}/Account`, describe: `${base}/Account/describe`, rowTemplate: `${base}/Account/{ID}` },
        },
      };
    if (object.toLowerCase() === 'user')
      return {
        status: 200,
        body: {
          name: 'User',
          label: 'User',
          labelPlural: 'Users',
          keyPrefix: '005',
          custom: false,
          createable: false,
          updateable: false,
          deletable: false,
          queryable: true,
          retrieveable: true,
          searchable: true,
          layoutable: true,
          childRelationships: [],
          recordTypeInfos: [],
          fields: USER_FIELDS.map((name) =>
            describeField({
              name,
              label: name,
              type: name === 'Id' ? 'id' : name === 'IsActive' ? 'boolean' : name === 'Email' ? 'email' : 'string',
              length: name === 'Id' ? 18 : name === 'IsActive' ? 0 : 80,
              custom: false,
              createable: false,
              updateable: false,
              nillable: name !== 'Id',
              referenceTo: [],
              relationshipName: null,
            }),
          ),
          urls: { sobject: `${base}/User`, describe: `${base}/User/describe`, rowTemplate: `${base}/User/{ID}` },
        },
      };
    return null;
  };

  // --- HTTP --------------------------------------------------------------------------------------

  const url = { value: '' };

  /**
   * OAuth 2.0 Client Credentials Flow for Server-to-Server Integration (Salesforce Help): the client id and
   * secret in the form body (or HTTP Basic), the run-as user's token; no refresh token.
   */
  const token = (body: string, headers: IncomingHttpHeaders): Answer => {
    const form = new URLSearchParams(body);
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic\s+(.+)$/i.exec(headers.authorization ?? '');
    if (basic) [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
    if (form.get('grant_type') !== 'client_credentials')
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant type not supported' } };
    if (id !== clientId || secret !== clientSecret) return { status: 400, body: { error: 'invalid_client', error_description: 'invalid client credentials' } };
    const accessToken = `${orgId.slice(0, 15)}!${randomBytes(48).toString('base64url')}`;
    sessions.add(accessToken);
    const issuedAt = String(Date.now());
    const identity = `${url.value}/id/${orgId}/${integrationUserId}`;
    return {
      status: 200,
      body: {
        access_token: accessToken,
        // The HMAC-SHA256 of the identity URL and issued_at, keyed with the consumer secret.
        signature: createHmac('sha256', clientSecret)
          .update(identity + issuedAt)
          .digest('base64'),
        scope,
        instance_url: url.value,
        id: identity,
        token_type: 'Bearer',
        issued_at: issuedAt,
      },
    };
  };

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  /** A request under /services/data/vXX.X/: faults, the session, the daily limit, then the resource. */
  const rest = async (req: IncomingMessage, version: string, resource: string, search: URLSearchParams, body: string): Promise<Answer> => {
    if (stalls.length > 0) await wait(stalls.shift()!);
    if (serverErrors.length > 0) {
      const status = serverErrors.shift()!;
      return errors(status, {
        message: status === 503 ? 'Server is temporarily unavailable. Try again later.' : 'An unexpected error occurred.',
        errorCode: status === 503 ? 'SERVER_UNAVAILABLE' : 'UNKNOWN_EXCEPTION',
      });
    }
    const bearer = /^(?:Bearer|OAuth)\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (!bearer || !sessions.has(bearer[1]) || refuseAll) return errors(401, { message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' });
    // API Request Limits and Allocations: past the daily allocation, 403 REQUEST_LIMIT_EXCEEDED.
    if (usage.used >= usage.max) return errors(403, { message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' });
    usage.used++;
    const method = req.method ?? 'GET';
    const notFound = errors(404, { message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' });
    const onlyMethods = (...allowed: string[]) =>
      allowed.includes(method)
        ? null
        : errors(405, { message: `HTTP Method '${method}' not allowed. Allowed are ${allowed.join(',')}`, errorCode: 'METHOD_NOT_ALLOWED' });
    let m: RegExpExecArray | null;
    if ((m = /^sobjects\/([A-Za-z0-9_]+)\/describe\/?$/.exec(resource))) return onlyMethods('GET') ?? describe(m[1], version) ?? notFound;
    if (resource === 'query' || resource === 'query/') {
      const q = search.get('q');
      if (!q) return errors(400, { message: 'A query string has to be specified', errorCode: 'MALFORMED_QUERY' });
      const options = /batchSize=(\d+)/i.exec(String(req.headers['sforce-query-options'] ?? ''));
      const batch = options ? Math.min(DEFAULT_BATCH, Math.max(200, Number(options[1]))) : DEFAULT_BATCH;
      return onlyMethods('GET') ?? query(q, version, batch);
    }
    if ((m = /^query\/([^/]+)$/.exec(resource))) return onlyMethods('GET') ?? queryMore(m[1]);
    if (resource === 'composite/sobjects' || resource === 'composite/sobjects/')
      return onlyMethods('PATCH', 'POST') ?? collection(method as 'PATCH' | 'POST', body);
    return notFound;
  };

  const handle = async (req: IncomingMessage, body: string, entry: StandInRequest): Promise<{ answer: Answer; limited: boolean }> => {
    if ((req.url ?? '').length > MAX_URI) return { answer: { status: 414, body: 'URI Too Long' }, limited: false };
    if (entry.path === '/services/oauth2/token') {
      if (req.method !== 'POST')
        return { answer: { status: 405, body: { error: 'invalid_request', error_description: 'must use HTTP POST' } }, limited: false };
      return { answer: token(body, req.headers), limited: false };
    }
    // The versions list needs no session and does not count (Limit Info Header: "except for calls to the Versions URI").
    if (/^\/services\/data\/?$/.test(entry.path)) return { answer: { status: 200, body: VERSIONS }, limited: false };
    const m = /^\/services\/data\/v(\d+\.\d)\/(.*)$/.exec(entry.path);
    if (!m || !VERSIONS.some((v) => v.version === m[1]))
      return { answer: errors(404, { message: 'The requested resource does not exist', errorCode: 'NOT_FOUND' }), limited: false };
    return { answer: await rest(req, m[1], m[2], entry.query, body), limited: true };
  };

  const server = createServer({ maxHeaderSize: 64 * 1024 }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const target = new URL(req.url ?? '/', 'http://stand-in');
      const entry: StandInRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: target.pathname,
        query: target.searchParams,
        headers: req.headers,
        body,
        status: null,
      };
      requests.push(entry);
      handle(req, body, entry).then(
        ({ answer, limited }) => {
          entry.status = answer.status;
          if (res.destroyed) return;
          const headers: Record<string, string> = { 'content-type': typeof answer.body === 'string' ? 'text/plain' : JSON_TYPE };
          if (limited) headers['sforce-limit-info'] = `api-usage=${usage.used}/${usage.max}`;
          res.writeHead(answer.status, headers);
          res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
        },
        (e: unknown) => {
          entry.status = 500;
          if (res.destroyed) return;
          res.writeHead(500, { 'content-type': JSON_TYPE });
          res.end(JSON.stringify([{ message: String(e), errorCode: 'UNKNOWN_EXCEPTION' }]));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url.value = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: url.value,
    clientId,
    get clientSecret() {
      return clientSecret;
    },
    integrationUser,
    accounts: {
      seed,
      get: (id) => accounts.get(key15(id)),
      all: () => [...accounts.values()],
      get size() {
        return accounts.size;
      },
    },
    users: {
      add: addUser,
      get: (id) => users.get(key15(id)),
    },
    fields: {
      list: () => [...fields.values()],
      add(name, spec) {
        fields.set(name.toLowerCase(), customField(name, spec));
      },
      delete: deleteCustomField,
    },
    requests,
    faults: {
      failRecords(ids, statusCode, message, errorFields = []) {
        for (const id of ids) failing.set(key15(id), { statusCode, errorCode: statusCode, message, fields: errorFields });
      },
      deleteField: deleteCustomField,
      revokeSessions() {
        sessions.clear();
      },
      refuseSessions() {
        refuseAll = true;
      },
      rotateSecret() {
        clientSecret = randomBytes(32).toString('hex').toUpperCase();
        return clientSecret;
      },
      stallNext(ms, count = 1) {
        for (let i = 0; i < count; i++) stalls.push(ms);
      },
      serverErrorNext(n, status = 503) {
        for (let i = 0; i < n; i++) serverErrors.push(status);
      },
      setApiUsage(used, max) {
        usage.used = used;
        usage.max = max;
      },
      clear() {
        refuseAll = false;
        failing.clear();
        stalls = [];
        serverErrors = [];
      },
    },
    apiUsage: () => ({ ...usage }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
