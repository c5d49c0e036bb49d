/** The demo site as a browser gets it: CSP with a fresh nonce on every inline script and style, no framing. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDemoSite } from '../../demo-site/build.ts';
import { BROWSER_UA } from '../testing/browser-agent.ts';
import { startTestServer, type TestServer } from '../testing/test-server.ts';

let srv: TestServer;
const dist = mkdtempSync(join(tmpdir(), 'svc-demo-dist-'));
beforeAll(async () => {
  await buildDemoSite({ outDir: join(dist, 'demo-site') });
  writeFileSync(join(dist, 'demo-site', 'extra.txt'), 'static');
  srv = await startTestServer({ env: { SVC_DIST: dist } });
});
afterAll(async () => {
  await srv?.close();
  rmSync(dist, { recursive: true, force: true });
});

it('serves the page with a CSP whose nonce is on every inline script and style, new on every answer', async () => {
  const nonces = [];
  for (const path of ['/', '/index.html']) {
    const res = await fetch(srv.url + path, { headers: { 'user-agent': BROWSER_UA } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)![1];
    expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    expect(html).not.toContain('__SVC_CSP_NONCE__');
    const inline = html.match(/<(script|style)(?![^>]*\bsrc=)[^>]*>/g)!;
    expect(inline.length).toBeGreaterThanOrEqual(3);
    for (const tag of inline) expect(tag).toContain(`nonce="${nonce}"`);
    nonces.push(nonce);
  }
  expect(nonces[0]).not.toBe(nonces[1]);
});

it('serves the other static files with CSP and X-Frame-Options too', async () => {
  for (const path of ['/app.js', '/extra.txt']) {
    const res = await fetch(srv.url + path);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  }
});

it('answers another method on the demo page with 405 and Allow', async () => {
  for (const path of ['/', '/index.html']) {
    const res = await fetch(srv.url + path, { method: 'DELETE', headers: { 'user-agent': BROWSER_UA } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  }
});
