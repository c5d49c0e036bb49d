/**
 * The SQLite state file's schema and its forward migrations. The file carries its version in
 * `PRAGMA user_version`; opening runs every migration above it, in one transaction, so a file written by
 * an older version gains new tables and columns (a file from a newer version is refused, not guessed at).
 */
import type Database from 'better-sqlite3';

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

/** Migration i brings a file from version i to i + 1. Append only; never edit a shipped one. */
const MIGRATIONS: ((db: Database.Database) => void)[] = [
  (db) => db.exec(V1),
  // 2: per-tag settings, the cross-process auth version, and an index to expire rate-limit rows by window.
  (db) => {
    addColumn(db, 'tags', 'settings', `TEXT NOT NULL DEFAULT '{}'`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS auth_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
      INSERT OR IGNORE INTO auth_version VALUES (1, 0);
      CREATE INDEX IF NOT EXISTS rate_limits_window ON rate_limits (window_start);`);
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Columns added by a migration may already exist in files that had them before versioning. */
function addColumn(db: Database.Database, table: string, column: string, definition: string): void {
  const columns = db.pragma(`table_info(${table})`) as { name: string }[];
  if (!columns.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
}

/** Brings the file to SCHEMA_VERSION; returns the version it had. */
export function migrate(db: Database.Database): number {
  const from = db.pragma('user_version', { simple: true }) as number;
  if (from > SCHEMA_VERSION) {
    throw new Error(`the state file has schema version ${from}, newer than this server's ${SCHEMA_VERSION}: upgrade the server`);
  }
  if (from === SCHEMA_VERSION) return from;
  db.transaction(() => {
    for (let v = from; v < SCHEMA_VERSION; v++) MIGRATIONS[v](db);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
  return from;
}
