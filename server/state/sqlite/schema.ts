/**
 * The SQLite files' schemas and their forward migrations. A file carries its version in
 * `PRAGMA user_version`; opening runs every migration of its list above it, in one transaction, so a file
 * written by an older version gains new tables and columns (a file from a newer version is refused, not
 * guessed at). Two lists, one mechanism: STATE_MIGRATIONS for every table of the state file (the state
 * store's, the visit store's, the webhook outbox's, the user store's, the CRM store's, the digests' and the alerts': they share one
 * connection, db.ts), JOBS_MIGRATIONS for a node's enrichment jobs file (enrichment/jobs/job-store.ts: per
 * node, as the jobs' files are).
 */
import type Database from 'better-sqlite3';
import { TAG_CEILING, TAG_PER_VISITOR_LIMIT } from '../../../core/vocabulary.ts';
import { ROLLUP_SPAN_DAYS } from '../visits/rollup.ts';

/** The first schema (version 1): what files created before versioning hold, less later additions. */
const V1 = `
CREATE TABLE IF NOT EXISTS customers (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, packages TEXT NOT NULL,
  identification_credits INTEGER NOT NULL, enrichment_credits INTEGER NOT NULL, contract_start TEXT NOT NULL,
  config TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), api_group TEXT NOT NULL,
  name TEXT NOT NULL, prefix TEXT NOT NULL, secret_hash TEXT NOT NULL UNIQUE, integrations TEXT NOT NULL,
  allowed_domains TEXT NOT NULL, scores INTEGER NOT NULL, segment_names INTEGER NOT NULL, rate_limit INTEGER NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL, last_used_at TEXT, rotated_at TEXT);
CREATE INDEX IF NOT EXISTS tokens_customer ON tokens (customer_id);
CREATE TABLE IF NOT EXISTS tags (
  tag_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), allowed_domains TEXT NOT NULL,
  scores INTEGER NOT NULL, segment_names INTEGER NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS credit_usage (
  customer_id TEXT NOT NULL, pool TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL,
  PRIMARY KEY (customer_id, pool, period)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS charges (
  id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, api TEXT NOT NULL, pool TEXT NOT NULL, record TEXT NOT NULL,
  month TEXT NOT NULL, period TEXT NOT NULL, dedupe_key TEXT UNIQUE, token_id TEXT, partner TEXT, at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS charges_customer ON charges (customer_id, api, month);
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rate_limits (key TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL) WITHOUT ROWID;
`;

/**
 * The visit store's and the webhook outbox's tables, as their own connections created them (IF NOT
 * EXISTS at every open) before they shared the state store's connection and its migrations.
 */
const VISITS_AND_WEBHOOKS = `
CREATE TABLE IF NOT EXISTS visit_accounts (
  customer_id TEXT NOT NULL, day TEXT NOT NULL, company_id TEXT NOT NULL,
  page_views INTEGER NOT NULL, sessions INTEGER NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL,
  PRIMARY KEY (customer_id, day, company_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS visit_pages (
  customer_id TEXT NOT NULL, day TEXT NOT NULL, company_id TEXT NOT NULL, path TEXT NOT NULL, page_views INTEGER NOT NULL,
  PRIMARY KEY (customer_id, day, company_id, path)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS visit_pages_account ON visit_pages (customer_id, company_id, day);
CREATE TABLE IF NOT EXISTS visit_sessions (
  customer_id TEXT NOT NULL, day TEXT NOT NULL, company_id TEXT NOT NULL, session_id TEXT NOT NULL,
  PRIMARY KEY (customer_id, day, company_id, session_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS visit_anonymous (
  customer_id TEXT NOT NULL, day TEXT NOT NULL, page_views INTEGER NOT NULL,
  PRIMARY KEY (customer_id, day)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS visit_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
INSERT OR IGNORE INTO visit_version VALUES (1, 0);
CREATE TABLE IF NOT EXISTS tag_sightings (
  tag_id TEXT NOT NULL, origin TEXT NOT NULL, last_seen_at TEXT NOT NULL,
  PRIMARY KEY (tag_id, origin)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS webhooks (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, url TEXT NOT NULL, events TEXT NOT NULL, hot_paths TEXT NOT NULL,
  description TEXT NOT NULL, secret TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS webhooks_customer ON webhooks (customer_id);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id TEXT PRIMARY KEY, event_id TEXT NOT NULL, webhook_id TEXT NOT NULL, customer_id TEXT NOT NULL, type TEXT NOT NULL,
  dedupe_key TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL, next_attempt_at INTEGER, lease_owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0,
  last_attempt_at INTEGER, last_status INTEGER, last_error TEXT, delivered_at INTEGER,
  UNIQUE (webhook_id, dedupe_key));
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE status = 'pending';
`;

