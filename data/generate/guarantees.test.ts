/**
 * What the demo site and the browser tests rely on, for any seed and any number of companies ≥ 20:
 * a member of the demo customer's first segment owning a High/Very High company network that answers for
 * itself (nothing more specific inside it, no later row replacing it); ISP, hosting and bot networks; and
 * excluded and hot accounts that each own such a network. Checked from the files alone.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Address6 } from 'ip-address';
import { afterAll, describe, expect, it } from 'vitest';
import { CustomersFile, type SegmentMatch } from '../../core/customer-records.ts';
import { SOURCE_FILES } from '../sources/schema.ts';
import { type GenerateSummary, generateSources } from './generate.ts';
import { answersForItself, ipNumber, type NetworkEntry, networkEntries, networkEntries6, readRows, resolve } from './read-generated.ts';

const root = mkdtempSync(join(tmpdir(), 'guarantees-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The segment rule as schema.ts states it: AND across fields, OR within a field, case-insensitive; empty matches nothing. */
function segmentMatches(rule: SegmentMatch, company: Record<string, string>): boolean {
  const fields = Object.entries(rule).filter(([, values]) => values !== undefined) as [string, string[]][];
  return fields.length > 0 && fields.every(([field, values]) => values.some((v) => v.toLowerCase() === (company[field] ?? '').toLowerCase()));
}

const strong = (e: NetworkEntry) => e.row.confidence === 'High' || e.row.confidence === 'Very High';

function check(dir: string, summary: GenerateSummary): void {
  const { customers } = CustomersFile.parse(JSON.parse(readFileSync(join(dir, SOURCE_FILES.customers), 'utf8')));
  const demo = customers.find((c) => c.id === 'demo')!;
  const companies = readRows(dir, 'companies');
  const entries = networkEntries(dir);
  const clean = (companyId: string) =>
    entries.filter((e) => e.row.kind === 'company' && e.row.company_id === companyId && strong(e) && answersForItself(entries, e));

  const excluded = new Set(demo.excluded_accounts);
  const hot = new Set(demo.hot_accounts.map((h) => h.company_id));
  const members = companies.filter((c) => segmentMatches(demo.segments[0].match, c) && !excluded.has(c.company_id) && !hot.has(c.company_id));
  expect(
    members.some((c) => clean(c.company_id).length > 0),
    'a plain member of the first segment with a clean network',
  ).toBe(true);

  expect(excluded.size).toBeGreaterThan(0);
  expect(hot.size).toBeGreaterThan(0);
  for (const id of [...excluded, ...hot]) {
    expect(
      companies.some((c) => c.company_id === id),
      id,
    ).toBe(true);
    expect(clean(id).length, `clean network of ${id}`).toBeGreaterThan(0);
  }

  // The addresses the summary offers the demo really answer as promised.
  for (const kind of ['isp', 'hosting', 'bot'] as const) {
    const v = summary.demo[kind];
    const hit = resolve(entries, ipNumber(v.ip));
    expect(hit?.row.kind, `${kind} ${v.ip}`).toBe(kind);
    expect(hit?.row.network).toBe(v.network);
  }
  for (const account of [...summary.demo.segment, ...summary.demo.excluded, ...summary.demo.hot]) {
    const hit = resolve(entries, ipNumber(account.ip))!;
    expect(hit.row).toMatchObject({ kind: 'company', company_id: account.company_id, network: account.network });
    expect(strong(hit)).toBe(true);
  }
  // Each protected company network has an IPv6 /48 of the same company that answers for itself.
  const v6 = networkEntries6(dir);
  for (const account of [...summary.demo.segment, ...summary.demo.excluded, ...summary.demo.hot]) {
    const ip = new Address6(account.ipv6!.ip).bigInt();
    const hits = v6.filter((e) => e.first <= ip && ip <= e.last);
    expect(
      hits.map((e) => e.row.network),
      account.ipv6!.ip,
    ).toEqual([account.ipv6!.network]);
    expect(hits[0].row).toMatchObject({ kind: 'company', company_id: account.company_id, confidence: account.confidence });
    expect(v6.filter((e) => e.row.network === account.ipv6!.network)).toHaveLength(1);
  }
  expect(summary.demo.segment[0].label).toBe(demo.segments[0].name);
  expect(resolve(entries, ipNumber(summary.demo.none))).toBeNull();
}

describe('demo guarantees', () => {
  it('hold for the smallest allowed sample', async () => {
    for (const seed of [1, 2, 3, 'demo']) {
      const dir = join(root, `min-${seed}`);
      check(dir, await generateSources({ out: dir, companies: 20, seed }));
    }
  });

  it('hold for any seed and any number of companies from 20', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.integer(), fc.string({ minLength: 1 })), fc.integer({ min: 20, max: 120 }), async (seed, companies) => {
        const dir = join(root, `p${run++}`);
        check(dir, await generateSources({ out: dir, companies, seed }));
      }),
      { numRuns: 15 },
    );
  });

  it('hold for a larger sample, where nesting and repeated rows are common', async () => {
    const dir = join(root, 'large');
    const summary = await generateSources({ out: dir, companies: 1500, seed: 'large' });
    check(dir, summary);
    const entries = networkEntries(dir);
    const seen = new Set<string>();
    expect(
      entries.some((e) => seen.size === seen.add(e.row.network).size),
      'some network is repeated',
    ).toBe(true);
  });
});
