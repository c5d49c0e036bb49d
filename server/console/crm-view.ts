/**
 * What the Integrations page (ui/IntegrationsPage.tsx) shows of a CRM connection, as pure functions: the
 * connect form → the API's body (or the field to point at), the status chip, the mapping table and the
 * PATCH it saves, a run's counts in words, a dry run's table. Checks only what a person can fix before
 * sending; the server's schema and mapping rules decide (their 422 messages are shown as they come).
 */
import type { CrmProvider, CrmRunRecord, CrmValue } from '../../core/crm-records.ts';
import type { CrmConnectionView } from '../crm/schema.ts';
import type { CrmConnectBody, CrmPatchBody } from './admin-client.ts';
import type { Validated } from './ui/use-create-form.ts';

/**
 * The value keys' order (core/crm-records.ts CRM_FIXED_VALUES, CRM_PRODUCT_VALUES), copied: that module
 * defines zod schemas, which must stay out of the console bundle (build.test.ts). crm-view.test.ts keeps
 * the copies equal.
 */
export const FIXED_VALUE_KEYS = ['company_id', 'segments', 'last_visit_at', 'page_views_30d', 'top_pages', 'hot'] as const;
export const PRODUCT_VALUE_KEYS = ['intent_score', 'buying_stage', 'profile_fit'] as const;

export const CRM_NAMES: Readonly<Record<CrmProvider, string>> = { hubspot: 'HubSpot', salesforce: 'Salesforce' };

/** The connect form of both providers (only the provider's own fields are sent). */
export interface CrmConnectFields {
  /** HubSpot: the private app's access token. */
  access_token: string;
  /** HubSpot (advanced): the API host; empty is https://api.hubapi.com. */
  base_url: string;
  /** Salesforce: the connected app's client id and secret, the org's My Domain URL. */
  client_id: string;
  client_secret: string;
  url: string;
  create_missing: boolean;
}

export const emptyConnectForm = (): CrmConnectFields => ({ access_token: '', base_url: '', client_id: '', client_secret: '', url: '', create_missing: false });

const isHttpUrl = (s: string) => {
  try {
    return /^https?:$/.test(new URL(s).protocol);
  } catch {
    return false;
  }
};

export function connectBody(provider: CrmProvider, form: CrmConnectFields): Validated<CrmConnectFields, CrmConnectBody> {
  if (provider === 'hubspot') {
    const access_token = form.access_token.trim();
    if (!access_token) return { ok: false, field: 'access_token', message: 'Enter the access token of your HubSpot private app.' };
    const base_url = form.base_url.trim();
    if (base_url && !isHttpUrl(base_url)) return { ok: false, field: 'base_url', message: 'Enter the API base URL as a full http(s) URL, or leave it empty.' };
    return { ok: true, body: { access_token, ...(base_url ? { base_url } : {}), create_missing: form.create_missing } };
  }
  const client_id = form.client_id.trim();
  const client_secret = form.client_secret.trim();
  const url = form.url.trim();
  if (!client_id) return { ok: false, field: 'client_id', message: 'Enter the consumer key (client id) of your connected app.' };
  if (!client_secret) return { ok: false, field: 'client_secret', message: 'Enter the consumer secret (client secret) of your connected app.' };
  if (!isHttpUrl(url)) return { ok: false, field: 'url', message: 'Enter your org’s My Domain URL, e.g. https://acme.my.salesforce.com.' };
  return { ok: true, body: { client_id, client_secret, url, create_missing: form.create_missing } };
}

export type ChipTone = 'ok' | 'off' | 'warn';

/** The status chip: active, paused, or needs attention (the provider's message beside it). */
export function statusChip(conn: Pick<CrmConnectionView, 'status'>): { label: string; tone: ChipTone } {
  if (conn.status === 'active') return { label: 'active', tone: 'ok' };
  if (conn.status === 'paused') return { label: 'paused', tone: 'off' };
  return { label: 'needs attention', tone: 'warn' };
}

/** One value svc writes and the CRM field it goes to ('' : not written). */
export interface MappingRow {
  key: string;
  field: string;
}

/** A value key's place: the fixed keys first, then each product's three in the server's order. */
function keyRank(key: string, products: string[]): number {
  const fixed = (FIXED_VALUE_KEYS as readonly string[]).indexOf(key);
  if (fixed >= 0) return fixed;
  const dot = key.lastIndexOf('.');
  const product = products.indexOf(key.slice(0, dot));
  const value = (PRODUCT_VALUE_KEYS as readonly string[]).indexOf(key.slice(dot + 1));
  return FIXED_VALUE_KEYS.length + (product < 0 ? products.length : product) * PRODUCT_VALUE_KEYS.length + Math.max(value, 0);
}

