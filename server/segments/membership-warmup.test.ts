/**
 * The membership index is warm: the dataset starts building a snapshot's index when it opens it (start-up
 * and reload), without a request asking; while a reload's index is being built, previews answer from the
 * previous snapshot's index instead of waiting for the new one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { buildDataset } from '../../data/build/build.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import type { Catalog } from '../data/catalog.ts';
import { Dataset } from '../data/dataset.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, NORTHWIND_EUROPE } from '../testing/fixtures.ts';
import { writeFixtureSources } from '../testing/test-server.ts';
import { segmentIndex, segmentIndexBuild, warmSegmentIndex } from './membership.ts';
import { previewSegment } from './routes.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-segment-warm-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function build(companies: CompanyRow[]): Promise<void> {
  writeFixtureSources(join(dir, 'sources'), companies);
  await buildDataset({ in: join(dir, 'sources'), out: join(dir, 'data') });
}

const companyIds = (accounts: { companyId: string }[]) => accounts.map((a) => a.companyId);

describe('the segment index of a dataset', () => {
  it('is built when a snapshot is opened and on reload, before any request; a preview meanwhile answers from the previous index', async () => {
    await build([ACME_SOFTWARE, BLUEPEAK_MANUFACTURING]);
    const dataset = new Dataset(join(dir, 'data'));
    try {
      const first = dataset.current.catalog;
      const started = segmentIndexBuild(first);
      expect(started).toBeDefined(); // no request has asked for it
      expect((await started)?.size).toBe(2);

      // The new build names a second software company.
      await build([ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, { ...NORTHWIND_EUROPE, industry: 'Software' }]);
      expect(dataset.reload()).toBe(true);
      const second = dataset.current.catalog;
      const rebuilding = segmentIndexBuild(second);
      expect(rebuilding).toBeDefined();
      // Asked while the new index is under way: the previous snapshot's index answers.
      const during = await previewSegment(second, { industry: ['software'] });
      expect(during.size).toBe(1);
      expect(companyIds(during.accounts)).toEqual(['900001']);

      expect((await rebuilding)?.size).toBe(3);
      const after = await previewSegment(second, { industry: ['software'] });
      expect(companyIds(after.accounts)).toEqual(['900001', '900003']);
    } finally {
      dataset.close();
    }
  });
});

/** A catalog of n companies whose pages are read like SQLite's (company_id order, after a key). */
function pagedCatalog(n: number, industry: string): Catalog {
  const ids = Array.from({ length: n }, (_, i) => String(i + 1)).sort();
  const blank = Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])) as CompanyRow;
  return {
    companyColumns: (columns, after, limit) => {
      let lo = 0;
      let hi = ids.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (ids[mid] <= after) lo = mid + 1;
        else hi = mid;
      }
      return ids.slice(lo, lo + limit).map((id) => {
        const row: CompanyRow = { ...blank, company_id: id, industry };
        return columns.map((c) => row[c]);
      });
    },
  } as Catalog;
}

describe('segmentIndex during a rebuild', () => {
  it('answers from the replaced snapshot on every turn until the new index is ready, then from the new one', async () => {
    const old = pagedCatalog(10, 'Software');
    warmSegmentIndex(old);
    expect((await segmentIndex(old)).size).toBe(10);

    // Big enough that its build yields the event loop many times.
    const next = pagedCatalog(300_000, 'Retail');
    warmSegmentIndex(next, old);
    const building = segmentIndexBuild(next)!;
    let ready = false;
    void building.then(() => {
      ready = true;
    });
    let turns = 0;
    while (!ready) {
      const answering = await segmentIndex(next);
      if (!ready) expect(answering.size).toBe(10);
      turns++;
      await new Promise((r) => setImmediate(r));
    }
    expect(turns).toBeGreaterThan(1);
    const index = await segmentIndex(next);
    expect(index.size).toBe(300_000);
    expect(index.membersOf({ industry: ['retail'] }).length).toBe(300_000);
  });

  it('builds an index nobody warmed on first use, and again after a failed build', async () => {
    let fail = true;
    const base = pagedCatalog(5, 'Software');
    const flaky = {
      companyColumns: (columns, after, limit) => {
        if (fail) throw new Error('The database connection is not open');
        return base.companyColumns(columns, after, limit);
      },
    } as Catalog;
    expect(segmentIndexBuild(flaky)).toBeUndefined();
    await expect(segmentIndex(flaky)).rejects.toThrow('not open');
    fail = false;
    expect((await segmentIndex(flaky)).size).toBe(5);
  });
});
