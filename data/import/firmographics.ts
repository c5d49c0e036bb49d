/**
 * A firmographics CSV from the operator's data vendor, keyed by domain: one company per domain. Columns
 * are ours (`companies.csv`'s names: name, domain, industry, employee_count …) unless the mapping file
 * names theirs (`firmographics.columns`). Each row is checked by `FirmographicsRow`; an error names the
 * file, the row (1 = first data row), our field and their column.
 */
import { z } from 'zod';
import type { CompanyRow } from '../../core/catalog-records.ts';
import { normaliseDomain } from '../catalog/keys.ts';
import { CsvSyntaxError, csvRecordBatches } from '../sources/csv-records.ts';
import { COMPANY_COLUMNS } from '../sources/schema.ts';
import { ImportError } from './errors.ts';
import type { ImportMapping } from './mapping.ts';

const text = z.string().trim().default('');
const digits = (what: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(new RegExp(`^(\\d{${min},${max}})?$`), `${what}: ${min}–${max} digits`)
    .default('');
const wholeNumber = z
  .string()
  .trim()
  .regex(/^(\d+)?$/, 'a whole number (no separators)')
  .default('');

export const FirmographicsRow = z.object({
  company_id: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._:-]*$/, 'letters, digits, . _ : - only')
    .default(''),
  name: z.string().trim().min(1, 'required'),
  domain: z
    .string()
    .transform((d) => normaliseDomain(d))
    .pipe(z.string().regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/, 'required, a domain such as example.com')),
  industry: text,
  subindustry: text,
  sic: digits('SIC code', 2, 4),
  sic_description: text,
  naics: digits('NAICS code', 2, 6),
  naics_description: text,
  country: text,
  country_iso_code: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^([A-Z]{2})?$/, 'a two-letter ISO 3166 code')
    .default(''),
  region: text,
  state: text,
  state_code: text,
  city: text,
  address: text,
  zip: text,
  phone: text,
  employee_count: wholeNumber,
  employee_range: text,
  annual_revenue: wholeNumber,
  revenue_range: text,
});
export type FirmographicsRow = z.infer<typeof FirmographicsRow>;

/** Columns whose value means "this company has firmographics" (beyond a name and a domain). */
export const FIRMOGRAPHIC_FIELDS = ['industry', 'employee_count', 'employee_range', 'annual_revenue', 'revenue_range', 'sic', 'naics'] as const;

export function hasFirmographics(c: Pick<CompanyRow, (typeof FIRMOGRAPHIC_FIELDS)[number]>): boolean {
  return FIRMOGRAPHIC_FIELDS.some((f) => c[f] !== '');
}

export async function readFirmographics(file: string, mapping: ImportMapping, onRows?: (n: number) => void): Promise<FirmographicsRow[]> {
  const columnOf = (field: string): string => mapping.firmographics.columns[field as keyof typeof mapping.firmographics.columns] ?? field;
  let index: Map<string, number> | null = null;
  const out: FirmographicsRow[] = [];
  const seen = new Map<string, number>();
  let row = 0;
  try {
    for await (const records of csvRecordBatches(file)) {
      for (const { fields } of records) {
        if (index === null) {
          index = new Map(fields.map((h, i) => [h.trim(), i]));
          for (const required of ['name', 'domain']) {
            if (!index.has(columnOf(required)))
              throw new ImportError(
                `--firmographics ${file}: no column "${columnOf(required)}" for ${required} (header: ${fields.join(', ')}; map columns with --mapping)`,
              );
          }
          continue;
        }
        row++;
        const record: Record<string, string> = {};
        for (const field of COMPANY_COLUMNS) {
          const i = index.get(columnOf(field));
          if (i !== undefined) record[field] = fields[i] ?? '';
        }
        const parsed = FirmographicsRow.safeParse(record);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const field = String(issue?.path[0] ?? 'row');
          const column = columnOf(field) === field ? '' : ` (column "${columnOf(field)}")`;
          throw new ImportError(`--firmographics ${file}: row ${row}: ${field}${column}: ${issue?.message} (got "${record[field] ?? ''}")`);
        }
        const first = seen.get(parsed.data.domain);
        if (first !== undefined)
          throw new ImportError(`--firmographics ${file}: row ${row}: domain: ${parsed.data.domain} is already row ${first} (one company per domain)`);
        seen.set(parsed.data.domain, row);
        out.push(parsed.data);
      }
      onRows?.(row);
    }
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw new ImportError(`--firmographics ${file}: ${e.message}`);
    throw e;
  }
  if (index === null) throw new ImportError(`--firmographics ${file}: empty file (a header row is required)`);
  return out;
}
