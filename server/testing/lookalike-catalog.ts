/** A generated catalog for the lookalike tests: companies of varied firmographics, and a catalog of them in memory. */
import type { CompanyRow } from '../../core/catalog-records.ts';
import { COMPANY_COLUMNS } from '../../data/sources/schema.ts';
import type { Catalog } from '../data/catalog.ts';

/** A deterministic catalog of n companies: values in several spellings, blanks, ids whose text order is not numeric. */
export function lookalikeCompanies(n: number): CompanyRow[] {
  const pick = <T>(list: T[], i: number, salt: number) => list[(i * 7919 + salt * 104729) % list.length]!;
  return Array.from({ length: n }, (_, i) => {
    const row = Object.fromEntries(COMPANY_COLUMNS.map((c) => [c, ''])) as CompanyRow;
    return {
      ...row,
      company_id: String(i + 1),
      name: `Company ${i + 1}`,
      domain: `c${i + 1}.example`,
      industry: pick(['Software', 'software', 'Manufacturing', 'Retail', 'Healthcare', ''], i, 1),
      subindustry: pick(['ERP', 'CRM', 'Analytics', ''], i, 2),
      naics: pick(['511210', '511199', '541511', '334111', '518210', ''], i, 3),
      employee_range: pick(['1-9', '10-49', '50-199', '200-499', '500-999', '1,000-4,999', ''], i, 4),
      sic: pick(['7372', '7371', '7374', '3571', ''], i, 5),
      revenue_range: pick(['$1M-$10M', '$10M-$50M', '$50M-$100M', '$1B-$10B'], i, 6),
      country_iso_code: pick(['US', 'us', 'DE', 'GB', 'IN'], i, 7),
      region: pick(['North America', 'EMEA', 'APAC'], i, 8),
    };
  });
}

export function fakeCatalog(rows: CompanyRow[]): Catalog {
  const sorted = [...rows].sort((a, b) => (a.company_id < b.company_id ? -1 : 1));
  const byId = new Map(rows.map((r) => [r.company_id, r]));
  return {
    companyColumns: (columns, after, limit) =>
      sorted
        .filter((r) => r.company_id > after)
        .slice(0, limit)
        .map((r) => columns.map((c) => r[c])),
    company: (id) => byId.get(id) ?? null,
  } as Catalog;
}
