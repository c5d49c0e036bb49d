/**
 * ASN range CSVs: `start,end,asn,organization` (addresses as dotted quads or unsigned integers; a header
 * row is optional and recognised by its first field not being an address), or MaxMind's GeoLite2 ASN CSV
 * (`network,autonomous_system_number,autonomous_system_organization`). IPv6 rows are skipped and counted.
 * Mapping: organization (or autonomous_system_organization) → organization; no kind, no domain, no geo.
 */
import { CsvSyntaxError, csvRecordBatches } from '../sources/csv-records.ts';
import { ImportError } from './errors.ts';
import { parseIPv4 } from './ipv4.ts';

export interface AsnRange {
  first: number;
  last: number;
  asn: string;
  organization: string;
}

export interface AsnCsvStats {
  rows: number;
  skippedIpv6: number;
}

/** Calls `each` per IPv4 range; `onBatch` after each chunk of the file (progress). */
export async function readAsnCsv(file: string, each: (r: AsnRange) => void, onBatch?: (rows: number) => void): Promise<AsnCsvStats> {
  const stats: AsnCsvStats = { rows: 0, skippedIpv6: 0 };
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
        if (fields.some((f) => f.includes(':'))) {
          stats.skippedIpv6++;
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
