/**
 * Every IPv4 network of a MaxMind DB file with its record, in address order, read with the `maxmind`
 * package. The package answers lookups only (no iteration), so we step through the address space with
 * `getWithPrefixLength`: each answer covers its whole prefix (a network, or an empty subtree), so the walk
 * takes one lookup per network or gap — never one per address. IPv6 databases are read at their IPv4
 * subtree (::/96), as the package does for a dotted quad.
 */
import { readFileSync } from 'node:fs';
import { Reader } from 'maxmind';
import { formatIPv4 } from './ipv4.ts';
import { ImportError } from './errors.ts';

export interface MmdbNetwork<T> {
  first: number;
  last: number;
  record: T;
}

export function openMmdb<T>(file: string, expected: RegExp, flag: string): Reader<T & object> {
  let reader: Reader<T & object>;
  try {
    reader = new Reader<T & object>(readFileSync(file));
  } catch (e) {
    throw new ImportError(`${flag} ${file}: not a readable MaxMind DB file (${(e as Error).message})`);
  }
  const type = reader.metadata.databaseType;
  if (!expected.test(type)) throw new ImportError(`${flag} ${file}: database type "${type}" is not what ${flag} takes (${expected.source})`);
  return reader;
}

export function* ipv4Networks<T>(reader: Reader<T & object>): Generator<MmdbNetwork<T>> {
  let addr = 0;
  while (addr <= 0xffff_ffff) {
    const [record, prefix] = reader.getWithPrefixLength(formatIPv4(addr));
    const size = 2 ** (32 - Math.min(32, Math.max(0, prefix)));
    // A walk ending above the IPv4 subtree reports a prefix < 0 relative to it: the rest is one gap.
    const start = addr - (addr % size);
    if (record !== null) yield { first: start, last: start + size - 1, record: record as T };
    addr = start + size;
  }
}
