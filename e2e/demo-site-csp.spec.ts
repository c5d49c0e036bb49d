/**
 * The demo page under its strict Content-Security-Policy in a real Chromium: the pasted snippet, the
 * recorder and the stylesheet run with the per-answer nonce, the tag personalises, the inspector mounts,
 * and the browser reports no CSP violation. An injected inline script without the nonce is blocked.
 */
import { expect, test } from '@playwright/test';
import { displayName } from '../core/company-name.ts';
import { pick, visitors } from './helpers.ts';

test('the demo page works under its CSP with no violation, and refuses inline code without the nonce', async ({ page, request }) => {
  const v = pick(await visitors(request), (x) => x.label.startsWith('In segment'), 'in-segment company');
  await page.addInitScript(() => {
    const w = window as unknown as { cspViolations: string[] };
    w.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(`/?svc_test_ip=${v.ip}`);
  expect(response!.headers()['content-security-policy']).toMatch(/script-src 'self' 'nonce-/);
  expect(response!.headers()['x-frame-options']).toBe('DENY');

  await expect(page.getByTestId('hero-title')).toHaveText(`Customer data ${displayName(v.company!)} can trust`);
  await expect(page.getByTestId('segment-section')).toBeVisible();
  await expect(page.locator('#demo-tools')).not.toBeEmpty();
  // The stylesheet applied (an inline <style> without its nonce would be ignored).
  expect(await page.evaluate(() => document.styleSheets.length)).toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);

  const ran = await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.injected = true';
    document.head.appendChild(s);
    return (window as unknown as { injected?: boolean }).injected === true;
  });
  expect(ran).toBe(false);
  await expect.poll(() => page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations.length)).toBeGreaterThan(0);
});
