/**
 * The catalog records: a company and a person as the dataset holds them — the rows of `companies.csv` and
 * `people.csv` (data/sources/schema.ts: their columns and the other sources' rows), the rows of
 * `catalog.db` the server reads (server/data/catalog.ts), and what identification, enrichment, people
 * search, segments, webhooks and the account page build their answers from. In the neutral core: the data
 * pipeline and the server read the same schemas. Every field but the ids and a company's name and domain
 * may be blank (""): a blank CSV cell is "", never absent.
 */
import { z } from 'zod';

const blank = z.string().default('');

export const CompanyRow = z.object({
  company_id: z.string().min(1),
  name: z.string().min(1),
  domain: z.string().min(1),
  industry: blank,
  subindustry: blank,
  sic: blank,
  sic_description: blank,
  naics: blank,
  naics_description: blank,
  country: blank,
  country_iso_code: blank,
  region: blank,
  state: blank,
  state_code: blank,
  city: blank,
  address: blank,
  zip: blank,
  phone: blank,
  employee_count: blank,
  employee_range: blank,
  annual_revenue: blank,
  revenue_range: blank,
});
export type CompanyRow = z.infer<typeof CompanyRow>;
export const PersonRow = z.object({
  people_id: z.string().min(1),
  email: blank,
  first_name: blank,
  last_name: blank,
  title: blank,
  company_id: blank,
  country: blank,
  state: blank,
  city: blank,
  phone: blank,
  mobile: blank,
  linkedin_url: blank,
});
export type PersonRow = z.infer<typeof PersonRow>;
