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
 *
 * Files are UTF-8 (a BOM is skipped) or UTF-16 with a BOM (decoded); anything else is refused rather than
 * guessed at (see FileText). Fields and records have length limits (MAX_FIELD_LENGTH, MAX_RECORD_LENGTH)
 * enforced while a record is still arriving, so memory stays bounded by the limit plus one chunk.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';

/**
 * Far above any real value (a company description, an organization name) and far below what hurts: an
 * unbounded field is held whole as it arrives, and an 80 MB one once took 3.7 GB.
 */
export const MAX_FIELD_LENGTH = 64 * 1024;
/** Bounds a record of many fields that are each within MAX_FIELD_LENGTH (or a file without line breaks). */
export const MAX_RECORD_LENGTH = 1024 * 1024;

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

/**
 * Bytes read (and decoded) at a time. Kept under V8's large-object size once decoded: a string over
 * 128 KiB is a large object, which V8 maps fresh and unmaps at the next GC. At 1 MiB chunks, reading
 * people.csv (920 MB, 5.6 M rows) first-touched 4 GB of memory: 1 M page faults, 13 s of CPU in user
 * and 8 s in the kernel on this VM; at 64 KiB the text lives in the young generation, whose pages are
 * reused: 170 k faults, 8.5 s (and 7 k faults, 6 s, with FileText's line-by-line decoding).
 */
export const CHUNK_BYTES = 64 * 1024;

/** The same records in batches (one per chunk read): millions of rows cost one async step per batch. */
export async function* csvRecordBatches(file: string, opts: { chunkSize?: number } = {}): AsyncGenerator<CsvRecord[]> {
  const stream = createReadStream(file, { highWaterMark: opts.chunkSize ?? CHUNK_BYTES });
  const parser = new CsvParser();
  const text = new FileText(file, () => parser.lineReached());
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const batch: CsvRecord[] = [];
    for (const part of text.decode(chunk)) parser.push(part, false, batch);
    if (batch.length > 0) yield batch;
  }
  const last = parser.push(text.end(), true, []);
  if (last.length > 0) yield last;
}

const ICONV_HINT = 'convert to UTF-8 (e.g. iconv -f latin1 -t utf-8)';

/**
 * Bytes → text: UTF-8, or UTF-16 when the file starts with its BOM (Excel's "Unicode text"). Bytes that
 * are not UTF-8 (Latin-1, Windows-1252) are refused, not decoded as Windows-1252: a UTF-8 file with one
 * stray byte would be turned wholesale into mojibake, and the operator knows the file's encoding better
 * than a guess does. NUL bytes are refused too: they mean UTF-16 without a BOM, or not text.
 *
 * UTF-8 is checked with `isUtf8` and decoded with `toString` rather than through a fatal TextDecoder,
 * which measured about 1.5× slower through the parser on a 200 MB networks file.
 */
class FileText {
  private utf16: TextDecoder | null = null;
  private started = false;
  /** Bytes not decoded yet: the BOM test's first byte, or a UTF-8 sequence cut by the chunk's end. */
  private pending: Buffer | null = null;

  constructor(
    private readonly file: string,
    /** The parser's line so far, for errors found in text the parser has not seen. */
    private readonly line: () => number,
  ) {}

  /** The chunk's text, in parts whose concatenation is the text (see decode8). */
  decode(chunk: Buffer): string[] {
    let bytes = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    if (!this.started) {
      // The BOM decides the encoding; chunks can be a single byte (tests), so wait for two.
      if (bytes.length < 2) {
        this.pending = bytes;
        return [];
      }
      this.started = true;
      // fatal: an invalid sequence throws instead of becoming U+FFFD; the BOM itself is skipped.
      if (bytes[0] === 0xff && bytes[1] === 0xfe) this.utf16 = new TextDecoder('utf-16le', { fatal: true });
      if (bytes[0] === 0xfe && bytes[1] === 0xff) this.utf16 = new TextDecoder('utf-16be', { fatal: true });
      if (bytes[0] === 0xef && bytes[1] === 0xbb) {
        if (bytes.length < 3) {
          this.started = false;
          this.pending = bytes;
          return [];
        }
        if (bytes[2] === 0xbf) bytes = bytes.subarray(3);
      }
    }
    if (this.utf16) return [this.decode16(bytes, false)];
    const cut = completeLength(bytes);
    if (cut < bytes.length) this.pending = Buffer.from(bytes.subarray(cut));
    return this.decode8(bytes.subarray(0, cut));
  }

