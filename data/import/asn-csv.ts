/**
 * ASN range CSVs: `start,end,asn,organization` (addresses as dotted quads or unsigned integers; a header
 * row is optional and recognised by its first field not being an address), or MaxMind's GeoLite2 ASN CSV
 * (`network,autonomous_system_number,autonomous_system_organization`, its IPv4 and its IPv6 file). IPv6 rows
 * (IPv6 CIDRs, or ranges of two IPv6 addresses) go to `each6`, IPv4-mapped ones to `each` as IPv4; without
 * `each6` they are skipped and counted.
 * Mapping: organization (or autonomous_system_organization) → organization; no kind, no domain, no geo.
 */
import { CsvSyntaxError, csvRecordBatches } from '../sources/csv-records.ts';
import { ImportError } from './errors.ts';
import { parseIPv4 } from './ipv4.ts';
import { parseIPv6 } from './ipv6.ts';

export interface AsnRange {
  first: number;
  last: number;
  asn: string;
  organization: string;
}

export interface AsnRange6 {
  first: bigint;
  last: bigint;
  asn: string;
  organization: string;
}

export interface AsnCsvStats {
  /** IPv4 and IPv6 rows read. */
  rows: number;
  ipv6Rows: number;
  skippedIpv6: number;
}

/** Calls `each` per IPv4 range, `each6` per IPv6 range; `onBatch` after each chunk of the file (progress). */
export async function readAsnCsv(
  file: string,
  each: (r: AsnRange) => void,
  onBatch?: (rows: number) => void,
  each6?: (r: AsnRange6) => void,
): Promise<AsnCsvStats> {
  const stats: AsnCsvStats = { rows: 0, ipv6Rows: 0, skippedIpv6: 0 };
  let layout: 'range' | 'cidr' | null = null;
  let row = 0;
  const fail = (why: string): never => {
    throw new ImportError(`--asn-csv ${file}: row ${row}: ${why}`);
  };
  try {
    for await (const records of csvRecordBatches(file)) {
      for (const { fields } of records) {
        row++;
        if (layout === null) {
          const head = fields[0]?.trim().toLowerCase() ?? '';
          layout = head === 'network' || head.includes('/') ? 'cidr' : 'range';
          const isHeader = parseIPv4(fields[0] ?? '') === null && !head.includes('/') && !head.includes(':');
          if (isHeader) continue;
        }
        if (fields[0]?.includes(':') || fields[1]?.includes(':')) {
          if (!each6) {
            stats.skippedIpv6++;
            continue;
          }
          stats.rows++;
          const r = layout === 'cidr' ? cidr6(fields, fail) : range6(fields, fail);
          // IPv4-mapped (::ffff:a.b.c.d) is IPv4, as the index and a visitor's address read it.
          if (r.first >= MAPPED && r.last <= MAPPED + 0xffff_ffffn) {
            each({ ...r, first: Number(r.first - MAPPED), last: Number(r.last - MAPPED) });
            continue;
          }
          stats.ipv6Rows++;
          each6(r);
          continue;
        }
        let first: number;
        let last: number;
        let asn: string;
        let organization: string;
        if (layout === 'cidr') {
          if (fields.length < 3) fail(`expected network,autonomous_system_number,autonomous_system_organization (got ${fields.length} fields)`);
          const [net, prefixText] = fields[0].trim().split('/');
          const base = parseIPv4(net);
          const prefix = Number(prefixText);
          if (base === null || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) fail(`network: "${fields[0]}" is not an IPv4 CIDR`);
          const size = 2 ** (32 - prefix);
          first = base! - (base! % size);
          last = first + size - 1;
          asn = fields[1].trim();
          organization = fields[2].trim();
        } else {
          if (fields.length < 4) fail(`expected start,end,asn,organization (got ${fields.length} fields)`);
          const a = parseIPv4(fields[0]);
          const b = parseIPv4(fields[1]);
          if (a === null) fail(`start: "${fields[0]}" is not an IPv4 address`);
          if (b === null) fail(`end: "${fields[1]}" is not an IPv4 address`);
          if (b! < a!) fail(`end ${fields[1]} is before start ${fields[0]}`);
          first = a!;
          last = b!;
          asn = fields[2].trim().replace(/^AS/i, '');
          organization = fields[3].trim();
        }
        stats.rows++;
        each({ first, last, asn, organization });
      }
      onBatch?.(stats.rows);
    }
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw new ImportError(`--asn-csv ${file}: ${e.message}`);
    throw e;
  }
  return stats;
}

const MAPPED = 0xffffn << 32n;

function cidr6(fields: string[], fail: (why: string) => never): AsnRange6 {
  if (fields.length < 3) fail(`expected network,autonomous_system_number,autonomous_system_organization (got ${fields.length} fields)`);
  const [net, prefixText, extra] = fields[0].trim().split('/');
  const base = parseIPv6(net);
  const prefix = Number(prefixText);
  if (base === null || extra !== undefined || prefixText === '' || !Number.isInteger(prefix) || prefix < 0 || prefix > 128)
    fail(`network: "${fields[0]}" is not an IPv6 CIDR`);
  const size = 1n << BigInt(128 - prefix);
  const first = base! - (base! % size);
  return { first, last: first + size - 1n, asn: fields[1].trim(), organization: fields[2].trim() };
}

function range6(fields: string[], fail: (why: string) => never): AsnRange6 {
  if (fields.length < 4) fail(`expected start,end,asn,organization (got ${fields.length} fields)`);
  const a = parseIPv6(fields[0]);
  const b = parseIPv6(fields[1]);
  if (a === null) fail(`start: "${fields[0]}" is not an IPv6 address`);
  if (b === null) fail(`end: "${fields[1]}" is not an IPv6 address`);
  if (b! < a!) fail(`end ${fields[1]} is before start ${fields[0]}`);
  return { first: a!, last: b!, asn: fields[2].trim().replace(/^AS/i, ''), organization: fields[3].trim() };
}
