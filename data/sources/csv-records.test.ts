/** Our CSV reader gives csv-parse's records (the oracle), whatever the content and the chunk boundaries. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { csvRecords, CsvSyntaxError } from './csv-records.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-csv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const write = (text: string | Buffer) => {
  const file = join(dir, `f${n++}.csv`);
  writeFileSync(file, text);
  return file;
};
const ours = async (file: string, chunkSize?: number) => {
  const out: string[][] = [];
  for await (const r of csvRecords(file, { chunkSize })) out.push(r.fields);
  return out;
};
const oracle = (text: string) => parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];

const cell = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', ',', '"', '""', 'a,b', 'say "hi"', 'line\nbreak', 'crlf\r\nbreak', 'Zürich', '東京', '😀', ' padded '),
);

describe('csvRecords', () => {
  it('reads what csv-stringify writes, like csv-parse, at any chunk size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.integer({ min: 1, max: 64 }),
        async (rows, eol, finalEol, chunkSize) => {
          // One line ending per file (csv-parse keeps the first one it meets; files do not mix them).
          const cells = eol === '\n' ? rows : rows.map((r) => r.map((c) => c.replace(/\r?\n/g, '\r\n')));
          let text = stringify(cells, { record_delimiter: eol === '\n' ? 'unix' : 'windows' });
          if (!finalEol) text = text.slice(0, -eol.length);
          const file = write(text);
          expect(await ours(file, chunkSize)).toEqual(oracle(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('strips a BOM, skips empty lines, keeps empty fields', async () => {
    for (const eol of ['\n', '\r\n']) {
      const text = `\uFEFFa,b,c${eol}${eol}1,,3${eol}${eol},,${eol}"",x,""${eol}`;
      expect(await ours(write(text), 3)).toEqual(oracle(text));
      expect(await ours(write(text))).toEqual([['a', 'b', 'c'], ['1', '', '3'], ['', '', ''], ['', 'x', '']]);
    }
  });

  it('counts lines, quoted line breaks included', async () => {
    const lines: number[] = [];
    for await (const r of csvRecords(write('h1,h2\n"a\nb",c\n\nd,e\n'))) lines.push(r.line);
    expect(lines).toEqual([1, 2, 5]);
  });

  it.each([
    ['a quote inside an unquoted field', 'a,b\nx"y,z\n', 2],
    ['text after a closing quote', 'a,b\n"x"y,z\n', 2],
    ['an unclosed quote', 'a,b\n"x,z\n', 2],
  ])('refuses %s, as csv-parse does', async (_what, text, line) => {
    expect(() => oracle(text)).toThrow();
    await expect(ours(write(text))).rejects.toThrow(CsvSyntaxError);
    await expect(ours(write(text))).rejects.toThrow(new RegExp(`^line ${line}:`));
  });
});
