/**
 * The committed sample (`data/sample/`) is exactly what the generator makes with the defaults; when the
 * generator changes, regenerate it with `npx tsx data/generate/run.ts`.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SOURCE_FILES } from '../sources/schema.ts';
import { GENERATE_DEFAULTS, generateSources } from './generate.ts';

const SAMPLE = fileURLToPath(new URL('../sample/', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'sample-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('data/sample', () => {
  it('is what `data generate` makes with the defaults (2000 companies, seed 1)', async () => {
    await generateSources({ out, ...GENERATE_DEFAULTS });
    for (const f of Object.values(SOURCE_FILES)) {
      const same = readFileSync(join(out, f)).equals(readFileSync(join(SAMPLE, f)));
      expect(same, `${f} differs from a fresh generation: run npx tsx data/generate/run.ts`).toBe(true);
    }
  });

  it('stays small enough to commit (a few MB)', () => {
    const total = Object.values(SOURCE_FILES).reduce((n, f) => n + statSync(join(SAMPLE, f)).size, 0);
    expect(total).toBeLessThan(5_000_000);
  });
});
