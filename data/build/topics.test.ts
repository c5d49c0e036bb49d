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
import { buildDataset } from './build.ts';

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

  it('a catalog built before topics existed reads as one without them', async () => {
    const b = await built('old', TOPICS);
    const file = join(b.out, CATALOG_FILE);
    const db = new Database(file);
    db.exec('DROP TABLE topics; DROP TABLE topic_names;');
    db.close();
    const catalog = openCatalog(file);
    expect(catalog.topics.latestWeek()).toBeNull();
    expect(catalog.topics.ofCompany('900001')).toEqual([]);
    expect(catalog.topics.companiesScoring('erp', '2026-01-05', 0)).toEqual([]);
    catalog.close();
  });
});
