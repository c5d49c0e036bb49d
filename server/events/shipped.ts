/**
 * The fields of every shipped event version, pinned in shipped.json: registry.test.ts fails when a
 * version loses a field or a field changes type (that is a new version). Run this file to pin versions
 * added since (`npx tsx server/events/shipped.ts`); pinned ones are never rewritten.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EVENT_SCHEMAS, eventJsonSchema } from './registry.ts';

export const SHIPPED_FILE = fileURLToPath(new URL('./shipped.json', import.meta.url));

type Json = Record<string, unknown>;

/** Each property path of a JSON Schema (`data.company.name`, `data.pages[]`) with its type(s). */
export function fieldTypes(schema: Json, path = '', out: Record<string, string> = {}): Record<string, string> {
  const type = typeOf(schema);
  if (path) out[path] = type;
  for (const [name, sub] of Object.entries((schema.properties as Record<string, Json> | undefined) ?? {}))
    fieldTypes(sub, path ? `${path}.${name}` : name, out);
  if (schema.items && typeof schema.items === 'object') fieldTypes(schema.items as Json, `${path}[]`, out);
  for (const alt of [...((schema.anyOf as Json[]) ?? []), ...((schema.oneOf as Json[]) ?? [])]) fieldTypes(alt, path, out);
  if (path && (schema.anyOf || schema.oneOf)) out[path] = type;
  return out;
}

function typeOf(schema: Json): string {
  const alts = (schema.anyOf as Json[] | undefined) ?? (schema.oneOf as Json[] | undefined);
  if (alts) return [...new Set(alts.map(typeOf))].sort().join('|');
  if (schema.const !== undefined) return `const:${JSON.stringify(schema.const)}`;
  if (Array.isArray(schema.enum)) return `enum:${[...schema.enum].map(String).sort().join(',')}`;
  const t = schema.type;
  return Array.isArray(t) ? [...t].sort().join('|') : typeof t === 'string' ? t : 'any';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const shipped: Record<string, Record<string, string>> = existsSync(SHIPPED_FILE) ? JSON.parse(readFileSync(SHIPPED_FILE, 'utf8')) : {};
  let added = 0;
  for (const e of EVENT_SCHEMAS) {
    const key = `${e.name}@${e.version}`;
    if (shipped[key]) continue;
    shipped[key] = fieldTypes(eventJsonSchema(e, ''));
    added++;
  }
  writeFileSync(SHIPPED_FILE, `${JSON.stringify(shipped, null, 2)}\n`);
  console.log(`${added} version(s) pinned in ${SHIPPED_FILE}`);
}
