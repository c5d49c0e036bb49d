/**
 * The catalog's lookup caches live in one snapshot: after a reload (a new `data build` in the folder),
 * lookups answer from the new files, never from what the old snapshot cached.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonRow } from '../../core/catalog-records.ts';
import { buildDataset } from '../../data/build/build.ts';
import { DOMAIN_COLUMNS, type DomainRow, ENGAGEMENT_COLUMNS, type EngagementRow, PERSON_COLUMNS } from '../../data/sources/schema.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FIXTURE_PEOPLE, NORTHWIND_EUROPE } from '../testing/fixtures.ts';
import { writeFixtureSources } from '../testing/test-server.ts';
import { Dataset } from './dataset.ts';

let dir: string;
const sources = () => join(dir, 'sources');
const data = () => join(dir, 'data');

async function build(people: PersonRow[], domains: DomainRow[], engagement: EngagementRow[]): Promise<void> {
  writeFixtureSources(sources(), [ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE]);
  writeFileSync(join(sources(), 'people.csv'), stringify(people, { header: true, columns: PERSON_COLUMNS as string[] }));
  writeFileSync(join(sources(), 'domains.csv'), stringify(domains, { header: true, columns: [...DOMAIN_COLUMNS] }));
  writeFileSync(join(sources(), 'engagement.csv'), stringify(engagement, { header: true, columns: [...ENGAGEMENT_COLUMNS] }));
  await buildDataset({ in: sources(), out: data() });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-catalog-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('catalog lookup caches', () => {
  it('answer repeats with the same rows, frozen, and a reload answers from the new build', async () => {
    const jane = FIXTURE_PEOPLE[0];
    await build(FIXTURE_PEOPLE, [], [{ people_id: jane.people_id, activity: 'meeting', count: 3, observed_at: '2026-11-01' }]);
    const dataset = new Dataset(data());
    try {
      const before = dataset.current.catalog;
      const person = before.personByEmail(jane.email);
      expect(person?.title).toBe('VP of Marketing');
      expect(before.personByEmail(` ${jane.email.toUpperCase()} `)).toBe(person); // cached under the normalised address
      expect(Object.isFrozen(person)).toBe(true);
      expect(before.personByEmail('nobody@northwind.example')).toBeNull();
      expect(before.personByEmail('nobody@northwind.example')).toBeNull(); // a cached miss stays a miss
      const byDomain = before.companiesByDomain('northwind.example');
      expect(byDomain.map((c) => c.company_id)).toEqual(['900001']);
      expect(before.companiesByDomain('https://www.Northwind.example/about')).toBe(byDomain);
      expect(Object.isFrozen(byDomain) && Object.isFrozen(byDomain[0])).toBe(true);
      expect(before.engagement(jane.people_id).map((e) => e.count)).toEqual([3]);

      // New build: Jane's title changes, northwind.example also names 900003, her engagement grows.
      await build(
        [{ ...jane, title: 'Chief Marketing Officer' }, ...FIXTURE_PEOPLE.slice(1)],
        [{ domain: 'northwind.example', company_id: '900003' }],
        [{ people_id: jane.people_id, activity: 'meeting', count: 7, observed_at: '2026-11-02' }],
      );
      expect(dataset.reload()).toBe(true);
      const after = dataset.current.catalog;
      expect(after.personByEmail(jane.email)?.title).toBe('Chief Marketing Officer');
      expect(after.companiesByDomain('northwind.example').map((c) => c.company_id)).toEqual(['900001', '900003']);
      expect(after.engagement(jane.people_id).map((e) => e.count)).toEqual([7]);
      // The old snapshot (still serving requests that started on it) keeps its own answers.
      expect(before.personByEmail(jane.email)?.title).toBe('VP of Marketing');
    } finally {
      dataset.close();
    }
  });
});