/**
 * The user store's tables (users/sqlite.ts). Emails are kept lower-cased, unique across customers; times
 * as `toISOString` strings (they compare as text); invitations and sessions under the SHA-256 hash of
 * their secret. `audit_events.seq` orders events of one instant as they were appended.
 */
const USERS = `
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, email TEXT NOT NULL UNIQUE, role TEXT NOT NULL, password_hash TEXT,
  sso INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, last_login_at TEXT);
CREATE INDEX IF NOT EXISTS users_customer ON users (customer_id, email);
CREATE TABLE IF NOT EXISTS invitations (
  token_hash TEXT PRIMARY KEY, customer_id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL, purpose TEXT NOT NULL,
  created_at TEXT NOT NULL, expires_at TEXT NOT NULL, created_by TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS invitations_email ON invitations (email, customer_id);
CREATE INDEX IF NOT EXISTS invitations_expiry ON invitations (expires_at);
CREATE TABLE IF NOT EXISTS sessions (
  id_hash TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL, customer_id TEXT NOT NULL, created_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL, expires_at TEXT NOT NULL, ip TEXT, user_agent TEXT, method TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id, created_at);
CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);
CREATE TABLE IF NOT EXISTS sso_providers (
  customer_id TEXT PRIMARY KEY, issuer TEXT NOT NULL, client_id TEXT NOT NULL, client_secret TEXT NOT NULL,
  allowed_domains TEXT NOT NULL, default_role TEXT NOT NULL, display_name TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS audit_events (
  seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, customer_id TEXT NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL, ip TEXT,
  action TEXT NOT NULL, target TEXT, before TEXT, after TEXT);
CREATE INDEX IF NOT EXISTS audit_customer_at ON audit_events (customer_id, at, seq);
`;

/** Migration i brings a file from version i to i + 1. Append only; never edit a shipped one. */
export type Migration = (db: Database.Database) => void;

/** A kind of file and its migrations; `file` names it in errors and logs ("the state file"). */
export interface MigrationList {
  readonly file: string;
  readonly steps: readonly Migration[];
}

