/**
 * `npm run bench -- segments [--companies N]` (default 1,000,000): the segment preview of the workspace
 * (POST /admin/api/customers/:id/segments/preview: size + first 20 accounts) as its handler computes it,
 * in process: the membership index build (once per data snapshot) and its heap, then per rule the first
 * evaluation (uncached) and a repeat (cached by the rule). Baseline in the same run: the same rule as one
 * SQL COUNT over the catalog's companies table (what a preview costs without the index).
 */

import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SegmentMatch } from '../core/customer-records.ts';
import { CATALOG_FILE } from '../data/catalog/schema.ts';
import { openCatalog } from '../server/data/catalog.ts';
import { segmentIndex } from '../server/segments/membership.ts';
import { previewSegment } from '../server/segments/routes.ts';
import { ensureBenchData } from './bench-data.ts';
import { median, record } from './results.ts';

const RULES: { name: string; match: SegmentMatch; sql: string }[] = [
  { name: 'industry', match: { industry: ['Software'] }, sql: "lower(industry) = 'software'" },
  {
    name: 'industry+size+region',
    match: { industry: ['Software', 'Financial Services'], employee_range: ['1,000-4,999', '5,000-9,999', '10,000+'], region: ['EMEA'] },
    sql: "lower(industry) IN ('software','financial services') AND employee_range IN ('1,000-4,999','5,000-9,999','10,000+') AND lower(region) = 'emea'",
  },
  { name: 'sic prefix+country', match: { sic_prefix: ['73'], country_iso_code: ['US'] }, sql: "sic LIKE '73%' AND lower(country_iso_code) = 'us'" },
];

export async function benchSegments(args: string[]): Promise<void> {
  const i = args.indexOf('--companies');
  const companies = i >= 0 ? Number(args[i + 1]) : 1_000_000;
  const data = await ensureBenchData(companies);
  const catalog = openCatalog(join(data.data, CATALOG_FILE));
  global.gc?.();
  const heap0 = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  let t = performance.now();
  const index = await segmentIndex(catalog);
  const buildMs = performance.now() - t;
  global.gc?.();
  const heapMb = (process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heap0) / 1e6;
  const db = new Database(join(data.data, CATALOG_FILE), { readonly: true });
  const figures: string[] = [];
  const ratios: string[] = [];
  for (const rule of RULES) {
    t = performance.now();
    const first = await previewSegment(catalog, rule.match);
    const coldMs = performance.now() - t;
    const warm: number[] = [];
    for (let k = 0; k < 20; k++) {
      t = performance.now();
      await previewSegment(catalog, rule.match);
      warm.push(performance.now() - t);
    }
    const sql: number[] = [];
    let sqlCount = 0;
    for (let k = 0; k < 3; k++) {
      t = performance.now();
      sqlCount = db.prepare(`SELECT COUNT(*) FROM companies WHERE ${rule.sql}`).pluck().get() as number;
      sql.push(performance.now() - t);
    }
    if (sqlCount !== first.size) console.warn(`  ${rule.name}: SQL counts ${sqlCount}, the index ${first.size} (case folding differs)`);
    figures.push(`${rule.name}: size ${first.size.toLocaleString('en-US')}, first ${coldMs.toFixed(1)} ms, cached ${median(warm).toFixed(2)} ms`);
    ratios.push(`${rule.name}: SQL COUNT ${median(sql).toFixed(0)} ms (${(median(sql) / coldMs).toFixed(1)}× the first preview)`);
  }
  db.close();
  catalog.close();
  record({
    benchmark: `segments (preview, ${companies.toLocaleString('en-US')} companies)`,
    figures: `index build ${(buildMs / 1000).toFixed(2)} s once per snapshot, +${heapMb.toFixed(0)} MB (${index.size.toLocaleString('en-US')} rows); ${figures.join('; ')}`,
    ratio: ratios.join('; '),
  });
}
