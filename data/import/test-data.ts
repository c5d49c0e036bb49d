/** MaxMind's official test databases (../shared/reference/maxmind-db/test-data/) and our fixtures, for tests. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Reader } from 'maxmind';
import { REFERENCE_DIR as REFERENCE } from '../mmdb/test-support.ts';

export const MAXMIND_TEST_DB = {
  enterprise: `${REFERENCE}test-data/GeoIP2-Enterprise-Test.mmdb`,
  isp: `${REFERENCE}test-data/GeoIP2-ISP-Test.mmdb`,
  domain: `${REFERENCE}test-data/GeoIP2-Domain-Test.mmdb`,
  asn: `${REFERENCE}test-data/GeoLite2-ASN-Test.mmdb`,
  city: `${REFERENCE}test-data/GeoIP2-City-Test.mmdb`,
  anonymousIp: `${REFERENCE}test-data/GeoIP2-Anonymous-IP-Test.mmdb`,
} as const;

export const MAXMIND_SOURCE_JSON = (name: string): string => `${REFERENCE}source-data/${name}.json`;

export const FIRMOGRAPHICS_FIXTURE = fileURLToPath(new URL('./fixtures/firmographics.csv', import.meta.url));

/** MaxMind's corrupt databases, by what is wrong with them (bad-data/README.md; test-data/README.md). */
export const MAXMIND_BAD_DB = {
  /** A search-tree record pointing into the 16-byte separator before the data section. */
  pointerIntoSeparator: `${REFERENCE}bad-data/libmaxminddb/libmaxminddb-separator-record-min-left.mmdb`,
  pointerIntoSeparatorRight: `${REFERENCE}bad-data/libmaxminddb/libmaxminddb-separator-record-min-right.mmdb`,
  /** A search-tree record pointing past the end of the data section. */
  pointerPastData: `${REFERENCE}test-data/MaxMind-DB-test-broken-pointers-24.mmdb`,
  pointerPastDataToo: `${REFERENCE}bad-data/maxminddb-python/bad-unicode-in-map-key.mmdb`,
  /** The root's right record points back to the root. */
  brokenSearchTree: `${REFERENCE}test-data/MaxMind-DB-test-broken-search-tree-24.mmdb`,
  /** 99 unreachable nodes whose records point back to the root. */
  corruptSearchTree: `${REFERENCE}bad-data/libmaxminddb/libmaxminddb-corrupt-search-tree.mmdb`,
  /** node_count larger than the file holds. */
  invalidNodeCount: `${REFERENCE}test-data/GeoIP2-City-Test-Invalid-Node-Count.mmdb`,
  /** Data records that do not decode (an array or map size field too long). */
  oversizedArray: `${REFERENCE}bad-data/libmaxminddb/libmaxminddb-oversized-array.mmdb`,
  oversizedMap: `${REFERENCE}bad-data/libmaxminddb/libmaxminddb-oversized-map.mmdb`,
} as const;

/**
 * A copy of a MaxMind DB (written to `dest`) whose first IPv4 data record is replaced by what `value`
 * returns, given the record's node and the node count: broken databases of a type the import accepts.
 */
export function withFirstIpv4Record(src: string, dest: string, value: (node: number, nodeCount: number) => number): string {
  const db = readFileSync(src);
  const { nodeCount, recordSize, ipVersion } = new Reader(db).metadata;
  const bytes = recordSize / 4;
  const read = (node: number, side: number): number => {
    const o = node * bytes;
    if (recordSize === 24) return db.readUIntBE(o + side * 3, 3);
    if (recordSize === 32) return db.readUInt32BE(o + side * 4);
    return side === 0 ? (db[o + 3] >> 4) * 0x1000000 + db.readUIntBE(o, 3) : (db[o + 3] & 0x0f) * 0x1000000 + db.readUIntBE(o + 4, 3);
  };
  const write = (node: number, side: number, v: number): void => {
    const o = node * bytes;
    if (recordSize === 24) db.writeUIntBE(v, o + side * 3, 3);
    else if (recordSize === 32) db.writeUInt32BE(v, o + side * 4);
    else {
      db.writeUIntBE(v & 0xffffff, side === 0 ? o : o + 4, 3);
      const high = Math.floor(v / 0x1000000) & 0x0f;
      db[o + 3] = side === 0 ? (db[o + 3] & 0x0f) | (high << 4) : (db[o + 3] & 0xf0) | high;
    }
  };
  let start = 0;
  for (let i = 0; ipVersion === 6 && i < 96; i++) start = read(start, 0);
  const stack = [start];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const side of [0, 1]) {
      const v = read(node, side);
      if (v > nodeCount) {
        write(node, side, value(node, nodeCount));
        writeFileSync(dest, db);
        return dest;
      }
    }
    for (const side of [1, 0]) if (read(node, side) < nodeCount) stack.push(read(node, side));
  }
  throw new Error(`${src}: no IPv4 data record`);
}
