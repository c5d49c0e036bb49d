import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CsvWriter, csvLine } from './csv-writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'csv-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Fields made of the characters that matter to CSV, plus non-ASCII text. */
const field = fc.stringMatching(/^[a-zé€😀 ,"\r\n;'-]{0,12}$/u);

describe('csvLine', () => {
  it('writes exactly what csv-stringify writes, for any fields', () => {
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 8 }), (fields) => {
        expect(csvLine(fields)).toBe(stringify([fields]));
      }),
      { numRuns: 500 },
    );
  });

  it('quotes only when needed', () => {
    expect(csvLine(['a', 'b c', ''])).toBe('a,b c,\n');
    expect(csvLine(['Vice President, Sales', 'x'])).toBe('"Vice President, Sales",x\n');
    expect(csvLine(['say "hi"'])).toBe('"say ""hi"""\n');
  });
});

describe('CsvWriter', () => {
  it('writes the header and every row, readable back by csv-parse (also across many buffer flushes)', async () => {
    const file = join(dir, 'rows.csv');
    const w = new CsvWriter(file, ['id', 'text']);
    const rows: string[][] = [];
    for (let i = 0; i < 60_000; i++) {
      const row = [String(i), i % 7 === 0 ? `Müller, "${i}"\nnext line` : `row ${i} ☕`];
      rows.push(row);
      w.write(row);
      if (i % 1000 === 0) await w.drain();
    }
    await w.close();
    expect(w.rows).toBe(60_000);
    const back = parse(readFileSync(file)) as string[][];
    expect(back[0]).toEqual(['id', 'text']);
    expect(back.slice(1)).toEqual(rows);
  });

  it('writes byte for byte what csvLine gives', async () => {
    const file = join(dir, 'bytes.csv');
    const rows = [
      ['a', 'b'],
      ['c,d', 'e'],
      ['', 'f"g'],
    ];
    const w = new CsvWriter(file, ['h1', 'h2']);
    for (const r of rows) w.write(r);
    await w.close();
    expect(readFileSync(file, 'utf8')).toBe(csvLine(['h1', 'h2']) + rows.map(csvLine).join(''));
  });

  it('reports a failing file on close', async () => {
    const w = new CsvWriter(join(dir, 'missing-folder', 'x.csv'), ['a']);
    w.write(['1']);
    await expect(w.close()).rejects.toThrow(/ENOENT/);
  });
});