  end(): string {
    const rest = this.pending ?? Buffer.alloc(0);
    this.pending = null;
    if (this.utf16) return this.decode16(rest, true);
    // What is left: a file of one byte, or a sequence the file ends in the middle of.
    if (completeLength(rest) < rest.length) this.fail();
    return this.decode8(rest).join('');
  }

  /**
   * Valid UTF-8 → text, in parts: runs of ASCII lines as Latin-1 (a copy, one byte a character) and each
   * line holding other characters decoded on its own. One character beyond Latin-1 makes a whole decoded
   * string two bytes a character, and with it every field split from it: people.csv, where one row in 64
   * has such a character (so nearly every chunk), then cost 22 % more to load (the fields' UTF-8
   * conversion into SQLite, the splits, the copies); decoded line by line only those lines are.
   */
  private decode8(bytes: Buffer): string[] {
    if (bytes.indexOf(0) >= 0 || !isUtf8(bytes)) this.fail();
    if (isAscii(bytes)) return [bytes.toString('latin1')];
    const parts: string[] = [];
    const n = bytes.length;
    let run = 0; // start of the current run of ASCII lines
    for (let k = 0; k < n; k++) {
      if (bytes[k] < 0x80) continue;
      const lineStart = bytes.lastIndexOf(10, k) + 1;
      let lineEnd = bytes.indexOf(10, k);
      lineEnd = lineEnd < 0 ? n : lineEnd + 1;
      if (lineStart > run) parts.push(bytes.toString('latin1', run, lineStart));
      parts.push(bytes.toString('utf8', lineStart, lineEnd));
      run = lineEnd;
      k = lineEnd - 1;
    }
    if (run < n) parts.push(bytes.toString('latin1', run, n));
    return parts;
  }

  private decode16(bytes: Buffer, end: boolean): string {
    try {
      return this.utf16!.decode(bytes, { stream: !end });
    } catch {
      const encoding = this.utf16!.encoding;
      const line = firstBadUtf16(this.file, encoding === 'utf-16be') ?? this.line();
      throw new CsvSyntaxError(line, `not valid ${encoding.toUpperCase()} (an unpaired surrogate, or an odd number of bytes): convert to UTF-8`);
    }
  }

  /** `isUtf8` says only "invalid": the file is read again to name the line and the byte. */
  private fail(): never {
    const bad = firstBadByte(this.file);
    const line = bad?.line ?? this.line();
    if (bad?.byte === 0)
      throw new CsvSyntaxError(line, 'NUL byte: not UTF-8 text (UTF-16 without a byte-order mark?): convert to UTF-8 (e.g. iconv -f utf-16 -t utf-8)');
    const byte = bad ? ` (byte 0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')})` : '';
    throw new CsvSyntaxError(line, `not valid UTF-8${byte}, perhaps Latin-1 or Windows-1252: ${ICONV_HINT}`);
  }
}

/**
 * Length of `bytes` without a UTF-8 sequence its end cuts short (kept for the next chunk). Only the
 * cut matters here; whether the bytes are valid is isUtf8's to say.
 */
function completeLength(bytes: Buffer): number {
  const n = bytes.length;
  for (let k = n - 1; k >= 0 && k >= n - 3; k--) {
    const b = bytes[k];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return k + length > n ? k : n;
  }
  return n;
}

/** The first NUL byte or invalid UTF-8 sequence of the file (strict UTF-8: no overlongs, no surrogates, as isUtf8). */
function firstBadByte(file: string): { line: number; byte: number } | null {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let line = 1;
    let need = 0;
    let lead = 0;
    let lower = 0x80;
    let upper = 0xbf;
    for (let n: number; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      for (let k = 0; k < n; k++) {
        const b = buf[k];
        if (need > 0) {
          if (b < lower || b > upper) return { line, byte: lead };
          lower = 0x80;
          upper = 0xbf;
          need--;
          continue;
        }
        if (b < 0x80) {
          if (b === 0) return { line, byte: 0 };
          if (b === 10) line++;
          continue;
        }
        lead = b;
        if (b >= 0xc2 && b <= 0xdf) need = 1;
        else if (b >= 0xe0 && b <= 0xef) {
          need = 2;
          if (b === 0xe0) lower = 0xa0;
          if (b === 0xed) upper = 0x9f;
        } else if (b >= 0xf0 && b <= 0xf4) {
          need = 3;
          if (b === 0xf0) lower = 0x90;
          if (b === 0xf4) upper = 0x8f;
        } else return { line, byte: b };
      }
    }
    return need > 0 ? { line, byte: lead } : null;
  } finally {
    closeSync(fd);
  }
}

