/**
 * `npm run bench -- segments [--companies N]` (default 1,000,000): the segment preview of the workspace
 * (POST /admin/api/customers/:id/segments/preview: size + first 20 accounts) as its handler computes it,
 * in process: the membership index build (once per data snapshot: wall and CPU time, the event loop's
 * delay meanwhile (max and p99; on a busy machine the max is mostly the OS scheduler), heap kept and at its peak), then per rule the first evaluation (uncached) and a
 * repeat (cached by the rule); then a reload: a new snapshot of the same file warmed as the dataset warms
 * it, with a preview every 20 ms during its build (answered by the previous index: their slowest). Baseline
 * in the same run: the same rule as one SQL COUNT over the catalog's companies table (what a preview costs
 * without the index).
 */

import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import type { SegmentMatch } from '../core/customer-records.ts';
import { CATALOG_FILE } from '../data/catalog/schema.ts';
import { openCatalog } from '../server/data/catalog.ts';
import { segmentIndex, segmentIndexBuild, warmSegmentIndex } from '../server/segments/membership.ts';
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

/** V8's collector, for heap figures without garbage (tsx runs the benchmarks without --expose-gc). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const heapNow = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;

export async function benchSegments(args: string[]): Promise<void> {
  const i = args.indexOf('--companies');
  const companies = i >= 0 ? Number(args[i + 1]) : 1_000_000;
  const data = await ensureBenchData(companies);
  const catalog = openCatalog(join(data.data, CATALOG_FILE));
  const gc = collector();
  gc();
  const heap0 = heapNow();
  let peak = heap0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, heapNow());
  }, 10);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  let t = performance.now();
  const index = await segmentIndex(catalog);
  const buildMs = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  clearInterval(sampler);
  const buildCpuMs = (cpu.user + cpu.system) / 1000;
  const loopMaxMs = loop.max / 1e6;
  // Twice: the first pass can leave the build's last garbage to a sweep still under way.
  gc();
  gc();
  const heapMb = (heapNow() - heap0) / 1e6;
  const peakMb = (peak - heap0) / 1e6;
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

  // A reload: a new snapshot (a new catalog object on the same file) warmed as the dataset warms it; a
  // marketer previews every 20 ms meanwhile.
  const next = openCatalog(join(data.data, CATALOG_FILE));
  const during: number[] = [];
  const reloadLoop = monitorEventLoopDelay({ resolution: 5 });
  reloadLoop.enable();
  t = performance.now();
  warmSegmentIndex(next, catalog);
  const built = segmentIndexBuild(next)!;
  let ready = false;
  void built.then(() => {
    ready = true;
  });
  while (!ready) {
    const t0 = performance.now();
    await previewSegment(next, RULES[1].match);
    during.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  const rebuildMs = performance.now() - t;
  reloadLoop.disable();
  catalog.close();
  next.close();
  record({
    benchmark: `segments (preview, ${companies.toLocaleString('en-US')} companies)`,
    figures:
      `index build ${(buildMs / 1000).toFixed(2)} s (CPU ${(buildCpuMs / 1000).toFixed(2)} s) once per snapshot, event loop delay max ${loopMaxMs.toFixed(0)} ms (p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms), ` +
      `+${heapMb.toFixed(0)} MB kept (peak +${peakMb.toFixed(0)} MB) (${index.size.toLocaleString('en-US')} rows); ${figures.join('; ')}; ` +
      `reload: new index in ${(rebuildMs / 1000).toFixed(2)} s, ${during.length} previews meanwhile from the previous index, slowest ${Math.max(...during).toFixed(1)} ms, event loop delay max ${(reloadLoop.max / 1e6).toFixed(0)} ms (p99 ${(reloadLoop.percentile(99) / 1e6).toFixed(0)} ms)`,
    ratio: ratios.join('; '),
  });
}
