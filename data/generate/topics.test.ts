/**
 * The generator's topics.csv: weekly scores of each company's intent topics over the last 8 weeks (Mondays,
 * the latest the week of the data's "now"), following intent.csv; the demo accounts surge (≥ 60) on their
 * focus topics in the latest week whatever the seed, so the demo's account pages and topic segments show
 * them; the same seed writes the same bytes, and the other files are what they were without topics.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPIC_SURGE_SCORE, weeksBefore } from '../../core/topic-records.ts';
import { TopicRow } from '../sources/schema.ts';
import { DEMO_TOPICS } from './customers.ts';
import { type GenerateSummary, generateSources } from './generate.ts';
import { SAMPLE_LATEST_WEEK, TOPIC_SAMPLE_WEEKS } from './topics.ts';

const root = mkdtempSync(join(tmpdir(), 'svc-gen-topics-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Row = Record<string, string>;
const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file)), { columns: true }) as Row[];

for (const seed of ['1', 'topics-2']) {
  describe(`topics.csv of seed ${seed}`, () => {
    const dir = join(root, seed);
    let summary: GenerateSummary;
    let topics: Row[];
    beforeAll(async () => {
      summary = await generateSources({ out: dir, companies: 120, seed });
      topics = rows(dir, 'topics.csv');
    });

    it('holds valid rows: eight weeks per company topic, Mondays ending on the week of the data’s now', () => {
      expect(SAMPLE_LATEST_WEEK).toBe('2026-10-26');
      const weeks = Array.from({ length: TOPIC_SAMPLE_WEEKS }, (_, i) => weeksBefore(SAMPLE_LATEST_WEEK, TOPIC_SAMPLE_WEEKS - 1 - i));
      expect(new Set(topics.map((r) => r.week))).toEqual(new Set(weeks));
      for (const r of topics) expect(TopicRow.safeParse(r).success, JSON.stringify(r)).toBe(true);
      const perTopic = new Map<string, number>();
      for (const r of topics) perTopic.set(`${r.company_id}|${r.topic}`, (perTopic.get(`${r.company_id}|${r.topic}`) ?? 0) + 1);
      expect(new Set(perTopic.values())).toEqual(new Set([TOPIC_SAMPLE_WEEKS]));
      expect(summary.files.topics.rows).toBe(topics.length);
    });

    it('follows intent.csv: every company topic is one of its intent signals, and every signal has its weeks', () => {
      const signals = new Set(rows(dir, 'intent.csv').map((r) => `${r.company_id}|${r.topic}`));
      const scored = new Set(topics.map((r) => `${r.company_id}|${r.topic}`));
      expect(scored).toEqual(signals);
    });

    it('the demo’s hot and segment accounts surge on their focus topics in the latest week', () => {
      const latest = (company: string, topic: string) => topics.find((r) => r.company_id === company && r.topic === topic && r.week === SAMPLE_LATEST_WEEK);
      const retailer = summary.demo.hot.find((h) => h.label === 'ICP-fit retailer')!;
      for (const topic of DEMO_TOPICS.slice(0, 4)) expect(Number(latest(retailer.company_id, topic)?.score), topic).toBeGreaterThanOrEqual(TOPIC_SURGE_SCORE);
      const member = summary.demo.segment[0]!;
      for (const topic of DEMO_TOPICS.slice(0, 3)) expect(Number(latest(member.company_id, topic)?.score), topic).toBeGreaterThanOrEqual(TOPIC_SURGE_SCORE);
    });
  });
}

describe('determinism', () => {
  it('the same seed writes the same topics.csv', async () => {
    await generateSources({ out: join(root, 'again'), companies: 120, seed: '1' });
    expect(readFileSync(join(root, 'again', 'topics.csv')).equals(readFileSync(join(root, '1', 'topics.csv')))).toBe(true);
  });
});
