import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUDGETS, buildTag, overBudget } from './build.ts';

describe('buildTag', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-tag-'));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const sizes = await buildTag(dir);

  it('keeps the bundle and the snippet within their gzip budgets', () => {
    expect(sizes.bundle.gzip).toBeLessThanOrEqual(BUDGETS.bundle);
    expect(sizes.snippet.gzip).toBeLessThanOrEqual(BUDGETS.snippet);
    expect(overBudget(sizes)).toEqual([]);
  });

  it('writes the bundle and size.json', async () => {
    const js = await readFile(join(dir, 'svc.js'), 'utf8');
    expect(Buffer.byteLength(js)).toBe(sizes.bundle.raw);
    expect(JSON.parse(await readFile(join(dir, 'size.json'), 'utf8'))).toEqual({ ...sizes, budgets: BUDGETS });
  });

  it('emits one dependency-free es2017 IIFE', async () => {
    const js = await readFile(join(dir, 'svc.js'), 'utf8');
    expect(js).not.toMatch(/\brequire\(|\bimport\b|\bexport\b/);
    expect(js).not.toMatch(/\?\?|\?\.|\bcatch\{/); // es2019+/es2020 syntax lowered
    expect(js.trim()).toMatch(/^"use strict";\(\(\)=>\{[\s\S]*\}\)\(\);$/);
  });

  it('reports what is over budget', () => {
    const big = { raw: 1e5, gzip: 1e5 };
    expect(overBudget({ bundle: big, snippet: sizes.snippet })).toEqual(['bundle']);
    expect(overBudget({ bundle: sizes.bundle, snippet: big })).toEqual(['snippet']);
  });
});