const STATE_STEPS: Migration[] = [
  (db) => db.exec(V1),
  // 2: per-tag settings, the cross-process auth version, and an index to expire rate-limit rows by window.
  (db) => {
    addColumn(db, 'tags', 'settings', `TEXT NOT NULL DEFAULT '{}'`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS auth_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
      INSERT OR IGNORE INTO auth_version VALUES (1, 0);
      CREATE INDEX IF NOT EXISTS rate_limits_window ON rate_limits (window_start);`);
  },
  // 3: per-tag limits (the fixed values every tag had until then) and the demo-tag flag.
  (db) => {
    addColumn(db, 'tags', 'rate_limit', `INTEGER NOT NULL DEFAULT ${TAG_CEILING}`);
    addColumn(db, 'tags', 'visitor_rate_limit', `INTEGER NOT NULL DEFAULT ${TAG_PER_VISITOR_LIMIT}`);
    addColumn(db, 'tags', 'demo', 'INTEGER NOT NULL DEFAULT 0');
  },
  // 4: page views, tag sightings and the webhook outbox join the one schema (a file may hold them already).
  (db) => db.exec(VISITS_AND_WEBHOOKS),
  // 5: dedupe keys without a kept delivery. A Redis outbox trims its delivery log by count but keeps every
  // key of the last three days; `svc state import` of such an outbox puts those keys here.
  (db) =>
    db.exec(`CREATE TABLE IF NOT EXISTS webhook_dedupe (
      webhook_id TEXT NOT NULL, dedupe_key TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (webhook_id, dedupe_key)) WITHOUT ROWID;`),
  // 6: a customer's people (users/sqlite.ts): users, invitations, sessions, SSO providers, the audit log.
  (db) => db.exec(USERS),
  // 7: a tag can be disabled (TagRecord.disabled).
  (db) => addColumn(db, 'tags', 'disabled', 'INTEGER NOT NULL DEFAULT 0'),
  // 8: each account's recent sessions with their pages in order (visits.ts AccountSession; pages as a JSON
  // array of [at, path]), the first-party journey of the account page.
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS visit_journeys (
        customer_id TEXT NOT NULL, company_id TEXT NOT NULL, session_id TEXT NOT NULL, first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL, page_views INTEGER NOT NULL, pages TEXT NOT NULL,
        PRIMARY KEY (customer_id, company_id, session_id)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS visit_journeys_recent ON visit_journeys (customer_id, company_id, last_seen);
      CREATE INDEX IF NOT EXISTS visit_journeys_age ON visit_journeys (customer_id, last_seen);`),
  // 9: a webhook endpoint's settings (webhooks/schema.ts EndpointSettings: payload versions, names, scores) as JSON.
  (db) => addColumn(db, 'webhooks', 'settings', `TEXT NOT NULL DEFAULT '{}'`),
  // 10: each account's segments as of its latest view (visits.ts swapAccountSegments: segment.entered), as a JSON array.
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS visit_account_segments (
        customer_id TEXT NOT NULL, company_id TEXT NOT NULL, segment_ids TEXT NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (customer_id, company_id)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS visit_account_segments_age ON visit_account_segments (customer_id, updated_at);`),
  // 11: raw page views kept for the export (visits.ts RawPageView as its JSON text), per customer in id order
  // (`ms`, `n`: visits.ts nextRawViewId), pruned by `ms` with the aggregates. Keyed by that order: an
  // export reads one customer's rows as one range of leaves (a rowid table with the order as an index wrote
  // no faster, measured, and would read them scattered).
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS visit_events (
        customer_id TEXT NOT NULL, ms INTEGER NOT NULL, n INTEGER NOT NULL, day TEXT NOT NULL, view TEXT NOT NULL,
        PRIMARY KEY (customer_id, ms, n)) WITHOUT ROWID;`),
  // 12: a user's single sign-on identity (users.ts bindSsoSubject: the provider's issuer and `sub`), and a
  // provider's opt-in to ID tokens without `email_verified` (SsoProvider.email_verified_optional).
  (db) => {
    addColumn(db, 'users', 'sso_issuer', 'TEXT');
    addColumn(db, 'users', 'sso_subject', 'TEXT');
    addColumn(db, 'sso_providers', 'email_verified_optional', 'INTEGER NOT NULL DEFAULT 0');
  },
  // 13: failed sign-ins counted per account and per address for every process on the file (users.ts
  // countFailure): a window per key, from its first failure (`ends_ms` epoch ms) to its end.
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS failure_counts (key TEXT PRIMARY KEY, ends_ms INTEGER NOT NULL, failures INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS failure_counts_end ON failure_counts (ends_ms);`),
  // 14: the CRM sync's state (crm/sqlite.ts): connections (the record as JSON, its secret apart), the
  // accounts pending per connection (epoch ms, in the order a sync drains them), one lease per connection,
  // the runs' log (JSON, ordered by started_at) and per account what svc knows of the CRM side (JSON).
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS crm_connections (
        customer_id TEXT NOT NULL, provider TEXT NOT NULL, record TEXT NOT NULL, secret TEXT NOT NULL,
        PRIMARY KEY (customer_id, provider)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS crm_pending (
        customer_id TEXT NOT NULL, provider TEXT NOT NULL, company_id TEXT NOT NULL, at INTEGER NOT NULL, forced INTEGER NOT NULL,
        PRIMARY KEY (customer_id, provider, company_id)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS crm_pending_order ON crm_pending (customer_id, provider, at, company_id);
      CREATE TABLE IF NOT EXISTS crm_leases (
        customer_id TEXT NOT NULL, provider TEXT NOT NULL, owner TEXT NOT NULL, until_ms INTEGER NOT NULL,
        PRIMARY KEY (customer_id, provider)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS crm_runs (
        customer_id TEXT NOT NULL, provider TEXT NOT NULL, id TEXT NOT NULL, started_at TEXT NOT NULL, run TEXT NOT NULL,
        PRIMARY KEY (customer_id, provider, id)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS crm_runs_order ON crm_runs (customer_id, provider, started_at, id);
      CREATE TABLE IF NOT EXISTS crm_accounts (
        customer_id TEXT NOT NULL, provider TEXT NOT NULL, company_id TEXT NOT NULL, record TEXT NOT NULL,
        PRIMARY KEY (customer_id, provider, company_id)) WITHOUT ROWID;`),
  // 15: email digests (digests/sqlite.ts): each user's settings (JSON), and one claim per user and period
  // (its lease, attempts, next attempt and end), forgotten after keep_until_ms.
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS digest_settings (
        customer_id TEXT NOT NULL, user_id TEXT NOT NULL, settings TEXT NOT NULL, updated_at TEXT NOT NULL,
        PRIMARY KEY (customer_id, user_id)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS digest_claims (
        customer_id TEXT NOT NULL, user_id TEXT NOT NULL, period TEXT NOT NULL, status TEXT NOT NULL, owner TEXT NOT NULL,
        until_ms INTEGER NOT NULL, attempts INTEGER NOT NULL, next_ms INTEGER NOT NULL, at_ms INTEGER NOT NULL,
        error TEXT NOT NULL, keep_until_ms INTEGER NOT NULL,
        PRIMARY KEY (customer_id, user_id, period)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS digest_claims_keep ON digest_claims (keep_until_ms);`),
  // 16: what the console's home page reads without a scan (server/home/): each account's first day seen
  // (filled from the per-day aggregates the file holds, so accounts seen before are not new) and the
  // segments entered per day (visits.ts swapAccountSegments).
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS visit_account_first (
        customer_id TEXT NOT NULL, company_id TEXT NOT NULL, day TEXT NOT NULL,
        PRIMARY KEY (customer_id, company_id)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS visit_account_first_day ON visit_account_first (customer_id, day);
      INSERT OR IGNORE INTO visit_account_first SELECT customer_id, company_id, min(day) FROM visit_accounts GROUP BY customer_id, company_id;
      CREATE TABLE IF NOT EXISTS visit_segment_entries (
        customer_id TEXT NOT NULL, day TEXT NOT NULL, entries INTEGER NOT NULL,
        PRIMARY KEY (customer_id, day)) WITHOUT ROWID;`),
  // 17: alerts (alerts/sqlite.ts): a customer's owners list (a row per account key, the row as JSON) and
  // territory rules (one JSON array), the stages each account reached per product (set once: stage_reached),
  // and the day's mark of each (recipient, account) an alert mail went to (one mail a day), pruned by day.
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS alert_owners (
        customer_id TEXT NOT NULL, key TEXT NOT NULL, row TEXT NOT NULL,
        PRIMARY KEY (customer_id, key)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS alert_territories (
        customer_id TEXT PRIMARY KEY, rules TEXT NOT NULL, updated_at TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS alert_stages (
        customer_id TEXT NOT NULL, company_id TEXT NOT NULL, product TEXT NOT NULL, stage TEXT NOT NULL, at_ms INTEGER NOT NULL,
        PRIMARY KEY (customer_id, company_id, product, stage)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS alert_mail_marks (
        customer_id TEXT NOT NULL, recipient TEXT NOT NULL, company_id TEXT NOT NULL, day TEXT NOT NULL, holder TEXT NOT NULL,
        PRIMARY KEY (customer_id, day, recipient, company_id)) WITHOUT ROWID;`),
  // 18: engaged time and custom events (engagement/sqlite.ts): per account, UTC day and path the ms a page
  // was visible, per account, day and name the count of a custom event, and each account's latest events
  // (properties as JSON) in insertion order.
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS engaged_time (
        customer_id TEXT NOT NULL, company_id TEXT NOT NULL, day TEXT NOT NULL, path TEXT NOT NULL, ms INTEGER NOT NULL,
        PRIMARY KEY (customer_id, company_id, day, path)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS engaged_time_day ON engaged_time (customer_id, day);
      CREATE TABLE IF NOT EXISTS engagement_events (
        customer_id TEXT NOT NULL, company_id TEXT NOT NULL, day TEXT NOT NULL, name TEXT NOT NULL, count INTEGER NOT NULL,
        PRIMARY KEY (customer_id, company_id, day, name)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS engagement_events_day ON engagement_events (customer_id, day);
      CREATE TABLE IF NOT EXISTS engagement_recent (
        id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, company_id TEXT NOT NULL, at TEXT NOT NULL,
        name TEXT NOT NULL, path TEXT NOT NULL, properties TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS engagement_recent_account ON engagement_recent (customer_id, company_id, id);`),
  // 19: anonymous page views per customer, UTC day and reason they matched no company (visits/sqlite-coverage.ts):
  // the Visitors report's split of visit_anonymous, counted in the same transaction; days before it are unclassified.
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS visit_unidentified (
        customer_id TEXT NOT NULL, day TEXT NOT NULL, reason TEXT NOT NULL, page_views INTEGER NOT NULL,
        PRIMARY KEY (customer_id, day, reason)) WITHOUT ROWID;`),
  // 20: the per-day rollup Home reads (visits/rollup.ts, sqlite-rollup.ts): identified views and accounts
  // first seen per day, the day's accounts per gap since their previous visiting day, each day's accounts
  // ranked by views, an account's days in order — filled from the aggregates the file holds, so every day is covered.
  (db) =>
    db.exec(`
      CREATE TABLE IF NOT EXISTS visit_days (
        customer_id TEXT NOT NULL, day TEXT NOT NULL, page_views INTEGER NOT NULL, new_accounts INTEGER NOT NULL,
        PRIMARY KEY (customer_id, day)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS visit_day_gaps (
        customer_id TEXT NOT NULL, day TEXT NOT NULL, gap INTEGER NOT NULL, accounts INTEGER NOT NULL,
        PRIMARY KEY (customer_id, day, gap)) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS visit_accounts_rank ON visit_accounts (customer_id, day, page_views DESC, company_id);
      CREATE INDEX IF NOT EXISTS visit_accounts_company ON visit_accounts (customer_id, company_id, day);
      INSERT OR IGNORE INTO visit_days SELECT customer_id, day, sum(page_views), 0 FROM visit_accounts GROUP BY customer_id, day;
      INSERT INTO visit_days SELECT customer_id, day, 0, count(*) FROM visit_account_first WHERE true GROUP BY customer_id, day
        ON CONFLICT (customer_id, day) DO UPDATE SET new_accounts = excluded.new_accounts;
      INSERT OR IGNORE INTO visit_day_gaps SELECT customer_id, day, gap, count(*) FROM (
        SELECT customer_id, day, CASE WHEN prev IS NULL OR julianday(day) - julianday(prev) >= ${ROLLUP_SPAN_DAYS} THEN 0
          ELSE CAST(julianday(day) - julianday(prev) AS INTEGER) END AS gap
        FROM (SELECT customer_id, day, lag(day) OVER (PARTITION BY customer_id, company_id ORDER BY day) AS prev FROM visit_accounts))
        GROUP BY customer_id, day, gap;`),
  // 21: a token can carry the account's followed intent topics in its answers (TokenRecord.intent_topics; off before).
  (db) => addColumn(db, 'tokens', 'intent_topics', 'INTEGER NOT NULL DEFAULT 0'),
];

export const STATE_MIGRATIONS: MigrationList = { file: 'the state file', steps: STATE_STEPS };
/** The state file's version. */
export const SCHEMA_VERSION = STATE_STEPS.length;

/**
 * A node's enrichment jobs (enrichment/jobs/job-store.ts). Version 1 is the table as the job store created
 * it (IF NOT EXISTS at every open) before it was versioned: files from then open as version 0 and gain
 * nothing but their version.
 */
export const JOBS_MIGRATIONS: MigrationList = {
  file: 'the jobs file',
  steps: [
    (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS enrich_jobs (
          id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL, file_name TEXT NOT NULL,
          column_req TEXT, column_used TEXT NOT NULL, input_bytes INTEGER NOT NULL, rows_total INTEGER NOT NULL,
          rows_done INTEGER NOT NULL DEFAULT 0, credits INTEGER NOT NULL DEFAULT 0, statuses TEXT NOT NULL DEFAULT '{}',
          rate REAL, error TEXT, created_by TEXT NOT NULL, created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT,
          updated_at TEXT NOT NULL, node TEXT NOT NULL, owner TEXT, heartbeat_ms INTEGER, removed INTEGER NOT NULL DEFAULT 0,
          attempts INTEGER NOT NULL DEFAULT 0, retry_at_ms INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX IF NOT EXISTS enrich_jobs_customer ON enrich_jobs (customer_id, created_at);`),
  ],
};

/** Columns added by a migration may already exist in files that had them before versioning. */
function addColumn(db: Database.Database, table: string, column: string, definition: string): void {
  const columns = db.pragma(`table_info(${table})`) as { name: string }[];
  if (!columns.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
}

/** Brings the file to its list's last version; returns the version it had. */
export function migrate(db: Database.Database, list: MigrationList = STATE_MIGRATIONS): number {
  const target = list.steps.length;
  const from = checkedVersion(db, list);
  if (from === target) return from;
  db.transaction(() => {
    // Read again under the write lock: another process (a worker starting beside this one) may have
    // migrated since the read above.
    for (let v = checkedVersion(db, list); v < target; v++) list.steps[v]!(db);
    db.pragma(`user_version = ${target}`);
  }).immediate();
  return from;
}

function checkedVersion(db: Database.Database, list: MigrationList): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > list.steps.length) {
    throw new Error(`${list.file} has schema version ${version}, newer than this server's ${list.steps.length}: upgrade the server`);
  }
  return version;
}
