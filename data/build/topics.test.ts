/**
 * `data build` carries topics.csv into the catalog, and the served dataset reads it back (server/data/
 * catalog-topics.ts): each account's weekly scores, the topic names with their accounts and surges, the
 * latest week, the accounts reaching a score since a week; a repeat keeps the higher score; a row of an
 * unknown company is refused with its row; a catalog built before topics reads as one without them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Catalog, openCatalog } from '../../server/data/catalog.ts';
import { followedTopics } from '../../server/data/catalog-topics.ts';
import { writeFixtureSources } from '../../server/testing/test-server.ts';
import { CATALOG_FILE } from '../catalog/schema.ts';
import { SourceError } from '../sources/read.ts';
import { buildDataset, isStale } from './build.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-topics-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TOPICS = [
  'company_id,topic,score,week',
  '900001,customer data platform,45,2026-10-05',
  '900001,customer data platform,58,2026-10-12',
  '900001,customer data platform,66,2026-10-21', // a Wednesday: the week of 2026-10-19
  '900001,Customer Data Platform,50,2026-10-19', // the same week, another spelling: the higher score stays
  '900001,customer data platform,81,2026-10-26',
  '900001,erp,30,2026-10-26',
  '900002,erp,62,2026-10-26',
  '900002,customer data platform,59,2026-10-26',
].join('\n');

async function built(name: string, topics: string | null): Promise<{ out: string; topics: number }> {
  const sources = join(root, `${name}-sources`);
  writeFixtureSources(sources);
  if (topics !== null) writeFileSync(join(sources, 'topics.csv'), `${topics}\n`);
  const out = join(root, `${name}-data`);
  const summary = await buildDataset({ in: sources, out });
  return { out, topics: summary.topics };
}

describe('data build → the served dataset’s topics', () => {
  let catalog: Catalog;
  let rows: number;
  beforeAll(async () => {
    const b = await built('topics', TOPICS);
    rows = b.topics;
    catalog = openCatalog(join(b.out, CATALOG_FILE));
  });
  afterAll(() => catalog?.close());

  it('loads every row and knows the latest week', () => {
    expect(rows).toBe(8);
    expect(catalog.topics.latestWeek()).toBe('2026-10-26');
  });

  it('answers an account’s topics with their weekly scores, weeks as Mondays, a repeat kept at its higher score', () => {
    expect(catalog.topics.ofCompany('900001')).toEqual([
      {
        topic: 'customer data platform',
        weeks: [
          { week: '2026-10-05', score: 45 },
          { week: '2026-10-12', score: 58 },
          { week: '2026-10-19', score: 66 },
          { week: '2026-10-26', score: 81 },
        ],
      },
      { topic: 'erp', weeks: [{ week: '2026-10-26', score: 30 }] },
    ]);
    expect(catalog.topics.ofCompany('no-such-company')).toEqual([]);
  });

  it('lists the topic names with their accounts and those surging (≥ 60) in the latest week', () => {
    expect(catalog.topics.names()).toEqual([
      { name: 'customer data platform', accounts: 2, surging: 1 },
      { name: 'erp', accounts: 2, surging: 1 },
    ]);
    expect(catalog.topics.named('  CUSTOMER Data Platform ')).toBe('customer data platform');
    expect(catalog.topics.named('crm')).toBeNull();
  });

  it('finds the accounts whose score reached a minimum since a week (what a segment’s topic rule reads)', () => {
    expect(catalog.topics.companiesScoring('Customer Data Platform', '2026-10-26', 60).sort()).toEqual(['900001']);
    expect(catalog.topics.companiesScoring('customer data platform', '2026-10-26', 59).sort()).toEqual(['900001', '900002']);
    expect(catalog.topics.companiesScoring('customer data platform', '2026-10-19', 82)).toEqual([]);
    expect(catalog.topics.companiesScoring('erp', '2026-10-05', 31)).toEqual(['900002']);
  });

  it('gives an answer the followed topics of the latest week, highest first', () => {
    expect(followedTopics(catalog.topics, ['ERP', 'customer data platform', 'crm'], '900002')).toEqual([
      { topic: 'erp', score: 62, surging: true, week: '2026-10-26' },
      { topic: 'customer data platform', score: 59, surging: false, week: '2026-10-26' },
    ]);
    expect(followedTopics(catalog.topics, [], '900002')).toEqual([]);
  });
});

describe('data build: topics.csv rows it refuses, and datasets without topics', () => {
  it('refuses a row of a company companies.csv does not hold, naming its row', async () => {
    await expect(built('unknown', 'company_id,topic,score,week\n900001,erp,50,2026-10-26\n555555,erp,50,2026-10-26')).rejects.toThrow(
      new SourceError('topics.csv: row 2: unknown company_id 555555 (not in companies.csv)'),
    );
  });

  it('refuses a score outside 0–100 or a week that is no date, with the file and row', async () => {
    await expect(built('score', 'company_id,topic,score,week\n900001,erp,101,2026-10-26')).rejects.toThrow(/topics\.csv: row 2: score: a number from 0 to 100/);
    await expect(built('week', 'company_id,topic,score,week\n900001,erp,50,last week')).rejects.toThrow(/topics\.csv: row 2: week: a date YYYY-MM-DD/);
  });

  it('a sources folder without topics.csv builds a dataset without topics', async () => {
    const b = await built('none', null);
    const catalog = openCatalog(join(b.out, CATALOG_FILE));
    expect(b.topics).toBe(0);
    expect(catalog.topics.latestWeek()).toBeNull();
    expect(catalog.topics.names()).toEqual([]);
    catalog.close();
  });

  it('builds the same topics whatever the order of the rows (a company’s rows apart, weeks backwards)', async () => {
    const [header, ...rows] = TOPICS.split('\n');
    const shuffled = [rows[7], rows[4], rows[0], rows[6], rows[3], rows[1], rows[5], rows[2]];
    const a = await built('ordered', TOPICS);
    const b = await built('shuffled', [header, ...shuffled].join('\n'));
    const [ca, cb] = [a, b].map((x) => openCatalog(join(x.out, CATALOG_FILE)));
    try {
      for (const id of ['900001', '900002']) expect(cb.topics.ofCompany(id)).toEqual(ca.topics.ofCompany(id));
      expect(cb.topics.names()).toEqual(ca.topics.names());
      expect(cb.topics.companiesScoring('customer data platform', '2026-10-05', 59).sort()).toEqual(['900001', '900002']);
      expect(cb.topics.ofCompany('900001')[0]!.weeks).toEqual([
        { week: '2026-10-05', score: 45 },
        { week: '2026-10-12', score: 58 },
        { week: '2026-10-19', score: 66 },
        { week: '2026-10-26', score: 81 },
      ]);
    } finally {
      ca.close();
      cb.close();
    }
  });

  it('rounds a decimal score and compares topic names as SQLite’s NOCASE does (ASCII letters only)', async () => {
    const b = await built(
      'fold',
      [
        'company_id,topic,score,week',
        '900001,ERP,61.5,2026-10-26',
        '900001,erp,12.25,2026-10-19',
        '900001,Énergie,70,2026-10-26',
        '900001,énergie,40,2026-10-26',
      ].join('\n'),
    );
    const catalog = openCatalog(join(b.out, CATALOG_FILE));
    try {
      expect(catalog.topics.ofCompany('900001')).toEqual([
        {
          topic: 'ERP',
          weeks: [
            { week: '2026-10-19', score: 12 },
            { week: '2026-10-26', score: 62 },
          ],
        },
        { topic: 'Énergie', weeks: [{ week: '2026-10-26', score: 70 }] },
        { topic: 'énergie', weeks: [{ week: '2026-10-26', score: 40 }] },
      ]);
      expect(catalog.topics.companiesScoring('erp', '2026-10-26', 62)).toEqual(['900001']);
      expect(catalog.topics.companiesScoring('erp', '2026-10-26', 63)).toEqual([]);
      // 12 was reached, but not since a week after it.
      expect(catalog.topics.companiesScoring('erp', '2026-11-02', 12)).toEqual([]);
    } finally {
      catalog.close();
    }
  });

  it('a catalog of the first layout (a row per week, version 1) reads as one without topics, and --if-stale rebuilds it', async () => {
    const b = await built('v1', TOPICS);
    const file = join(b.out, CATALOG_FILE);
    const db = new Database(file);
    db.exec(`DROP TABLE topic_weeks;
      CREATE TABLE topics (company_id TEXT NOT NULL, topic TEXT NOT NULL COLLATE NOCASE, week TEXT NOT NULL, score INTEGER NOT NULL,
        PRIMARY KEY (company_id, topic, week)) WITHOUT ROWID;
      INSERT INTO topics VALUES ('900001', 'erp', '2026-10-26', 30);
      UPDATE meta SET value = '1' WHERE key = 'version';`);
    db.close();
    const catalog = openCatalog(file);
    expect(catalog.topics.ofCompany('900001')).toEqual([]);
    catalog.close();
    const sources = join(root, 'v1-sources');
    expect(isStale(sources, b.out)).toBe(true);
    await buildDataset({ in: sources, out: b.out });
    expect(isStale(sources, b.out)).toBe(false);
  });

  it('a catalog built before topics existed reads as one without them', async () => {
    const b = await built('old', TOPICS);
    const file = join(b.out, CATALOG_FILE);
    const db = new Database(file);
    db.exec('DROP TABLE topic_weeks; DROP TABLE topic_names;');
    db.close();
    const catalog = openCatalog(file);
    expect(catalog.topics.latestWeek()).toBeNull();
    expect(catalog.topics.ofCompany('900001')).toEqual([]);
    expect(catalog.topics.companiesScoring('erp', '2026-01-05', 0)).toEqual([]);
    catalog.close();
  });
});
