/**
 * The catalog: a read-only SQLite file written by `data build` and opened by every server node.
 * SQLite (not a JSON blob) so a million-company catalog opens instantly, costs no heap, and answers
 * lookups by company id, domain, email and people id through indexes.
 */
import { COMPANY_COLUMNS, PERSON_COLUMNS } from '../sources/schema.ts';

export const CATALOG_FILE = 'catalog.db';
export const NETWORKS_FILE = 'networks.mmdb';
/** Written last by `data build`: servers reload when it changes, so they never pair an old index with a new catalog. */
export const BUILD_MANIFEST = 'build.json';
/** 2: topics one row per company and topic (`topic_weeks`). `data build --if-stale` rebuilds an older catalog. */
export const CATALOG_VERSION = 2;

const cols = (names: readonly string[], pk: string) => names.map((c) => (c === pk ? `${c} TEXT PRIMARY KEY` : `${c} TEXT NOT NULL DEFAULT ''`)).join(', ');

/** The people table alone: `data build` may load it into a file of its own in a worker (../build/people.ts). */
export const PEOPLE_DDL = `CREATE TABLE people (${cols(PERSON_COLUMNS, 'people_id')}, email_lc TEXT NOT NULL DEFAULT '', linkedin_key TEXT NOT NULL DEFAULT '');`;

/**
 * Third-party topic surge (topics.csv): per company and topic (names compared ignoring case, spelled as first
 * seen) its weekly scores, one row, `weeks` holding them as `TOPIC_WEEKS` encodes them (a repeat of a week
 * keeps the higher score) and `max_score` the highest; and per topic, written once after the load
 * (../build/topics.ts), its accounts and those surging in the latest week — the topic picker's list without
 * a scan. One row per company and topic, not per week: a million companies' topics are 0.9 M rows instead of
 * 7.2 M, which the build loads and indexes in a third of the CPU. A catalog without these tables (built
 * before topics, or before version 2's layout) has no topics (server/data/catalog-topics.ts).
 */
export const TOPICS_DDL = `
CREATE TABLE topic_weeks (company_id TEXT NOT NULL, topic TEXT NOT NULL COLLATE NOCASE, weeks TEXT NOT NULL, max_score INTEGER NOT NULL,
  PRIMARY KEY (company_id, topic)) WITHOUT ROWID;
CREATE TABLE topic_names (topic TEXT PRIMARY KEY COLLATE NOCASE, accounts INTEGER NOT NULL, surging INTEGER NOT NULL) WITHOUT ROWID;`;

/** A topic's accounts by their highest score: the accounts that reached a score on it (a segment's topic rule). */
export const TOPICS_INDEX = 'CREATE INDEX topic_weeks_by_topic ON topic_weeks (topic, max_score);';

/**
 * `topic_weeks.weeks`: the weeks ascending, each its Monday (YYYY-MM-DD, 10 characters) followed by its score,
 * joined by commas — `2026-10-19`66`,`2026-10-26`81` is "2026-10-1966,2026-10-2681".
 */
export const TOPIC_WEEKS = {
  encode(weeks: ReadonlyMap<string, number>): string {
    return [...weeks.keys()]
      .sort()
      .map((w) => w + String(weeks.get(w)))
      .join(',');
  },
  decode(text: string): { week: string; score: number }[] {
    return text.split(',').map((e) => ({ week: e.slice(0, 10), score: Number(e.slice(10)) }));
  },
};

/** The `meta` key of the latest week the topics hold (absent: no topics). */
export const TOPICS_LATEST_WEEK = 'topics_latest_week';

export const CATALOG_DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE companies (${cols(COMPANY_COLUMNS, 'company_id')}) WITHOUT ROWID;
CREATE TABLE domains (domain TEXT NOT NULL, company_id TEXT NOT NULL, is_primary INTEGER NOT NULL,
  PRIMARY KEY (domain, company_id)) WITHOUT ROWID;
${PEOPLE_DDL}
CREATE TABLE intent (company_id TEXT NOT NULL, topic TEXT NOT NULL, strength REAL NOT NULL, observed_at TEXT NOT NULL);
CREATE TABLE engagement (people_id TEXT NOT NULL, activity TEXT NOT NULL, count INTEGER NOT NULL, observed_at TEXT NOT NULL);
${TOPICS_DDL}
-- Addresses verified against the built networks.mmdb to resolve to the given kind/company: demo visitors, tests.
CREATE TABLE network_samples (ip TEXT PRIMARY KEY, kind TEXT NOT NULL, company_id TEXT NOT NULL, network TEXT NOT NULL);
`;

/**
 * Indexes are created after the bulk load: building them once is much faster than maintaining them per row.
 * Those of the people table (built apart by big builds) and those of the main thread's tables (the topics'
 * own: TOPICS_INDEX).
 */
export const PEOPLE_INDEXES = `
CREATE INDEX people_email ON people (email_lc);
CREATE INDEX people_linkedin ON people (linkedin_key);
CREATE INDEX people_company ON people (company_id);
`;

export const OTHER_INDEXES = `
CREATE INDEX intent_company ON intent (company_id);
CREATE INDEX companies_name ON companies (name COLLATE NOCASE);
CREATE INDEX engagement_people ON engagement (people_id);
`;
