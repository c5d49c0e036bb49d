/**
 * The topics of `data build`: topics.csv (third-party topic surge, ../sources/schema.ts TopicRow) into the
 * catalog's `topics` table, then per topic its accounts and those surging in the latest week
 * (`topic_names`) and that week (`meta.topics_latest_week`): what the server reads without a scan.
 */
import type Database from 'better-sqlite3';
import { TOPIC_SURGE_SCORE } from '../../core/topic-records.ts';
import { TOPICS_INDEX, TOPICS_LATEST_WEEK } from '../catalog/schema.ts';
import { readOptionalCsvBatches, SourceError } from '../sources/read.ts';
import { SOURCE_FILES, TopicRow } from '../sources/schema.ts';
import { inBatches } from './bulk.ts';

/** Loads topics.csv (absent: none); a row of a company companies.csv lacks is refused with its row number. */
export async function loadTopics(db: Database.Database, dir: string, ids: ReadonlySet<string>, tick?: (n: number) => void): Promise<number> {
  // A repeat of (company, topic, week) keeps the higher score: a vendor keys by domain, and two domains of one
  // company can both be in its export.
  const insert = db.prepare('INSERT INTO topics VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET score = max(score, excluded.score)');
  let row = 0;
  const rows = await inBatches(db, readOptionalCsvBatches(dir, SOURCE_FILES.topics, TopicRow), tick, (r) => {
    row++;
    if (!ids.has(r.company_id))
      throw new SourceError(`${SOURCE_FILES.topics}: row ${row}: unknown company_id ${r.company_id} (not in ${SOURCE_FILES.companies})`);
    insert.run(r.company_id, r.topic, r.week, r.score);
  });
  db.exec(TOPICS_INDEX);
  summariseTopics(db);
  return rows;
}

/** `topic_names` and the latest week, from the loaded scores (through TOPICS_INDEX, which covers the GROUP BY). */
function summariseTopics(db: Database.Database): void {
  const latest = db.prepare('SELECT max(week) FROM topics').pluck().get() as string | null;
  if (latest === null) return;
  db.prepare(
    `INSERT INTO topic_names
       SELECT topic, count(DISTINCT company_id), count(DISTINCT CASE WHEN week = ? AND score >= ? THEN company_id END) FROM topics GROUP BY topic`,
  ).run(latest, TOPIC_SURGE_SCORE);
  db.prepare('INSERT INTO meta VALUES (?, ?)').run(TOPICS_LATEST_WEEK, latest);
}
