/**
 * Reading a sources folder: streaming CSV rows validated by their zod schema, and customers.json.
 * Rows stream (async iterator) so a 5-million-row networks.csv never sits in memory as one array.
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import type { z } from 'zod';
import { CustomersFile, SOURCE_FILES } from './schema.ts';

export class SourceError extends Error {}

/** Yields validated rows of one CSV file; a bad row fails with its file name and line number. */
export async function* readCsv<S extends z.ZodType>(file: string, schema: S): AsyncGenerator<z.infer<S>> {
  const parser = createReadStream(file).pipe(
    parse({ columns: true, skip_empty_lines: true, bom: true, relax_column_count: false }),
  );
  let line = 1;
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    line++;
    const parsed = schema.safeParse(record);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SourceError(`${file}: row ${line}: ${issue?.path.join('.') || 'row'}: ${issue?.message}`);
    }
    yield parsed.data;
  }
}

/** Optional files (domains, people, intent, engagement) read as empty when absent. */
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
