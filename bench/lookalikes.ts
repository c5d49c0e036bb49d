/**
 * `npm run bench -- lookalikes [--companies N] [--seed N]` (defaults 1,000,000 and 1,000): lookalike
 * accounts (issue 37) in process, no HTTP, on the generated data the `segments` benchmark uses:
 *
 * - the snapshot's lookalike index build (server/lookalikes/snapshot-index.ts, once per snapshot, as the
 *   dataset warms it): wall and CPU time, the event loop's longest block meanwhile, heap kept;
 * - the preview (server/lookalikes/routes.ts `lookalikePreview`, what POST …/lookalikes/preview answers:
 *   20 accounts with scores and reasons) of a 1,000-account seed list after the index is warm: the first
 *   (the seed scored against every company) and the median of 10 other seeds of the same size, each asked
 *   for the first time, with the event loop's longest block during them; the median of 20 repeats of one
 *   seed (its scores kept);
 * - the `lookalike` segment rule's size (the segment preview, min_score 0.7), the membership index warm.
 *
 * Baseline in the same run: the naive way — a full scan of the catalog's companies table scoring every
 * row with the method itself (`familyMatch` per value of each row, no per-value tables), then sorting; it
 * must find the same 20 accounts with the same scores (checked). The load average is printed with the row
 * (the machine is shared).
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { CATALOG_FILE } from '../data/catalog/schema.ts';
import { openCatalog } from '../server/data/catalog.ts';
import { FAMILIES, type FeatureRow, familyMatch, type Profile, thousandths } from '../server/lookalikes/method.ts';
import { lookalikePreview } from '../server/lookalikes/routes.ts';
import { lookalikeIndexBuild, warmLookalikeIndex } from '../server/lookalikes/snapshot-index.ts';
import { listMembers } from '../server/segments/evaluate.ts';
import { seedSources } from '../server/segments/lookalike-seeds.ts';
import { segmentIndex } from '../server/segments/membership.ts';
import { previewSegment } from '../server/segments/routes.ts';
import { ensureBenchData } from './bench-data.ts';
import { median, record } from './results.ts';

const SEEDS_ASKED = 10;
const REPEATS = 20;

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} takes a positive whole number`);
  return v;
}

function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const heapNow = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
const n = (x: number) => x.toLocaleString('en-US');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * Wall ms of `go`, its CPU ms (every thread of the process: the compiler's and the collector's too), and the
 * event loop's longest delay meanwhile (ms, 1 ms resolution; on a shared machine the OS scheduler's pauses
 * count too: read it with the load average).
 */
async function timed<T>(go: () => Promise<T>): Promise<{ ms: number; cpuMs: number; blockMs: number; result: T }> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // The sampling timer's first expiry only starts its clock (so does reset()): let it run a few times, so a
  // block at the very start counts too.
  await new Promise((r) => setTimeout(r, 3));
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await go();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // A turn more, so the sampling timer a long block delayed has fired and been counted.
  await new Promise((r) => setTimeout(r, 5));
  loop.disable();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, blockMs: loop.max / 1e6, result };
}

