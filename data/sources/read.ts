/**
 * Reading a sources folder: streaming CSV rows validated by their zod schema, and customers.json.
 * Rows stream (async iterator) so a 5-million-row networks.csv never sits in memory as one array.
 * CSV syntax: ./csv-records.ts (RFC 4180; hand-written for speed, checked against csv-parse).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { CustomersFile } from '../../core/customer-records.ts';
import { CsvSyntaxError, csvRecordBatches } from './csv-records.ts';
import { FAST_ROWS, type FastRow, type FastRowFactory } from './fast-rows.ts';
import { SOURCE_FILES } from './schema.ts';

export class SourceError extends Error {}

/**
 * Yields validated rows of one CSV file; a bad row fails with its file name and line number. Rows the
 * schema's fast path (./fast-rows.ts) accepts skip zod; the others are zod's to accept or reject.
 */
export async function* readCsv<S extends z.ZodType>(file: string, schema: S): AsyncGenerator<z.infer<S>> {
  for await (const batch of readCsvBatches(file, schema)) yield* batch;
}

/** The same rows in batches (one per chunk of the file): for bulk loads of millions of rows. */
export async function* readCsvBatches<S extends z.ZodType>(file: string, schema: S): AsyncGenerator<z.infer<S>[]> {
  let header: string[] | null = null;
  let fast: FastRow<z.infer<S>> | undefined;
  const fastFactory = FAST_ROWS.get(schema) as FastRowFactory<z.infer<S>> | undefined;
  let row = 1;
  try {
    for await (const records of csvRecordBatches(file)) {
      const out: z.infer<S>[] = [];
      for (const { fields, line } of records) {
        if (header === null) {
          header = fields;
          fast = fastFactory?.(header);
          continue;
        }
        row++;
        if (fields.length !== header.length) {
          throw new SourceError(`${file}: row ${row} (line ${line}): ${fields.length} fields where the header has ${header.length}`);
        }
        const quick = fast?.(fields);
        if (quick !== undefined) {
          out.push(quick);
          continue;
        }
        const record: Record<string, string> = {};
        for (let k = 0; k < header.length; k++) record[header[k]] = fields[k];
        const parsed = schema.safeParse(record);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new SourceError(`${file}: row ${row}: ${issue?.path.join('.') || 'row'}: ${issue?.message}`);
        }
        out.push(parsed.data);
      }
      if (out.length > 0) yield out;
    }
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw new SourceError(`${file}: ${e.message}`);
    throw e;
  }
}

/** Optional files (domains, people, intent, engagement) read as empty when absent. */
export async function* readOptionalCsvBatches<S extends z.ZodType>(dir: string, name: string, schema: S): AsyncGenerator<z.infer<S>[]> {
  const file = join(dir, name);
  if (!existsSync(file)) return;
  yield* readCsvBatches(file, schema);
}

export async function* readOptionalCsv<S extends z.ZodType>(dir: string, name: string, schema: S): AsyncGenerator<z.infer<S>> {
  const file = join(dir, name);
  if (!existsSync(file)) return;
  yield* readCsv(file, schema);
}

export function readCustomersFile(file: string): CustomersFile {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new SourceError(`${file}: not valid JSON: ${(e as Error).message}`);
  }
  const parsed = CustomersFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SourceError(`${file}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}

export function sourcePath(dir: string, key: keyof typeof SOURCE_FILES): string {
  return join(dir, SOURCE_FILES[key]);
}