/** The line of the first unpaired surrogate or odd final byte of a UTF-16 file (after its BOM). */
function firstBadUtf16(file: string, bigEndian: boolean): number | null {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let line = 1;
    let high = false;
    let odd = -1;
    let skip = 2;
    for (let n: number; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      for (let k = 0; k < n; k++) {
        if (skip > 0) {
          skip--;
          continue;
        }
        if (odd < 0) {
          odd = buf[k];
          continue;
        }
        const unit = bigEndian ? (odd << 8) | buf[k] : (buf[k] << 8) | odd;
        odd = -1;
        const low = unit >= 0xdc00 && unit <= 0xdfff;
        if (high !== low) return line;
        high = unit >= 0xd800 && unit <= 0xdbff;
        if (unit === 10) line++;
      }
    }
    return high || odd >= 0 ? line : null;
  } finally {
    closeSync(fd);
  }
}

/** Throws when a record's text or one of its fields is over the limits. */
function checkLengths(line: number, recordLength: number, fields: readonly string[]): void {
  if (recordLength > MAX_RECORD_LENGTH) throw new CsvSyntaxError(line, `record longer than the limit of ${MAX_RECORD_LENGTH} characters`);
  for (let k = 0; k < fields.length; k++) {
    if (fields[k].length > MAX_FIELD_LENGTH) throw new CsvSyntaxError(line, `field ${k + 1} longer than the limit of ${MAX_FIELD_LENGTH} characters`);
  }
}

/**
 * The same limits on the start of a record whose end has not arrived yet: waiting for the end is what
 * let one field take all memory. Field lengths count characters as parsed (`""` is one).
 */
function checkPartial(line: number, s: string): void {
  if (s.length > MAX_RECORD_LENGTH) throw new CsvSyntaxError(line, `record longer than the limit of ${MAX_RECORD_LENGTH} characters`);
  let field = 0;
  let length = 0;
  let quoted = false;
  let start = true;
  for (let p = 0; p < s.length; p++) {
    const c = s.charCodeAt(p);
    if (quoted) {
      if (c === 34) {
        if (s.charCodeAt(p + 1) === 34) p++;
        else {
          quoted = false;
          continue;
        }
      }
    } else if (c === 44) {
      field++;
      length = 0;
      start = true;
      continue;
    } else if (c === 34 && start) {
      quoted = true;
      start = false;
      continue;
    }
    start = false;
    if (++length > MAX_FIELD_LENGTH) throw new CsvSyntaxError(line, `field ${field + 1} longer than the limit of ${MAX_FIELD_LENGTH} characters`);
  }
}

class CsvParser {
  private carry = '';
  private line = 1;

  /** The line the text pushed so far ends on. */
  lineReached(): number {
    let n = this.line;
    for (let k = this.carry.indexOf('\n'); k >= 0; k = this.carry.indexOf('\n', k + 1)) n++;
    return n;
  }

  /** Adds to `out` the records complete in the text so far and returns it; `end`: no more text will come. */
  push(chunk: string, end: boolean, out: CsvRecord[]): CsvRecord[] {
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
        if (lineEnd > i) {
          const fields = s.slice(i, lineEnd).split(',');
          if (lineEnd - i > MAX_FIELD_LENGTH) checkLengths(this.line, lineEnd - i, fields);
          out.push({ fields, line: this.line });
        }
        this.line++;
        i = nl + 1;
        continue;
      }
      const r = this.quoted(s, i, end);
      if (r === null) break; // the record goes on in the next chunk
      if (r.next - i > MAX_FIELD_LENGTH) checkLengths(r.record.line, r.next - i, r.record.fields);
      out.push(r.record);
      i = r.next;
    }
    if (i < len) {
      this.carry = s.slice(i);
      if (this.carry.length > MAX_FIELD_LENGTH) checkPartial(this.line, this.carry);
    }
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
