/** Our CSV reader gives csv-parse's records (the oracle), whatever the content and the chunk boundaries. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CHUNK_BYTES, CsvSyntaxError, csvRecords, MAX_FIELD_LENGTH, MAX_RECORD_LENGTH } from './csv-records.ts';

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

  it('reads a file of many default-size chunks whose lines mix ASCII and other characters (decoded line by line) like csv-parse', async () => {
    // Over CHUNK_BYTES several times: ASCII runs, lines with wide characters, and quoted fields whose line
    // breaks put a wide character and ASCII lines into one record.
    const rows: string[][] = [];
    for (let i = 0; i < 6000; i++) {
      const wide = i % 7 === 0 ? '東京 😀' : i % 11 === 0 ? 'Zürich' : 'Berlin';
      const note = i % 13 === 0 ? `first line\nsecond, with "quotes"\n${wide}` : `note ${i}`;
      rows.push([`P${i}`, wide, note, i % 17 === 0 ? '' : 'x'.repeat(i % 40)]);
    }
    const text = stringify(rows);
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * CHUNK_BYTES);
    const file = write(text);
    expect(await ours(file)).toEqual(oracle(text));
    expect(await ours(file, 1000)).toEqual(oracle(text));
  });

  it('strips a BOM, skips empty lines, keeps empty fields', async () => {
    for (const eol of ['\n', '\r\n']) {
      const text = `\uFEFFa,b,c${eol}${eol}1,,3${eol}${eol},,${eol}"",x,""${eol}`;
      expect(await ours(write(text), 3)).toEqual(oracle(text));
      expect(await ours(write(text))).toEqual([
        ['a', 'b', 'c'],
        ['1', '', '3'],
        ['', '', ''],
        ['', 'x', ''],
      ]);
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

describe('csvRecords: length limits', () => {
  const big = 'x'.repeat(2 * 1024 * 1024);

  it.each([
    ['unquoted', `a,b\n1,${big}\n2,3\n`],
    ['quoted', `a,b\n1,"${big}"\n2,3\n`],
    ['unquoted, at the end of a file without a final line break', `a,b\n1,${big}`],
  ])('refuses a 2 MB %s field, naming the line and the limit', async (_what, text) => {
    await expect(ours(write(text))).rejects.toThrow(new CsvSyntaxError(2, `field 2 longer than the limit of ${MAX_FIELD_LENGTH} characters`));
  });

  it('refuses the field as it arrives: the rest of the file is never read', async () => {
    // Past the field lies a byte that is not UTF-8: reaching it first would be a different error.
    const file = write(Buffer.concat([Buffer.from(`a,b\n1,${big}`), Buffer.from([0xff]), Buffer.from(',2\n')]));
    await expect(ours(file)).rejects.toThrow(/line 2: field 2 longer than the limit/);
  });

  it('refuses an over-long field that arrives in one chunk; a field at the limit passes', async () => {
    const over = 'y'.repeat(MAX_FIELD_LENGTH + 1);
    await expect(ours(write(`a,b,c\n1,2,3\n4,5,"${over}"\n`))).rejects.toThrow(
      new CsvSyntaxError(3, `field 3 longer than the limit of ${MAX_FIELD_LENGTH} characters`),
    );
    // `""` counts once, as it is parsed.
    const at = 'z'.repeat(MAX_FIELD_LENGTH - 1) + '"';
    expect(await ours(write(`a,b\n"${at.replace('"', '""')}",1\n`), 4096)).toEqual([
      ['a', 'b'],
      [at, '1'],
    ]);
  });

  it('refuses a record of many fields each within the limit but over the record limit', async () => {
    const fields = Array.from({ length: Math.ceil(MAX_RECORD_LENGTH / MAX_FIELD_LENGTH) + 1 }, () => 'w'.repeat(MAX_FIELD_LENGTH));
    await expect(ours(write(`h\n${fields.join(',')}\n`))).rejects.toThrow(
      new CsvSyntaxError(2, `record longer than the limit of ${MAX_RECORD_LENGTH} characters`),
    );
  });
});

describe('csvRecords: encodings', () => {
  const text = 'name,city\n"Müller, Zoë",Zürich\n東京,😀\n';
  const expected = [
    ['name', 'city'],
    ['Müller, Zoë', 'Zürich'],
    ['東京', '😀'],
  ];
  const utf16be = (t: string) => Buffer.from(t, 'utf16le').swap16();

  it.each([
    ['UTF-16 LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['UTF-16 BE', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(text)])],
    ['UTF-8 with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
  ])('decodes %s, at any chunk size', async (_what, bytes) => {
    const file = write(bytes);
    for (const chunkSize of [1, 3, 7, undefined]) expect(await ours(file, chunkSize)).toEqual(expected);
  });

  it('refuses Latin-1 (bytes that are not UTF-8), naming the line and the byte and saying how to convert', async () => {
    const file = write(Buffer.concat([Buffer.from('name,city\nA,Berlin\n"B\nC",Köln\nD,Z'), Buffer.from([0xfc]), Buffer.from('rich\n')]));
    for (const chunkSize of [5, undefined]) {
      await expect(ours(file, chunkSize)).rejects.toThrow(
        new CsvSyntaxError(5, 'not valid UTF-8 (byte 0xFC), perhaps Latin-1 or Windows-1252: convert to UTF-8 (e.g. iconv -f latin1 -t utf-8)'),
      );
    }
    // A sequence cut short by the end of the file.
    await expect(ours(write(Buffer.from([0x61, 0x0a, 0x62, 0xc3])))).rejects.toThrow(/^line 2: not valid UTF-8 \(byte 0xC3\)/);
  });

  it('refuses UTF-16 without a byte-order mark (NUL bytes), and UTF-16 that does not decode', async () => {
    await expect(ours(write(Buffer.from('a,b\n1,2\n', 'utf16le')))).rejects.toThrow(/^line 1: NUL byte: .*UTF-16 without a byte-order mark.*convert to UTF-8/);
    const lone = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a,b\n1,', 'utf16le'), Buffer.from([0x00, 0xd8]), Buffer.from(',2\n', 'utf16le')]);
    await expect(ours(write(lone))).rejects.toThrow(/^line 2: not valid UTF-16LE .*convert to UTF-8/);
    const odd = Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be('a,b\n1,2\n3,4'), Buffer.from([0x00])]);
    await expect(ours(write(odd), 3)).rejects.toThrow(/^line 3: not valid UTF-16BE /);
  });
});
