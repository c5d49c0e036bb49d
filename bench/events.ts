/**
 * Page-view benchmark: `POST /v1/events?tag=…` (text/plain beacon bodies from the tag's allowed origin,
 * visitor addresses through a trusted loopback proxy, the same address mix as the identification
 * benchmark) against tag-mode lookups `GET /v3/company/details?tag=…` on the same server, interleaved.
 * Each page view is answered 204 before it is resolved and recorded, but that work (lookup, one SQLite
 * transaction, one NDJSON line) still runs in the server process, so CPU per response is the figure to read.
 *
 *   npm run bench -- events [--companies N] [--duration S]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBenchData, identificationRequests, ipMix, runFolder, seedBenchState } from './bench-data.ts';
import { startApp } from './endpoints.ts';
import { describeLoad, type LoadRequest, loadInterleaved } from './http-load.ts';
import { fmt, record } from './results.ts';

const PATHS = ['/', '/pricing', '/product', '/blog/first-party-data?utm_source=news', '/contact'];

export async function benchEvents(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { companies: { type: 'string' }, duration: { type: 'string' }, connections: { type: 'string' } } });
  const companies = Number(values.companies ?? 20_000);
  const duration = Number(values.duration ?? 10);
  const connections = Number(values.connections ?? 50);
  const data = await ensureBenchData(companies);
  const work = runFolder('events');
  const state = await seedBenchState(data, join(work, 'state.db'));
  const lookups = identificationRequests(state, ipMix(data), 'tag');
  const pageViews: LoadRequest[] = lookups.map((r, i) => ({
    method: 'POST',
    path: r.path.replace('/v3/company/details', '/v1/events'),
    headers: { ...r.headers, 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({ type: 'pageview', path: PATHS[i % PATHS.length], referrer: 'news.example', session: `bench-session-${i % 5000}` }),
  }));

  const app = await startApp(data, state);
  try {
    const probe = await fetch(app.url + pageViews[0].path, { method: 'POST', headers: pageViews[0].headers, body: pageViews[0].body });
    if (probe.status !== 204) throw new Error(`POST /v1/events answered ${probe.status}: ${await probe.text()}`);
    const results = await loadInterleaved(
      [
        { name: 'page views (POST /v1/events)', url: app.url, requests: pageViews, pid: app.pid },
        { name: 'tag lookups (GET /v3/company/details)', url: app.url, requests: lookups, pid: app.pid },
      ],
      { duration, connections },
    );
    for (const [name, r] of results) console.log(`   ${name.padEnd(40)} ${describeLoad(r)}`);
    const views = results.get('page views (POST /v1/events)')!;
    const look = results.get('tag lookups (GET /v3/company/details)')!;
    record({
      benchmark: `page views, POST /v1/events vs tag lookups (${connections} connections, ${duration} s, ${companies.toLocaleString('en-US')} companies)`,
      figures: `page views ${describeLoad(views)}; tag lookups ${describeLoad(look)}`,
      ratio: `page views/lookups req/s ${fmt.x(views.rps / look.rps)}; server CPU per response page view/lookup ${fmt.x(views.cpuUsPerResponse / look.cpuUsPerResponse)}`,
    });
  } finally {
    await app.stop();
  }
}
