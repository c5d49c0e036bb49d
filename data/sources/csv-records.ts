/**
 * Streaming RFC 4180 CSV records (arrays of fields) from a file.
 *
 * Why hand-written rather than `csv-parse` (which the sources used first, and which stays the oracle in
 * csv-records.test.ts): at the sizes `data build` reads — 5 million networks, 5.6 million people for a
 * million companies — csv-parse's per-character state machine and per-field callbacks cost ≈ 10 µs a
 * record, more than everything else in the build together. Our files are plain RFC 4180: most lines hold
 * no quote at all and are split with one native `String#split`; a line with a quote is parsed character
 * by character (quoted fields with `,`, `""` and line breaks inside). Behaviour matches csv-parse with
 * the options read.ts used (`bom`, `skip_empty_lines`, `\n` or `\r\n` record delimiters, strict quotes):
 * a quote inside an unquoted field, text after a closing quote, or an unclosed quote is an error.
 */
import { createReadStream } from 'node:fs';

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

export interface CsvRecord {
  fields: string[];
  /** Line of the file the record starts on (1-based). */
  line: number;
}

/** Yields every non-empty record of the file, the header row included. */
export async function* csvRecords(file: string, opts: { chunkSize?: number } = {}): AsyncGenerator<CsvRecord> {
  for await (const batch of csvRecordBatches(file, opts)) yield* batch;
}

/** The same records in batches (one per chunk read): millions of rows cost one async step per batch. */
export async function* csvRecordBatches(file: string, opts: { chunkSize?: number } = {}): AsyncGenerator<CsvRecord[]> {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: opts.chunkSize ?? 1 << 20 });
  const parser = new CsvParser();
  let first = true;
  for await (const chunk of stream as AsyncIterable<string>) {
    let text = chunk;
    if (first) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const batch = parser.push(text, false);
    if (batch.length > 0) yield batch;
  }
  const last = parser.push('', true);
  if (last.length > 0) yield last;
}

class CsvParser {
  private carry = '';
  private line = 1;

  /** Records complete in the text so far; `end`: no more text will come. */
  push(chunk: string, end: boolean): CsvRecord[] {
    const out: CsvRecord[] = [];
    const s = this.carry.length > 0 ? this.carry + chunk : chunk;
    this.carry = '';
    const len = s.length;
    let i = 0;
    // Position of the next quote at or after i (len: none); searched again only once i has passed it.
    let quote = -1;
    while (i < len) {
      let nl = s.indexOf('\n', i);
      if (nl < 0) {
        if (!end) break;
        nl = len;
      }
      const lineEnd = nl > i && s.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      if (quote < i) {
        quote = s.indexOf('"', i);
        if (quote < 0) quote = len;
      }
      if (quote >= lineEnd) {
        // Fast path: a line without quotes is one record.
        if (lineEnd > i) out.push({ fields: s.slice(i, lineEnd).split(','), line: this.line });
        this.line++;
        i = nl + 1;
        continue;
      }
      const r = this.quoted(s, i, end);
      if (r === null) break; // the record goes on in the next chunk
      out.push(r.record);
      i = r.next;
    }
    if (i < len) this.carry = s.slice(i);
    return out;
  }

  /** Parses one record with quotes starting at `i`; null when the text ends inside it (and more is coming). */
  private quoted(s: string, i: number, end: boolean): { record: CsvRecord; next: number } | null {
    const startLine = this.line;
    let lines = 0;
    const fields: string[] = [];
    let field = '';
    let p = i;
    const len = s.length;
    for (;;) {
      // At the start of a field.
      if (p < len && s.charCodeAt(p) === 34) {
        p++;
        for (;;) {
          const close = s.indexOf('"', p);
          if (close < 0) {
            if (!end) return null;
            throw new CsvSyntaxError(startLine, 'quoted field not closed before the end of the file');
          }
          const part = s.slice(p, close);
          for (let k = part.indexOf('\n'); k >= 0; k = part.indexOf('\n', k + 1)) lines++;
          field += part;
          if (close + 1 < len && s.charCodeAt(close + 1) === 34) {
            field += '"';
            p = close + 2;
            continue;
          }
          if (close + 1 >= len && !end) return null; // cannot tell `"` from `""` yet
          p = close + 1;
          break;
        }
        if (p < len) {
          const c = s.charCodeAt(p);
          if (c === 13 && p + 1 >= len && !end) return null;
          const crlf = c === 13 && (p + 1 < len ? s.charCodeAt(p + 1) === 10 : true);
          if (c !== 44 && c !== 10 && !crlf) {
            throw new CsvSyntaxError(startLine + lines, `unexpected ${JSON.stringify(s[p])} after a closing quote`);
          }
        }
      } else {
        let q = p;
        while (q < len) {
          const c = s.charCodeAt(q);
          if (c === 44 || c === 10) break;
          if (c === 13 && (q + 1 >= len ? end : s.charCodeAt(q + 1) === 10)) break;
          if (c === 13 && q + 1 >= len) return null;
          if (c === 34) throw new CsvSyntaxError(startLine + lines, 'quote inside an unquoted field');
          q++;
        }
        field = s.slice(p, q);
        p = q;
      }
      fields.push(field);
      field = '';
      if (p >= len) {
        if (!end) return null;
        this.line += lines + 1;
        return { record: { fields, line: startLine }, next: len };
      }
      const c = s.charCodeAt(p);
      if (c === 44) {
        p++;
        if (p >= len && !end) return null;
        if (p >= len) {
          fields.push('');
          this.line += lines + 1;
          return { record: { fields, line: startLine }, next: len };
        }
        continue;
      }
      // End of the record: \n or \r\n.
      p += c === 13 ? 2 : 1;
      this.line += lines + 1;
      return { record: { fields, line: startLine }, next: p };
    }
  }
}
