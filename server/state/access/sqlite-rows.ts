/** Rows of the access tables and the records they hold (SQLite keeps JSON in text columns, booleans as 0/1). */
import { CustomerRecord, TagRecord, TokenRecord } from '../../../core/access-records.ts';

export type Row = Record<string, unknown>;

export function toCustomer(row: Row): CustomerRecord {
  const config = JSON.parse(row.config as string);
  return CustomerRecord.parse({ ...row, packages: JSON.parse(row.packages as string), ...config });
}

export function toToken(row: Row): TokenRecord {
  return TokenRecord.parse({
    ...row,
    integrations: JSON.parse(row.integrations as string),
    allowed_domains: JSON.parse(row.allowed_domains as string),
    scores: row.scores === 1,
    segment_names: row.segment_names === 1,
    intent_topics: row.intent_topics === 1,
  });
}

/** What the `config` column holds (JSON): the customer's settings beyond its contract columns. */
export function customerConfig(
  c: Pick<CustomerRecord, 'products' | 'segments' | 'excluded_accounts' | 'hot_accounts' | 'grants' | 'segment_seq'> & {
    account_lists?: CustomerRecord['account_lists'];
    kept_query_params?: string[];
    topics?: string[];
  },
): string {
  return JSON.stringify({
    products: c.products,
    segments: c.segments,
    excluded_accounts: c.excluded_accounts,
    hot_accounts: c.hot_accounts,
    account_lists: c.account_lists ?? [],
    grants: c.grants,
    segment_seq: c.segment_seq,
    kept_query_params: c.kept_query_params ?? [],
    topics: c.topics ?? [],
  });
}

export function toTag(row: Row): TagRecord {
  return TagRecord.parse({
    ...row,
    demo: row.demo === 1,
    disabled: row.disabled === 1,
    allowed_domains: JSON.parse(row.allowed_domains as string),
    scores: row.scores === 1,
    segment_names: row.segment_names === 1,
    settings: JSON.parse(row.settings as string),
  });
}
