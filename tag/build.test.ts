import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUDGETS, buildTag, overBudget, PLACEHOLDER, SAMPLE_SNIPPET } from './build.ts';
import { renderSnippet } from './snippet.ts';

describe('buildTag', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-tag-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const sizes = await buildTag(dir);
  const js = await readFile(join(dir, 'svc.js'), 'utf8');

  it('keeps the bundle and the snippet within their gzip budgets (size is deterministic)', () => {
    expect(sizes.bundle.gzip).toBeLessThanOrEqual(BUDGETS.bundle);
    expect(sizes.snippet.gzip).toBeLessThanOrEqual(BUDGETS.snippet);
    expect(overBudget(sizes)).toEqual([]);
    expect(sizes.snippet.raw).toBe(Buffer.byteLength(renderSnippet(SAMPLE_SNIPPET)));
  });

  it('writes the bundle, the hook, the types and size.json', async () => {
    expect(Buffer.byteLength(js)).toBe(sizes.bundle.raw);
    expect(JSON.parse(await readFile(join(dir, 'size.json'), 'utf8'))).toEqual({ ...sizes, budgets: BUDGETS });
    expect(await readFile(join(dir, 'svc.d.ts'), 'utf8')).toContain('export interface SvcReadyDetail');
  });

  it('emits one dependency-free IIFE with one settings placeholder and nothing a strict CSP forbids', () => {
    expect(js).not.toMatch(/\brequire\(|\bimport\b|\bexport\b/);
    expect(js.trim()).toMatch(/^\(\(\)=>\{[\s\S]*\}\)\(\);$/);
    expect(js.split(PLACEHOLDER)).toHaveLength(2);
    expect(js).not.toMatch(/\beval\(|new Function|Function\(|setTimeout\("|innerHTML|insertAdjacentHTML|document\.write|\.style\.|cssText/);
  });

  it('keeps the Preact hook out of the bundle, in its own ESM file with preact external', async () => {
    const hook = await readFile(join(dir, 'preact.js'), 'utf8');
    expect(hook).toMatch(/from "preact\/hooks"/);
    expect(hook).toMatch(/export \{[^}]*useSvc/);
    expect(hook).not.toMatch(/function useState|options\.__h/); // preact itself is not inlined
    expect(js).not.toMatch(/useSvc|preact|useState/);
  });

  it('reports what is over budget', () => {
    const big = { raw: 1e5, gzip: 1e5 };
    expect(overBudget({ bundle: big, snippet: sizes.snippet })).toEqual(['bundle']);
    expect(overBudget({ bundle: sizes.bundle, snippet: big })).toEqual(['snippet']);
  });
});