/**
 * Every value key of the connection and its field: those written (the server's resolved `fields`, defaults
 * included) and those the mapping turns off (null), in the server's order.
 */
export function mappingRows(conn: Pick<CrmConnectionView, 'fields' | 'mapping'>): MappingRow[] {
  const rows: MappingRow[] = conn.fields.map((f) => ({ key: f.key, field: f.field }));
  const known = new Set(rows.map((r) => r.key));
  for (const [key, field] of Object.entries(conn.mapping)) if (field === null && !known.has(key)) rows.push({ key, field: '' });
  const products = [
    ...new Set(
      rows
        .map((r) => r.key)
        .filter((k) => k.includes('.'))
        .map((k) => k.slice(0, k.lastIndexOf('.'))),
    ),
  ];
  return rows
    .map((r, i) => ({ r, i, rank: keyRank(r.key, products) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.r);
}

/**
 * The PATCH of an edited mapping table (`fields`: key → the text typed): the connection's mapping with each
 * changed row set (an emptied row: null, not written); rows left as they were keep their default.
 */
export function mappingPatch(
  conn: Pick<CrmConnectionView, 'fields' | 'mapping' | 'create_missing'>,
  fields: Record<string, string>,
  createMissing: boolean,
): CrmPatchBody {
  const mapping: Record<string, string | null> = { ...conn.mapping };
  for (const row of mappingRows(conn)) {
    const typed = (fields[row.key] ?? row.field).trim();
    if (typed !== row.field) mapping[row.key] = typed === '' ? null : typed;
  }
  return { mapping, ...(createMissing !== conn.create_missing ? { create_missing: createMissing } : {}) };
}

/** The value keys a refused mapping names (`mapping.<key>: …` in the server's message), to mark their rows. */
export function mappingErrorKeys(message: string): string[] {
  return [...message.matchAll(/mapping\.([A-Za-z0-9_.]+?):/g)].map((m) => m[1]!);
}

/** A run's counts in the table's order, with their column labels. */
export const RUN_COUNTS: readonly (readonly [keyof CrmRunRecord['counts'], string])[] = [
  ['accounts', 'Accounts'],
  ['matched', 'Matched'],
  ['written', 'Written'],
  ['created', 'Created'],
  ['unchanged', 'Unchanged'],
  ['not_found', 'Not found'],
  ['invalid_domain', 'Invalid domains'],
  ['failed', 'Failed'],
  ['requests', 'Requests'],
];

export const RUN_KIND_LABELS: Readonly<Record<CrmRunRecord['kind'], string>> = { incremental: 'incremental', full: 'full backfill', dry_run: 'dry run' };

/** A run in one line: "full backfill, succeeded: 12 accounts, 10 matched, 10 written, 2 not found". */
export function runSummary(run: CrmRunRecord): string {
  const c = run.counts;
  const parts = RUN_COUNTS.filter(([k]) => k !== 'requests' && (k === 'accounts' || c[k] > 0)).map(([k, label]) => `${c[k]} ${label.toLowerCase()}`);
  return `${RUN_KIND_LABELS[run.kind]}, ${run.status}: ${parts.join(', ')}${run.message ? ` — ${run.message}` : ''}`;
}

/** Whether a run is under way (the runs log is asked again until none is). */
export const runUnderway = (runs: readonly Pick<CrmRunRecord, 'status'>[] | null | undefined): boolean => (runs ?? []).some((r) => r.status === 'running');

export function runTone(status: CrmRunRecord['status']): ChipTone {
  return status === 'succeeded' ? 'ok' : status === 'running' ? 'off' : 'warn';
}

/** Accounts a dry run's table shows (its count covers them all). */
export const PREVIEW_SHOWN = 50;
/** What the server lists of a dry run at most (server/crm/sync.ts PREVIEW_LIMIT). */
export const PREVIEW_LISTED = 1000;

/** The CRM fields of a dry run's accounts, as its table's columns (first seen first). */
export function previewColumns(accounts: readonly { values: Record<string, CrmValue> }[]): string[] {
  const columns = new Set<string>();
  for (const a of accounts) for (const k of Object.keys(a.values)) columns.add(k);
  return [...columns];
}

/** "these 12 accounts would get these values" (at least 1,000 when the server's list is full). */
export function previewHeadline(listed: number): string {
  if (listed === 0) return 'No account would be written now.';
  const count = listed >= PREVIEW_LISTED ? `At least ${listed.toLocaleString('en-US')}` : String(listed);
  return `${count} ${listed === 1 ? 'account would get these values' : 'accounts would get these values'}`;
}

/** A value as a table cell shows it: `—` for null (cleared), yes / no. */
export function formatValue(v: CrmValue | undefined): string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}
