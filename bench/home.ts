/**
 * `npm run bench -- home [--companies N] [--views N] [--accounts N] [--quick]`: the console's Home
 * (`GET /admin/api/customers/:id/home`, server/home/routes.ts + summary.ts) at the scale of issue 39, in
 * process, no HTTP: the route's own handler called with the services it reads (a real SQLite state file
 * opened by openBackend, a catalog built from generated sources of N companies — the cached 1,000,000 when
 * built, else 100,000; `--quick` 5,000). The visit store holds 14 days (this week and last) of page views:
 * `--views` identified a day (default 100,000; `--quick` 2,000) over `--accounts` distinct accounts a day
 * (default 30,000; `--quick` 600; a few accounts take most views, as on a real site), a fifth as many
 * anonymous ones, recorded through `visits.recordPageView` as the recorder counts them, 1,000 at a time.
 *
 * `--keep` keeps the seeded state file in the temp folder (svc-bench/home-state-…, named by its shape and
 * day) and reuses it on a later run of the same shape the same day: the process then opens it cold, so
 * the first call reads what a server just started reads (seeding 100,000 views a day takes minutes).
 *
 * Measured for the default period (the last 7 days against the 7 before): the first call, the median of
 * 10 repeats, and the event loop's longest block during a call (monitorEventLoopDelay, 1 ms resolution).
 * Baseline in the same run: the Visitors report (`GET …/visits`, server/visits/report.ts) for the same 7
 * days over the same store, the console's existing page over the same views.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { BUILD_MANIFEST, CATALOG_FILE } from '../data/catalog/schema.ts';
import { openCatalog } from '../server/data/catalog.ts';
import { homeRoutes } from '../server/home/routes.ts';
import type { HomeSummary } from '../server/home/summary.ts';
import type { RouteContext, RouteDef } from '../server/http/route-def.ts';
import { openBackend } from '../server/state/backend.ts';
import { TEST_CUSTOMER } from '../server/testing/fixtures.ts';
import { visitsAdminRoutes } from '../server/visits/admin-routes.ts';
import type { VisitsReport } from '../server/visits/report.ts';
import { ensureBenchData, runFolder } from './bench-data.ts';
import { fmt, median, record } from './results.ts';

const CUSTOMER = 'home-bench';
const DAYS = 14;
const REPEATS = 10;
const DAY_MS = 86_400_000;
const PAGES = ['/', '/pricing', '/product', '/docs/getting-started', '/customers', '/blog/intent', '/demo', '/pricing/enterprise'];

const n = (x: number) => x.toLocaleString('en-US');
/** The machine's load average (1, 5, 15 minutes): it is shared, so a row says how busy it was. */
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

