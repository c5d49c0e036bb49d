/**
 * The topics of `data build`: topics.csv (third-party topic surge, ../sources/schema.ts TopicRow) into the
 * catalog's `topic_weeks` table (one row per company and topic: ../catalog/schema.ts TOPICS_DDL), then per
 * topic its accounts and those surging in the latest week (`topic_names`) and that week
 * (`meta.topics_latest_week`): what the server reads without a scan.
 */
import type Database from 'better-sqlite3';
import { TOPIC_SURGE_SCORE } from '../../core/topic-records.ts';
import { TOPIC_WEEKS, TOPICS_INDEX, TOPICS_LATEST_WEEK } from '../catalog/schema.ts';
import { readOptionalCsvBatches, SourceError } from '../sources/read.ts';
import { SOURCE_FILES, TopicRow } from '../sources/schema.ts';
import { inBatches } from './bulk.ts';

/** One company's topic while its rows are read: the first spelling, each week's highest score. */
interface Series {
  topic: string;
  weeks: Map<string, number>;
  max: number;
}

/**
 * Loads topics.csv (absent: none); a row of a company companies.csv lacks is refused with its row number.
 * A company's rows usually come together (a vendor's export, `data generate`): they are gathered in memory
 * and written as one row per topic when the next company starts. A company whose rows come apart is merged
 * by the upsert, so any order of rows builds the same table.
 */
export async function loadTopics(db: Database.Database, dir: string, ids: ReadonlySet<string>, tick?: (n: number) => void): Promise<number> {
  // A repeat of (company, topic, week) keeps the higher score: a vendor keys by domain, and two domains of one
  // company can both be in its export.
  db.function('merge_topic_weeks', { deterministic: true }, (had: unknown, more: unknown) => {
    const weeks = new Map<string, number>();
    for (const w of [...TOPIC_WEEKS.decode(had as string), ...TOPIC_WEEKS.decode(more as string)]) keepHigher(weeks, w.week, w.score);
    return TOPIC_WEEKS.encode(weeks);
  });
  const insert = db.prepare(
    `INSERT INTO topic_weeks VALUES (?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET weeks = merge_topic_weeks(weeks, excluded.weeks), max_score = max(max_score, excluded.max_score)`,
  );
  let company = '';
  let topics = new Map<string, Series>();
  const flush = () => {
    for (const t of topics.values()) insert.run(company, t.topic, TOPIC_WEEKS.encode(t.weeks), t.max);
    topics = new Map();
  };
  let latest = '';
  let row = 0;
  const rows = await inBatches(db, readOptionalCsvBatches(dir, SOURCE_FILES.topics, TopicRow), tick, (r) => {
    row++;
    if (!ids.has(r.company_id))
      throw new SourceError(`${SOURCE_FILES.topics}: row ${row}: unknown company_id ${r.company_id} (not in ${SOURCE_FILES.companies})`);
    if (r.company_id !== company) {
      flush();
      company = r.company_id;
    }
    // The key the table's NOCASE collation compares: ASCII letters folded, nothing else.
    const key = asciiLower(r.topic);
    let t = topics.get(key);
    if (t === undefined) topics.set(key, (t = { topic: r.topic, weeks: new Map(), max: r.score }));
    keepHigher(t.weeks, r.week, r.score);
    if (r.score > t.max) t.max = r.score;
    if (r.week > latest) latest = r.week;
  });
  db.transaction(flush)();
  db.exec(TOPICS_INDEX);
  if (latest !== '') summariseTopics(db, latest);
  return rows;
}

function keepHigher(weeks: Map<string, number>, week: string, score: number): void {
  const had = weeks.get(week);
  if (had === undefined || score > had) weeks.set(week, score);
}

function asciiLower(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]/g, (c) => c.toLowerCase()) : s;
}

/** `topic_names` (each topic's accounts, and those at a surge in `latest`) and the latest week, in one pass over the rows. */
function summariseTopics(db: Database.Database, latest: string): void {
  const names = new Map<string, { name: string; accounts: number; surging: number }>();
  for (const r of db.prepare('SELECT topic, weeks FROM topic_weeks').iterate() as IterableIterator<{ topic: string; weeks: string }>) {
    const key = asciiLower(r.topic);
    let n = names.get(key);
    if (n === undefined) names.set(key, (n = { name: r.topic, accounts: 0, surging: 0 }));
    n.accounts++;
    // The weeks ascend: the latest week, if the account has a score in it, is the last.
    const last = r.weeks.slice(r.weeks.lastIndexOf(',') + 1);
    if (last.startsWith(latest) && Number(last.slice(latest.length)) >= TOPIC_SURGE_SCORE) n.surging++;
  }
  const insert = db.prepare('INSERT INTO topic_names VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const n of names.values()) insert.run(n.name, n.accounts, n.surging);
    db.prepare('INSERT INTO meta VALUES (?, ?)').run(TOPICS_LATEST_WEEK, latest);
  })();
}
