/**
 * Test data of the batch enrichment route and `svc enrich`: a catalog of the fixture companies plus 40
 * more (alternating Software / EMEA Manufacturing, so segments differ), and a deterministic mix of leads
 * over it — known people, emails at company domains, bare domains and URLs, unknown domains, free mail,
 * malformed and over-long emails — with repeats, so charges, month dedup and quota exhaustion all happen.
 */
import type { CompanyRow } from '../../core/catalog-records.ts';
import { ACME_SOFTWARE, BLUEPEAK_MANUFACTURING, FIXTURE_PEOPLE, leadSources } from '../testing/fixtures.ts';

export const EXTRA_COMPANIES: CompanyRow[] = Array.from({ length: 40 }, (_, k) => ({
  ...(k % 2 === 0 ? ACME_SOFTWARE : BLUEPEAK_MANUFACTURING),
  company_id: String(910_000 + k),
  name: `Batch Company ${k}`,
  domain: `co${k}.example`,
}));

/** leadSources with the extra companies in the catalog. */
export const batchSources = (now: Date) => {
  const s = leadSources(now);
  return { ...s, companies: [...s.companies, ...EXTRA_COMPANIES] };
};

export type Lead = { email: string } | { domain: string };

/** The distinct leads the mixes draw from: every kind of answer the single route gives. */
export const LEAD_POOL: Lead[] = [
  ...FIXTURE_PEOPLE.map((p) => ({ email: p.email })),
  ...EXTRA_COMPANIES.map((c, k) => (k % 3 === 0 ? { domain: k % 2 ? `https://www.${c.domain}/about` : c.domain } : { email: `lead${k}@${c.domain}` })),
  { email: 'someone@unknown.example' },
  { domain: 'unknown.example' },
  { email: 'nobody@gmail.com' },
  { email: 'not-an-email' },
  { email: `${'x'.repeat(300)}@example.com` },
  { domain: 'gmail.com' },
];

/** `n` leads drawn from LEAD_POOL with a fixed LCG: the same list on every run. */
export function leadMix(n: number, seed = 7): Lead[] {
  let x = seed;
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return LEAD_POOL[(x >>> 8) % LEAD_POOL.length]!;
  });
}