function option(args: string[], name: string): number | undefined {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = Number(args[i + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} takes a positive whole number`);
  return v;
}

/** The largest cached generated dataset of the sizes the issue names, else 100,000 companies (built once). */
function defaultCompanies(): number {
  return existsSync(join(tmpdir(), 'svc-bench', 'data-1000000-1', 'data', BUILD_MANIFEST)) ? 1_000_000 : 100_000;
}

function route(routes: RouteDef[], method: string, path: string): RouteDef {
  const r = routes.find((x) => x.method === method && x.path === path);
  if (!r || !('handler' in r) || typeof r.handler !== 'function') throw new Error(`no route ${method} ${path}`);
  return r;
}

/** One timed call: wall ms and the event loop's longest delay meanwhile (ms). */
async function timed<T>(go: () => Promise<T>): Promise<{ ms: number; blockMs: number; result: T }> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // The histogram measures from its first tick on: a call blocking the loop before it would not show.
  await new Promise((r) => setTimeout(r, 3));
  const t0 = performance.now();
  const result = await go();
  const ms = performance.now() - t0;
  // A turn or two more, so the sampling timer a long block delayed has fired and been counted.
  await new Promise((r) => setTimeout(r, 5));
  loop.disable();
  return { ms, blockMs: loop.max / 1e6, result };
}

export async function benchHome(args: string[]): Promise<void> {
  const quick = args.includes('--quick');
  const companies = option(args, '--companies') ?? (quick ? 5_000 : defaultCompanies());
  const viewsPerDay = option(args, '--views') ?? (quick ? 2_000 : 100_000);
  const accountsPerDay = Math.min(option(args, '--accounts') ?? (quick ? 600 : 30_000), viewsPerDay, companies);
  const anonymousPerDay = Math.round(viewsPerDay / 5);

  const data = await ensureBenchData(companies, '1');
  const work = runFolder('home');
  const keep = args.includes('--keep');
  const todayIso = new Date().toISOString().slice(0, 10);
  const kept = join(tmpdir(), 'svc-bench', `home-state-${companies}-${viewsPerDay}-${accountsPerDay}-${todayIso}`, 'svc.db');
  const reuse = keep && existsSync(kept);
  if (reuse) copyFileSync(kept, join(work, 'svc.db'));
  const backend = await openBackend({
    SVC_STATE: join(work, 'svc.db'),
    SVC_REDIS_URL: undefined,
    SVC_JOURNAL_DIR: join(work, 'journal'),
    SVC_OUTAGE_ALLOWANCE: 100,
  });
  const catalog = openCatalog(join(data.data, CATALOG_FILE));
  let seededNow = false;
  try {
    if (!reuse) await backend.state.importCustomer({ ...TEST_CUSTOMER, id: CUSTOMER, name: 'Home bench', tags: [], excluded_accounts: [], hot_accounts: [] });
    // The catalog's ids only while seeding: a server holds no list of every company, and a million strings
    // kept alive would be marked by every full collection during the measured calls.
    let companyIds: string[] | null = (() => {
      const db = new Database(join(data.data, CATALOG_FILE), { readonly: true });
      const ids = (db.prepare('SELECT company_id FROM companies ORDER BY company_id').all() as { company_id: string }[]).map((r) => r.company_id);
      db.close();
      return ids;
    })();

    // 14 days up to today: each day's accounts a window of the catalog sliding by a third of it, so a
    // third of a day's accounts are new against the day before. The first `accountsPerDay` views give
    // each account one; the rest go mostly to the first accounts of the window (u³: a long tail).
    const now = Date.now();
    const todayMs = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`);
    let s = 12345;
    const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const t0 = performance.now();
    let recorded = 0;
    for (let d = DAYS - 1; d >= 0 && !reuse; d--) {
      const dayMs = todayMs - d * DAY_MS;
      const day = new Date(dayMs).toISOString().slice(0, 10);
      const span = Math.min(DAY_MS, now - dayMs);
      const total = viewsPerDay + anonymousPerDay;
      const offset = (DAYS - 1 - d) * Math.ceil(accountsPerDay / 3);
      const view = (i: number) => {
        const k = i < accountsPerDay ? i : Math.floor(rnd() ** 3 * accountsPerDay);
        const identified = i < viewsPerDay;
        return {
          customer_id: CUSTOMER,
          day,
          company_id: identified ? companyIds![(offset + k) % companyIds!.length]! : null,
          path: PAGES[Math.floor(rnd() * PAGES.length)]!,
          session_id: identified ? `s-${day}-${k}` : `anon-${day}-${i}`,
          at: new Date(dayMs + Math.floor((i / total) * span)).toISOString(),
        };
      };
      for (let i = 0; i < total; i += 1000) {
        const batch = Array.from({ length: Math.min(1000, total - i) }, (_, j) => view(i + j));
        await Promise.all(batch.map((v) => backend.visits.recordPageView(v)));
        recorded += batch.length;
      }
    }
    const seedMs = performance.now() - t0;
    companyIds = null;
    if (keep && !reuse) {
      // A consistent copy: the seeded file checkpointed (WAL folded in) before it is copied.
      await backend.close();
      mkdirSync(join(kept, '..'), { recursive: true });
      copyFileSync(join(work, 'svc.db'), kept + '.tmp');
      renameSync(kept + '.tmp', kept);
      console.log(`kept the seeded state as ${kept} (--keep reuses it today); measuring on it, opened cold`);
      seededNow = true;
      return;
    }
    if (reuse) console.log(`visit store: the kept state ${kept}, opened cold`);
    else
      console.log(
        `visit store: ${n(recorded)} page views over ${DAYS} days (${n(viewsPerDay)} identified + ${n(anonymousPerDay)} anonymous a day, ${n(accountsPerDay)} accounts a day) recorded in ${fmt.s(seedMs)}; catalog ${n(companies)} companies`,
      );

    const services = {
      store: backend.state,
      recorder: { visits: backend.visits },
      dataset: { current: { catalog } },
      webhooks: undefined,
    };
    const ctx = (query: Record<string, string>) =>
      ({ req: { params: { id: CUSTOMER }, query, raw: { headers: { accept: 'application/json' } } }, services }) as unknown as RouteContext;
    const home = route(homeRoutes, 'GET', '/admin/api/customers/:id/home');
    const visits = route(visitsAdminRoutes, 'GET', '/admin/api/customers/:id/visits');
    const call = async <T>(r: RouteDef, query: Record<string, string>): Promise<T> => {
      const res = (await (r as { handler(c: RouteContext): Promise<{ status: number; body?: unknown }> }).handler(ctx(query))) as {
        status: number;
        body?: unknown;
      };
      if (res.status !== 200) throw new Error(`${r.path} answered ${res.status}`);
      return res.body as T;
    };
    // The Home's default period, asked of the Visitors report as dates.
    const to = new Date(todayMs).toISOString().slice(0, 10);
    const from = new Date(todayMs - 6 * DAY_MS).toISOString().slice(0, 10);

    const measure = async <T>(name: string, go: () => Promise<T>) => {
      const first = await timed(go);
      const repeats: { ms: number; blockMs: number }[] = [];
      for (let i = 0; i < REPEATS; i++) repeats.push(await timed(go));
      const r = {
        first,
        median: median(repeats.map((x) => x.ms)),
        block: Math.max(first.blockMs, ...repeats.map((x) => x.blockMs)),
        blockRepeat: median(repeats.map((x) => x.blockMs)),
      };
      console.log(
        `${name}: first ${fmt.ms(r.first.ms)} (longest block ${fmt.ms(r.first.blockMs)}), median of ${REPEATS} ${fmt.ms(r.median)} (median longest block ${fmt.ms(r.blockRepeat)}), longest block of all ${fmt.ms(r.block)}`,
      );
      return r;
    };
    const loadBefore = load();
    const h = await measure('home (this 7 days vs the 7 before)', () => call<HomeSummary>(home, {}));
    const loadAfter = load();
    const v = await measure(`visitors report (${from}..${to})`, () => call<VisitsReport>(visits, { from, to }));
    const hb = h.first.result;
    const vb = v.first.result;
    // Where the visit store read the period from: its per-day rollup, or (a day it does not cover) the aggregates.
    const { source } = await backend.visits.periodSummary(CUSTOMER, from, to, 1);
    const shape =
      `home (read from the ${source}): ${n(hb.current.identified_accounts)} accounts this period (${n(hb.previous.identified_accounts)} before), ${n(hb.current.page_views)} page views, ${n(hb.scored_accounts)} scored, ` +
      `${n(hb.current.new_accounts)} new, ${n(hb.current.stage_moves)} stage moves, ${n(hb.current.became_hot)} became hot; visitors report: ${n(vb.accounts.length)} accounts, ${n(vb.totals.page_views)} page views, ` +
      `${fmt.mib(JSON.stringify(vb).length)} JSON (home ${(JSON.stringify(hb).length / 1024).toFixed(1)} KiB)`;
    console.log(shape);

    record({
      benchmark: `console Home (GET /admin/api/customers/:id/home, route handler in process, default period: 7 days vs the 7 before) on ${DAYS} days of page views (${n(viewsPerDay)} identified over ${n(accountsPerDay)} accounts + ${n(anonymousPerDay)} anonymous a day), ${n(companies)}-company catalog, SQLite state; through tsx`,
      figures:
        `home first ${fmt.ms(h.first.ms)}, median of ${REPEATS} ${fmt.ms(h.median)}, longest event-loop block ${fmt.ms(h.block)}; ` +
        `visitors report (same 7 days) first ${fmt.ms(v.first.ms)}, median ${fmt.ms(v.median)}, longest block ${fmt.ms(v.block)}; ${shape}; ${reuse ? 'seeded state reused (--keep), opened cold' : `seeding ${fmt.s(seedMs)}`}; ` +
        `load average ${loadBefore} before home, ${loadAfter} after (2 cores)`,
      ratio: `home/visitors: first ${fmt.x(h.first.ms / v.first.ms)}, median ${fmt.x(h.median / v.median)}, longest block ${fmt.x(h.block / v.block)}`,
    });
  } finally {
    catalog.close();
    if (!seededNow) await backend.close();
  }
  if (seededNow) await benchHome(args);
}
