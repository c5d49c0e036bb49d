/**
 * docs/configuration.md's table is the operator's list of settings; ConfigSchema is what the server reads.
 * They are kept apart (the table explains, the schema validates), so this test holds them together: the
 * same names, each once, and each documented default is the one the schema applies.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, loadConfig } from './config.ts';

const DOC = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

/** The rows of the configuration table: `| \`NAME\` | default | meaning |`. */
function documentedRows(md: string): { name: string; defaultCell: string }[] {
  return [...md.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/gm)].map((m) => ({ name: m[1]!, defaultCell: m[2]!.trim() }));
}

/** What a default cell says: the first `code` span, or the leading word when the setting has no value by default. */
function documentedDefault(cell: string): string {
  const code = /`([^`]*)`/.exec(cell);
  if (/^(unset|generated)\b/.test(cell)) return 'unset';
  return code ? code[1]! : cell;
}

/** The schema's default as the table writes it; settings that are off, empty or absent by default read as "unset". */
function schemaDefault(value: unknown): string {
  if (value === undefined || value === false || (Array.isArray(value) && value.length === 0)) return 'unset';
  return String(value);
}

const rows = documentedRows(readFileSync(DOC, 'utf8'));
const schemaNames = Object.keys(ConfigSchema.shape).sort();

describe('docs/configuration.md documents exactly the settings of server/config.ts', () => {
  it('names every variable the schema reads, and no other', () => {
    expect(rows.length).toBeGreaterThan(0);
    expect([...new Set(rows.map((r) => r.name))].sort()).toEqual(schemaNames);
  });

  it('names each variable once', () => {
    const seen = new Set<string>();
    const twice = rows.filter((r) => seen.has(r.name) || !seen.add(r.name)).map((r) => r.name);
    expect(twice).toEqual([]);
  });

  it("gives each variable the schema's default (or says it is unset)", () => {
    const defaults = loadConfig({}) as Record<string, unknown>;
    const wrong = rows
      .filter((r) => documentedDefault(r.defaultCell) !== schemaDefault(defaults[r.name]))
      .map((r) => `${r.name}: documented ${JSON.stringify(r.defaultCell)}, schema ${JSON.stringify(defaults[r.name])}`);
    expect(wrong).toEqual([]);
  });
});