export async function benchLookalikes(args: string[]): Promise<void> {
  const companies = option(args, '--companies', 1_000_000);
  const seedSize = option(args, '--seed', 1_000);
  const data = await ensureBenchData(companies);
  const loadBefore = load();
  const file = join(data.data, CATALOG_FILE);
  const catalog = openCatalog(file);
  const db = new Database(file, { readonly: true });
  // Seeds as a marketer's "best customers": every k-th software or financial-services company (a mixed ICP),
  // each seed a different offset of the same stride.
  const icp = db
    .prepare("SELECT company_id FROM companies WHERE lower(industry) IN ('software', 'financial services') ORDER BY company_id")
    .pluck()
    .all() as string[];
  const stride = Math.max(1, Math.floor(icp.length / seedSize));
  const seedOf = (k: number) => Array.from({ length: Math.min(seedSize, icp.length) }, (_, i) => icp[(i * stride + k) % icp.length]!);
  const lists = Array.from({ length: SEEDS_ASKED + 1 }, (_, k) => ({ id: `best-${k}`, name: `Best ${k}`, company_ids: seedOf(k) }));
  const owner = { id: 'bench', products: [], segments: [], hot_accounts: [], excluded_accounts: [], account_lists: lists };
  const sources = seedSources(catalog, owner);

  // 1. The index build, as the dataset warms a snapshot.
  const gc = collector();
  gc();
  const heap0 = heapNow();
  const cpu0 = process.cpuUsage();
  const build = await timed(async () => {
    warmLookalikeIndex(catalog);
    return lookalikeIndexBuild(catalog)!;
  });
  const cpu = process.cpuUsage(cpu0);
  gc();
  gc();
  const index = build.result;
  const heapMb = (heapNow() - heap0) / 1e6;

  // 2. Previews after warm: the first seed, then other seeds of the same size (each scored for the first time), then repeats.
  const ask = (k: number) => lookalikePreview(sources, { seed: { list: `best-${k}` }, limit: 20 }, new Set());
  const first = await timed(() => ask(0));
  const others: number[] = [];
  const othersCpu: number[] = [];
  let othersBlock = 0;
  for (let k = 1; k <= SEEDS_ASKED; k++) {
    const r = await timed(() => ask(k));
    others.push(r.ms);
    othersCpu.push(r.cpuMs);
    othersBlock = Math.max(othersBlock, r.blockMs);
  }
  const repeats: number[] = [];
  for (let k = 0; k < REPEATS; k++) repeats.push((await timed(() => ask(0))).ms);

  // 3. The segment rule's size (the membership index built first: it is warm in a server).
  await segmentIndex(catalog);
  const rule = { lookalike: { list: 'best-0', min_score: 0.7 } };
  const segment = await timed(() => previewSegment(catalog, rule, listMembers(owner), { customer: owner }));

  // Baseline: a full scan of the companies table, every row scored by the method, then sorted.
  const profile: Profile = index.profileOf(index.rowsOf(lists[0]!.company_ids).rows);
  const seedSet = new Set(lists[0]!.company_ids);
  const columns = FAMILIES.map((f) => f.column).join(', ');
  const baseline = await timed(async () => {
    const scored: { id: string; q: number }[] = [];
    const weighted = new Float64Array(FAMILIES.length);
    for (const row of db.prepare(`SELECT company_id, ${columns} FROM companies`).iterate() as IterableIterator<FeatureRow & { company_id: string }>) {
      if (seedSet.has(row.company_id)) continue;
      FAMILIES.forEach((f, i) => {
        weighted[i] = f.weight * familyMatch(profile, i, row[f.column]).similarity;
      });
      scored.push({ id: row.company_id, q: thousandths(profile, weighted) });
    }
    scored.sort((a, b) => b.q - a.q || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return scored.slice(0, 20);
  });
  const same =
    baseline.result.length === first.result.accounts.length &&
    baseline.result.every((b, i) => b.id === first.result.accounts[i]!.company_id && b.q / 1000 === first.result.accounts[i]!.score);
  if (!same) console.warn('  the baseline found other accounts than the index: see the two lists', baseline.result, first.result.accounts);
  db.close();
  catalog.close();
  const loadAfter = load();
  const medianOthers = median(others);

  record({
    benchmark: `lookalikes (preview, ${n(index.size)} companies, ${n(first.result.seed.accounts)}-account seed)`,
    figures:
      `index build ${(build.ms / 1000).toFixed(2)} s (CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s) once per snapshot, event loop max block ${build.blockMs.toFixed(0)} ms, +${heapMb.toFixed(0)} MB kept; ` +
      `preview after warm: first ${first.ms.toFixed(0)} ms (CPU ${first.cpuMs.toFixed(0)} ms, max block ${first.blockMs.toFixed(0)} ms), ${SEEDS_ASKED} other seeds each asked once median ${medianOthers.toFixed(0)} ms (CPU ${median(othersCpu).toFixed(0)} ms, max block ${othersBlock.toFixed(0)} ms), ` +
      `repeat median ${median(repeats).toFixed(1)} ms (goal ≤ 300 ms: ${Math.max(first.ms, medianOthers) <= 300 ? 'met' : 'missed'}); ` +
      `top score ${first.result.accounts[0]?.score ?? '—'}, reasons “${first.result.accounts[0]?.reasons.join('; ') ?? ''}”; ` +
      `segment rule (min_score 0.7): size ${n(segment.result.size)} in ${segment.ms.toFixed(0)} ms; load average ${loadBefore} before, ${loadAfter} after (2 cores)`,
    ratio:
      `naive full scan scoring every row: ${(baseline.ms / 1000).toFixed(2)} s, event loop blocked ${(baseline.blockMs / 1000).toFixed(2)} s ` +
      `(${(baseline.ms / first.ms).toFixed(0)}× the first preview, ${(baseline.ms / medianOthers).toFixed(0)}× a new seed's); same 20 accounts and scores: ${same ? 'yes' : 'NO'}`,
  });
}
