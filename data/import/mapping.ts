/**
 * The `--mapping FILE` of `data import` (JSON): overrides of the user_type table and the firmographics
 * CSV's column names. Everything is optional:
 *
 *   { "user_type": { "residential": "isp", "consumer_privacy": "hosting", "traveler": null },
 *     "firmographics": { "columns": { "domain": "Website", "name": "Company Name", "employee_count": "Employees" } } }
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { COMPANY_COLUMNS } from '../sources/schema.ts';
import { ImportError } from './errors.ts';

const Kind = z.string().regex(/^[a-z][a-z0-9_-]*$/, 'a kind is a lower-case word such as company, isp, hosting, bot');

export const ImportMapping = z
  .object({
    user_type: z.record(z.string().min(1), Kind.nullable()).default({}),
    firmographics: z
      .object({
        columns: z.partialRecord(z.enum(COMPANY_COLUMNS as [string, ...string[]]), z.string().min(1)).default({}),
      })
      .strict()
      .default({ columns: {} }),
  })
  .strict();
export type ImportMapping = z.infer<typeof ImportMapping>;

export function readMapping(file: string | undefined): ImportMapping {
  if (!file) return ImportMapping.parse({});
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ImportError(`--mapping ${file}: not valid JSON: ${(e as Error).message}`);
  }
  const parsed = ImportMapping.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ImportError(`--mapping ${file}: ${issue?.path.join('.') || 'file'}: ${issue?.message}`);
  }
  return parsed.data;
}
