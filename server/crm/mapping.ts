/**
 * What svc writes onto a CRM account (pure): the value keys of a customer (fixed ones, and three per
 * product), the CRM field each goes to (the provider's default unless the connection's mapping says
 * otherwise, or null: not written), the fields' specs for the client to check or create, and the values of
 * one account from its account page — so a CRM record holds exactly what the account page shows.
 *
 * svc never writes a field it does not own: HubSpot properties named `svc_…` (created in svc's own property
 * group), Salesforce custom fields named `Svc_…__c` (created by the customer's admin). A mapping naming any
 * other field is refused.
 */
import { createHash } from 'node:crypto';
import type { CustomerRecord } from '../../core/access-records.ts';
import { CRM_FIXED_VALUES, CRM_PRODUCT_VALUES, type CrmMapping, type CrmProvider, type CrmValue } from '../../core/crm-records.ts';
import type { AccountPage } from '../accounts/account.ts';
import type { CrmFieldSpec } from './provider.ts';

/** Pages named in `top_pages`. */
export const TOP_PAGES_WRITTEN = 5;
/** Text values are cut to this (a Salesforce text field's usual length). */
export const TEXT_LIMIT = 255;

/** A product's key in lower snake case: `Acme CRM` → `acme_crm`. */
export const productKey = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '') || 'product';

type ValueType = CrmFieldSpec['type'];
const FIXED_TYPES: Record<(typeof CRM_FIXED_VALUES)[number], ValueType> = {
  company_id: 'string',
  segments: 'string',
  last_visit_at: 'datetime',
  page_views_30d: 'number',
  top_pages: 'string',
  hot: 'bool',
};
const PRODUCT_TYPES: Record<(typeof CRM_PRODUCT_VALUES)[number], ValueType> = { intent_score: 'number', buying_stage: 'string', profile_fit: 'string' };
const LABELS: Record<string, string> = {
  company_id: 'svc company id',
  segments: 'svc segments',
  last_visit_at: 'svc last visit',
  page_views_30d: 'svc page views (30 days)',
  top_pages: 'svc top pages',
  hot: 'svc hot account',
  intent_score: 'intent score',
  buying_stage: 'buying stage',
  profile_fit: 'profile fit',
};

/** One value svc writes: its key (`segments`, `<product>.intent_score`), type and label. */
export interface ValueKey {
  key: string;
  type: ValueType;
  label: string;
}

/** Every value key of the customer: the fixed ones, then three per product in the customer's order. */
export function valueKeys(customer: Pick<CustomerRecord, 'products'>): ValueKey[] {
  const keys: ValueKey[] = CRM_FIXED_VALUES.map((k) => ({ key: k, type: FIXED_TYPES[k], label: LABELS[k]! }));
  for (const p of customer.products) {
    const pk = productKey(p.name);
    for (const v of CRM_PRODUCT_VALUES) keys.push({ key: `${pk}.${v}`, type: PRODUCT_TYPES[v], label: `svc ${p.display_name || p.name} ${LABELS[v]}` });
  }
  return keys;
}

/** The provider's default field of a value key: HubSpot `svc_acme_crm_intent_score`, Salesforce `Svc_Acme_Crm_Intent_Score__c`. */
export function defaultField(provider: CrmProvider, key: string): string {
  const snake = key.replace(/\./g, '_');
  if (provider === 'hubspot') return `svc_${snake}`;
  const pascal = snake
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('_');
  return `Svc_${pascal}__c`;
}

const OWNED: Record<CrmProvider, RegExp> = {
  hubspot: /^svc_[a-z0-9_]{1,95}$/,
  // A custom field's API name: letters, digits and single underscores, ending in __c.
  salesforce: /^Svc_(?!.*__.*__c$)[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*__c$/,
};

/** Why svc may not write `field` (a field it does not own), or null. */
export function fieldProblem(provider: CrmProvider, field: string): string | null {
  if (OWNED[provider].test(field)) return null;
  return provider === 'hubspot'
    ? `${field} is not a field svc owns (HubSpot: a property named svc_… of lower-case letters, digits and _)`
    : `${field} is not a field svc owns (Salesforce: a custom field named Svc_…__c)`;
}

/** Problems of a mapping for the customer: unknown value keys, fields svc does not own, a field given twice. */
export function mappingProblems(provider: CrmProvider, customer: Pick<CustomerRecord, 'products'>, mapping: CrmMapping): string[] {
  const known = new Set(valueKeys(customer).map((k) => k.key));
  const problems: string[] = [];
  for (const [key, field] of Object.entries(mapping)) {
    if (!known.has(key)) problems.push(`mapping.${key}: not a value svc writes (${[...known].join(', ')})`);
    else if (field !== null) {
      const p = fieldProblem(provider, field);
      if (p) problems.push(`mapping.${key}: ${p}`);
    }
  }
  const fields = resolvedFields(provider, customer, mapping);
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.name)) problems.push(`mapping: the field ${f.name} is given to two values`);
    seen.add(f.name);
  }
  return problems;
}

/** The fields written, one per value key that is written: the mapping's or the default, with the key it holds. */
export function resolvedFields(provider: CrmProvider, customer: Pick<CustomerRecord, 'products'>, mapping: CrmMapping): (CrmFieldSpec & { key: string })[] {
  const out: (CrmFieldSpec & { key: string })[] = [];
  for (const k of valueKeys(customer)) {
    const field = k.key in mapping ? mapping[k.key]! : defaultField(provider, k.key);
    if (field !== null) out.push({ key: k.key, name: field, label: k.label, type: k.type });
  }
  return out;
}

const cut = (s: string) => (s.length > TEXT_LIMIT ? `${s.slice(0, TEXT_LIMIT - 1)}…` : s);

/**
 * The values of one account from its account page over the last 30 days (`page.from`–`page.to`) and its
 * latest session (`lastVisitAt`, any age): by value key.
 */
export function accountValues(page: AccountPage, lastVisitAt: string | null): Record<string, CrmValue> {
  const values: Record<string, CrmValue> = {
    company_id: page.company_id,
    segments: cut(page.segments.map((s) => s.name).join('; ')),
    last_visit_at: lastVisitAt,
    page_views_30d: page.totals.page_views,
    top_pages: cut(
      page.top_pages
        .slice(0, TOP_PAGES_WRITTEN)
        .map((p) => `${p.path} (${p.page_views})`)
        .join(', '),
    ),
    hot: page.lists.hot,
  };
  for (const s of page.scores) {
    const pk = productKey(s.product);
    values[`${pk}.intent_score`] = s.intent_score;
    values[`${pk}.buying_stage`] = s.buying_stage;
    values[`${pk}.profile_fit`] = s.profile_fit;
  }
  return values;
}

/** The CRM fields and values of an account: by field name, in the fields' order. */
export function fieldValues(fields: readonly { key: string; name: string }[], values: Record<string, CrmValue>): Record<string, CrmValue> {
  const out: Record<string, CrmValue> = {};
  for (const f of fields) out[f.name] = values[f.key] ?? null;
  return out;
}

/** A hash of what is written (fields and values): the same hash means the CRM already holds it. */
export function valuesHash(written: Record<string, CrmValue>): string {
  return createHash('sha256')
    .update(JSON.stringify(Object.entries(written)))
    .digest('base64url')
    .slice(0, 22);
}
