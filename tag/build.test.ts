import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_VARIANTS, CORE_FEATURES, DEFAULT_FEATURES, EVERY_FEATURE, resolveFeatures, settingIntegrations, variantName } from '../core/tag-features.ts';
import { BUDGETS, budgetOf, buildTag, overBudget, SAMPLE_SNIPPET } from './build.ts';
import { SETTINGS_PLACEHOLDER } from './settings-placeholder.ts';
import { renderSnippet } from './snippet.ts';

describe('buildTag', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-tag-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const sizes = await buildTag(dir);
  const js = await readFile(join(dir, 'svc.js'), 'utf8');

  it('keeps the core ≤ 2,000 B, every other variant (integrations included) ≤ 3,500 B but page views with the integrations ≤ 3,800 B for now and the snippet ≤ 600 B gzip (size is deterministic)', () => {
    expect(BUDGETS).toEqual({ core: 2000, bundle: 3500, pageViewsIntegrations: 3800, snippet: 600 });
    expect(Object.keys(sizes.variants)).toHaveLength(64);
    expect(sizes.variants.core.gzip).toBeLessThanOrEqual(2000);
    for (const [name, size] of Object.entries(sizes.variants)) expect(size.gzip, name).toBeLessThanOrEqual(budgetOf(name));
    // The interim exception (issue 37) is only page views together with the integrations.
    for (const name of Object.keys(sizes.variants)) {
      if (!(name.includes('page_views') && name.includes('integrations')))
        expect(sizes.variants[name].gzip, name).toBeLessThanOrEqual(name === 'core' ? 2000 : 3500);
    }
    expect(sizes.variants[variantName(DEFAULT_FEATURES)].gzip).toBeLessThanOrEqual(3500);
    expect(sizes.bundle).toEqual(sizes.variants[variantName(EVERY_FEATURE)]);
    expect(sizes.bundle.gzip).toBeLessThanOrEqual(3800);
    expect(sizes.snippet.gzip).toBeLessThanOrEqual(600);
    expect(overBudget(sizes)).toEqual([]);
    // What a browser downloads (it accepts br; server/tag/assets.ts serves it): every variant ≤ 3,500 B.
    for (const [name, size] of Object.entries(sizes.variants)) {
      expect(size.br, name).toBeLessThanOrEqual(name === 'core' ? 2000 : 3500);
      expect(size.br, name).toBeLessThan(size.gzip);
    }
    expect(sizes.snippet.raw).toBe(Buffer.byteLength(renderSnippet(SAMPLE_SNIPPET)));
  });

  it('writes every variant, the full bundle, the hook, the types (svc.d.ts, preact.d.ts) and size.json', async () => {
    expect(Buffer.byteLength(js)).toBe(sizes.bundle.raw);
    for (const features of ALL_VARIANTS) {
      const name = variantName(features);
      expect(Buffer.byteLength(await readFile(join(dir, 'variants', name + '.js'), 'utf8'))).toBe(sizes.variants[name].raw);
    }
    expect(JSON.parse(await readFile(join(dir, 'size.json'), 'utf8'))).toEqual({ ...sizes, budgets: BUDGETS });
    expect(await readFile(join(dir, 'svc.d.ts'), 'utf8')).toContain('export interface SvcReadyDetail');
    // The hook's types beside it (compiled with integrators' code by tag/types.test.ts).
    expect(await readFile(join(dir, 'preact.d.ts'), 'utf8')).toMatch(
      /export declare function useSvc\(\): SvcState;[\s\S]*from '\.\/svc\.js'|from '\.\/svc\.js'[\s\S]*export declare function useSvc\(\): SvcState;/,
    );
  });

  it('emits one dependency-free IIFE with one settings placeholder and nothing a strict CSP forbids', () => {
    expect(js).not.toMatch(/\brequire\(|\bimport\b|\bexport\b/);
    expect(js.trim()).toMatch(/^\(\(\)=>\{[\s\S]*\}\)\(\);$/);
    expect(js.split(SETTINGS_PLACEHOLDER)).toHaveLength(2);
    expect(js).not.toMatch(/\beval\(|new Function|Function\(|setTimeout\("|innerHTML|insertAdjacentHTML|document\.write|\.style\.|cssText/);
  });

  it('keeps the Preact hook out of the bundle, in its own ESM file with preact external', async () => {
    const hook = await readFile(join(dir, 'preact.js'), 'utf8');
    expect(hook).toMatch(/from "preact\/hooks"/);
    expect(hook).toMatch(/export \{[^}]*useSvc/);
    expect(hook).not.toMatch(/function useState|options\.__h/); // preact itself is not inlined
    expect(js).not.toMatch(/useSvc|preact|useState/);
  });

  it('compiles only the enabled features into a variant', async () => {
    const core = await readFile(join(dir, 'variants/core.js'), 'utf8');
    // Strings only the features carry: rules, form fill, SPA history hooks, the beacon, debug logging.
    const marks = {
      personalisation: 'data-svc-text',
      form_fill: 'data-svc-hide-when-filled',
      spa: 'pushState',
      page_views: 'sendBeacon',
      debug: 'unknown command',
      integrations: 'user_properties',
    };
    for (const mark of Object.values(marks)) {
      expect(js).toContain(mark);
      expect(core).not.toContain(mark);
    }
    for (const [feature, mark] of Object.entries(marks)) {
      const only = await readFile(join(dir, 'variants', variantName({ ...CORE_FEATURES, [feature]: true }) + '.js'), 'utf8');
      expect(only).toContain(mark);
      const without = await readFile(join(dir, 'variants', variantName({ ...EVERY_FEATURE, [feature]: false }) + '.js'), 'utf8');
      expect(without).not.toContain(mark);
    }
    expect(core).toContain('dataLayer');
    expect(core).toContain('/v3/company/details');
  });

  it('reports what is over budget', () => {
    const big = { raw: 1e5, gzip: 1e5, br: 1e5 };
    const small = { raw: 1, gzip: 1, br: 1 };
    const fine = { variants: { core: small, spa: small }, bundle: small, snippet: small };
    expect(overBudget(fine)).toEqual([]);
    expect(overBudget({ ...fine, variants: { core: small, spa: big } })).toEqual(['spa']);
    expect(overBudget({ ...fine, variants: { core: { raw: 1, gzip: BUDGETS.core + 1, br: 1 }, spa: small } })).toEqual(['core']);
    expect(overBudget({ ...fine, snippet: big })).toEqual(['snippet']);
    const near = { raw: 1, gzip: BUDGETS.bundle + 1, br: 1 };
    expect(overBudget({ ...fine, variants: { core: small, spa: near, 'spa-integrations': near } })).toEqual(['spa', 'spa-integrations']);
    expect([budgetOf('core'), budgetOf('spa-debug'), budgetOf('debug-integrations'), budgetOf('page_views-integrations')]).toEqual([2000, 3500, 3500, 3800]);
  });
});

describe('features', () => {
  it('are all on by default but integrations: absent keys keep what tags had before features existed', () => {
    expect(resolveFeatures(undefined)).toEqual(DEFAULT_FEATURES);
    expect(resolveFeatures({})).toEqual(DEFAULT_FEATURES);
    expect(DEFAULT_FEATURES.integrations).toBe(false);
    expect(resolveFeatures({ page_views: false })).toEqual({ ...DEFAULT_FEATURES, page_views: false });
    expect(variantName(DEFAULT_FEATURES)).toBe('personalisation-form_fill-spa-page_views-debug');
    expect(variantName(EVERY_FEATURE)).toBe('personalisation-form_fill-spa-page_views-debug-integrations');
    expect(variantName(CORE_FEATURES)).toBe('core');
    expect(new Set(ALL_VARIANTS.map(variantName)).size).toBe(64);
  });

  it('compile integrations in when the setting is true or names the tools, which the bundle then tells by default', () => {
    expect(resolveFeatures({ integrations: true }).integrations).toBe(true);
    expect(resolveFeatures({ integrations: { ga4: true } })).toEqual({ ...DEFAULT_FEATURES, integrations: true });
    expect(resolveFeatures({ integrations: false }).integrations).toBe(false);
    expect(settingIntegrations({ integrations: { ga4: true, segment: false } })).toEqual({ ga4: true, segment: false });
    expect(settingIntegrations({ integrations: true })).toBeUndefined();
    expect(settingIntegrations(undefined)).toBeUndefined();
  });
});
