/**
 * Demo site: the page HTML, the segment it features, the switcher's helpers and the build.
 * (Browser behaviour is covered by e2e/.) Note: vitest.config.ts must include 'demo-site/**\/*.test.ts'.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { renderSnippet } from '../tag/snippet.ts';
import { evaluate } from '../tag/src/rules.ts';
import { buildDemoSite } from './build.ts';
import { esc, NONCE_PLACEHOLDER, renderPage } from './page.ts';
import { DEFAULT_SEGMENT, demoSegmentName, segmentRule } from './segment.ts';
import { summarise } from './src/log.ts';
import { fetchVisitors, withTestIp } from './src/visitors.ts';

const attr = (html: string, testid: string, name: string) => {
  const tag = html.match(new RegExp(`<[^>]*data-testid="${testid}"[^>]*>`))?.[0] ?? '';
  const m = tag.match(new RegExp(`${name}=(?:"([^"]*)"|'([^']*)')`));
  return m ? unescapeHtml(m[1] ?? m[2]) : null;
};
const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describe('demoSegmentName', () => {
  const file = {
    customers: [
      { id: 'other', segments: [{ name: 'Retail' }], tags: [{ tag_id: 'other-tag' }] },
      { id: 'demo', segments: [{ name: 'Fintech Scale-ups' }, { name: 'B' }], tags: [{ tag_id: 'demo-web-tag' }] },
    ],
  };
  it('takes the first segment of the customer owning the demo tag', () => {
    expect(demoSegmentName(file)).toBe('Fintech Scale-ups');
  });
  it('falls back to the first customer, then to the default', () => {
    expect(demoSegmentName({ customers: [{ segments: [{ name: 'Retail' }] }] })).toBe('Retail');
    expect(demoSegmentName({ customers: [] })).toBe(DEFAULT_SEGMENT);
    expect(demoSegmentName({ customers: [{ segments: [] }] })).toBe(DEFAULT_SEGMENT);
    expect(demoSegmentName(null)).toBe(DEFAULT_SEGMENT);
    expect(demoSegmentName({})).toBe(DEFAULT_SEGMENT);
  });
});

describe('segmentRule', () => {
  it('quotes the name so the tag reads it as one value', () => {
    const data = (name: string) => ({ company: { company_match: 'Match' as const }, segments: { ids: [1], names: [name] } });
    for (const name of ['Enterprise Software', 'R and D or "Labs"', "O'Reilly = best"]) {
      expect(evaluate(segmentRule(name), data(name))).toBe(true);
      expect(evaluate(segmentRule(name), data('Other'))).toBe(false);
    }
  });
});

describe('renderPage', () => {
  const snippet = renderSnippet({ tagId: 'demo-web-tag' });
  const html = renderPage({ snippet, segmentName: 'Fintech <Scale-ups>', recorderJs: 'var x="</script>";', css: 'body{}' });

  it('has the snippet pasted in <head>, untouched, before the body', () => {
    const head = html.slice(0, html.indexOf('</head>'));
    expect(head).toContain(snippet.trim());
    expect(html).toContain('<script async src="/tag/v1/demo-web-tag.js"></script>');
  });

  it('has a form the tag fills, hiding the company field it filled', () => {
    expect(html).toMatch(/<form [^>]*data-testid="demo-form" data-svc-fill[ >]/);
    expect(html).toMatch(/<label data-svc-hide-when-filled[^>]*>Company <input name="company"/);
    expect(attr(html, 'cta-demo', 'data-svc-attr')).toBe('title:Book a demo for {company.display_name|your team}; data-account:{company.domain|}');
  });

  it('gives browser tests stable hooks', () => {
    for (const id of ['hero-title', 'segment-section']) {
      expect(html).toContain(`id="${id}" data-testid="${id}"`);
    }
    expect(html).toContain('id="demo-tools"');
    expect(html).toContain('<script defer src="app.js"></script>');
  });

  it('personalises the hero with a default headline', () => {
    expect(attr(html, 'hero-title', 'data-svc-text')).toBe('Customer data {company.display_name|your whole team} can trust');
    expect(html).toMatch(/data-testid="hero-title"[^>]*>Customer data your whole team can trust</);
  });

  it('shows the segment section only to the segment, hidden by default', () => {
    expect(attr(html, 'segment-section', 'data-svc-show')).toBe('segment = "Fintech <Scale-ups>"');
    expect(html).toContain(`data-testid="segment-section" data-svc-show='segment = "Fintech &lt;Scale-ups&gt;"' hidden>`);
    expect(html).toContain('For Fintech &lt;Scale-ups&gt;');
  });

  it('cannot be broken out of by the inlined script or the segment name', () => {
    expect(html).toContain('var x="<\\/script>";');
    expect(html).not.toContain('<Scale-ups>');
  });

  it('uses only rules the tag understands', () => {
    const rules = [...html.matchAll(/data-svc-(?:show|hide)=(?:"([^"]*)"|'([^']*)')/g)].map((m) => unescapeHtml(m[1] ?? m[2]));
    expect(rules.length).toBeGreaterThanOrEqual(5);
    const data = {
      company: { company_match: 'Match' as const },
      scores: [{ product: 'cdp', buying_stage: 'Purchase' as const }],
      segments: { ids: [1], names: ['Fintech <Scale-ups>'] },
    };
    // every rule is well-formed: it or its negation holds for some answer
    for (const rule of rules) {
      expect(evaluate(rule, data) || evaluate(`not ${rule}`, data) || evaluate(rule, { company: { company_match: 'No Match' } })).toBe(true);
    }
  });

  it('escapes', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('visitor switcher helpers', () => {
  it('sets and removes svc_test_ip, keeping other parameters', () => {
    expect(withTestIp('http://localhost:8080/?utm=1#top', '198.51.100.7')).toBe('/?utm=1&svc_test_ip=198.51.100.7#top');
    expect(withTestIp('http://localhost:8080/?svc_test_ip=1.2.3.4&utm=1', null)).toBe('/?utm=1');
    expect(withTestIp('http://localhost:8080/?svc_test_ip=1.2.3.4', '5.6.7.8')).toBe('/?svc_test_ip=5.6.7.8');
  });

  it('reads the visitors, or null when the endpoint is absent', async () => {
    const visitors = [{ label: 'Globex', ip: '198.51.100.7', kind: 'company', company: 'Globex' }];
    const ok = vi.fn(async () => new Response(JSON.stringify({ visitors: [...visitors, { nope: 1 }] })));
    await expect(fetchVisitors(ok)).resolves.toEqual(visitors);
    expect(ok).toHaveBeenCalledWith('/demo/api/visitors', expect.anything());
    await expect(fetchVisitors(vi.fn(async () => new Response('{"status":"error"}', { status: 404 })))).resolves.toBeNull();
    await expect(fetchVisitors(vi.fn(async () => new Response('<html>')))).resolves.toBeNull();
    await expect(
      fetchVisitors(
        vi.fn(async () => {
          throw new TypeError('offline');
        }),
      ),
    ).resolves.toBeNull();
  });

  it('summarises log entries', () => {
    expect(summarise({ type: 'svc:error', detail: { status: 403, message: 'origin not allowed' }, at: 1 })).toBe('HTTP 403: origin not allowed');
    expect(summarise({ type: 'svc:error', detail: { status: 0, message: 'Failed to fetch' }, at: 1 })).toBe('no answer: Failed to fetch');
    expect(summarise({ type: 'svc:error', detail: { status: 0, message: 'gpc' }, at: 1 })).toBe('no answer: gpc');
    expect(summarise({ type: 'svc:personalized', detail: { elements: [{}, {}] }, at: 1 })).toBe('2 elements');
    expect(summarise({ type: 'svc:ready', detail: { data: { company: { company_match: 'Match', name: 'Globex' } }, cached: false, hidden: 240 }, at: 1 })).toBe(
      'Globex, hidden 240 ms',
    );
    expect(summarise({ type: 'svc:ready', detail: { data: { company: { company_match: 'Match', name: 'Globex' } }, cached: true }, at: 1 })).toBe(
      'Globex (from cache, no request)',
    );
    expect(summarise({ type: 'svc:ready', detail: { data: { company: { company_match: 'No Match' } }, cached: false }, at: 1 })).toBe('No Match');
    expect(summarise({ type: 'dataLayer.push', detail: { event: 'svc_company_not_identified' }, at: 1 })).toBe('svc_company_not_identified');
  });
});

describe('buildDemoSite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-demo-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes index.html and app.js, featuring the generated first segment', async () => {
    const customersFile = join(dir, 'customers.json');
    await writeFile(
      customersFile,
      JSON.stringify({ customers: [{ id: 'demo', segments: [{ name: 'Mid-Market SaaS' }], tags: [{ tag_id: 'demo-web-tag' }] }] }),
    );
    await buildDemoSite({ outDir: join(dir, 'out'), customersFile });
    const html = await readFile(join(dir, 'out/index.html'), 'utf8');
    const app = await readFile(join(dir, 'out/app.js'), 'utf8');
    expect(html).toContain(renderSnippet({ tagId: 'demo-web-tag', nonce: NONCE_PLACEHOLDER }).trim());
    // Every inline script and style carries the nonce placeholder the server fills in (strict CSP).
    expect(html.match(/<(script|style)(?![^>]*\bsrc=)[^>]*>/g)!.every((t) => t.includes(`nonce="${NONCE_PLACEHOLDER}"`))).toBe(true);
    expect(attr(html, 'segment-section', 'data-svc-show')).toBe('segment = "Mid-Market SaaS"');
    expect(app).toContain('svc-data-panel');
    expect(app).toContain('svc-event-log');
    expect(app).toContain('visitor-switcher');
    expect(app).toContain('/demo/api/visitors');
  });

  it('uses the default segment without a customers file', async () => {
    await buildDemoSite({ outDir: join(dir, 'out2'), customersFile: join(dir, 'missing.json') });
    const html = await readFile(join(dir, 'out2/index.html'), 'utf8');
    expect(attr(html, 'segment-section', 'data-svc-show')).toBe('segment = "Enterprise Software"');
  });
});
