import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_VARIANTS, CORE_FEATURES, DEFAULT_FEATURES, EVERY_FEATURE, resolveFeatures, settingIntegrations, variantName } from '../core/tag-features.ts';
import { BUDGETS, budgetOf, buildTag, integrationsChunk, overBudget, SAMPLE_SNIPPET } from './build.ts';
import { SETTINGS_PLACEHOLDER } from './settings-placeholder.ts';
import { renderSnippet } from './snippet.ts';

describe('buildTag', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-tag-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const sizes = await buildTag(dir);
  const js = await readFile(join(dir, 'svc.js'), 'utf8');

  it('keeps the core ≤ 2,000 B, every other variant ≤ 3,500 B (page views with the integrations too), the integrations chunk ≤ 1,000 B and the snippet ≤ 600 B gzip (size is deterministic)', () => {
    expect(BUDGETS).toEqual({ core: 2000, bundle: 3500, integrations: 1000, snippet: 600 });
    expect(Object.keys(sizes.variants)).toHaveLength(64);
    // Written out rather than read from budgetOf: no variant has a budget of its own.
    for (const [name, size] of Object.entries(sizes.variants)) {
      expect(size.gzip, name).toBeLessThanOrEqual(name === 'core' ? 2000 : 3500);
      expect(budgetOf(name), name).toBe(name === 'core' ? 2000 : 3500);
    }
    expect(sizes.bundle).toEqual(sizes.variants[variantName(EVERY_FEATURE)]);
    expect(sizes.bundle.gzip).toBeLessThanOrEqual(3500);
    expect(sizes.integrations.gzip).toBeLessThanOrEqual(1000);
    expect(sizes.snippet.gzip).toBeLessThanOrEqual(600);
    expect(overBudget(sizes)).toEqual([]);
    // What a browser downloads (it accepts br; server/tag/assets.ts serves it): every variant ≤ 3,500 B.
    for (const [name, size] of Object.entries(sizes.variants)) {
      expect(size.br, name).toBeLessThanOrEqual(name === 'core' ? 2000 : 3500);
      expect(size.br, name).toBeLessThan(size.gzip);
    }
    expect(sizes.snippet.raw).toBe(Buffer.byteLength(renderSnippet(SAMPLE_SNIPPET)));
  });

  it('writes every variant, the full bundle, the integrations chunk, the hook, the types (svc.d.ts, preact.d.ts) and size.json', async () => {
    expect(Buffer.byteLength(js)).toBe(sizes.bundle.raw);
    const chunk = await readFile(join(dir, 'chunks', sizes.integrations.file), 'utf8');
    expect(Buffer.byteLength(chunk)).toBe(sizes.integrations.raw);
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
    // (the one `import(` is the integrations chunk's, see below)
    expect(js.replace(/import\(\w+\.endpoint\+"\/tag\/v1\/integrations\.[\w-]+\.js"\)/, '')).not.toMatch(/\brequire\(|\bimport\b|\bexport\b/);
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
      integrations: `"/tag/v1/${sizes.integrations.file}"`, // the import of the chunk
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

  it("builds the integrations chunk as an ES module named by its content, holding GA4's and Segment's code that no variant holds", async () => {
    const chunk = await readFile(join(dir, 'chunks', sizes.integrations.file), 'utf8');
    expect(sizes.integrations.file).toMatch(/^integrations\.[A-Za-z0-9_-]{6}\.js$/);
    expect(await integrationsChunk()).toEqual({ file: sizes.integrations.file, js: chunk }); // one build per process, the one written
    expect(chunk).toMatch(/export ?\{ ?\w+ as t ?\};?\s*$/);
    expect(chunk).toContain('user_properties');
    expect(chunk).toContain('.group(');
    expect(chunk).not.toMatch(/\bimport\b|\beval\(|new Function|innerHTML/);
    for (const features of ALL_VARIANTS) {
      const variant = await readFile(join(dir, 'variants', variantName(features) + '.js'), 'utf8');
      expect(variant, variantName(features)).not.toContain('user_properties');
      // The one dynamic import a bundle may hold is its own chunk's, only with the feature.
      expect(variant.match(/\bimport\(/g) ?? [], variantName(features)).toHaveLength(features.integrations ? 1 : 0);
    }
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
    expect(overBudget({ ...fine, integrations: { file: 'integrations.abcdef.js', raw: 1, gzip: BUDGETS.integrations + 1, br: 1 } })).toEqual(['integrations']);
    // No exception: page views with the integrations have the budget of any other variant.
    const pageViewsIntegrations = 'personalisation-form_fill-spa-page_views-debug-integrations';
    expect([
      budgetOf('core'),
      budgetOf('spa-debug'),
      budgetOf('debug-integrations'),
      budgetOf('page_views-integrations'),
      budgetOf(pageViewsIntegrations),
    ]).toEqual([2000, 3500, 3500, 3500, 3500]);
    expect(overBudget({ ...fine, variants: { core: small, [pageViewsIntegrations]: near } })).toEqual([pageViewsIntegrations]);
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
