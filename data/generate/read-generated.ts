/**
 * Test support: reads a generated sources folder back with csv-parse (not with the generator's own code),
 * and does network arithmetic with ip-address, so the tests check the output independently.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { Address4, Address6 } from 'ip-address';
import { SOURCE_FILES } from '../sources/schema.ts';

export type CsvKey = Exclude<keyof typeof SOURCE_FILES, 'customers'>;

export function readRows(dir: string, key: CsvKey): Record<string, string>[] {
  return parse(readFileSync(join(dir, SOURCE_FILES[key])), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
}

export function headerLine(dir: string, key: CsvKey): string {
  const text = readFileSync(join(dir, SOURCE_FILES[key]), 'utf8');
  return text.slice(0, text.indexOf('\n'));
}

export interface Span {
  first: number;
  last: number;
}

function toNumber(ip: string): number {
  const a = new Address4(ip);
  if (!a.isCorrect()) throw new Error(`not a canonical IPv4 address: ${ip}`);
  return Number(a.bigInt());
}

/** `a.b.c.d/n` (the network address itself, not a host inside it) or `a.b.c.d-e.f.g.h` with first ≤ last. */
export function parseNetwork(text: string): Span {
  if (text.includes('-')) {
    const [a, b] = text.split('-');
    const first = toNumber(a);
    const last = toNumber(b);
    if (first > last) throw new Error(`range ends before it starts: ${text}`);
    return { first, last };
  }
  if (!Address4.isValid(text) || !text.includes('/')) throw new Error(`not a CIDR: ${text}`);
  const net = new Address4(text);
  const first = Number(net.startAddress().bigInt());
  if (first !== toNumber(text.slice(0, text.indexOf('/')))) throw new Error(`CIDR not at its network address: ${text}`);
  return { first, last: Number(net.endAddress().bigInt()) };
}

export const ipNumber = toNumber;

export interface NetworkEntry extends Span {
  row: Record<string, string>;
  /** Position in the file (0 = first data row). */
  index: number;
}

/** The IPv4 rows of networks.csv (IPv6 rows: networkEntries6); `index` counts every row. */
export function networkEntries(dir: string): NetworkEntry[] {
  return readRows(dir, 'networks').flatMap((row, index) => (row.network.includes(':') ? [] : [{ ...parseNetwork(row.network), row, index }]));
}

export interface NetworkEntry6 {
  first: bigint;
  last: bigint;
  prefix: number;
  row: Record<string, string>;
  index: number;
}

/** The IPv6 rows of networks.csv: CIDRs in canonical (RFC 5952) form at their network address. */
export function networkEntries6(dir: string): NetworkEntry6[] {
  return readRows(dir, 'networks').flatMap((row, index) => {
    if (!row.network.includes(':')) return [];
    const net = new Address6(row.network);
    const first = net.startAddress().bigInt();
    if (first !== new Address6(row.network.slice(0, row.network.indexOf('/'))).bigInt()) throw new Error(`CIDR not at its network address: ${row.network}`);
    if (`${Address6.fromBigInt(first).correctForm()}/${net.subnetMask}` !== row.network) throw new Error(`not in canonical form: ${row.network}`);
    return [{ first, last: net.endAddress().bigInt(), prefix: net.subnetMask, row, index }];
  });
}

/** The entry that answers for an address: the most specific network containing it; equal networks: the later row. */
export function resolve(entries: readonly NetworkEntry[], ip: number): NetworkEntry | null {
  let best: NetworkEntry | null = null;
  for (const e of entries) {
    if (ip < e.first || ip > e.last) continue;
    if (!best || e.last - e.first < best.last - best.first || (e.last - e.first === best.last - best.first && e.index > best.index)) best = e;
  }
  return best;
}

/** True when nothing overrides the entry anywhere: no more specific network inside it, no later equal network. */
export function answersForItself(entries: readonly NetworkEntry[], e: NetworkEntry): boolean {
  return entries.every((o) => {
    if (o === e || o.last < e.first || o.first > e.last) return true;
    const inside = o.first >= e.first && o.last <= e.last;
    const equal = o.first === e.first && o.last === e.last;
    if (equal) return o.index < e.index;
    return !inside;
  });
}
