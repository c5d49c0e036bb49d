import { describe, expect, it } from 'vitest';
import { fakeCatalog, lookalikeCompanies } from '../testing/lookalike-catalog.ts';
import { likeness, profileOf, rankLookalikes } from './method.ts';
import { LookalikeIndex, lookalikeIndex, lookalikeIndexBuild, warmLookalikeIndex } from './snapshot-index.ts';

describe('the lookalike index', () => {
  const rows = lookalikeCompanies(4000);
  const catalog = fakeCatalog(rows);
  const seedIds = rows.filter((r) => r.industry.toLowerCase() === 'software' && r.employee_range === '200-499').map((r) => r.company_id);

  it('gives every row the score the method gives the company, from the same profile', async () => {
    const index = await LookalikeIndex.build(catalog);
    expect(index.size).toBe(4000);
    const { rows: seedRows, notFound } = index.rowsOf([...seedIds, 'no-such-company']);
    expect(notFound).toBe(1);
    expect(seedRows.length).toBe(seedIds.length);
    const byId = new Map(rows.map((r) => [r.company_id, r]));
    const profile = profileOf(seedIds.map((id) => byId.get(id)!));
    expect(index.profileOf(seedRows)).toEqual(profile);
    const scored = await index.scoresOf(seedRows);
    for (let row = 0; row < index.size; row++) {
      const company = byId.get(index.companyId(row))!;
      expect(scored.scores[row], company.company_id).toBe(Math.round(likeness(profile, company).score * 1000));
    }
    // Kept: the same seed asks once.
    expect(await index.scoresOf(Uint32Array.from(seedRows))).toBe(scored);
  });

  it('ranks as the method does (score, then company id), the seed left out; rows at least a minimum likewise', async () => {
    const index = await LookalikeIndex.build(catalog);
    const { rows: seedRows } = index.rowsOf(seedIds);
    const scored = await index.scoresOf(seedRows);
    const byId = new Map(rows.map((r) => [r.company_id, r]));
    const profile = profileOf(seedIds.map((id) => byId.get(id)!));
    const seeds = new Set(seedIds);
    for (const limit of [1, 25, 300]) {
      const expected = rankLookalikes(profile, rows, seeds, limit).map((r) => r.company_id);
      expect((await index.top(scored, limit)).map((row) => index.companyId(row))).toEqual(expected);
    }
    const atLeast = [...(await index.rowsAtLeast(scored, 700))].map((row) => index.companyId(row));
    const expected = rows
      .filter((r) => !seeds.has(r.company_id) && Math.round(likeness(profile, r).score * 1000) >= 700)
      .map((r) => r.company_id)
      .sort();
    expect(atLeast).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
  });

  it('is built once per catalog, giving the event loop back while it builds', async () => {
    const big = fakeCatalog(lookalikeCompanies(30_000));
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    warmLookalikeIndex(big);
    const built = await lookalikeIndexBuild(big)!;
    clearInterval(tick);
    expect(turns).toBeGreaterThan(2);
    expect(await lookalikeIndex(big)).toBe(built);
    expect(built.size).toBe(30_000);
  });

  it('answers from the replaced snapshot’s index while the new one builds', async () => {
    const first = fakeCatalog(lookalikeCompanies(100));
    const second = fakeCatalog(lookalikeCompanies(200));
    warmLookalikeIndex(first);
    const old = await lookalikeIndexBuild(first)!;
    warmLookalikeIndex(second, first);
    expect(await lookalikeIndex(second)).toBe(old);
    const fresh = await lookalikeIndexBuild(second)!;
    expect(await lookalikeIndex(second)).toBe(fresh);
    expect(fresh.size).toBe(200);
  });
});
