/**
 * Tag: the bundle's gzip and Brotli sizes (dist/tag, built by `npm run build:tag`), and the time from the
 * snippet's start to `svc:ready` in Chromium against a local server (`svc serve` on the bench data), cold (new
 * browser context: empty HTTP cache and storage) and warm (the same page loaded again in that context:
 * bundle from the HTTP cache, answer from the tag's own cache).
 *
 * Baseline in the same run: the same page with the tag replaced by a plain inline script that fetches
 * the same two URLs one after the other (the bundle, then the identification answer) — the network floor
 * of what the tag must do. The page is on http://www.bench.example (an allowed domain of the bench tags),
 * the service on http://svc.bench.example; Chromium maps both names to 127.0.0.1. The bench data maps the
 * loopback network to a company, so the visitor (127.0.0.1) gets a real Match.
 *
 *   npm run bench -- tag [--runs N]
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { type BUDGETS, sizeOf, type TagSizes } from '../tag/build.ts';
import { renderSnippet } from '../tag/snippet.ts';
import { BROWSER_UA, ensureBenchData, runFolder, seedBenchState } from './bench-data.ts';
import { startApp } from './endpoints.ts';
import { ROOT } from './http-load.ts';
import { fmt, median, percentile, record } from './results.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP *.bench.example 127.0.0.1',
];

export async function benchTag(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { runs: { type: 'string' } } });
  const runs = Number(values.runs ?? 15);

  const bundleFile = join(ROOT, 'dist/tag/svc.js');
  if (!existsSync(bundleFile)) throw new Error('dist/tag/svc.js not found: run npm run build:tag first');
  const bundle = readFileSync(bundleFile, 'utf8');
  const { raw, gzip, br } = sizeOf(bundle);
  const sizeFile = join(ROOT, 'dist/tag/size.json');
  const size = existsSync(sizeFile) ? (JSON.parse(readFileSync(sizeFile, 'utf8')) as TagSizes & { budgets: typeof BUDGETS }) : null;
  console.log(
    `tag bundle: ${raw} B raw, ${gzip} B gzip -9, ${br} B Brotli${size ? ` (size.json: bundle ${size.bundle.gzip} B gzip of its ${size.budgets.bundle} B budget (every feature, integrations included), snippet ${size.snippet.gzip} B of ${size.budgets.snippet})` : ''}`,
  );

  const data = await ensureBenchData(20_000, '1', { loopback: true });
  const work = runFolder('tag');
  const state = await seedBenchState(data, join(work, 'state.db'));
  const app = await startApp(data, state);
  const svcOrigin = app.url.replace('127.0.0.1', 'svc.bench.example');
  const tagId = state.tags[0];

  const pages = await servePages(svcOrigin, tagId);
  const pageUrl = (kind: string) => `http://www.bench.example:${pages.port}/${kind}.html`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const samples = { tag: { cold: [] as number[], warm: [] as number[] }, floor: { cold: [] as number[], warm: [] as number[] } };
    let match = '';
    for (let i = 0; i < runs + 1; i++) {
      for (const kind of ['tag', 'floor'] as const) {
        const r = await coldAndWarm(browser, pageUrl(kind));
        if (i === 0) continue; // browser warm-up
        samples[kind].cold.push(r.cold);
        samples[kind].warm.push(r.warm);
        if (kind === 'tag') match = r.match;
      }
    }
    const line = (k: 'tag' | 'floor', m: 'cold' | 'warm') => `${fmt.ms(median(samples[k][m]))} (p90 ${fmt.ms(percentile(samples[k][m], 90))})`;
    console.log(`   tag:   cold ${line('tag', 'cold')}, warm ${line('tag', 'warm')}; answer ${match}`);
    console.log(`   floor: cold ${line('floor', 'cold')}, warm ${line('floor', 'warm')}`);
    record({
      benchmark: `tag: size and snippet start → svc:ready in Chromium (local server, ${runs} runs each, median)`,
      figures: `bundle ${raw} B, ${gzip} B gzip -9, ${br} B Brotli (what a browser downloads)${size ? ` (size.json ${size.bundle.gzip} B, budget ${size.budgets.bundle} B; snippet ${size.snippet.gzip} B gzip)` : ''}; tag cold ${line('tag', 'cold')}, warm ${line('tag', 'warm')}; floor (plain fetch of the bundle then the answer) cold ${line('floor', 'cold')}, warm ${line('floor', 'warm')}; answer ${match}`,
      ratio: `tag/floor cold ${fmt.x(median(samples.tag.cold) / median(samples.floor.cold))}, warm ${fmt.x(median(samples.tag.warm) / median(samples.floor.warm))}`,
    });
  } finally {
    await browser.close();
    pages.server.close();
    await app.stop();
  }
}

async function coldAndWarm(browser: Browser, url: string): Promise<{ cold: number; warm: number; match: string }> {
  // Headless Chromium says so in its user agent, which the service rightly answers as a bot.
  const context = await browser.newContext({ userAgent: BROWSER_UA });
  try {
    const page = await context.newPage();
    const once = async () => {
      await page.goto(url);
      await page.waitForFunction(() => performance.getEntriesByName('bench:ready').length > 0, undefined, { timeout: 15_000 });
      return page.evaluate(() => ({
        ms: performance.getEntriesByName('bench:ready')[0].startTime - performance.getEntriesByName('bench:start')[0].startTime,
        match: (window as unknown as { __match?: string }).__match ?? '',
      }));
    };
    const cold = await once();
    const warm = await once();
    return { cold: cold.ms, warm: warm.ms, match: cold.match };
  } finally {
    await context.close();
  }
}

/** The bench pages: the snippet as a customer pastes it, and the network-floor page. */
async function servePages(svcOrigin: string, tagId: string): Promise<{ server: Server; port: number }> {
  const head = `<meta charset="utf-8"><title>bench</title><script>performance.mark('bench:start')</script>`;
  const body = `<body><h1 data-svc-text="company.name">Welcome</h1><p data-svc-show="match">For you</p></body>`;
  const tagPage =
    `<!doctype html><html><head>${head}` +
    `<script>document.addEventListener('svc:ready',function(e){window.__match=e.detail&&e.detail.data&&e.detail.data.company?e.detail.data.company.company_match:'?';performance.mark('bench:ready')},{once:true});` +
    `document.addEventListener('svc:error',function(e){window.__match='error '+(e.detail&&e.detail.status)+' '+(e.detail&&e.detail.message);performance.mark('bench:ready')},{once:true})</script>` +
    renderSnippet({ tagId, endpoint: svcOrigin }) +
    `</head>${body}</html>`;
  const floorPage =
    `<!doctype html><html><head>${head}<script>` +
    `fetch(${JSON.stringify(`${svcOrigin}/tag/v1/${tagId}.js`)}).then(function(r){return r.text()})` +
    `.then(function(){return fetch(${JSON.stringify(`${svcOrigin}/v3/company/details?tag=${tagId}`)})}).then(function(r){return r.json()})` +
    `.then(function(){performance.mark('bench:ready')},function(){performance.mark('bench:ready')})` +
    `</script></head>${body}</html>`;
  const server = createServer((req, res) => {
    const page = req.url === '/tag.html' ? tagPage : req.url === '/floor.html' ? floorPage : null;
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}
