/**
 * Helpers for the writer's tests (not used by production code): a typed decoder for our own files,
 * the `mmdblookup` runner and a parser for its output, and the MaxMind reference material.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Address4, Address6 } from 'ip-address';
import { Reader } from 'maxmind';
import { DATA_SECTION_SEPARATOR_SIZE, METADATA_START_MARKER } from '../../core/mmdb-format.ts';
import { type MmdbValue, mmdb } from './value.ts';

/**
 * MaxMind's format spec, official test databases and their JSON sources (read-only, shared): the project's
 * `../shared/reference/maxmind-db/`, beside the repository. A clone made elsewhere (`git clone . $tmp/ci`,
 * as CI checks run) has no `../shared` beside it; the repository it was cloned from (its `origin`, a local
 * path) has. When neither has it, the default path is kept and the tests that read it fail naming it.
 */
export const REFERENCE_DIR = referenceDir();

function referenceDir(): string {
  const beside = fileURLToPath(new URL('../../../shared/reference/maxmind-db/', import.meta.url));
  if (existsSync(beside)) return beside;
  const origin = spawnSync('git', ['config', '--get', 'remote.origin.url'], { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8' });
  const from = origin.status === 0 ? origin.stdout.trim() : '';
  const cloned = isAbsolute(from) ? join(from, '../shared/reference/maxmind-db/') : '';
  return cloned !== '' && existsSync(cloned) ? cloned : beside;
}

// ---------------------------------------------------------------------------------------------------
// Typed decoding (our own, independent of the `maxmind` package) to check exact MMDB types. Type numbers,
// size and pointer bases are spelled out from the spec here rather than taken from core/mmdb-format.ts,
// which the writer and the reader share: a mistake there shows up as a disagreement with this decoder.

export type TypedNode =
  | { type: 'map'; value: Record<string, TypedNode> }
  | { type: 'array'; value: TypedNode[] }
  | { type: 'utf8_string'; value: string }
  | { type: 'bytes'; value: Buffer }
  | { type: 'double' | 'float' | 'uint16' | 'uint32' | 'int32'; value: number }
  | { type: 'uint64' | 'uint128'; value: bigint }
  | { type: 'boolean'; value: boolean };

const TYPE_NAMES: Record<number, TypedNode['type'] | 'pointer'> = {
  1: 'pointer',
  2: 'utf8_string',
  3: 'double',
  4: 'bytes',
  5: 'uint16',
  6: 'uint32',
  7: 'map',
  8: 'int32',
  9: 'uint64',
  10: 'uint128',
  11: 'array',
  14: 'boolean',
  15: 'float',
};

/** Decodes the field at `offset`; pointers are resolved relative to `base` (and counted). */
export function decodeTyped(buf: Buffer, offset: number, base: number, stats = { pointers: 0 }): { node: TypedNode; end: number } {
  const ctrl = buf[offset++];
  let t = ctrl >>> 5;
  if (t === 1) {
    const ss = (ctrl >>> 3) & 3;
    const v = ctrl & 7;
    let ptr: number;
    if (ss === 0) ptr = (v << 8) | buf[offset];
    else if (ss === 1) ptr = ((v << 16) | buf.readUInt16BE(offset)) + 2048;
    else if (ss === 2) ptr = v * 2 ** 24 + buf.readUIntBE(offset, 3) + 526_336;
    else ptr = buf.readUInt32BE(offset);
    stats.pointers++;
    const target = decodeTyped(buf, base + ptr, base, stats);
    if (buf[base + ptr] >>> 5 === 1) throw new Error('pointer to a pointer');
    return { node: target.node, end: offset + ss + 1 };
  }
  if (t === 0) t = buf[offset++] + 7;
  let size = ctrl & 31;
  if (size === 29) size = 29 + buf[offset++];
  else if (size === 30) {
    size = 285 + buf.readUInt16BE(offset);
    offset += 2;
  } else if (size === 31) {
    size = 65_821 + buf.readUIntBE(offset, 3);
    offset += 3;
  }
  const type = TYPE_NAMES[t];
  switch (type) {
    case 'map': {
      const value: Record<string, TypedNode> = {};
      for (let i = 0; i < size; i++) {
        const k = decodeTyped(buf, offset, base, stats);
        if (k.node.type !== 'utf8_string') throw new Error('map key is not a string');
        const v = decodeTyped(buf, k.end, base, stats);
        value[k.node.value] = v.node;
        offset = v.end;
      }
      return { node: { type, value }, end: offset };
    }
    case 'array': {
      const value: TypedNode[] = [];
      for (let i = 0; i < size; i++) {
        const v = decodeTyped(buf, offset, base, stats);
        value.push(v.node);
        offset = v.end;
      }
      return { node: { type, value }, end: offset };
    }
    case 'utf8_string':
      return { node: { type, value: buf.toString('utf8', offset, offset + size) }, end: offset + size };
    case 'bytes':
      return { node: { type, value: Buffer.from(buf.subarray(offset, offset + size)) }, end: offset + size };
    case 'double':
      if (size !== 8) throw new Error('double of size ' + size);
      return { node: { type, value: buf.readDoubleBE(offset) }, end: offset + 8 };
    case 'float':
      if (size !== 4) throw new Error('float of size ' + size);
      return { node: { type, value: buf.readFloatBE(offset) }, end: offset + 4 };
    case 'uint16':
    case 'uint32':
      return { node: { type, value: size === 0 ? 0 : buf.readUIntBE(offset, size) }, end: offset + size };
    case 'int32':
      return {
        node: { type, value: size === 0 ? 0 : size === 4 ? buf.readInt32BE(offset) : buf.readUIntBE(offset, size) },
        end: offset + size,
      };
    case 'uint64':
    case 'uint128': {
      let v = 0n;
      for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(buf[offset + i]);
      return { node: { type, value: v }, end: offset + size };
    }
    case 'boolean':
      return { node: { type, value: size === 1 }, end: offset };
    default:
      throw new Error(`unexpected type ${t} at ${offset}`);
  }
}

export interface FileSections {
  nodeCount: number;
  recordSize: number;
  treeSize: number;
  dataStart: number;
  dataEnd: number;
  metadata: TypedNode;
}

/** Splits a database file into its sections, decoding the metadata map with exact types. */
export function fileSections(buf: Buffer): FileSections {
  const at = buf.lastIndexOf(METADATA_START_MARKER);
  if (at < 0) throw new Error('no metadata marker');
  const { node: metadata } = decodeTyped(buf, at + METADATA_START_MARKER.length, at + METADATA_START_MARKER.length);
  if (metadata.type !== 'map') throw new Error('metadata is not a map');
  const nodeCount = Number(metadata.value.node_count.value);
  const recordSize = Number(metadata.value.record_size.value);
  const treeSize = (nodeCount * recordSize) / 4;
  return { nodeCount, recordSize, treeSize, dataStart: treeSize + DATA_SECTION_SEPARATOR_SIZE, dataEnd: at, metadata };
}

/** All top-level values laid out one after another in the data section. */
export function dataSectionValues(buf: Buffer): TypedNode[] {
  const s = fileSections(buf);
  const out: TypedNode[] = [];
  let p = s.dataStart;
  while (p < s.dataEnd) {
    const { node, end } = decodeTyped(buf, p, s.dataStart);
    out.push(node);
    p = end;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// mmdblookup (libmaxminddb's command-line tool, Debian package mmdb-bin).

export const MMDBLOOKUP_MISSING = 'mmdblookup not found: install mmdb-bin (apt-get install -y mmdb-bin)';

export function runMmdblookup(args: string[], env: NodeJS.ProcessEnv = process.env): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('mmdblookup', args, { encoding: 'utf8', env });
  if (r.error) {
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(MMDBLOOKUP_MISSING);
    throw r.error;
  }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A value as mmdblookup prints it: maps, arrays, and scalars as (text, type) pairs. */
export type LookupNode =
  | { kind: 'map'; entries: [string, LookupNode][] }
  | { kind: 'array'; items: LookupNode[] }
  | { kind: 'scalar'; text: string; type: string };

/** Parses mmdblookup's pretty-printed data (everything after "Record prefix length" or the whole stdout). */
export function parseLookupOutput(out: string): LookupNode {
  let pos = 0;
  const ws = (): void => {
    while (pos < out.length && /\s/.test(out[pos])) pos++;
  };
  const value = (): LookupNode => {
    ws();
    const c = out[pos];
    if (c === '{') {
      pos++;
      const entries: [string, LookupNode][] = [];
      for (;;) {
        ws();
        if (out[pos] === '}') {
          pos++;
          return { kind: 'map', entries };
        }
        const m = /^"([\s\S]*?)":[ \t]*\n/.exec(out.slice(pos));
        if (!m) throw new Error(`cannot parse mmdblookup key at ${JSON.stringify(out.slice(pos, pos + 40))}`);
        pos += m[0].length;
        entries.push([m[1], value()]);
      }
    }
    if (c === '[') {
      pos++;
      const items: LookupNode[] = [];
      for (;;) {
        ws();
        if (out[pos] === ']') {
          pos++;
          return { kind: 'array', items };
        }
        items.push(value());
      }
    }
    if (c === '"') {
      const end = out.indexOf('" <utf8_string>', pos + 1);
      if (end < 0) throw new Error('unterminated string in mmdblookup output');
      const text = out.slice(pos + 1, end);
      pos = end + '" <utf8_string>'.length;
      return { kind: 'scalar', text, type: 'utf8_string' };
    }
    const m = /^(\S+) <(\w+)>/.exec(out.slice(pos));
    if (!m) throw new Error(`cannot parse mmdblookup value at ${JSON.stringify(out.slice(pos, pos + 40))}`);
    pos += m[0].length;
    return { kind: 'scalar', text: m[1], type: m[2] };
  };
  const start = out.search(/[{["0-9a-zA-Z-]/);
  pos = start < 0 ? out.length : start;
  const v = value();
  ws();
  if (pos !== out.length) throw new Error(`trailing mmdblookup output: ${JSON.stringify(out.slice(pos, pos + 40))}`);
  return v;
}

/**
 * Compares a value printed by mmdblookup with the value the `maxmind` package returned. Returns a
 * description of the first difference, or undefined. Doubles/floats are printed with %f (6 decimals),
 * so they match within half a unit of the 6th decimal.
 */
export function diffLookup(printed: LookupNode, js: unknown, path = '$'): string | undefined {
  if (printed.kind === 'map') {
    if (typeof js !== 'object' || js === null || Array.isArray(js)) return `${path}: map vs ${typeof js}`;
    const keys = Object.keys(js);
    if (keys.length !== printed.entries.length) return `${path}: ${printed.entries.length} keys vs ${keys.length}`;
    for (const [k, v] of printed.entries) {
      if (!(k in js)) return `${path}: key ${k} missing`;
      const d = diffLookup(v, (js as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
    return undefined;
  }
  if (printed.kind === 'array') {
    if (!Array.isArray(js) || js.length !== printed.items.length) return `${path}: array length`;
    for (let i = 0; i < js.length; i++) {
      const d = diffLookup(printed.items[i], js[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const { text, type } = printed;
  const bad = (): string => `${path}: mmdblookup ${text} <${type}> vs maxmind ${String(js)}`;
  switch (type) {
    case 'utf8_string':
      return js === text ? undefined : bad();
    case 'boolean':
      return js === (text === 'true') ? undefined : bad();
    case 'uint16':
    case 'uint32':
    case 'int32':
      return js === Number(text) ? undefined : bad();
    case 'uint64':
    case 'uint128':
      return js === BigInt(text) ? undefined : bad();
    case 'double':
    case 'float':
      return typeof js === 'number' && Math.abs(js - Number(text)) <= 5e-7 + 1e-15 * Math.abs(js) ? undefined : bad();
    case 'bytes':
      return Buffer.isBuffer(js) && js.toString('hex').toUpperCase() === text ? undefined : bad();
    default:
      return `${path}: unknown mmdblookup type ${type}`;
  }
}

/** Data part of `mmdblookup --file F --ip IP` (null when the address is not found). */
export function lookupWithMmdblookup(file: string, ip: string): LookupNode | null {
  const r = runMmdblookup(['--file', file, '--ip', ip]);
  if ((r.stdout + r.stderr).includes('Could not find an entry for this IP address')) return null;
  if (r.status !== 0) throw new Error(`mmdblookup --file ${file} --ip ${ip} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return parseLookupOutput(r.stdout);
}

/**
 * `lookupWithMmdblookup` for many addresses: one shell runs mmdblookup once per address (a process each,
 * ≈ 1.5 ms), and the outputs are split by a marker line — minutes of Node spawns become seconds.
 */
export function lookupManyWithMmdblookup(file: string, ips: readonly string[], workDir: string): (LookupNode | null)[] {
  runMmdblookup(['--version']); // the install hint when it is missing
  const list = `${workDir}/probes-${process.pid}.txt`;
  writeFileSync(list, `${ips.join('\n')}\n`);
  const r = spawnSync('sh', ['-c', 'while read -r ip; do echo "@@@ $ip"; mmdblookup --file "$1" --ip "$ip" 2>&1; done < "$2"; exit 0', 'sh', file, list], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`mmdblookup loop failed (${r.status}): ${r.stderr}`);
  const blocks = r.stdout.split(/^@@@ .*\n/m).slice(1);
  if (blocks.length !== ips.length) throw new Error(`mmdblookup answered ${blocks.length} of ${ips.length} addresses`);
  return blocks.map((out, i) => {
    if (out.includes('Could not find an entry for this IP address')) return null;
    if (!/[{[]/.test(out)) throw new Error(`mmdblookup --ip ${ips[i]}: ${out}`);
    return parseLookupOutput(out);
  });
}

/** Metadata as printed by `mmdblookup --verbose` (which also proves libmaxminddb opened the file). */
export function verboseMetadata(file: string, ip: string): Record<string, string> {
  const r = runMmdblookup(['--file', file, '--ip', ip, '--verbose']);
  const out = r.stdout;
  if (!out.includes('Database metadata')) throw new Error(`mmdblookup could not open ${file}: ${r.stderr}${out}`);
  const field = (label: string): string => {
    const m = new RegExp(`^\\s*${label}:[ \\t]*(.*)$`, 'm').exec(out);
    if (!m) throw new Error(`no "${label}" in mmdblookup --verbose output`);
    return m[1].trim();
  };
  const desc = /Description:\n((?:\s{6}\S.*\n)*)/.exec(out);
  return {
    nodeCount: field('Node count'),
    recordSize: field('Record size'),
    ipVersion: field('IP version'),
    binaryFormat: field('Binary format'),
    buildEpoch: field('Build epoch'),
    type: field('Type'),
    languages: field('Languages'),
    description: desc ? desc[1].trim() : '',
  };
}

// ---------------------------------------------------------------------------------------------------
// MaxMind's reference sources (JSON arrays of { "<network>": record }).

/**
 * The numeric types MaxMind's own generator (`cmd/write-test-data`, pkg/writer/geoip2.go `toMMDBType`)
 * gives JSON numbers, by key; arrays inherit their key. JSON cannot say uint16 vs uint32 vs double, so
 * without this table an integral latitude would be stored as uint16 (and printed so by mmdblookup).
 */
export const REFERENCE_NUMBER_TYPES: Record<string, 'uint16' | 'uint32' | 'double'> = {
  accuracy_radius: 'uint16',
  anonymizer_confidence: 'uint16',
  confidence: 'uint16',
  metro_code: 'uint16',
  autonomous_system_number: 'uint32',
  average_income: 'uint32',
  geoname_id: 'uint32',
  ipv4_24: 'uint32',
  ipv4_32: 'uint32',
  ipv6_32: 'uint32',
  ipv6_48: 'uint32',
  ipv6_64: 'uint32',
  population_density: 'uint32',
  ip_risk: 'double',
  latitude: 'double',
  longitude: 'double',
  score: 'double',
  static_ip_score: 'double',
};

/** JSON value → MMDB value with MaxMind's number types applied. */
export function withReferenceTypes(key: string, v: unknown): MmdbValue {
  if (typeof v === 'number') {
    const t = REFERENCE_NUMBER_TYPES[key];
    if (!t) throw new Error(`no number type known for key ${key}`);
    return mmdb[t](v);
  }
  if (Array.isArray(v)) return v.map((x) => withReferenceTypes(key, x));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, MmdbValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = withReferenceTypes(k, x);
    return out;
  }
  return v as MmdbValue;
}

export interface SourceNetwork {
  /** The network as listed in the source. */
  listed: string;
  /** The network with host bits cleared (MaxMind's writer masks; ours refuses host bits). */
  network: string;
  /** IPv4 notation in the source (queried with IPv4 strings). */
  v4: boolean;
  /** Bounds in the IPv6 tree's address space (IPv4 in ::/96). */
  start: bigint;
  end: bigint;
  record: unknown;
}

export function loadReferenceSource(fileName: string): SourceNetwork[] {
  const rows = JSON.parse(readFileSync(`${REFERENCE_DIR}source-data/${fileName}`, 'utf8')) as Record<string, unknown>[];
  const out: SourceNetwork[] = [];
  for (const row of rows) {
    for (const [listed, record] of Object.entries(row)) {
      const v4 = !listed.includes(':');
      const a = v4 ? new Address4(listed) : new Address6(listed);
      const bits = v4 ? 32 : 128;
      const host = (1n << BigInt(bits - a.subnetMask)) - 1n;
      const start = a.bigInt() & ~host;
      const network = (v4 ? Address4.fromBigInt(start).correctForm() : Address6.fromBigInt(start).correctForm()) + '/' + a.subnetMask;
      out.push({ listed, network, v4, start, end: start | host, record });
    }
  }
  return out;
}

export function officialDatabase(baseName: string): Reader<never> | undefined {
  const file = `${REFERENCE_DIR}test-data/${baseName}.mmdb`;
  return existsSync(file) ? new Reader(readFileSync(file)) : undefined;
}

/** Address text for a position inside a source network (IPv4 notation for IPv4-listed networks). */
export function addressText(x: bigint, v4: boolean): string {
  return v4 ? Address4.fromBigInt(x).correctForm() : Address6.fromBigInt(x).correctForm();
}

// ---------------------------------------------------------------------------------------------------
// Walking a file's search tree: every network with data, and the aliases of an IPv6 tree.

export interface TreeLeaf {
  /** First address (IPv6 trees: in the 128-bit space, IPv4 in ::/96) and prefix length in the tree. */
  start: bigint;
  prefix: number;
  /** Data-section offset of the record (equal offsets: the same record). */
  offset: number;
}

export interface TreeWalk {
  bits: 32 | 128;
  leaves: TreeLeaf[];
  /** IPv6 trees: networks whose record points back at the IPv4 root (::/96), e.g. ::ffff:0:0/96. */
  aliases: { start: bigint; prefix: number }[];
}

/**
 * Every network of a database's tree that holds data, in address order, read from the raw records (no
 * reader involved): what a round trip through another writer must reproduce. A record that points at
 * the IPv4 root node (::/96) from anywhere but ::/96 itself is an alias, listed and not followed.
 */
export function walkTree(buf: Buffer): TreeWalk {
  const s = fileSections(buf);
  const ipVersion = Number((s.metadata as { value: Record<string, TypedNode> }).value.ip_version.value);
  const bits = ipVersion === 6 ? 128 : 32;
  const rec = (node: number, side: number): number => {
    switch (s.recordSize) {
      case 24:
        return buf.readUIntBE(node * 6 + side * 3, 3);
      case 28: {
        const o = node * 7;
        return side === 0 ? (buf[o + 3] & 0xf0) * 0x100000 + buf.readUIntBE(o, 3) : (buf[o + 3] & 0x0f) * 0x1000000 + buf.readUIntBE(o + 4, 3);
      }
      default:
        return buf.readUInt32BE(node * 8 + side * 4);
    }
  };
  let ipv4Root = -1;
  if (bits === 128) {
    let n = 0;
    for (let i = 0; i < 96 && n < s.nodeCount; i++) n = rec(n, 0);
    if (n < s.nodeCount) ipv4Root = n;
  }
  const leaves: TreeLeaf[] = [];
  const aliases: TreeWalk['aliases'] = [];
  const visit = (node: number, depth: number, start: bigint): void => {
    for (const side of [0, 1]) {
      const r = rec(node, side);
      const childStart = start | (BigInt(side) << BigInt(bits - depth - 1));
      if (r === ipv4Root && !(depth + 1 === 96 && childStart === 0n)) {
        aliases.push({ start: childStart, prefix: depth + 1 });
      } else if (r < s.nodeCount) {
        visit(r, depth + 1, childStart);
      } else if (r > s.nodeCount) {
        leaves.push({ start: childStart, prefix: depth + 1, offset: r - s.nodeCount - DATA_SECTION_SEPARATOR_SIZE });
      }
    }
  };
  visit(0, 0, 0n);
  return { bits, leaves, aliases };
}
